import logging

from celery import shared_task

from . import dispatch, sweeper
from .dispatch import dispatch_after_commit
from .models import SystemCheck
from .services import record_probe_answer

logger = logging.getLogger(__name__)


# These tasks were written when the toolkit lived in the `spelunker` app: their names stay, since Beat's
# schedules (PeriodicTask rows), the outbox and messages already queued call them by name.


@shared_task(bind=True, name="spelunker.probe_queue", soft_time_limit=30, time_limit=60)
def probe_queue(self, job_id: int, queue: str) -> dict:
    """Answer a system check's probe from whichever queue delivered it."""
    result = record_probe_answer(job_id, queue, worker=self.request.hostname or "", task_id=self.request.id or "")
    logger.info("Probe answered on queue %s", queue, extra={"job_id": job_id, "queue": queue})
    return result


def dispatch_system_check(check: SystemCheck) -> None:
    """Queue one probe per queue after commit, each on its own queue (create_system_check wrote their rows)."""
    for probe in check.probes.order_by("pk"):
        # A probe nobody picks up within a minute is news, not work.
        dispatch_after_commit(
            check, probe_queue, kwargs={"job_id": check.pk, "queue": probe.queue}, queue=probe.queue, expires=60
        )


@shared_task(bind=True, name="spelunker.publish_outbox", soft_time_limit=50, time_limit=60)
def publish_outbox(self) -> dict:
    """Beat, every few seconds: send the task messages the broker refused earlier (see dispatch.py)."""
    result = dispatch.publish_pending()
    if result["sent"] or result["waiting"]:
        logger.info(
            "Outbox: sent %s, still waiting %s", result["sent"], result["waiting"], extra={"task_id": self.request.id}
        )
    return result


@shared_task(bind=True, name="spelunker.sweep_lost_jobs", soft_time_limit=50, time_limit=60)
def sweep_lost_jobs(self) -> dict:
    """Beat, every minute: send again or fail the jobs whose worker vanished (see sweeper.py)."""
    return sweeper.sweep()
