"""System checks: write a check and its probes, record each probe's answer; and the Flower link of a task."""

from django.conf import settings
from django.utils import timezone

from .models import JobStatus, QueueProbe, SystemCheck

QUEUES = ("default", "embedding", "batch")  # a worker check sends one probe to each


def create_system_check(user) -> SystemCheck:
    """A worker check and its probe rows, one per queue; the caller dispatches it (dispatch_system_check)."""
    check = SystemCheck.objects.create(started_by=user, total_items=len(QUEUES))
    QueueProbe.objects.bulk_create(QueueProbe(check_run=check, queue=q) for q in QUEUES)
    return check


def record_probe_answer(check_id: int, queue: str, worker: str, task_id: str) -> dict:
    """Mark one queue as answered; complete the check when all have. Idempotent."""
    check = SystemCheck.objects.filter(pk=check_id).first()
    if check is None:
        return {"success": False, "job_id": check_id, "error": f"system check {check_id} not found"}
    if not check.is_active:
        return {"success": check.status == JobStatus.COMPLETED, "job_id": check_id, "skipped": True}
    check.start()
    now = timezone.now()
    QueueProbe.objects.filter(check_run=check, queue=queue, answered_at__isnull=True).update(
        worker=worker,
        celery_task_id=task_id,
        answered_at=now,
        latency_ms=(now - check.created_at).total_seconds() * 1000,
    )
    answered = check.probes.filter(answered_at__isnull=False).count()
    # The probes answer in parallel: a count taken before another probe's answer landed must not
    # overwrite the higher count that answer wrote (the check would read completed at 2 of 3).
    SystemCheck.objects.filter(pk=check.pk, processed_items__lt=answered).update(
        processed_items=answered, successful_items=answered, updated_at=now
    )
    if answered == check.total_items:
        check.finish(JobStatus.COMPLETED)
    return {"success": True, "job_id": check_id, "queue": queue, "answered": answered}


def flower_task_url(task_id: str) -> str:
    return f"{settings.FLOWER_URL.rstrip('/')}/task/{task_id}" if task_id else ""
