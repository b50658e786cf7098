"""Graceful shutdown: when a worker is asked to stop (SIGTERM, a deploy), its running jobs stop at a safe point.

Celery's warm shutdown waits for running tasks to finish, which for a batch
job can take hours. This receiver, run in the worker's main process, flags
the jobs whose tasks it is running; their work loops see the flag between
items (`BaseJob.stop_reason`), stop, and the task requeues its message
(`run_job` → Reject(requeue=True)), so the next worker resumes the job.
"""

import logging

from celery.signals import worker_shutting_down

logger = logging.getLogger(__name__)


@worker_shutting_down.connect
def ask_running_jobs_to_stop(sender=None, how="", **kwargs):
    if how != "Warm":  # a cold shutdown does not wait: acks_late already gives the messages back
        return
    from celery.worker import state

    from .kinds import job_models
    from .models import JobStatus

    task_ids = [request.id for request in list(state.active_requests)]
    if not task_ids:
        return
    try:
        for model in job_models():
            flagged = model.objects.filter(celery_task_id__in=task_ids, status=JobStatus.PROCESSING).update(
                stop_requested=True
            )
            if flagged:
                logger.info("Asked %s running %s to stop at a safe point", flagged, model._meta.verbose_name_plural)
    except Exception:  # the database may be the reason for the shutdown: the warm shutdown goes on regardless
        logger.exception("Could not ask the running jobs to stop")
