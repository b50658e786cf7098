"""The sweeper, in-process: which silent jobs it sends again, which it fails, which it leaves alone.

The real-worker version (a worker killed and its message purged) is in the
fault suite: tests/faults/test_workers_die.py.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from jobs.models import OutboxMessage, SystemCheck
from jobs.sweeper import sweep
from rfp_manager.models import RFPBatchJob
from solution_library.models import Document, DocumentJob
from tests.rfp_manager.conftest import make_rfp

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def thresholds(settings):
    settings.JOB_STALE_SECONDS = 600
    settings.JOB_MAX_REDISPATCHES = 2


def silent(model, pk, minutes=11):
    model.objects.filter(pk=pk).update(updated_at=timezone.now() - timedelta(minutes=minutes))


@pytest.fixture
def lost_rfp_job(user):
    rfp = make_rfp(user, ["Question one?", "Question two?"])
    job = RFPBatchJob.objects.create(
        rfp=rfp,
        job_type="responder",
        started_by=user,
        question_ids=list(rfp.questions.values_list("pk", flat=True)),
        total_items=2,
        status="processing",
        celery_task_id="lost-task",
    )
    silent(RFPBatchJob, job.pk)
    return job


def test_an_idempotent_job_whose_worker_vanished_is_sent_again(lost_rfp_job, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        outcome = sweep(live_task_ids=set())
    assert outcome["redispatched"] == [f"rfp_batch-{lost_rfp_job.pk}"] and outcome["failed"] == []
    lost_rfp_job.refresh_from_db()
    assert (lost_rfp_job.status, lost_rfp_job.redispatch_count) == ("processing", 1)
    assert "Sent again (attempt 1 of 2)" in lost_rfp_job.message
    message = OutboxMessage.objects.get(subject_model="rfp_manager.rfpbatchjob", subject_id=lost_rfp_job.pk)
    assert message.task_name == "rfp_manager.batch_generate_responder_answers" and len(callbacks) == 1
    assert sweep(live_task_ids=set()) == {"success": True, "redispatched": [], "failed": []}, "just touched: not silent"


def test_a_job_out_of_attempts_is_failed_with_a_reason_and_a_code(lost_rfp_job):
    RFPBatchJob.objects.filter(pk=lost_rfp_job.pk).update(redispatch_count=2)
    silent(RFPBatchJob, lost_rfp_job.pk)
    assert sweep(live_task_ids=set())["failed"] == [f"rfp_batch-{lost_rfp_job.pk}"]
    lost_rfp_job.refresh_from_db()
    assert (lost_rfp_job.status, lost_rfp_job.error_code) == ("failed", "worker_lost")
    assert "no worker is running it" in lost_rfp_job.message and "sent again 2 times" in lost_rfp_job.message


def test_a_kind_that_is_not_idempotent_is_failed_at_once():
    check = SystemCheck.objects.create(status="processing", celery_task_id="gone")
    silent(SystemCheck, check.pk)
    assert sweep(live_task_ids=set())["failed"] == [f"system_check-{check.pk}"]


def test_slow_live_pending_and_waiting_jobs_are_left_alone(lost_rfp_job, user):
    live = SystemCheck.objects.create(status="processing", celery_task_id="still-running")
    pending = SystemCheck.objects.create(status="pending")
    waiting = SystemCheck.objects.create(status="processing")
    OutboxMessage.objects.create(
        task_name="x", task_id="waiting-task", subject_model="jobs.systemcheck", subject_id=waiting.pk
    )
    fresh = SystemCheck.objects.create(status="processing")
    for job in (live, pending, waiting):
        silent(SystemCheck, job.pk)
    outcome = sweep(live_task_ids={"still-running"})
    assert outcome["failed"] == [] and outcome["redispatched"] == [f"rfp_batch-{lost_rfp_job.pk}"]
    assert dict(SystemCheck.objects.values_list("pk", "status")) == {
        live.pk: "processing",
        pending.pk: "pending",
        waiting.pk: "processing",
        fresh.pk: "processing",
    }


def test_a_document_stuck_in_processing_is_sent_again_then_failed(django_capture_on_commit_callbacks):
    document = Document.objects.create(title="Stuck", content_hash="h" * 64, file_type="text")
    job = DocumentJob.objects.get(document=document)  # its upload's job
    OutboxMessage.objects.update(sent_at=timezone.now())  # its first message went out (and was lost)
    silent(DocumentJob, job.pk, minutes=20)
    with django_capture_on_commit_callbacks(execute=False):
        assert sweep(live_task_ids=set())["redispatched"] == [f"document-{job.pk}"]
    message = OutboxMessage.objects.filter(subject_model="solution_library.documentjob", subject_id=job.pk).last()
    assert message.kwargs == {"document_id": document.pk, "embedding_model_id": None, "job_id": job.pk}
    DocumentJob.objects.filter(pk=job.pk).update(redispatch_count=2)
    OutboxMessage.objects.update(sent_at=timezone.now())  # the second went out too, and was lost again
    silent(DocumentJob, job.pk, minutes=20)
    assert sweep(live_task_ids=set())["failed"] == [f"document-{job.pk}"]
    document.refresh_from_db()
    job.refresh_from_db()
    assert (job.status, job.error_code) == ("failed", "worker_lost")
    # The job's failure reaches the document, which its pages and search read.
    assert (document.review_status, document.error_code, document.status_message) == (
        "failed",
        "worker_lost",
        job.message,
    )


def test_a_lost_job_of_a_retried_document_leaves_the_newer_job_in_charge():
    document = Document.objects.create(title="Retried", content_hash="r" * 64, file_type="text")
    lost = DocumentJob.objects.get(document=document)
    OutboxMessage.objects.update(sent_at=timezone.now())
    DocumentJob.objects.filter(pk=lost.pk).update(redispatch_count=2)
    silent(DocumentJob, lost.pk, minutes=20)
    DocumentJob.objects.create(document=document, status="processing")  # a Retry while the first was stuck
    assert sweep(live_task_ids=set())["failed"] == [f"document-{lost.pk}"]
    document.refresh_from_db()
    assert (document.review_status, document.error_code) == ("processing", "")


def test_the_data_migration_seeds_both_schedules_expiring_just_under_their_period():
    import importlib

    from django.apps import apps
    from django_celery_beat.models import PeriodicTask

    migration = importlib.import_module("spelunker.migrations.0001_squashed")
    PeriodicTask.objects.filter(task__in=["spelunker.publish_outbox", "spelunker.sweep_lost_jobs"]).delete()
    migration.create_schedules(apps, None)
    migration.create_schedules(apps, None)  # idempotent
    seconds = {"seconds": 1, "minutes": 60}
    for task in PeriodicTask.objects.filter(task__in=["spelunker.publish_outbox", "spelunker.sweep_lost_jobs"]):
        period = task.interval.every * seconds[task.interval.period]
        assert task.enabled and period * 0.8 <= task.expire_seconds < period, task.name
    assert PeriodicTask.objects.filter(task__startswith="spelunker.").count() == 2
