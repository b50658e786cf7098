"""The job toolkit's transitions, counters and runner, on a real job table."""

from datetime import timedelta

import pytest
from celery import shared_task
from celery.exceptions import Retry, SoftTimeLimitExceeded
from django.db import OperationalError
from django.utils import timezone

from jobs.dispatch import WAITING_FOR_BROKER, dispatch_after_commit, publish_pending
from jobs.models import ErrorCode, JobStatus, OutboxMessage, SystemCheck, fail_stale_jobs
from jobs.runner import DATABASE_RETRY_SECONDS, JobFailed, run_job
from jobs.tasks import probe_queue

pytestmark = pytest.mark.django_db


class FakeRequest:
    id = "task-123"
    timelimit = (None, None)


class FakeTask:
    """Stands in for Celery's bound `self`: only the attributes run_job reads."""

    request = FakeRequest()
    soft_time_limit = 30

    class app:
        class conf:
            task_soft_time_limit = 1800


def test_progress_percentage_and_rate():
    job = SystemCheck(total_items=8, processed_items=2)
    assert job.get_progress_percentage() == 25
    job.total_items = 0
    assert job.get_progress_percentage() == 0


def test_start_records_task_id_and_keeps_first_start_time():
    job = SystemCheck.objects.create(total_items=1)
    assert job.start("first")
    first_started = job.started_at
    assert job.start("redelivered")  # a redelivery takes the job over
    assert job.status == JobStatus.PROCESSING
    assert job.celery_task_id == "redelivered"
    assert job.started_at == first_started


def test_finished_job_cannot_be_restarted_or_overwritten():
    job = SystemCheck.objects.create()
    job.start("t")
    assert job.request_cancel()
    assert not job.finish(JobStatus.COMPLETED), "a late finish must not overwrite a cancellation"
    assert not job.start("again")
    job.refresh_from_db()
    assert job.status == JobStatus.CANCELLED
    assert job.stop_reason() == "cancelled"


def test_is_stale_only_for_active_jobs_without_updates():
    job = SystemCheck.objects.create()
    SystemCheck.objects.filter(pk=job.pk).update(updated_at=timezone.now() - timedelta(minutes=31))
    job.refresh_from_db()
    assert job.is_stale()
    job.finish(JobStatus.FAILED, "x")
    assert not job.is_stale()


def test_add_error_replaces_an_items_earlier_error():
    job = SystemCheck.objects.create()
    job.add_error("q1", "first")
    job.add_error("q1", "second")
    job.add_error("q2", "other")
    job.refresh_from_db()
    assert [(e["item"], e["error"]) for e in job.errors] == [("q1", "second"), ("q2", "other")]


def test_run_job_completes_and_returns_figures():
    job = SystemCheck.objects.create()
    result = run_job(FakeTask(), SystemCheck, job.pk, lambda j: {"done": 3})
    job.refresh_from_db()
    assert result == {"success": True, "job_id": job.pk, "status": "completed", "done": 3}
    assert job.status == JobStatus.COMPLETED and job.celery_task_id == "task-123"


def test_run_job_twice_does_not_redo_finished_work():
    job = SystemCheck.objects.create()
    calls = []
    run_job(FakeTask(), SystemCheck, job.pk, lambda j: calls.append(1))
    second = run_job(FakeTask(), SystemCheck, job.pk, lambda j: calls.append(1))
    assert calls == [1]
    assert second["skipped"] and second["success"]


def test_run_job_marks_soft_time_limit_as_failed_with_message():
    job = SystemCheck.objects.create()

    def slow(j):
        raise SoftTimeLimitExceeded()

    result = run_job(FakeTask(), SystemCheck, job.pk, slow)
    job.refresh_from_db()
    assert result["success"] is False
    assert job.status == JobStatus.FAILED
    assert "time limit of 30 s" in job.message


def test_run_job_reports_the_soft_limit_sent_with_the_message():
    job = SystemCheck.objects.create()
    task = FakeTask()
    task.request = FakeRequest()
    task.request.timelimit = (20, 12)

    def slow(j):
        raise SoftTimeLimitExceeded()

    run_job(task, SystemCheck, job.pk, slow)
    job.refresh_from_db()
    assert "time limit of 12 s" in job.message


def test_run_job_lets_a_retry_through_and_keeps_the_job_processing():
    job = SystemCheck.objects.create()

    def transient(j):
        raise Retry("LLM busy, retrying in 60 s")

    with pytest.raises(Retry):
        run_job(FakeTask(), SystemCheck, job.pk, transient)
    job.refresh_from_db()
    assert job.status == JobStatus.PROCESSING


@shared_task(bind=True, name="tests.jobs.database_gone", queue="tests-no-worker")
def database_gone(self, job_id: int) -> dict:
    """A job task whose database is gone: run_job's guard asks Celery itself for the retry (no worker consumes
    its queue, so the retry message published to the test stack's broker just waits there)."""

    def work(job):
        raise OperationalError("server closed the connection unexpectedly")

    return run_job(self, SystemCheck, job_id, work)


@pytest.mark.parametrize("retries", [0, 50], ids=["first-retry", "fiftieth-retry"])
def test_a_lost_database_is_retried_without_limit_within_the_database_interval(retries, purged_broker):
    job = SystemCheck.objects.create()
    database_gone.push_request(id=f"database-gone-{retries}", retries=retries, args=[job.pk], called_directly=False)
    try:
        # Celery's own retry(): past its default limit of 3 it would raise the OperationalError instead.
        with pytest.raises(Retry) as retry:
            database_gone.run(job.pk)
    finally:
        database_gone.pop_request()
    assert 0 <= float(retry.value.when) <= DATABASE_RETRY_SECONDS
    job.refresh_from_db()
    assert job.status == JobStatus.PROCESSING  # the retry resumes it


def test_run_job_marks_crash_as_failed_never_stuck_processing():
    job = SystemCheck.objects.create()

    def boom(j):
        raise ValueError("bad input")

    result = run_job(FakeTask(), SystemCheck, job.pk, boom)
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED and job.message == "ValueError: bad input"
    assert result["error"] == "ValueError: bad input"


def test_run_job_for_missing_job_says_not_found():
    result = run_job(FakeTask(), SystemCheck, 999999, lambda j: {})
    assert result["success"] is False and "not found" in result["error"]


def _statements(queries) -> list[str]:
    """The reads and writes among captured queries (savepoints left out): "SELECT", "UPDATE", …"""
    verbs = [q["sql"].split()[0].upper() for q in queries.captured_queries]
    return [verb for verb in verbs if verb in {"SELECT", "INSERT", "UPDATE", "DELETE"}]


def test_a_message_is_checked_against_its_row_by_the_read_that_starts_the_job():
    """The job row is read once before the work, locked; a message naming other values is refused by that read,
    and nothing is written."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    job = SystemCheck.objects.create(total_items=2)
    with CaptureQueriesContext(connection) as refused:
        result = run_job(FakeTask(), SystemCheck, job.pk, lambda j: {}, matches={"total_items": 3})
    assert result["success"] is False and "does not match its message {'total_items': 3}" in result["error"]
    assert _statements(refused) == ["SELECT"]
    job.refresh_from_db()
    assert (job.status, job.celery_task_id, job.unfinished_deliveries) == ("pending", "", 0)

    with CaptureQueriesContext(connection) as accepted:
        result = run_job(FakeTask(), SystemCheck, job.pk, lambda j: {}, matches={"total_items": 2})
    assert result["success"] and _statements(accepted)[:2] == ["SELECT", "UPDATE"]


def _queue_probe(job) -> OutboxMessage:
    # Expires at once: the real message this sends is for the broker, not for a worker of a later test.
    return dispatch_after_commit(job, probe_queue, kwargs={"job_id": job.pk, "queue": "default"}, expires=1)


def test_queued_job_is_recorded_at_once_and_sent_only_after_commit(django_capture_on_commit_callbacks):
    job = SystemCheck.objects.create()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        message = _queue_probe(job)
        assert OutboxMessage.objects.get(pk=message.pk).sent_at is None, "sent before the row was committed"
    message.refresh_from_db()
    assert message.sent_at is not None and message.attempts == 1 and len(callbacks) == 1
    job.refresh_from_db()
    assert job.status == JobStatus.PENDING and job.message == ""


def test_a_refused_publish_keeps_the_job_waiting_and_beat_sends_it_when_the_broker_is_back(
    django_capture_on_commit_callbacks, request
):
    job = SystemCheck.objects.create()
    broker_is_back = request.getfixturevalue("unreachable_broker")
    with django_capture_on_commit_callbacks(execute=True):
        message = _queue_probe(job)
    assert publish_pending() == {"success": True, "sent": 0, "waiting": 1}  # still down: nothing sent, nothing lost
    job.refresh_from_db()
    message.refresh_from_db()
    assert (job.status, job.error_code, job.message) == (JobStatus.PENDING, "broker_unavailable", WAITING_FOR_BROKER)
    assert message.sent_at is None and message.attempts == 2 and "Connection" in message.last_error

    broker_is_back()
    assert publish_pending() == {"success": True, "sent": 1, "waiting": 0}
    assert publish_pending()["sent"] == 0, "a sent message is never sent twice"
    job.refresh_from_db()
    message.refresh_from_db()
    assert message.sent_at is not None and (job.status, job.error_code, job.message) == (JobStatus.PENDING, "", "")
    OutboxMessage.objects.filter(pk=message.pk).update(sent_at=timezone.now() - timedelta(days=8))
    publish_pending()
    assert not OutboxMessage.objects.filter(pk=message.pk).exists(), "sent messages are dropped after a week"


def test_the_waiting_note_stays_until_the_refused_message_itself_is_sent(django_capture_on_commit_callbacks, request):
    """A job with two messages: the first refused, the second sent at once. The job still waits for the first."""
    job = SystemCheck.objects.create()
    broker_is_back = request.getfixturevalue("unreachable_broker")
    with django_capture_on_commit_callbacks(execute=True):
        refused = _queue_probe(job)
    broker_is_back()
    with django_capture_on_commit_callbacks(execute=True):
        sent = _queue_probe(job)
    sent.refresh_from_db()
    job.refresh_from_db()
    assert sent.sent_at is not None and sent.attempts == 1
    assert (job.error_code, job.message) == ("broker_unavailable", WAITING_FOR_BROKER), (
        "the refused message is still unsent"
    )

    assert publish_pending() == {"success": True, "sent": 1, "waiting": 0}
    refused.refresh_from_db()
    job.refresh_from_db()
    assert refused.sent_at is not None and (job.error_code, job.message) == ("", "")


def test_fail_stale_jobs_frees_only_silent_active_jobs():
    silent, busy, done = (SystemCheck.objects.create() for _ in range(3))
    done.finish(JobStatus.COMPLETED)
    SystemCheck.objects.filter(pk__in=[silent.pk, done.pk]).update(updated_at=timezone.now() - timedelta(minutes=41))
    assert fail_stale_jobs(SystemCheck.objects.all(), after_minutes=40) == 1
    statuses = dict(SystemCheck.objects.values_list("pk", "status"))
    assert statuses == {silent.pk: "failed", busy.pk: "pending", done.pk: "completed"}


# --- deliveries: poison messages and graceful stops ----------------------------------


def test_deliveries_that_killed_their_worker_without_progress_make_a_poison_message(settings):
    """Three deliveries died (never returned) without progress: the fourth fails the job instead of running it."""
    settings.JOB_MAX_UNFINISHED_DELIVERIES = 3
    job = SystemCheck.objects.create(total_items=5)
    for attempt in range(3):
        SystemCheck.begin_run(job.pk, f"died-{attempt}", max_unfinished=3)  # each died before end_delivery
    ran = []
    result = run_job(FakeTask(), SystemCheck, job.pk, lambda j: ran.append(j.pk))
    job.refresh_from_db()
    assert ran == [] and result["success"] is False
    assert (job.status, job.error_code) == (JobStatus.FAILED, "poison_message")
    assert "the last 3 attempts" in job.message


def test_a_killed_delivery_that_made_progress_is_not_held_against_the_job(settings):
    settings.JOB_MAX_UNFINISHED_DELIVERIES = 3
    job = SystemCheck.objects.create(total_items=5)
    for done in range(1, 6):  # killed five times, but each delivery got one item further
        assert SystemCheck.begin_run(job.pk, f"died-{done}", max_unfinished=3)[1] == 1
        job.set_counts(processed_items=done)
    assert run_job(FakeTask(), SystemCheck, job.pk, lambda j: {})["success"] is True
    job.refresh_from_db()
    assert (job.status, job.unfinished_deliveries) == (JobStatus.COMPLETED, 0)


def test_work_stopped_for_a_worker_shutdown_is_requeued_with_the_job_still_processing():
    from celery.exceptions import Reject

    from jobs.runner import StopRequested

    job = SystemCheck.objects.create(total_items=4)

    def stop_at_a_safe_point(j):
        SystemCheck.objects.filter(pk=j.pk).update(stop_requested=True)  # what the worker's SIGTERM receiver does
        assert j.stop_reason() == "shutdown"
        raise StopRequested("stopping")

    with pytest.raises(Reject) as rejected:
        run_job(FakeTask(), SystemCheck, job.pk, stop_at_a_safe_point)
    assert rejected.value.requeue is True
    job.refresh_from_db()
    assert (job.status, job.stop_requested, job.unfinished_deliveries) == (JobStatus.PROCESSING, False, 0)


# --- run_job's round trips: fewer queries, the same row -------------------------------


def test_a_redelivered_job_is_taken_over_keeping_its_first_start_and_its_delivery_count_ends_at_zero():
    """Given a job whose first delivery died while processing, when run_job runs it again, then the job
    completes under the new task id, keeps its first start time and its delivery count is back to zero."""
    job = SystemCheck.objects.create(total_items=1)
    job, _ = SystemCheck.begin_run(job.pk, "first-delivery", max_unfinished=3)
    first_start = job.started_at
    seen = []
    result = run_job(FakeTask(), SystemCheck, job.pk, lambda j: seen.append((j.status, j.unfinished_deliveries)))
    job.refresh_from_db()
    assert result["success"] is True and seen == [(JobStatus.PROCESSING, 2)]
    assert (job.status, job.celery_task_id, job.started_at) == (JobStatus.COMPLETED, "task-123", first_start)
    assert job.unfinished_deliveries == 0 and job.completed_at is not None


def test_a_job_cancelled_while_it_works_stays_cancelled_and_its_delivery_still_ends():
    """Given a running job, when it is cancelled before its work returns, then finishing loses to the
    cancellation (the row is re-read, not overwritten) and the delivery count is reset all the same."""
    job = SystemCheck.objects.create(total_items=1)

    def work(running):
        SystemCheck.objects.get(pk=running.pk).request_cancel("stop")  # a person's Cancel, from another request

    result = run_job(FakeTask(), SystemCheck, job.pk, work)
    job.refresh_from_db()
    assert result["success"] is False and result["status"] == JobStatus.CANCELLED
    assert (job.status, job.message, job.unfinished_deliveries) == (JobStatus.CANCELLED, "stop", 0)


def test_work_that_names_its_failure_fails_the_job_with_that_message_and_code():
    """Given work that raises JobFailed, when run_job runs it, then the job fails with the work's own
    message and code (not an "unexpected error") and its delivery ends."""
    job = SystemCheck.objects.create(total_items=1)

    def work(running):
        raise JobFailed("The file storage could not be read.", ErrorCode.STORAGE_UNAVAILABLE)

    result = run_job(FakeTask(), SystemCheck, job.pk, work)
    job.refresh_from_db()
    assert result == {"success": False, "job_id": job.pk, "status": "failed", "error": job.message}
    assert (job.message, job.error_code) == ("The file storage could not be read.", "storage_unavailable")
    assert job.unfinished_deliveries == 0


def test_a_finished_job_redelivered_is_left_untouched():
    job = SystemCheck.objects.create(total_items=1)
    job.finish(JobStatus.COMPLETED)
    before = SystemCheck.objects.filter(pk=job.pk).values().get()
    assert run_job(FakeTask(), SystemCheck, job.pk, lambda j: pytest.fail("ran again"))["skipped"] is True
    assert SystemCheck.objects.filter(pk=job.pk).values().get() == before
