"""ChatLog reads the fake LLM's request log by question and by delivery, as the batch fault cases check it."""

from types import SimpleNamespace

from .duplicates import CHAT, ChatLog


def _ask(log, *questions: str) -> None:
    for question in questions:
        log.requests.append({"path": "/v1/embeddings", "prompt": None})
        log.requests.append({"path": CHAT, "prompt": f"Passages:\n[1] text\n\nQuestion: {question}"})


def test_a_question_in_flight_at_a_kill_is_asked_again_and_counted_as_such():
    fake = SimpleNamespace(
        requests=[{"path": CHAT, "prompt": "Question: from an earlier case"}], wait_until_read=lambda: None
    )
    chat = ChatLog(fake)
    _ask(fake, "q1", "q2", "q3")
    chat.cut(done={"q1", "q2"})  # q3 was in flight
    _ask(fake, "q3", "q4")

    assert chat.calls() == 5
    assert chat.in_flight_at_cuts() == [1]
    assert chat.asked_more_than_once() == ["q3"]
    assert chat.asked_twice_by_one_delivery() == []
    assert chat.asked_again_after_done() == []


def test_duplicates_within_a_delivery_and_after_done_are_found():
    fake = SimpleNamespace(requests=[], wait_until_read=lambda: None)
    chat = ChatLog(fake)
    _ask(fake, "q1", "q2", "q2")
    chat.cut(done={"q1", "q2"})
    _ask(fake, "q1", "q3")

    assert chat.asked_twice_by_one_delivery() == ["q2"]
    assert chat.asked_again_after_done() == ["q1"]
