"""The evidence gate by meaning: a near miss on the library's topic gets "no supporting content", a rewording a draft.

With all-MiniLM-L6-v2 (the model the gate's threshold is tuned for) on the small library of these tests.
"""

import pytest

from llm_manager.models import LLMApi, LLMModel
from llm_manager.providers.offline import NO_PASSAGE_ANSWER
from rfp_manager.services import answering
from text import questions
from text.words import stems

from .conftest import LIBRARY, chat_requests, make_rfp

# On the pentest's topic, but the library names no firm: the subject words are there ("penetration test"), the ask is not.
NEAR_MISS = "Which external firm performed your most recent penetration test?"
REWORDED = "How frequently do you copy our data, and for how many days are the copies held?"


@pytest.fixture
def local_library(llm_api):
    """The library embedded with all-MiniLM-L6-v2, the default embedding model; chat on the fake server."""
    from llm_manager.services import make_default
    from solution_library.testing import add_library_document

    make_default(LLMModel.objects.get(api__kind=LLMApi.KIND_LOCAL, name="all-MiniLM-L6-v2"))
    return [add_library_document(title, text) for title, text in LIBRARY.items()]


@pytest.fixture
def chat_model(local_library):
    return LLMModel.objects.get(name="fake-chat")


def test_a_near_miss_gets_no_supporting_content_though_its_subject_words_are_in_the_library(user, chat_model, fake_llm):
    question = make_rfp(user, [NEAR_MISS]).questions.get()
    passages = answering.retrieve_passages(question)
    share = answering.evidence(question.text, passages)
    assert share >= answering.EVIDENCE_THRESHOLD  # the subject-word gate alone would draft it

    answer = answering.generate_answer(question, model=chat_model)

    assert (
        answering.meaning_evidence(question.text, passages) < answering.MEANING_EVIDENCE_THRESHOLDS["all-MiniLM-L6-v2"]
    )
    assert answer.draft_text == NO_PASSAGE_ANSWER and answer.needs_expert
    assert chat_requests(fake_llm) == 0  # refused before any model call


def test_a_reworded_question_whose_words_the_library_lacks_is_still_drafted(user, chat_model, fake_llm):
    question = make_rfp(user, [REWORDED]).questions.get()
    passages = answering.retrieve_passages(question)
    missing = stems(REWORDED, subject_only=True) - stems(" ".join(LIBRARY.values()))
    assert missing  # "frequently", "copies", "held": the library says "every hour", "backups", "kept"

    assert not answering.weak_evidence(question.text, passages, answering.evidence(question.text, passages))
    answering.generate_answer(question, model=chat_model)
    assert chat_requests(fake_llm) == 1  # the gate let it through to the model


def _passage(n: int, rank: int | None, title: str, text: str) -> dict:
    return {"n": n, "rank": rank, "chunk_id": n, "document_id": n, "document_title": title, "heading": "", "text": text}


@pytest.mark.parametrize("rank, drafted", [(6, False), (2, True), (None, True)])
def test_whether_the_library_answers_is_read_from_the_questions_own_first_five_passages(
    user, chat_model, fake_llm, rank, drafted
):
    """A passage the question's search ranks sixth or seventh gives the draft sentences to choose from, but does not
    let a question through the gate: one whose words only it holds gets "no supporting content". The same passage
    among the first five, or as a part's nearest (no rank), does."""
    question = make_rfp(user, ["How often are backups taken and how long are they kept?"]).questions.get()
    desks = [_passage(n, n, "Office guide", f"Desk {n} stands by the window with a lamp.") for n in range(1, 6)]
    operations = _passage(6, rank, "Operations guide", LIBRARY["Operations guide"])
    passages = sorted([*desks, operations], key=lambda p: p["rank"] or 0)

    share = answering.evidence(question.text, answering.gate_passages(passages))
    result = answering.draft(question, passages, share, model=chat_model)
    text, needs_expert = result.text, result.needs_expert

    assert chat_requests(fake_llm) == int(drafted)
    assert needs_expert is not drafted and (text == NO_PASSAGE_ANSWER) is not drafted


def test_a_model_without_a_tuned_threshold_keeps_the_subject_word_gate(user, library):
    """The fake server's embedding model has no meaning threshold: the share of subject words decides."""
    passages = [{"document_title": "Operations guide", "heading": "", "text": LIBRARY["Operations guide"]}]
    assert answering.weak_evidence("Do you carry cyber insurance?", passages, share=0.1)
    assert not answering.weak_evidence("Do you carry cyber insurance?", passages, share=0.5)


def test_a_time_question_is_not_answered_by_a_sentence_whose_within_is_a_place():
    """The draft's last gate: every part asks for a time, and "within the organization" states none, so the
    question gets "no supporting content" instead of a draft from that sentence."""
    read = questions.read("Within how many hours of discovering a breach do you notify affected customers?")
    place = "A breach could be used as evidence of a weak security culture within the organization."
    assert not answering.states_what_is_asked(read, [place])
    assert answering.states_what_is_asked(read, ["Affected customers are notified within 72 hours of discovery."])


CERTIFICATES = (
    "Every public website is served over HTTPS. Its TLS certificates are issued by a public certificate "
    "authority and renewed automatically thirty days before they expire."
)


@pytest.mark.parametrize(
    "named, drafted",
    [("", False), (" Extended Validation certificates are used for the customer portal only.", True)],
)
def test_a_question_naming_a_thing_the_passages_never_name_gets_no_supporting_content(
    user, chat_model, fake_llm, named, drafted
):
    """The library holds the subject (certificates) but not the named thing (Extended Validation): a draft could
    only speak of the subject around it. The nearest sentences are offered beside "no supporting content"."""
    question = make_rfp(user, ["Do your public websites use Extended Validation certificates?"]).questions.get()
    passages = [_passage(1, 1, "Security whitepaper", CERTIFICATES + named)]

    result = answering.draft(question, passages, 1.0, model=chat_model)

    assert chat_requests(fake_llm) == int(drafted)
    assert result.needs_expert is not drafted and (result.text == NO_PASSAGE_ANSWER) is not drafted
    if not drafted:
        assert any("TLS certificates" in offered["text"] for offered in result.may_answer)


def test_a_name_of_one_word_the_passages_never_name_decides_nothing_alone():
    """A name like "SIEM" is often a general term the library puts otherwise ("Splunk"); "Face ID" is particular."""
    splunk = [{"text": "Logs are forwarded to Splunk as JSON."}]
    assert answering.names_held(questions.read("Can logs be exported in JSON to our SIEM?"), splunk)
    assert not answering.names_held(questions.read("Does the app support login with Face ID?"), splunk)
