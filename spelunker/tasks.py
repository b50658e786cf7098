import logging

from celery import shared_task

from .services import record_probe_answer

logger = logging.getLogger(__name__)


@shared_task(bind=True, name="spelunker.probe_queue", soft_time_limit=30, time_limit=60)
def probe_queue(self, job_id: int, queue: str) -> dict:
    """Answer a system check's probe from whichever queue delivered it."""
    result = record_probe_answer(job_id, queue, worker=self.request.hostname or "", task_id=self.request.id or "")
    logger.info("Probe answered on queue %s", queue, extra={"job_id": job_id, "queue": queue})
    return result
