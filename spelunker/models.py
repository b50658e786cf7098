"""System-level job: a round trip through every Celery queue."""
from django.db import models

from spelunker.jobs.models import BaseJob, JobAcknowledgement, OutboxMessage  # noqa: F401  (the toolkit's tables live in this app)


class SystemCheck(BaseJob):
    """Proves a worker serves each queue: one probe message per queue.

    The walking skeleton of the stack: web → on_commit → RabbitMQ → worker →
    job row → progress page.
    """

    class Meta(BaseJob.Meta):
        verbose_name = "system check"

    def __str__(self):
        return f"Worker check {self.pk}"


class QueueProbe(models.Model):
    check_run = models.ForeignKey(SystemCheck, on_delete=models.CASCADE, related_name="probes")
    queue = models.CharField(max_length=50)
    celery_task_id = models.CharField(max_length=255, blank=True)
    worker = models.CharField(max_length=255, blank=True)
    latency_ms = models.FloatField(null=True, blank=True)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["queue"]
        constraints = [models.UniqueConstraint(fields=["check_run", "queue"], name="one_probe_per_queue")]

    def __str__(self):
        return f"{self.queue} probe of check {self.check_run_id}"
