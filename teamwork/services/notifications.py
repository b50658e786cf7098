"""Tell a person something: a row in their notifications list, and an email sent from a worker.

`notify` only writes the row; `teamwork.signals` queues its email after the
transaction commits (through the outbox), so the action that caused it never
waits for, or fails with, the mail server.
"""

from django.db import IntegrityError, transaction
from django.utils import timezone

from core.excerpts import excerpt

from ..models import Notification


def notify(recipient, kind: str, text: str, url: str = "", question=None, dedupe_key: str = "") -> Notification | None:
    """A new notification; None when one with the same `dedupe_key` exists already (a reminder sent twice)."""
    email_status = Notification.Email.QUEUED if recipient.email else Notification.Email.NONE
    values = {
        "recipient": recipient,
        "kind": kind,
        "text": excerpt(text, Notification._meta.get_field("text").max_length),
        "url": url,
        "question": question,
        "dedupe_key": dedupe_key,
        "email_status": email_status,
    }
    if not dedupe_key:
        return Notification.objects.create(**values)
    try:
        with transaction.atomic():
            return Notification.objects.create(**values)
    except IntegrityError:
        return None


def unread_count(user) -> int:
    return Notification.objects.filter(recipient=user, read_at__isnull=True).count()


def mark_all_read(user) -> int:
    return Notification.objects.filter(recipient=user, read_at__isnull=True).update(read_at=timezone.now())


def undelivered():
    """Emails that gave up (staff see them with the reason) and those still being retried."""
    return (
        Notification.objects.filter(
            email_status__in=(Notification.Email.FAILED, Notification.Email.QUEUED), email_attempts__gt=0
        )
        .select_related("recipient")
        .order_by("-created_at")
    )
