"""Thin Celery wrappers: send a notification's email (retried on transient failures), the due-date reminders, and
the notice that the library may now answer questions drafted before it could."""

import logging

from celery import shared_task
from django.conf import settings

from jobs.backoff import backoff_seconds

from .services import assignments, email, redraft_notices

logger = logging.getLogger(__name__)


@shared_task(
    bind=True,
    name="teamwork.send_notification_email",
    soft_time_limit=120,
    time_limit=150,
    max_retries=settings.EMAIL_MAX_RETRIES,
)
def send_notification_email(self, notification_id: int) -> dict:
    """One attempt; a transient failure retries with exponential backoff and full jitter, a final one is recorded."""
    outcome = email.deliver(notification_id, last_try=self.request.retries >= self.max_retries)
    context = {"notification_id": notification_id, "attempt": self.request.retries + 1}
    if outcome.retry:
        countdown = backoff_seconds(
            self.request.retries, base=settings.EMAIL_RETRY_BASE_SECONDS, cap=settings.EMAIL_RETRY_MAX_SECONDS
        )
        logger.warning("Email not sent, retrying in %.0f s: %s", countdown, outcome.error, extra=context)
        raise self.retry(countdown=countdown)
    if outcome.error:
        logger.error("Email not sent, giving up: %s", outcome.error, extra=context)
    return {"success": outcome.sent or not outcome.error, "sent": outcome.sent, "error": outcome.error}


@shared_task(name="teamwork.send_due_reminders", soft_time_limit=300, time_limit=360)
def send_due_reminders() -> dict:
    """Periodic (seeded in migration 0001_squashed): reminders before the due date, notices when overdue."""
    counts = assignments.send_due_reminders()
    logger.info("Due reminders: %s", counts, extra=counts)
    return {"success": True, **counts}


@shared_task(name="teamwork.tell_owners_the_library_grew", soft_time_limit=300, time_limit=360)
def tell_owners_the_library_grew() -> dict:
    """Periodic (seeded in migration 0002): owners told that a redraft may now answer "no supporting content"."""
    sent = redraft_notices.tell_owners_the_library_grew()
    logger.info("Library-grew notices: %s sent", sent, extra={"sent": sent})
    return {"success": True, "sent": sent}


def dispatch_notification_email(notification) -> None:
    """Send the notification's email from a worker once the transaction commits (through the outbox)."""
    from jobs.dispatch import dispatch_after_commit

    dispatch_after_commit(notification, send_notification_email, args=[notification.pk])
