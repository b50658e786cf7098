"""Queue a job's task after commit, and never leave the job waiting for a message that was not sent."""
import logging
from collections.abc import Callable

from django.db import transaction

from .models import BaseJob, JobStatus

logger = logging.getLogger(__name__)


def queue_job_after_commit(job: BaseJob, send: Callable[[], object]) -> None:
    """Call `send()` (e.g. `task.delay(job_id=job.pk)`) once the job row is committed.

    The worker must be able to read the row, so the message goes after commit.
    If the broker refuses it, the job is marked failed with the reason: a job
    left pending with no message behind it would otherwise block every later
    job of its kind (one active job per source / RFP / API) for good.
    """

    def dispatch():
        try:
            send()
        except Exception as exc:  # any publish failure: broker down, bad credentials, confirm refused
            reason = f"Could not queue the task ({type(exc).__name__}: {exc}). Is the message broker running? Try again."
            logger.error("Could not queue %s %s: %s", type(job).__name__, job.pk, exc, extra={"job_id": job.pk}, exc_info=True)
            job.finish(JobStatus.FAILED, reason)

    transaction.on_commit(dispatch)

