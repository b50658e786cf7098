"""Kept current: entries whose cited document changed or went away, or past their review date, are queued."""

from datetime import date, timedelta

import pytest
from django_celery_beat.models import PeriodicTask

from answer_library import tasks
from answer_library.models import Entry
from answer_library.services import entries
from solution_library.models import Document

pytestmark = pytest.mark.django_db


def test_an_entry_whose_source_document_changed_appears_in_the_review_queue(approved_entry, user_client):
    document_id = approved_entry.sources[0]["document_id"]
    # What a documentation sync or a new upload of the same document does: new content, new hash.
    Document.objects.filter(pk=document_id).update(content_hash="0" * 64)

    result = tasks.refresh_review_queue()

    approved_entry.refresh_from_db()
    assert result["success"] and result["in_queue"] == 1
    assert approved_entry.status == Entry.Status.NEEDS_REVIEW
    assert [r["code"] for r in approved_entry.review_reasons] == ["document_changed"]
    page = user_client.get("/answers/review/").content.decode()
    assert approved_entry.question in page and "changed since the answer was approved" in page


def test_a_removed_document_and_a_past_review_date_are_reasons_too(approved_entry):
    Entry.objects.filter(pk=approved_entry.pk).update(review_by=date.today() - timedelta(days=1))
    Document.objects.filter(pk=approved_entry.sources[0]["document_id"]).delete()

    tasks.refresh_review_queue()

    approved_entry.refresh_from_db()
    assert {r["code"] for r in approved_entry.review_reasons} == {"past_review_date", "document_removed"}


def test_a_current_entry_stays_out_and_running_twice_changes_nothing(approved_entry):
    first = tasks.refresh_review_queue()
    second = tasks.refresh_review_queue()

    approved_entry.refresh_from_db()
    assert approved_entry.status == Entry.Status.ACTIVE and first["in_queue"] == second["in_queue"] == 0
    assert second["changed"] == 0


def test_a_marked_entry_is_still_reused_and_marked_on_the_rfp_and_answer_pages(
    approved_entry, user, user_client, chat_model
):
    from rfp_manager.services import answering

    from .conftest import BACKUP_REWORDED, make_rfp

    Document.objects.filter(pk=approved_entry.sources[0]["document_id"]).update(content_hash="1" * 64)
    tasks.refresh_review_queue()
    rfp = make_rfp(user, [BACKUP_REWORDED], name="Later RFP")

    question = rfp.questions.get()
    assert answering.generate_answer(question, model=chat_model).library_entry_id == approved_entry.pk
    assert "entry waiting for review" in user_client.get(f"/rfps/{rfp.pk}/").content.decode()
    assert "entry waiting for review" in user_client.get(f"/rfps/questions/{question.pk}/answer/").content.decode()


def test_marking_reviewed_takes_it_out_of_the_queue_with_a_new_version(approved_entry, user, user_client):
    Document.objects.filter(pk=approved_entry.sources[0]["document_id"]).update(content_hash="2" * 64)
    tasks.refresh_review_queue()

    user_client.post(f"/answers/entries/{approved_entry.pk}/reviewed/")
    tasks.refresh_review_queue()

    approved_entry.refresh_from_db()
    assert approved_entry.status == Entry.Status.ACTIVE and approved_entry.version == 2
    assert approved_entry.review_by > date.today() + timedelta(days=300)
    assert approved_entry.versions.first().note.startswith("Reviewed")


def test_the_periodic_task_is_seeded_by_a_migration():
    schedule = PeriodicTask.objects.get(task="answer_library.refresh_review_queue")
    assert schedule.enabled and schedule.interval.every == 6 and schedule.expire_seconds < 6 * 3600


def test_entries_save_stamps_no_hash_for_unknown_documents(user):
    entry = entries.save_entry(
        Entry(),
        user,
        "test",
        question="Q?",
        answer_text="A.",
        sources=entries.stamped_sources([{"document_id": 999999, "document_title": "Gone"}]),
    )
    tasks.refresh_review_queue()
    entry.refresh_from_db()
    assert [r["code"] for r in entry.review_reasons] == ["document_removed"]
