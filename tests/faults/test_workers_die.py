"""Fault cases where a worker dies, is stopped, or never comes back: nothing is lost, nothing is doubled."""

import pytest

from rfp_manager.models import RFPBatchJob
from tests.workers import wait_for

from .duplicates import ChatLog, check_no_duplicates
from .jobs import (
    exact,
    finished,
    job_figures,
    processed,
    rfp_with_questions,
    running_on,
    start_responder,
    wait_until_running_on,
)

pytestmark = [pytest.mark.faults, pytest.mark.integration]


def test_batch_worker_main_process_sigkilled_three_times(
    record, queue_to_own_workers, make_worker, chat_library, fake_llm, user, user_client
):
    case = record(
        "SIGKILL of the batch worker's main process, 3 times, during a 300-question responder job",
        "the batch worker's main process gets SIGKILL (its pool children die with it) three times, "
        "each time once more questions are done; a new worker is started after each kill",
    )
    total, kills = 300, 3
    fake_llm.configure(latency_ms=20)
    queue_to_own_workers("batch")
    worker = make_worker(queues="batch", concurrency=1)
    chat = ChatLog(fake_llm)
    rfp = rfp_with_questions(user, total)
    job = start_responder(user_client, rfp)
    case.event(f"responder job {job.pk} started over {total} questions (fake LLM at 20 ms per call)")
    done_at_kill = []
    for kill in range(1, kills + 1):
        target = kill * total // (kills + 1)
        wait_for(lambda t=target: processed(job.pk) >= t, timeout=240, message=f"{target} questions done")
        wait_until_running_on(worker, job.pk)
        worker.kill_main_process()
        wait_for(lambda w=worker: not w.group_alive(), timeout=30, message="the pool children gone with their parent")
        done_at_kill.append(processed(job.pk))
        case.event(f"SIGKILL #{kill} of the worker's main process with {done_at_kill[-1]} of {total} questions done")
        chat.cut()
        worker = make_worker(queues="batch", concurrency=1)
        case.event(f"a new batch worker started ({worker.name})")
    job = finished(job.pk)
    case.event(f"job {job.status}")
    case.figure("questions done at each kill", done_at_kill)
    case.check("job counters, result rows and answers", job_figures(job), exact(total))
    in_flight = chat.in_flight_at_cuts()
    case.figure("questions in flight at each kill (asked, no result row yet)", in_flight)
    case.check(
        f"chat calls: one per question, plus one per question in flight at a kill ({total} + {sum(in_flight)})",
        chat.calls(),
        total + sum(in_flight),
    )
    check_no_duplicates(case, chat, [job])


def test_sigterm_during_a_batch_job_requeues_it_at_a_safe_point(
    record, queue_to_own_workers, make_worker, chat_library, fake_llm, user, user_client
):
    case = record(
        "SIGTERM (a deploy) during a batch job",
        "SIGTERM to the batch worker's main process mid-job (warm shutdown); another worker is started later",
    )
    total = 120
    fake_llm.configure(latency_ms=60)
    queue_to_own_workers("batch")
    worker = make_worker(queues="batch", concurrency=1)
    chat = ChatLog(fake_llm)
    job = start_responder(user_client, rfp_with_questions(user, total))
    wait_for(lambda: processed(job.pk) >= 20, timeout=120, message="20 questions done")
    case.event(f"SIGTERM to the worker with {processed(job.pk)} of {total} questions done")
    exit_code = worker.terminate()
    chat.cut()
    stopped = job_figures(job)
    case.event(f"the worker exited (code {exit_code}) with {stopped['processed']} questions done")
    case.check("worker exit code after its warm shutdown", exit_code, 0)
    case.check("job left processing (requeued, not failed)", stopped["status"], "processing")
    case.check(
        "counters equal the result rows when it stopped (nothing half-written)",
        (stopped["processed"], stopped["succeeded"]),
        (stopped["result_rows"], stopped["result_rows"]),
    )
    case.check("stopped before the end", stopped["processed"] < total, True)
    make_worker(queues="batch", concurrency=1)
    case.event("a new batch worker started")
    job = finished(job.pk)
    case.event(f"job {job.status}")
    case.figure("questions done before the stop", stopped["processed"])
    case.check("job counters, result rows and answers", job_figures(job), exact(total))
    case.check(
        "questions asked but not recorded when the worker stopped (in-flight ones finish first)",
        chat.in_flight_at_cuts(),
        [0],
    )
    case.check("chat calls: every question asked exactly once", chat.calls(), total)
    check_no_duplicates(case, chat, [job])


def test_the_sweeper_sends_again_or_fails_a_job_whose_worker_vanished(
    record, queue_to_own_workers, make_worker, chat_library, fake_llm, user, user_client, settings
):
    """A worker dies and its message is gone too (a purged queue, a broker that lost it): no redelivery will come."""
    from jobs.models import SystemCheck
    from jobs.sweeper import sweep
    from spelunker.celery import app

    case = record(
        "The sweeper and a job whose worker vanished without redelivery",
        "SIGKILL of the batch worker, then its requeued message is purged from the queue; the sweeper "
        "(the function Beat's `spelunker.sweep_lost_jobs` runs) is called with a 2 s staleness threshold",
    )
    settings.JOB_STALE_SECONDS = 2
    total = 60
    fake_llm.configure(latency_ms=300)
    queue_to_own_workers("batch")
    first = make_worker(queues="batch", concurrency=1)
    job = start_responder(user_client, rfp_with_questions(user, total))
    wait_for(lambda: processed(job.pk) >= 8, timeout=120, message="8 questions done")
    first.kill()
    with app.connection_for_write() as conn:
        purged = app.amqp.queues["batch"].bind(conn.default_channel).purge()
    case.event(f"batch worker killed with {processed(job.pk)} of {total} questions done; {purged} message purged")
    lost_check = SystemCheck.objects.create(status="processing", total_items=3, celery_task_id="gone")
    wait_for(
        lambda: job_figures(job)["status"] == "processing" and _silent_for(job, 2.5),
        timeout=30,
        message="the job to be silent past the threshold",
    )

    outcome = sweep()
    case.event(f"sweep: {outcome}")
    case.check("the idempotent job is sent again", f"rfp_batch-{job.pk}" in outcome["redispatched"], True)
    case.check(
        "the worker check (not idempotent) is failed", f"system_check-{lost_check.pk}" in outcome["failed"], True
    )
    lost_check.refresh_from_db()
    case.check("its reason code", lost_check.error_code, "worker_lost")
    case.figure("its message", lost_check.message)

    second = make_worker(queues="batch", concurrency=1)
    case.event("a new batch worker started")
    wait_for(
        lambda: running_on(second, job.pk) or not RFPBatchJob.objects.get(pk=job.pk).is_active,
        timeout=60,
        message="the job running again",
    )
    made_silent = RFPBatchJob.objects.filter(pk=job.pk, status="processing").update(updated_at=_past(60))
    case.check("the resumed job, made to look silent while it runs", made_silent, 1)
    again = sweep()
    case.check(
        "a job a live worker still runs is left alone, however silent",
        f"rfp_batch-{job.pk}" in again["redispatched"] + again["failed"],
        False,
    )
    job = finished(job.pk)
    case.event(f"job {job.status}")
    case.check("re-sends recorded on the job", job.redispatch_count, 1)
    case.check("job counters, result rows and answers", job_figures(job), exact(total))


def _past(seconds: float):
    from datetime import timedelta

    from django.utils import timezone

    return timezone.now() - timedelta(seconds=seconds)


def _silent_for(job, seconds: float) -> bool:
    return RFPBatchJob.objects.filter(pk=job.pk, updated_at__lt=_past(seconds)).exists()
