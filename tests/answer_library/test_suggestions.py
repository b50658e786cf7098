"""Suggestions: below the automatic-reuse bar the library proposes its likely entries, a person uses or rejects one."""

import pytest

from answer_library.models import Entry, Suggestion
from answer_library.services import entries, matching, suggestions
from rfp_manager.models import Question
from rfp_manager.reuse import approved_answers
from rfp_manager.services import answering
from rfp_manager.services.deliverable import ExportChoices, outgoing

from .conftest import make_rfp

pytestmark = pytest.mark.django_db

BACKUPS = "How often are backups taken?"
# Near the backup entry with all-MiniLM-L6-v2, not near enough to reuse it unasked.
MIDDLE_BAND = "How frequently do you back up customer data?"


@pytest.fixture
def minilm(llm_api):
    """all-MiniLM-L6-v2 (a fresh install's default, llm_manager migration 0007) as the default embedding model;
    made again when a transactional test's flush removed the migration's row."""
    from llm_manager.models import LLMApi, LLMModel
    from llm_manager.services import make_default

    api, _ = LLMApi.objects.get_or_create(name="Local models", defaults={"kind": LLMApi.KIND_LOCAL})
    model, _ = LLMModel.objects.get_or_create(
        api=api, name="all-MiniLM-L6-v2", defaults={"model_type": "embedding", "embedding_dimensions": 384}
    )
    make_default(model)
    return model


@pytest.fixture
def backups(minilm, user) -> Entry:
    return entries.save_entry(
        Entry(owner=user), user, "test", question=BACKUPS, answer_text="Hourly incremental backups."
    )


@pytest.fixture
def encryption(minilm, user) -> Entry:
    return entries.save_entry(
        Entry(), user, "test", question="How is data encrypted at rest?", answer_text="AES-256 on every disk."
    )


@pytest.fixture
def drafted(backups, encryption, user, chat_model):
    """A question in the middle band, drafted by the responder: from the documents, with suggestions kept."""
    question = make_rfp(user, [MIDDLE_BAND]).questions.get()
    answering.generate_answer(question, model=chat_model)
    return question


def test_a_question_in_the_middle_band_is_drafted_from_the_documents_with_the_entry_suggested(drafted, backups):
    offer = matching.triage(MIDDLE_BAND)
    assert offer.reuse is None and matching.SUGGESTION_FLOOR <= offer.suggestions[0].score < matching.MATCH_THRESHOLD

    assert drafted.answer.library_entry_id is None  # drafted, not reused
    first = Suggestion.objects.get(question=drafted, rank=1)
    assert first.entry == backups and first.outcome == Suggestion.Outcome.PENDING and first.wording == MIDDLE_BAND


def test_a_redraft_rewrites_the_suggestions_without_adding_any(drafted, chat_model):
    before = list(Suggestion.objects.filter(question=drafted).values_list("entry_id", "rank"))

    answering.generate_answer(drafted, model=chat_model)

    assert list(Suggestion.objects.filter(question=drafted).values_list("entry_id", "rank")) == before


def test_using_a_suggestion_reuses_the_entry_as_the_responder_does_and_the_export_carries_the_persons_pick(
    drafted, backups, user, chat_model
):
    automatic = answering.reuse_entry(make_rfp(user, [BACKUPS]).questions.get(), suggestions.reusable(backups, 0.9))
    suggestion = Suggestion.objects.get(question=drafted, entry=backups)

    assert approved_answers().use_suggestion(drafted, suggestion.pk, user)

    answer = drafted.answer
    answer.refresh_from_db()
    assert (answer.library_entry_id, answer.draft_text, answer.citations) == (
        automatic.library_entry_id,
        automatic.draft_text,
        automatic.citations,
    )
    assert answer.origin == "library" and answer.library_chosen_by == user and automatic.library_chosen_by is None
    assert answer.revisions.first().actor == user  # the history names who chose it
    assert not answer.is_approved  # the owner's approval stays a step of its own
    assert outgoing(answer, ExportChoices()).text == backups.answer_text  # a person's pick goes to the client
    assert not outgoing(automatic, ExportChoices()).text  # the responder's unasked reuse does not
    suggestion.refresh_from_db()
    assert suggestion.outcome == Suggestion.Outcome.USED and suggestion.decided_by == user
    assert not suggestions.pending(drafted.pk).exists()  # the row no longer offers the others


def test_a_used_wording_becomes_a_phrasing_of_the_entry_so_it_is_reused_next_time(drafted, backups, user):
    approved_answers().use_suggestion(drafted, Suggestion.objects.get(question=drafted, entry=backups).pk, user)

    backups.refresh_from_db()
    assert MIDDLE_BAND in backups.alternatives
    assert matching.triage(MIDDLE_BAND).reuse.entry == backups


def test_a_rejected_entry_is_not_suggested_for_that_question_again(drafted, backups, user, chat_model):
    suggestion = Suggestion.objects.get(question=drafted, entry=backups)

    assert approved_answers().reject_suggestion(drafted, suggestion.pk, user)
    answering.generate_answer(drafted, model=chat_model)

    assert backups.pk not in [s.entry_id for s in approved_answers().suggestions(drafted.pk)]
    suggestion.refresh_from_db()
    assert suggestion.outcome == Suggestion.Outcome.REJECTED and suggestion.decided_by == user
    assert not approved_answers().use_suggestion(drafted, suggestion.pk, user)  # a decided suggestion stays decided


def test_a_suggestion_of_another_question_cannot_be_used_on_this_one(drafted, backups, user, chat_model):
    other = make_rfp(user, ["What is your backup schedule?"], name="Other").questions.get()
    suggestion = Suggestion.objects.get(question=drafted, entry=backups)

    assert not approved_answers().use_suggestion(other, suggestion.pk, user)
    assert not hasattr(other, "answer") or other.answer.library_entry_id is None


# --- the pages ---------------------------------------------------------------------------------------------


def test_the_workspace_row_says_how_many_library_answers_may_fit_and_filters_on_it(drafted, user, user_client):
    other = Question.objects.create(
        rfp=drafted.rfp, number="2", text="What is your legal name?", order=1, import_key="2"
    )
    count = Suggestion.objects.filter(question=drafted).count()

    page = user_client.get(f"/rfps/{drafted.rfp_id}/").content.decode()
    filtered = user_client.get(f"/rfps/{drafted.rfp_id}/?suggested=on").content.decode()

    assert f"{count} library answer{'s' if count > 1 else ''} may fit" in page
    assert f'id="q{other.pk}"' in page and f'id="q{other.pk}"' not in filtered
    assert f'id="q{drafted.pk}"' in filtered


def test_the_editor_shows_the_suggestions_beside_the_sources_and_a_rejection_swaps_them(
    drafted, backups, user, user_client
):
    suggestion = Suggestion.objects.get(question=drafted, entry=backups)

    page = user_client.get(f"/rfps/questions/{drafted.pk}/answer/").content.decode()
    assert 'id="library-suggestions"' in page and backups.answer_text in page and "owner alice" in page
    assert f"Approved {backups.approved_at:%Y-%m-%d}" in page

    response = user_client.post(
        f"/rfps/questions/{drafted.pk}/suggestions/{suggestion.pk}/reject/", headers={"HX-Request": "true"}
    )
    assert response.status_code == 200 and "not suggested for this question again" in response.content.decode()
    assert backups.answer_text not in response.content.decode()


def test_using_a_suggestion_in_the_editor_makes_it_the_answer(drafted, backups, user, user_client):
    suggestion = Suggestion.objects.get(question=drafted, entry=backups)

    response = user_client.post(
        f"/rfps/questions/{drafted.pk}/suggestions/{suggestion.pk}/use/", headers={"HX-Request": "true"}
    )

    assert response.headers["HX-Redirect"] == f"/rfps/questions/{drafted.pk}/answer/"
    drafted.answer.refresh_from_db()
    assert drafted.answer.library_entry_id == backups.pk and drafted.answer.library_chosen_by == user


def test_the_bulk_action_applies_each_selected_questions_first_suggestion(drafted, backups, user, user_client):
    first = suggestions.pending(drafted.pk).first()

    response = user_client.post(
        f"/rfps/{drafted.rfp_id}/questions/bulk/",
        {"action": "suggestion", "question": [drafted.pk]},
        headers={"HX-Request": "true"},
    )

    assert "Used the first library suggestion for 1 of 1 selected." in response.content.decode()
    drafted.answer.refresh_from_db()
    assert drafted.answer.library_entry_id == first.entry_id and drafted.answer.library_chosen_by == user
    first.refresh_from_db()
    assert first.outcome == Suggestion.Outcome.USED


def test_the_review_queue_lists_entries_whose_suggestions_are_often_rejected(backups, encryption, user, user_client):
    questions = make_rfp(user, [f"How frequently is customer data backed up, case {n}?" for n in range(4)])
    for n, question in enumerate(questions.questions.order_by("order")):
        for entry in (backups, encryption):
            Suggestion.objects.create(question=question, entry=entry, rank=1, score=0.5, wording=question.text)
        decide = suggestions.reject if n < 3 else suggestions.use  # backups: rejected 3 times, used once
        decide(question, Suggestion.objects.get(question=question, entry=backups).pk, user)

    page = user_client.get("/answers/review/").content.decode()

    listed = page.split('id="often-rejected"')[1]
    assert backups.question in listed and encryption.question not in listed  # never decided: not listed
    assert suggestions.often_rejected() == {backups.pk: (3, 1)}
