"""`run_job`: the body every job task shares.

A task stays a thin wrapper:

    @shared_task(bind=True, name="app.action", soft_time_limit=..., time_limit=...)
    def action(self, job_id: int) -> dict:
        return run_job(self, MyJob, job_id, do_the_work)

`do_the_work(job)` is a plain function (usually a service call) that returns a
dict of result figures. `run_job` guards the entry (missing job, job already
finished by an earlier delivery), fails a poison message (deliveries that kept
killing their worker without progress), writes the authoritative task id from
inside the task, requeues work that stopped for a worker shutdown, turns
JobFailed (a failure the work names), SoftTimeLimitExceeded and unexpected
errors into a failed job with a clear message and code, and returns the
structured result dict.
"""

import logging
import sys
from collections.abc import Callable
from contextlib import contextmanager

from celery.exceptions import Reject, Retry, SoftTimeLimitExceeded
from django.conf import settings
from django.db import InterfaceError, OperationalError

from .backoff import backoff_seconds
from .models import BaseJob, ErrorCode, JobStatus

logger = logging.getLogger(__name__)


def soft_time_limit_of(task) -> int | None:
    """The soft limit in force: the one sent with the message wins over the decorator's."""
    _hard, soft = getattr(task.request, "timelimit", None) or (None, None)
    return soft or task.soft_time_limit or task.app.conf.task_soft_time_limit


class StopRequested(Exception):
    """Raised by work that stopped at a safe point because its worker is shutting down (SIGTERM, a deploy)."""


class JobFailed(Exception):
    """Raised by work that failed for a reason it can name: the job fails with this message and code."""

    def __init__(self, message: str, code: str = ErrorCode.TASK_ERROR):
        super().__init__(message)
        self.message = message
        self.code = code


def max_unfinished_deliveries() -> int:
    return settings.JOB_MAX_UNFINISHED_DELIVERIES


# The database went away (a restart, a failover): nothing about the job can be recorded until it is back.
# Every waiting job tries again within this many seconds (spread by the jitter, so they do not all reconnect at once).
DATABASE_ERRORS = (OperationalError, InterfaceError)
DATABASE_RETRY_SECONDS = 5
# Celery reads retry(max_retries=None) as "the task's own limit" (3 by default), not "no limit": a database
# that took longer than three short retries to come back killed the message, and its job stood still.
WITHOUT_LIMIT = sys.maxsize


def run_job(
    task, job_model: type[BaseJob], job_id: int, work: Callable[[BaseJob], dict | None], matches: dict | None = None
) -> dict:
    """Run `work(job)` under the job toolkit's rules (see the module docstring).

    `matches` holds what the message says of the row (its RFP, its kind): a message naming a row that
    differs is refused without touching it. It is read here, inside the database guard, because a task
    that reads the database before this guard dies of a restart instead of waiting for it.
    """
    with retried_while_the_database_is_down(task, f"{job_model.__name__} {job_id}", job_id=job_id):
        return _run_job(task, job_model, job_id, work, matches or {})


@contextmanager
def retried_while_the_database_is_down(task, what: str, **context):
    """Turn a lost database inside the block into a retry of `task`, without limit.

    While the database is down no job can run or fail anyway, and the job's own state (processing, its
    finished items) is still there when it returns, so the retry resumes it. Every read a task makes
    before its work belongs inside this block: one outside it kills the message instead.
    """
    try:
        yield
    except DATABASE_ERRORS as exc:
        countdown = backoff_seconds(task.request.retries, base=DATABASE_RETRY_SECONDS, cap=DATABASE_RETRY_SECONDS)
        logger.warning("Database unavailable during %s; retrying in %.1f s: %s", what, countdown, exc, extra=context)
        raise task.retry(exc=exc, countdown=countdown, max_retries=WITHOUT_LIMIT) from None


def _run_job(
    task, job_model: type[BaseJob], job_id: int, work: Callable[[BaseJob], dict | None], matches: dict
) -> dict:
    label = job_model._meta.verbose_name
    context = {"job_id": job_id, "job_type": job_model.__name__}
    # Counts this delivery and marks the job processing in one transaction (four round trips), unless the row
    # is missing, finished, or not the one the message describes.
    job, deliveries = job_model.begin_run(job_id, task.request.id or "", max_unfinished_deliveries(), matches)
    if job is None:
        logger.error("%s %s not found", label, job_id, extra=context)
        return {"success": False, "job_id": job_id, "error": f"{label} {job_id} not found"}
    if not job.describes(matches):
        logger.error("%s %s does not match its message %s", label, job_id, matches, extra=context)
        return {"success": False, "job_id": job_id, "error": f"{label} {job_id} does not match its message {matches}"}
    if not deliveries:
        return _already_finished(job, label, context)
    try:
        if deliveries > max_unfinished_deliveries():
            return _fail_poison(job, deliveries - 1, label, context)
        logger.info("%s %s started", label, job_id, extra=context)
        return _work(task, job, work, label, context)
    finally:
        # Whatever happened, this delivery returned: it did not kill its worker (a no-op when finish did it).
        job.end_delivery()


def _already_finished(job: BaseJob, label: str, context: dict) -> dict:
    # An earlier delivery finished it (or it was cancelled before it ran).
    logger.info("%s %s already %s; nothing to do", label, job.pk, job.status, extra=context)
    return {"success": job.status == JobStatus.COMPLETED, "job_id": job.pk, "status": job.status, "skipped": True}


def _fail_poison(job: BaseJob, crashed: int, label: str, context: dict) -> dict:
    message = (
        f"Stopped for good: the last {crashed} attempts to run it ended with the worker process dying "
        "(out of memory or a crash) before it made any progress. Check the input, then start it again."
    )
    logger.error("%s %s is a poison message (%s deliveries died)", label, job.pk, crashed, extra=context)
    job.finish(JobStatus.FAILED, message, ErrorCode.POISON_MESSAGE, ending_delivery=True)
    return {"success": False, "job_id": job.pk, "status": job.status, "error": message}


def _work(task, job: BaseJob, work: Callable[[BaseJob], dict | None], label: str, context: dict) -> dict:
    job_id = job.pk
    try:
        figures = work(job) or {}
    except (Retry, *DATABASE_ERRORS):
        # The task chose to retry a transient failure (or the database is
        # gone, see run_job): the job stays processing and the retried
        # message picks it up again.
        raise
    except JobFailed as exc:
        logger.warning("%s %s failed: %s", label, job_id, exc.message, extra=context)
        job.finish(JobStatus.FAILED, exc.message, exc.code, ending_delivery=True)
        return {"success": False, "job_id": job_id, "status": job.status, "error": exc.message}
    except StopRequested:
        # Work done so far is recorded; the message goes back to the queue for the next worker.
        logger.info("%s %s stopped for a worker shutdown; requeued", label, job_id, extra=context)
        raise Reject("worker shutting down", requeue=True) from None
    except MemoryError:
        # Past the pool process's memory budget (spelunker/celery.py); the process is replaced after this task.
        message = (
            f"Stopped: the work needed more memory than a worker process may use "
            f"({settings.WORKER_MEMORY_LIMIT_MB} MB, SPELUNKER_WORKER_MEMORY_LIMIT_MB). Check the input: a file "
            "this large to read is better split."
        )
        logger.error("%s %s ran out of memory", label, job_id, extra=context)
        job.finish(JobStatus.FAILED, message, ErrorCode.MEMORY_LIMIT, ending_delivery=True)
        return {"success": False, "job_id": job_id, "status": job.status, "error": message}
    except SoftTimeLimitExceeded:
        limit = soft_time_limit_of(task)
        message = f"Stopped: the time limit of {limit} s was exceeded. Work done so far is kept."
        logger.warning("%s %s hit its soft time limit", label, job_id, extra=context)
        job.finish(JobStatus.FAILED, message, ErrorCode.TIME_LIMIT, ending_delivery=True)
        return {"success": False, "job_id": job_id, "status": job.status, "error": message}
    except Exception as exc:  # a job must never stay "processing" after a crash
        message = f"{type(exc).__name__}: {exc}"
        logger.error("%s %s failed: %s", label, job_id, message, extra=context, exc_info=True)
        job.finish(JobStatus.FAILED, message, ErrorCode.TASK_ERROR, ending_delivery=True)
        return {"success": False, "job_id": job_id, "status": job.status, "error": message}

    job.finish(JobStatus.COMPLETED, ending_delivery=True)
    logger.info("%s %s finished: %s %s", label, job_id, job.status, figures, extra=context)
    return {"success": job.status == JobStatus.COMPLETED, "job_id": job_id, "status": job.status, **figures}
