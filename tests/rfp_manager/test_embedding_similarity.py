"""The similarity a draft and a review use embeds each text once per process: the stages and the drafts of a batch ask about the same passages again."""

import pytest

from rfp_manager.services import answering
from text import questions

from .conftest import make_rfp

pytestmark = pytest.mark.django_db

BACKUPS = "Backups are taken every hour and kept for 30 days."
KEYS = "Encryption keys are rotated every year."


def embedding_requests(fake_llm) -> int:
    return len(fake_llm.requests_to("/v1/embeddings"))


def test_a_text_already_embedded_is_not_sent_again(llm_api, fake_llm):
    similarity = answering.embedding_similarity()
    first = similarity(["How often are backups taken?"], [BACKUPS, KEYS])
    sent = embedding_requests(fake_llm)
    assert sent >= 1

    again = similarity([KEYS], ["How often are backups taken?", BACKUPS])

    assert embedding_requests(fake_llm) == sent  # every text was embedded by the first call
    assert again[0][0] == pytest.approx(first[0][1], abs=1e-6)  # the same vectors: cosine is symmetric
    assert len(again) == 1 and len(again[0]) == 2


def test_a_new_text_is_embedded_and_compared_with_the_remembered_ones(llm_api, fake_llm):
    similarity = answering.embedding_similarity()
    similarity(["How often are backups taken?"], [BACKUPS])
    sent = embedding_requests(fake_llm)

    [[to_itself, to_backups]] = similarity([KEYS], [KEYS, BACKUPS])

    assert embedding_requests(fake_llm) == sent + 1
    assert to_itself == pytest.approx(1.0, abs=1e-5) and to_backups < to_itself
    similarity(["How often are backups taken?", KEYS], [BACKUPS])
    assert embedding_requests(fake_llm) == sent + 1  # the new text is remembered too


def test_nothing_to_compare_asks_nothing(llm_api, fake_llm):
    similarity = answering.embedding_similarity()
    assert similarity(["How often are backups taken?"], []) == [[]]
    assert similarity([], [BACKUPS]) == []
    assert embedding_requests(fake_llm) == 0


def test_the_next_draft_sends_only_what_no_draft_embedded_before(llm_api, fake_llm):
    answering.embedding_similarity()(["How often are backups taken?"], [BACKUPS, KEYS])
    sent = embedding_requests(fake_llm)

    next_draft = answering.embedding_similarity()
    next_draft(["Are keys rotated?"], [BACKUPS, KEYS])

    assert embedding_requests(fake_llm) == sent + 1
    assert fake_llm.requests_to("/v1/embeddings")[-1]["input"] == ["Are keys rotated?"]


def test_a_model_edited_in_the_admin_is_asked_afresh(llm_api, fake_llm):
    from llm_manager.models import LLMModel

    answering.embedding_similarity()([KEYS], [BACKUPS])
    sent = embedding_requests(fake_llm)
    model = LLMModel.objects.get(model_type="embedding", is_system_default=True)
    model.context_window = 512
    model.save()

    answering.embedding_similarity()([KEYS], [BACKUPS])

    assert embedding_requests(fake_llm) == sent + 1


def test_the_least_recently_used_vectors_are_forgotten_first(llm_api, fake_llm, settings):
    settings.EMBEDDING_VECTORS_REMEMBERED = 2
    similarity = answering.embedding_similarity()
    similarity([KEYS], [BACKUPS])  # both kept
    similarity([KEYS], ["Logs are kept for a year."])  # KEYS used again: BACKUPS is the oldest, forgotten
    sent = embedding_requests(fake_llm)

    similarity([KEYS], [BACKUPS])

    assert embedding_requests(fake_llm) == sent + 1
    assert fake_llm.requests_to("/v1/embeddings")[-1]["input"] == [BACKUPS]


def test_a_question_of_several_parts_is_embedded_with_its_parts_in_one_request(user, library, fake_llm):
    """Its searches (the whole question, then each part) find their vectors remembered: one round trip, not three."""
    question = make_rfp(user, ["How often are backups taken, and how long are they kept?"]).questions.get()
    parts = [part.text for part in questions.read(question.text).parts]
    assert len(parts) == 2
    before = embedding_requests(fake_llm)

    answering.retrieve_passages(question)

    sent = fake_llm.requests_to("/v1/embeddings")[before:]
    assert [request["input"] for request in sent] == [[question.text, *parts]]
