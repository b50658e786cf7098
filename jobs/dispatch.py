"""Send a task after commit through the outbox, so a start never gets lost when the broker is down.

One way to start work, everywhere: `dispatch_<work>(row)`, defined in the
app's tasks.py beside the task it starts, takes a row that already exists
(the job, document or notification the task works on) and queues its task
after commit through `dispatch_after_commit`. It never writes that row. The
row is written by a `create_*` service, and the caller (a view, an admin
action, a signal, a Beat task) calls both in one transaction:

    with transaction.atomic():
        job = batch.create_batch_job(rfp, kind, user)
        tasks.dispatch_batch_job(job)

so a refused row (a second active job) queues nothing, and a rolled-back
transaction leaves neither row nor message. A `create_*` service that must
hold its own transaction (a unique constraint it catches) takes the
dispatch function instead: `scheduling.create_sync_job(source, user,
dispatch=tasks.dispatch_sync_job)`. Because a dispatch only queues, it is
also what the sweeper calls to send a lost row again (JobKind.redispatch).

`dispatch_after_commit` writes an OutboxMessage in the caller's transaction
and tries to publish it once that commits. A refused publish leaves the row
unsent, the job pending with a note that it waits for the broker, and
`publish_pending` (run by Beat every few seconds) sends it when the broker is
back. Rows are claimed with SELECT … FOR UPDATE SKIP LOCKED, so the on-commit
attempt and Beat never publish the same row at the same time.
"""

import logging
import uuid
from datetime import timedelta

from celery import current_app
from django.apps import apps
from django.db import models, transaction
from django.utils import timezone

from .models import BaseJob, ErrorCode, JobStatus, OutboxMessage

logger = logging.getLogger(__name__)

WAITING_FOR_BROKER = "Waiting for the message broker: the job starts by itself as soon as it is reachable again."
PUBLISH_BATCH = 200
# Sent messages are kept a while (to see what was sent when), then dropped.
KEEP_SENT = timedelta(days=7)


def dispatch_after_commit(subject: models.Model, task, *, args=(), kwargs=None, **options) -> OutboxMessage:
    """Record `task(*args, **kwargs)` for `subject` now; publish it once the transaction commits.

    `options` are apply_async options that survive JSON: queue, soft_time_limit, time_limit, expires.
    """
    message = OutboxMessage.objects.create(
        task_name=task.name,
        args=list(args),
        kwargs=kwargs or {},
        options=options,
        task_id=str(uuid.uuid4()),
        subject_model=subject._meta.label_lower,
        subject_id=subject.pk,
    )
    transaction.on_commit(lambda: publish(message.pk))
    return message


def publish(message_id: int) -> bool:
    """Send one outbox message unless it was sent already (or is being sent). True when it is sent now or was."""
    with transaction.atomic():
        message = OutboxMessage.objects.select_for_update(skip_locked=True).filter(pk=message_id).first()
        if message is None or message.sent_at:
            return True
        try:
            # ignore_result: the job row, not the result backend, is the truth. It also keeps the rpc://
            # backend from declaring its reply queue first, which retries without limit while the broker
            # is down and would hang the request that started the job.
            current_app.send_task(
                message.task_name,
                args=message.args,
                kwargs=message.kwargs,
                task_id=message.task_id,
                ignore_result=True,
                **message.options,
            )
        except Exception as exc:  # any publish failure: broker down, bad credentials, confirm refused
            _record_refusal(message, exc)
            return False
        OutboxMessage.objects.filter(pk=message.pk).update(sent_at=timezone.now(), attempts=message.attempts + 1)
        if message.attempts:  # only a refusal of this message (counted in attempts) left the note on its job
            _clear_waiting_note(message)
    return True


def publish_pending(limit: int = PUBLISH_BATCH) -> dict:
    """Send the unsent messages, oldest first; stop at the first refusal (the broker is still down)."""
    sent = 0
    for message_id in OutboxMessage.objects.filter(sent_at__isnull=True).values_list("pk", flat=True)[:limit]:
        if not publish(message_id):
            break
        sent += 1
    OutboxMessage.objects.filter(sent_at__lt=timezone.now() - KEEP_SENT).delete()
    waiting = OutboxMessage.objects.filter(sent_at__isnull=True).count()
    return {"success": True, "sent": sent, "waiting": waiting}


def unsent_subject_ids(model: type[models.Model]) -> set[int]:
    """Rows of `model` with a message still in the outbox: they wait for the broker, they are not stuck."""
    unsent = OutboxMessage.objects.filter(subject_model=model._meta.label_lower, sent_at__isnull=True)
    return set(unsent.values_list("subject_id", flat=True))


def _subject_job_model(message: OutboxMessage) -> type[BaseJob] | None:
    model = apps.get_model(message.subject_model)
    return model if issubclass(model, BaseJob) else None


def _record_refusal(message: OutboxMessage, exc: Exception) -> None:
    error = f"{type(exc).__name__}: {exc}"
    logger.warning(
        "Broker refused %s (outbox %s); it stays queued here: %s",
        message.task_name,
        message.pk,
        error,
        extra={"outbox_id": message.pk, "subject": message.subject_model, "subject_id": message.subject_id},
    )
    OutboxMessage.objects.filter(pk=message.pk).update(attempts=message.attempts + 1, last_error=error[:2000])
    job_model = _subject_job_model(message)
    if job_model:
        job_model.objects.filter(pk=message.subject_id, status=JobStatus.PENDING).update(
            message=WAITING_FOR_BROKER, error_code=ErrorCode.BROKER_UNAVAILABLE, updated_at=timezone.now()
        )


def _clear_waiting_note(message: OutboxMessage) -> None:
    job_model = _subject_job_model(message)
    if job_model:
        job_model.objects.filter(pk=message.subject_id, error_code=ErrorCode.BROKER_UNAVAILABLE).update(
            message="", error_code=""
        )
