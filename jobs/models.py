"""The abstract job row (the source of truth for every progress page), the outbox of messages to send,
and the worker check (a job of this app: one probe per queue).

The concrete tables were created by the `spelunker` app and keep their names (Meta.db_table): moving
them here changed no data, and the squashed history (migrations/0001_squashed.py) creates them so.
"""

from django.conf import settings
from django.db import models, transaction
from django.utils import timezone

from jobs import live_status


class JobStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    PROCESSING = "processing", "Processing"
    COMPLETED = "completed", "Completed"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


class ErrorCode(models.TextChoices):
    """Why a job failed or waits, as a stable code; the human message says it in words."""

    BROKER_UNAVAILABLE = "broker_unavailable", "Waiting for the message broker"
    WORKER_LOST = "worker_lost", "Its worker was lost"
    POISON_MESSAGE = "poison_message", "It stopped its worker every time"
    TIME_LIMIT = "time_limit", "Time limit exceeded"
    TASK_ERROR = "task_error", "Unexpected error"
    STORAGE_UNAVAILABLE = "storage_unavailable", "The file storage could not be reached"
    FILE_REFUSED = "file_refused", "The file was refused (over a limit, or unreadable)"
    MEMORY_LIMIT = "memory_limit", "Memory limit of a worker process exceeded"


ACTIVE_STATUSES = (JobStatus.PENDING, JobStatus.PROCESSING)
FINISHED_STATUSES = (JobStatus.COMPLETED, JobStatus.FAILED, JobStatus.CANCELLED)
MAX_RECORDED_ERRORS = 500


class BaseJob(models.Model):
    """Fields and methods every job table shares: status and its times, task id, who started it, item counters, errors.

    Status changes go through conditional UPDATEs (`start`, `finish`,
    `request_cancel`), so a redelivered task cannot resurrect a finished job
    and a finishing task cannot overwrite a cancellation.
    """

    STATUS_PENDING = JobStatus.PENDING
    STATUS_PROCESSING = JobStatus.PROCESSING
    STATUS_COMPLETED = JobStatus.COMPLETED
    STATUS_FAILED = JobStatus.FAILED
    STATUS_CANCELLED = JobStatus.CANCELLED

    celery_task_id = models.CharField(
        max_length=255, blank=True, db_index=True, help_text="Celery task ID for Flower monitoring"
    )
    status = models.CharField(max_length=20, choices=JobStatus.choices, default=JobStatus.PENDING)
    started_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)
    message = models.TextField(blank=True, help_text="Why the job failed, or a short summary")
    errors = models.JSONField(default=list, blank=True)
    # A stable reason code beside the human message (see ErrorCode), for pages and tests to rely on.
    error_code = models.CharField(max_length=40, blank=True)
    # Delivery bookkeeping (see _delivery_values): deliveries that never returned, in a row, without progress.
    unfinished_deliveries = models.PositiveSmallIntegerField(default=0)
    progress_at_delivery = models.PositiveIntegerField(default=0)
    # How often the sweeper sent the job again after its worker vanished.
    redispatch_count = models.PositiveSmallIntegerField(default=0)
    # Set while the worker running the job shuts down: stop at a safe point and requeue.
    stop_requested = models.BooleanField(default=False)
    total_items = models.PositiveIntegerField(default=0)
    processed_items = models.PositiveIntegerField(default=0)
    successful_items = models.PositiveIntegerField(default=0)
    failed_items = models.PositiveIntegerField(default=0)

    class Meta:
        abstract = True
        ordering = ["-created_at"]

    # --- reading -------------------------------------------------------------
    @property
    def is_active(self) -> bool:
        return self.status in ACTIVE_STATUSES

    @property
    def ended_unfinished(self) -> bool:
        """Failed or cancelled: what a Retry button is for (a completed job has nothing to retry)."""
        return self.status in (JobStatus.FAILED, JobStatus.CANCELLED)

    def get_progress_percentage(self) -> int:
        if self.total_items == 0:
            return 100 if self.status == JobStatus.COMPLETED else 0
        return min(100, int(self.processed_items * 100 / self.total_items))

    def is_stale(self, timeout_minutes: int = 30) -> bool:
        """True if stuck in pending/processing without an update for a while."""
        if not self.is_active:
            return False
        return (timezone.now() - self.updated_at).total_seconds() > timeout_minutes * 60

    def elapsed_seconds(self) -> float:
        if not self.started_at:
            return 0.0
        end = self.completed_at or timezone.now()
        return max(0.0, (end - self.started_at).total_seconds())

    def rate_per_minute(self) -> float:
        elapsed = self.elapsed_seconds()
        return self.processed_items * 60 / elapsed if elapsed else 0.0

    def eta_seconds(self) -> int | None:
        """Seconds left at the current rate, or None while there is no rate."""
        if not self.is_active or not self.processed_items:
            return None
        remaining = max(0, self.total_items - self.processed_items)
        return int(remaining * self.elapsed_seconds() / self.processed_items)

    def status_payload(self) -> dict:
        """What a progress endpoint returns: everything a progress bar needs."""
        return {
            "id": self.pk,
            "status": self.status,
            "status_display": self.get_status_display(),
            "is_active": self.is_active,
            "is_stale": self.is_stale(),
            "progress": self.get_progress_percentage(),
            "total": self.total_items,
            "processed": self.processed_items,
            "succeeded": self.successful_items,
            "failed": self.failed_items,
            "rate_per_minute": round(self.rate_per_minute(), 1),
            "eta_seconds": self.eta_seconds(),
            "message": self.message,
            "errors": self.errors[-50:],
            "celery_task_id": self.celery_task_id,
            "started_at": self.started_at.isoformat() if self.started_at else None,
            "completed_at": self.completed_at.isoformat() if self.completed_at else None,
        }

    # --- atomic transitions -------------------------------------------------
    def _update_if(self, statuses, *, refresh: bool = True, silent_since=None, **values) -> bool:
        """UPDATE this row only while its status is in `statuses`, then re-read it.

        refresh=False, for a caller that needs only the fields it wrote: on success
        they are set on this instance instead of re-reading the row (one query, not two).
        silent_since: only while nothing changed the row since then (the sweeper's guard).
        """
        rows = type(self).objects.filter(pk=self.pk, status__in=statuses)
        if silent_since:
            rows = rows.filter(updated_at__lt=silent_since)
        values["updated_at"] = timezone.now()
        changed = rows.update(**values)
        if changed and not refresh:
            for name, value in values.items():
                setattr(self, name, value)
        else:
            self.refresh_from_db()
        return bool(changed)

    def start(self, task_id: str = "") -> bool:
        """pending/processing → processing. False when the job already finished.

        A redelivered message finds the job processing and takes it over;
        `started_at` keeps its first value.
        """
        return self._update_if(ACTIVE_STATUSES, **self._start_values(task_id))

    def _start_values(self, task_id: str) -> dict:
        values = {"status": JobStatus.PROCESSING}
        if task_id:
            values["celery_task_id"] = task_id
        if not self.started_at:
            values["started_at"] = timezone.now()
        return values

    def finish(
        self, status: str, message: str = "", code: str = "", *, ending_delivery: bool = False, silent_since=None
    ) -> bool:
        """processing/pending → completed/failed/cancelled, unless already finished.

        ending_delivery=True (run_job, as its delivery returns): the same UPDATE
        does `end_delivery`'s reset, and the row is not re-read when it wins.
        silent_since (the sweeper): only if nothing changed the row since then.
        The one that wins calls `on_finish`.
        """
        assert status in FINISHED_STATUSES, status
        values = {"status": status, "completed_at": timezone.now(), "stop_requested": False}
        if message:
            values["message"] = message
        if code:
            values["error_code"] = code
        if ending_delivery:
            values["unfinished_deliveries"] = 0
        finished = self._update_if(ACTIVE_STATUSES, refresh=not ending_delivery, silent_since=silent_since, **values)
        self._delivery_ended = finished and ending_delivery
        if finished:  # a finished (or cancelled) job is never shown as running from the status cache
            live_status.forget(self)
            self.on_finish()
        return finished

    def on_finish(self) -> None:
        """Called once, by whoever finished the job (its task, the sweeper, a cancel), with the row's new
        status, message and error code on this instance.

        Nothing by default. A job whose outcome is also shown on another row (a document's state)
        overrides it to carry the outcome there, so every way a job can end reaches that row.
        """

    # --- deliveries ---------------------------------------------------------
    @classmethod
    def begin_run(
        cls, job_id: int, task_id: str, max_unfinished: int, matches: dict | None = None
    ) -> tuple["BaseJob | None", int]:
        """A delivery's start in one transaction: counted (`_delivery_values`), then `start` unless it is a poison
        message.

        Returns (job, how many deliveries in a row never returned, this one included); (None, 0) when the
        row is missing, (job, 0) when it already finished or is not the row its
        message describes (`matches`, see `describes`): nothing is written then. The
        row is locked while it is read and written, so this instance is the row.
        """
        with transaction.atomic():
            job = cls.objects.select_for_update().filter(pk=job_id).first()
            if job is None or not job.is_active or not job.describes(matches or {}):
                return job, 0
            values = _delivery_values(job.unfinished_deliveries, job.progress_at_delivery, job.processed_items)
            if values["unfinished_deliveries"] <= max_unfinished:
                values.update(job._start_values(task_id), updated_at=timezone.now())
            cls.objects.filter(pk=job_id).update(**values)
        for name, value in values.items():
            setattr(job, name, value)
        return job, values["unfinished_deliveries"]

    def describes(self, matches: dict) -> bool:
        """Whether the row has the field values its message names ({"rfp_id": 3, "job_type": "review"})."""
        return all(getattr(self, field) == value for field, value in matches.items())

    def end_delivery(self) -> None:
        if getattr(self, "_delivery_ended", False):  # finish(ending_delivery=True) already did it
            return
        type(self).objects.filter(pk=self.pk).update(unfinished_deliveries=0, stop_requested=False)

    def request_cancel(self, message: str = "Cancelled by user") -> bool:
        """Cancel an active job; a running task notices at its next item."""
        return self.finish(JobStatus.CANCELLED, message)

    def stop_reason(self) -> str:
        """ "cancelled", "shutdown" (its worker is stopping: requeue) or "": what a task checks between items."""
        row = type(self).objects.filter(pk=self.pk).values("status", "stop_requested").first() or {}
        if row.get("status") == JobStatus.CANCELLED:
            return "cancelled"
        return "shutdown" if row.get("stop_requested") else ""

    def set_counts(self, **counts) -> None:
        """Write absolute counter values (idempotent, unlike += on a re-run)."""
        for name, value in counts.items():
            setattr(self, name, value)
        self.save(update_fields=[*counts, "updated_at"])

    def add_error(self, item, error: str, save: bool = True) -> None:
        """Record one item's failure; the list is capped so a row stays small."""
        entry = {"item": item, "error": str(error)[:1000], "at": timezone.now().isoformat()}
        self.errors = [e for e in self.errors if e.get("item") != item] + [entry]
        self.errors = self.errors[-MAX_RECORDED_ERRORS:]
        if save:
            self.save(update_fields=["errors", "updated_at"])


def _delivery_values(unfinished_deliveries: int, progress_at_delivery: int, processed_items: int) -> dict:
    """The delivery bookkeeping of one more delivery (BaseJob.begin_run).

    A delivery that returns (success, failure, retry, requeue) resets the count in `end_delivery`; one whose worker
    died never does. A killed delivery that made progress is not held against the job: only deliveries that kill
    their worker without getting anywhere add up to a poison message.
    """
    progressed = processed_items > progress_at_delivery
    # A stop asked of an earlier delivery's worker does not concern this one.
    return {
        "unfinished_deliveries": (0 if progressed else unfinished_deliveries) + 1,
        "progress_at_delivery": processed_items,
        "stop_requested": False,
    }


def fail_stale_jobs(jobs, after_minutes: int) -> int:
    """Fail the active jobs with no progress for `after_minutes`: their worker is gone. Returns how many."""
    failed = 0
    for job in jobs.all():  # a copy: the caller's queryset stays unevaluated, so it re-reads statuses
        if job.is_stale(timeout_minutes=after_minutes):
            message = f"No progress for {after_minutes} minutes: the worker running it was lost."
            failed += job.finish(JobStatus.FAILED, message, ErrorCode.WORKER_LOST)
    return failed


class OutboxMessage(models.Model):
    """A task message written in the same transaction as the row it is about, sent once the broker takes it.

    Nothing is lost when the broker is down at the click: the row waits here
    and the publisher (on commit, then every few seconds from Beat) sends it.
    The task id is fixed when the row is written, so a message sent twice
    (published, then the process died before recording it) is the same task
    twice, which every task's entry guard makes harmless.
    """

    task_name = models.CharField(max_length=200)
    args = models.JSONField(default=list, blank=True)
    kwargs = models.JSONField(default=dict, blank=True)
    options = models.JSONField(default=dict, blank=True, help_text="apply_async options: queue, time limits, expires")
    task_id = models.CharField(max_length=255, unique=True)
    # What the message is about ("app_label.model" and pk): its page says it is waiting.
    subject_model = models.CharField(max_length=100)
    subject_id = models.PositiveBigIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True, db_index=True)
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.TextField(blank=True)

    class Meta:
        db_table = "spelunker_outboxmessage"
        ordering = ["pk"]
        indexes = [models.Index(fields=["subject_model", "subject_id"], name="outbox_subject_idx")]

    def __str__(self):
        return f"{self.task_name} for {self.subject_model} {self.subject_id}"


class JobAcknowledgement(models.Model):
    """A person dealt with a job that needed attention: the jobs page hides it from that group."""

    kind = models.CharField(max_length=40)
    object_id = models.PositiveBigIntegerField()
    acknowledged_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    acknowledged_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "spelunker_jobacknowledgement"
        constraints = [models.UniqueConstraint(fields=["kind", "object_id"], name="one_acknowledgement_per_job")]


class SystemCheck(BaseJob):
    """Proves a worker serves each queue: one probe message per queue.

    The walking skeleton of the stack: web → on_commit → RabbitMQ → worker →
    job row → progress page.
    """

    class Meta(BaseJob.Meta):
        db_table = "spelunker_systemcheck"
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
        db_table = "spelunker_queueprobe"
        ordering = ["queue"]
        constraints = [models.UniqueConstraint(fields=["check_run", "queue"], name="one_probe_per_queue")]

    def __str__(self):
        return f"{self.queue} probe of check {self.check_run_id}"
