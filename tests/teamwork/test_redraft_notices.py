"""The owner is told when the library may now answer questions drafted "no supporting content" before it could."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from django_celery_beat.models import PeriodicTask

from llm_manager.providers.offline import NO_PASSAGE_ANSWER
from rfp_manager.models import RFP, Answer
from solution_library.models import Document
from solution_library.services.documents import process_document
from solution_library.testing import add_library_document
from teamwork import tasks
from teamwork.models import Notification
from teamwork.services.redraft_notices import tell_owners_the_library_grew

from .conftest import make_rfp

pytestmark = pytest.mark.django_db


def _no_support(question, at):
    return Answer.objects.create(question=question, draft_text=NO_PASSAGE_ANSWER, generated_at=at)


def _document_ready_at(at, user):
    document = add_library_document("Backups", "Backups run every night and are kept for 30 days.", user)
    Document.objects.filter(pk=document.pk).update(processed_at=at)
    return document


def test_the_owner_is_told_once_when_a_document_became_ready_after_no_support_drafts(rfp, user, bob, offline_embedding):
    user.email = "alice@example.com"
    user.save(update_fields=["email"])
    hour_ago = timezone.now() - timedelta(hours=1)
    first, second, edited, approved, later = rfp.questions.order_by("order")[:5]
    _no_support(first, hour_ago)
    _no_support(second, hour_ago)
    _no_support(edited, hour_ago)
    Answer.objects.filter(question=edited).update(final_text="Yes, nightly.")  # a person's answer is theirs
    _no_support(approved, hour_ago)
    Answer.objects.filter(question=approved).update(approved_at=timezone.now())
    _no_support(later, timezone.now())  # drafted after the document was ready: the library did not answer it
    assert tell_owners_the_library_grew() == 0  # no document is ready yet

    _document_ready_at(hour_ago + timedelta(minutes=30), user)
    assert tell_owners_the_library_grew() == 1
    assert tell_owners_the_library_grew() == 0  # run again (Beat, or a late ack): nothing twice

    notice = Notification.objects.get(kind="library_grew")
    assert notice.recipient == user and bob not in {n.recipient for n in Notification.objects.all()}
    assert notice.text == (
        "2 questions of “Acme tender” got “no supporting content” before library documents became ready: "
        "the library may answer them now. Redraft them from the RFP's page."
    )
    assert notice.url == reverse("rfp_manager:detail", args=[rfp.pk]) + "#library-grew"
    assert notice.email_status == "queued"  # sent by the worker, as every notification's email


def test_a_redraft_that_still_finds_nothing_is_told_again_only_when_the_library_grows_again(
    rfp, user, offline_embedding
):
    two_hours_ago, hour_ago = timezone.now() - timedelta(hours=2), timezone.now() - timedelta(hours=1)
    question = rfp.questions.order_by("order").first()
    _no_support(question, two_hours_ago)
    document = _document_ready_at(two_hours_ago + timedelta(minutes=1), user)
    assert tell_owners_the_library_grew() == 1

    Answer.objects.filter(question=question).update(generated_at=hour_ago)  # redrafted: still no supporting content
    assert tell_owners_the_library_grew() == 0  # the newest document was ready before that redraft
    assert process_document(document.pk).unchanged  # read again (a Retry), the same content: not news
    assert tell_owners_the_library_grew() == 0

    newer = add_library_document("Offsite", "Backups are copied to a second region every night.", user)
    assert newer.processed_at > hour_ago
    assert tell_owners_the_library_grew() == 1
    assert (
        Notification.objects.filter(kind="library_grew", recipient=user, text__startswith="1 question of").count() == 2
    )


def test_a_submitted_or_archived_rfp_is_not_redrafted(rfp, user, offline_embedding):
    hour_ago = timezone.now() - timedelta(hours=1)
    _no_support(rfp.questions.order_by("order").first(), hour_ago)
    _document_ready_at(hour_ago + timedelta(minutes=1), user)
    for status in RFP.MANUAL_STATUSES:
        RFP.objects.filter(pk=rfp.pk).update(status=status)
        assert tell_owners_the_library_grew() == 0
    RFP.objects.filter(pk=rfp.pk).update(status=RFP.Status.DRAFT)
    assert tasks.tell_owners_the_library_grew.apply().get() == {"success": True, "sent": 1}


def test_each_owner_hears_of_their_own_rfp(rfp, user, django_user_model, offline_embedding):
    dora = django_user_model.objects.create_user("dora", email="dora@example.com", password="pw-dora-12345")
    hers = make_rfp(dora, name="Globex tender")
    hour_ago = timezone.now() - timedelta(hours=1)
    _no_support(rfp.questions.order_by("order").first(), hour_ago)
    for question in hers.questions.order_by("order")[:3]:
        _no_support(question, hour_ago)
    _document_ready_at(hour_ago + timedelta(minutes=1), user)

    assert tell_owners_the_library_grew() == 2
    notices = {n.recipient.get_username(): n.text for n in Notification.objects.filter(kind="library_grew")}
    assert notices["alice"].startswith("1 question of “Acme tender”") and "answer it now" in notices["alice"]
    assert notices["dora"].startswith("3 questions of “Globex tender”")


def test_the_notices_run_from_a_beat_schedule_that_expires():
    task = PeriodicTask.objects.get(task="teamwork.tell_owners_the_library_grew")
    assert task.enabled and (task.interval.every, task.interval.period) == (15, "minutes")
    assert task.expire_seconds < 15 * 60
