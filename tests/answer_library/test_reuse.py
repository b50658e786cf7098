"""Reuse first: an answer approved in one RFP answers the same question, reworded, in the next — no draft call."""

import pytest

from answer_library.models import Candidate, Entry
from answer_library.services import entries, matching
from rfp_manager import reuse
from rfp_manager.services import answering

from .conftest import BACKUP_QUESTION, BACKUP_REWORDED, chat_requests, make_rfp

pytestmark = pytest.mark.django_db


def test_a_reworded_question_reuses_the_approved_entry_without_calling_the_model(
    approved_entry, user, chat_model, fake_llm
):
    second = make_rfp(user, [BACKUP_REWORDED], name="Second RFP")
    before = chat_requests(fake_llm)

    answer = answering.generate_answer(second.questions.get(), model=chat_model)

    assert chat_requests(fake_llm) == before  # no draft call to the model
    assert answer.library_entry_id == approved_entry.pk and answer.origin == "library"
    assert answer.draft_text == approved_entry.answer_text
    assert answer.cited_passages == approved_entry.sources  # its sources travel with it, for the reviewer
    assert answer.library_score >= matching.MATCH_THRESHOLD


def test_an_unrelated_question_is_drafted_from_the_documents(approved_entry, user, chat_model, fake_llm):
    second = make_rfp(user, ["How is customer data encrypted at rest and in transit?"], name="Second RFP")

    answer = answering.generate_answer(second.questions.get(), model=chat_model)

    assert answer.library_entry_id is None and answer.origin == "drafted"
    assert chat_requests(fake_llm) >= 1 and "AES-256" in answer.draft_text


def test_a_redraft_after_the_entry_is_retired_drafts_again(approved_entry, user, chat_model):
    second = make_rfp(user, [BACKUP_REWORDED], name="Second RFP")
    question = second.questions.get()
    assert answering.generate_answer(question, model=chat_model).library_entry_id == approved_entry.pk

    entries.save_entry(approved_entry, user, "Retired", status=Entry.Status.RETIRED)

    assert answering.generate_answer(question, model=chat_model).library_entry_id is None


def test_the_rfp_page_shows_each_answers_origin(approved_entry, user, user_client, chat_model):
    second = make_rfp(user, [BACKUP_REWORDED, "How is customer data encrypted at rest and in transit?"], name="Second")
    for question in second.questions.all():
        answering.generate_answer(question, model=chat_model)

    page = user_client.get(f"/rfps/{second.pk}/").content.decode()

    assert page.count("From the library") == 1
    assert f'href="/answers/entries/{approved_entry.pk}/"' in page
    assert "Drafted from the documents" in page


def test_approving_in_the_rfp_saves_a_new_entry_with_its_sources(user, user_client, library, chat_model):
    rfp = make_rfp(user, [BACKUP_QUESTION])
    answer = answering.generate_answer(rfp.questions.get(), model=chat_model)
    form = user_client.get(f"/answers/answers/{answer.pk}/approve/").content.decode()
    assert 'value="update"' not in form  # nothing to update: it was drafted, not reused

    response = user_client.post(
        f"/answers/answers/{answer.pk}/approve/",
        {
            "mode": "new",
            "question": BACKUP_QUESTION,
            "answer_text": answer.final_answer,
            "tags": "backup, ops",
            "owner": user.pk,
            "review_by": "2030-01-01",
            "alternatives": "",
        },
    )

    assert response.status_code == 302
    entry = Entry.objects.get(origin_answer=answer)
    assert entry.tags == ["backup", "ops"] and entry.owner == user and entry.version == 1
    assert entry.sources and entry.sources[0]["document_title"] == "Operations guide"
    assert entry.sources[0]["document_hash"]  # stamped for the review queue
    assert entry.versions.get().changed_by == user


def test_approving_a_reused_answer_offers_to_update_its_entry_and_adds_the_wording(
    approved_entry, user, user_client, chat_model
):
    second = make_rfp(user, [BACKUP_REWORDED], name="Second RFP")
    answer = answering.generate_answer(second.questions.get(), model=chat_model)
    assert 'value="update"' in user_client.get(f"/answers/answers/{answer.pk}/approve/").content.decode()

    user_client.post(
        f"/answers/answers/{answer.pk}/approve/",
        {
            "mode": "update",
            "question": BACKUP_REWORDED,
            "answer_text": "Hourly backups, kept for 35 days.",
            "owner": user.pk,
            "tags": "backup",
        },
    )

    approved_entry.refresh_from_db()
    assert approved_entry.version == 2 and approved_entry.answer_text == "Hourly backups, kept for 35 days."
    assert BACKUP_REWORDED in approved_entry.alternatives
    assert [v.number for v in approved_entry.versions.all()] == [2, 1]
    assert Entry.objects.count() == 1


def test_a_human_edit_is_recorded_as_a_library_candidate(user, user_client, library, chat_model):
    rfp = make_rfp(user, [BACKUP_QUESTION])
    question = rfp.questions.get()
    answering.generate_answer(question, model=chat_model)

    user_client.post(f"/rfps/questions/{question.pk}/answer/", {"final_text": "Hourly, kept 35 days."})

    candidate = Candidate.objects.get(answer__question=question)
    assert candidate.text == "Hourly, kept 35 days." and candidate.edited_by == user
    assert "Hourly, kept 35 days." in user_client.get("/answers/").content.decode()


def test_the_entry_page_shows_versions_and_where_it_was_used(approved_entry, user, user_client, chat_model):
    second = make_rfp(user, [BACKUP_REWORDED], name="Second RFP")
    answering.generate_answer(second.questions.get(), model=chat_model)

    page = user_client.get(f"/answers/entries/{approved_entry.pk}/").content.decode()

    assert "Second RFP" in page and "Approved in First RFP" in page
    assert user.get_username() in page


def test_library_search_and_filters(approved_entry, user, user_client):
    other = entries.save_entry(
        Entry(),
        user,
        "test",
        question="Which data centres host the service?",
        answer_text="Frankfurt and Dublin.",
        tags=["hosting"],
    )

    assert other.question not in user_client.get("/answers/?tag=backup").content.decode()
    assert approved_entry.question in user_client.get("/answers/?tag=backup").content.decode()
    found = user_client.get("/answers/", {"q": BACKUP_REWORDED}).content.decode()
    assert found.index(approved_entry.question) < found.index(other.question)
    assert other.question not in user_client.get("/answers/?status=needs_review").content.decode()


@pytest.mark.django_db(transaction=True)
def test_the_kept_index_is_read_again_when_an_entry_changes(user, llm_api):
    from llm_manager.services import get_default_model

    model = get_default_model("embedding")
    entry = entries.save_entry(Entry(), user, "test", question=BACKUP_QUESTION, answer_text="Hourly.")
    assert matching.current_index(model) is matching.current_index(model)  # kept while nothing changes
    assert entry.pk in matching.current_index(model).entry_ids

    entry.status = Entry.Status.RETIRED  # as the admin would, without touching its wordings
    entry.save()

    assert entry.pk not in matching.current_index(model).entry_ids
    assert matching.find_match(BACKUP_QUESTION) is None


@pytest.mark.django_db(transaction=True)
def test_a_jobs_recent_index_checks_for_changes_only_after_its_max_age(user, llm_api, django_assert_num_queries):
    from llm_manager.services import get_default_model

    model = get_default_model("embedding")
    entry = entries.save_entry(Entry(), user, "test", question=BACKUP_QUESTION, answer_text="Hourly.")
    within_a_job = matching.RecentIndex(model, max_age=3600)
    kept = within_a_job.get()
    assert entry.pk in kept.entry_ids
    entry.status = Entry.Status.RETIRED
    entry.save()

    with django_assert_num_queries(0):  # not asked again before max_age: a responder question costs no query here
        assert within_a_job.get() is kept
    within_a_job.max_age = 0  # as when its max age has passed
    assert entry.pk not in within_a_job.get().entry_ids


def test_a_question_naming_another_figure_is_not_answered_by_an_entry_worded_alike(user, llm_api):
    """With the real model, "SOC 3" scores above the match threshold beside the SOC 2 entry: the figure decides."""
    from llm_manager.models import LLMApi, LLMModel
    from llm_manager.services import make_default

    make_default(LLMModel.objects.get(api__kind=LLMApi.KIND_LOCAL, name="all-MiniLM-L6-v2"))
    soc2 = entries.save_entry(
        Entry(), user, "test", question="Do you have a SOC 2 Type II report?", answer_text="Yes, renewed annually."
    )
    iso = entries.save_entry(
        Entry(), user, "test", question="Are you ISO 27001 certified?", answer_text="Yes, certified since 2019."
    )

    for near_miss, worded_alike in (("Do you have a SOC 3 report?", soc2), ("Are you ISO 27701 certified?", iso)):
        nearest = matching.ranked_matches(near_miss)[0]
        assert nearest.entry == worded_alike and nearest.score >= matching.MATCH_THRESHOLD  # the score alone says yes
        assert matching.find_match(near_miss) is None
    assert matching.find_match("Can you share your SOC 2 Type 2 audit report?").entry == soc2
    assert matching.find_match("Does your company hold an ISO/IEC 27001 certification?").entry == iso


def offered(question: str) -> list[Entry]:
    """The entries the library offers for the question: the one it reuses, or else its suggestions."""
    offer = matching.triage(question)
    return [offer.reuse.entry] if offer.reuse else [m.entry for m in offer.suggestions]


def test_an_entry_asking_for_another_kind_of_thing_is_neither_reused_nor_suggested_however_near_its_words(
    user, llm_api
):
    """With the real model, "How long are backups retained?" scores well beside "How often are backups taken?": a
    duration is not a frequency, so that entry is not offered at all; a rewording still is."""
    from llm_manager.models import LLMApi, LLMModel
    from llm_manager.services import make_default

    make_default(LLMModel.objects.get(api__kind=LLMApi.KIND_LOCAL, name="all-MiniLM-L6-v2"))
    backups = entries.save_entry(
        Entry(), user, "test", question="How often are backups taken?", answer_text="Hourly incremental backups."
    )

    near_miss = "How long are backups retained?"
    nearest = matching.ranked_matches(near_miss)[0]
    assert nearest.entry == backups and nearest.score >= matching.SUGGESTION_FLOOR  # the score alone would offer it
    assert offered(near_miss) == []
    assert offered("Where are backups stored?") == []  # a place
    assert offered("How frequently do you back up customer data?") == [backups]


def test_an_entry_is_matched_by_what_it_answers_not_only_by_how_its_question_is_worded(user, llm_api):
    """A near miss on the entry's subject is near its wording but not its answer: half the score is the entry as
    answered, which pulls the mobile-apps question down, so the scan entry is not reused for it, while a rewording of
    its question is still offered (as a suggestion below the threshold)."""
    import numpy as np

    from llm_manager.models import LLMApi, LLMModel
    from llm_manager.services import embed_texts, make_default

    model = LLMModel.objects.get(api__kind=LLMApi.KIND_LOCAL, name="all-MiniLM-L6-v2")
    make_default(model)
    wording = "Are your systems regularly scanned for vulnerabilities?"
    scans = entries.save_entry(
        Entry(), user, "test", question=wording, answer_text="Yes: every server and network range is scanned weekly."
    )
    near_miss = "Do you scan mobile apps for vulnerabilities?"
    question_vector, wording_vector = np.asarray(embed_texts([near_miss, wording], model))
    nearest = matching.ranked_matches(near_miss)[0]
    assert nearest.entry == scans and nearest.score < float(question_vector @ wording_vector)
    assert matching.find_match(near_miss) is None
    assert offered("Do you scan servers and networks for known weaknesses?") == [scans]


def test_entries_indexed_before_answered_texts_get_theirs_on_the_next_match(user, llm_api):
    """Entries saved before the answered text was indexed (wordings only) are completed, once, when the index loads."""
    from answer_library.models import EntryPhrasing

    entry = entries.save_entry(Entry(), user, "test", question=BACKUP_QUESTION, answer_text="Daily, kept 35 days.")
    entry.phrasing_rows.filter(kind=EntryPhrasing.Kind.ANSWERED).delete()  # as the migration leaves older entries
    matching.find_match(BACKUP_QUESTION)
    answered = entry.phrasing_rows.get(kind=EntryPhrasing.Kind.ANSWERED)
    assert answered.text == matching.answered_text(entry) and len(answered.embedding) > 0
    assert entry.phrasing_rows.filter(kind=EntryPhrasing.Kind.WORDING).count() == len(entry.phrasings)


@pytest.mark.parametrize(
    "question, kinds",
    [
        ("How long are backups retained?", {"duration"}),
        ("How often are backups taken and how long are they kept?", {"frequency", "duration"}),
        ("For how many days do you keep backup copies?", {"time"}),
        ("If our data is compromised, when will you tell us?", {"time"}),
        ("How many failed login attempts lock an account?", {"count"}),
        ("Who approves new access requests?", {"person"}),
        ("Is privacy training given to staff who handle personal data?", set()),  # a yes/no question
        ("What is your password rotation period?", set()),
    ],
)
def test_what_a_question_asks_for_is_read_from_its_interrogatives(question, kinds):
    assert matching.asks_for(question) == kinds


def test_only_known_kinds_of_ask_that_share_nothing_differ():
    def entry(*wordings):
        return Entry(question=wordings[0], alternatives=list(wordings[1:]))

    assert matching.asks_differ("How long are backups retained?", entry("How often are backups taken?"))
    assert not matching.asks_differ(
        "How long are backups kept?", entry("How often are backups taken and how long are they kept?")
    )
    assert not matching.asks_differ("What is your password rotation period?", entry("How often must users change?"))
    assert not matching.asks_differ("How often are keys rotated?", entry("Do you rotate encryption keys?"))


def test_deleting_an_entry_leaves_the_answers_that_reused_it_reused_from_nothing(approved_entry, user, chat_model):
    question = make_rfp(user, [BACKUP_REWORDED], name="Second RFP").questions.get()
    answer = answering.generate_answer(question, model=chat_model)
    assert answer.library_entry_id == approved_entry.pk

    Entry.objects.filter(pk=approved_entry.pk).delete()

    answer.refresh_from_db()
    assert answer.library_entry_id is None


@pytest.fixture
def no_answer_library():
    """rfp_manager as it is without the answer library installed (restored afterwards)."""
    installed = reuse.approved_answers()
    reuse.install(reuse.ApprovedAnswers())
    yield
    reuse.install(installed)


def test_without_an_answer_library_installed_every_question_is_drafted(
    approved_entry, user, user_client, chat_model, fake_llm, no_answer_library
):
    rfp = make_rfp(user, [BACKUP_REWORDED], name="Second RFP")
    before = chat_requests(fake_llm)

    answer = answering.generate_answer(rfp.questions.get(), model=chat_model)

    assert answer.library_entry_id is None and chat_requests(fake_llm) > before
    assert user_client.get(f"/rfps/{rfp.pk}/").status_code == 200
