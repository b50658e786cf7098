"""Thin Celery wrappers for the answer library: import, duplicates-and-conflicts scan, review queue.

The two batch jobs follow the job toolkit's rules (the row is written first,
the task is dispatched after commit through the outbox, `run_job` records the
start, the finish, a time limit or a crash); no autoretry — a row that fails
is recorded on the job and the rest goes on. The review-queue task is
periodic and idempotent (absolute values), so Beat may run it twice.
"""

import logging

from celery import shared_task
from django.conf import settings
from django.db import IntegrityError, transaction

from jobs.dispatch import dispatch_after_commit
from jobs.models import ErrorCode
from jobs.runner import JobFailed, run_job

from .models import LibraryJob
from .services import conflicts, importing, review

logger = logging.getLogger(__name__)

SOFT_LIMIT = 30 * 60
HARD_LIMIT = SOFT_LIMIT + 5 * 60


@shared_task(
    bind=True, name="answer_library.batch_import_answered_workbook", soft_time_limit=SOFT_LIMIT, time_limit=HARD_LIMIT
)
def batch_import_answered_workbook(self, job_id: int) -> dict:
    """One entry per answered row of the job's workbook; a re-run updates the same entries. Then the library is
    scanned for duplicates and conflicts, so what the file repeats or contradicts reaches the review queue."""
    result = run_job(self, LibraryJob, job_id, importing.run_import_job)
    scan_for_duplicates_and_conflicts(LibraryJob.objects.get(pk=job_id).started_by)
    return result


def scan_for_duplicates_and_conflicts(user) -> None:
    """Queue a scan unless one is already active (the database allows one). An active scan may have read the
    library before this import's entries: they are then found by the next scan (the next import's, or a person's
    "Scan" on the findings page)."""
    try:
        with transaction.atomic():
            dispatch_job(conflicts.create_scan_job(user))
    except IntegrityError:
        logger.info("A duplicates-and-conflicts scan is already active; not queueing another")


@shared_task(
    bind=True,
    name="answer_library.read_answered_workbook",
    soft_time_limit=settings.QUESTION_IMPORT_SOFT_TIME_LIMIT,  # the questionnaire import's reading job's budget
    time_limit=settings.QUESTION_IMPORT_SOFT_TIME_LIMIT + 30,
)
def read_answered_workbook(self, job_id: int) -> dict:
    """Read an answered workbook too large for the upload request (on the default queue, as the questionnaire
    import's reading job): its preview opens when this completes."""
    return run_job(self, LibraryJob, job_id, _read)


def _read(job: LibraryJob) -> dict:
    try:
        return importing.run_read_job(job)
    except importing.LibraryImportError as exc:  # the file is refused or holds no answer: the message says why
        raise JobFailed(str(exc), ErrorCode.FILE_REFUSED) from exc


@shared_task(
    bind=True,
    name="answer_library.batch_find_duplicates_and_conflicts",
    soft_time_limit=SOFT_LIMIT,
    time_limit=HARD_LIMIT,
)
def batch_find_duplicates_and_conflicts(self, job_id: int) -> dict:
    """Pairs of entries asking the same question, as findings (upserted per pair)."""
    return run_job(self, LibraryJob, job_id, conflicts.run_conflicts_job)


@shared_task(name="answer_library.refresh_review_queue", soft_time_limit=300, time_limit=360)
def refresh_review_queue() -> dict:
    """Periodic (seeded in migration 0001_squashed): mark entries past review or with a changed/removed source."""
    result = review.refresh_review_queue()
    logger.info("Review queue refreshed: %s", result, extra=result)
    return {"success": True, **result}


JOB_TASKS = {
    LibraryJob.READ: read_answered_workbook,
    LibraryJob.IMPORT: batch_import_answered_workbook,
    LibraryJob.CONFLICTS: batch_find_duplicates_and_conflicts,
}


def dispatch_job(job: LibraryJob) -> None:
    """Queue the job's task after commit (also what the sweeper calls to send a lost job again)."""
    dispatch_after_commit(job, JOB_TASKS[job.job_type], args=[job.pk])
