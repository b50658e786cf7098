"""Sending a notification's email through Django's email framework, and telling a passing failure from a final one.

The backend is the settings' (EMAIL_URL: the console under `make run`, SMTP in
production). Delivery is at least once: the row is marked sent right after the
server accepted the message, so only a crash between the two sends it again.
"""

import smtplib
from dataclasses import dataclass

from django.conf import settings
from django.core.mail import EmailMessage, get_connection
from django.utils import timezone

from core.excerpts import SUBJECT_CHARS, excerpt

from ..models import Notification


@dataclass(frozen=True)
class Outcome:
    sent: bool
    retry: bool = False  # a transient failure: try again later
    error: str = ""


def is_transient(exc: Exception) -> bool:
    """A mail server that is down, busy or slow (4xx, refused, timed out) — not a refusal of the message (5xx)."""
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        return all(400 <= code < 500 for code, _ in exc.recipients.values())
    if isinstance(exc, smtplib.SMTPResponseException):
        return 400 <= exc.smtp_code < 500
    if isinstance(exc, smtplib.SMTPServerDisconnected):
        return True
    if isinstance(exc, smtplib.SMTPException):
        return False
    return isinstance(exc, OSError)  # connection refused or reset, timeout, name resolution


def message_for(notification: Notification) -> EmailMessage:
    """The e-mail of a notification, with the absolute link to what it is about (the site's public address)."""
    link = f"{settings.SPELUNKER_SITE_URL.rstrip('/')}{notification.url}" if notification.url else ""
    body = f"{notification.text}\n\nOpen it in Spelunker: {link}\n" if link else f"{notification.text}\n"
    subject = excerpt(f"[Spelunker] {notification.get_kind_display()}: {notification.text}", SUBJECT_CHARS)
    return EmailMessage(subject=subject, body=body, to=[notification.recipient.email])


def deliver(notification_id: int, last_try: bool) -> Outcome:
    """Send the email of a queued notification once; record the attempt on its row.

    A second run after success does nothing (the row is no longer queued).
    """
    notification = (
        Notification.objects.select_related("recipient")
        .filter(pk=notification_id, email_status=Notification.Email.QUEUED)
        .first()
    )
    if notification is None:
        return Outcome(sent=False)
    attempts = notification.email_attempts + 1
    try:
        with get_connection(fail_silently=False) as connection:
            connection.send_messages([message_for(notification)])
    except Exception as exc:  # classified below: only transient errors are retried
        error = f"{type(exc).__name__}: {exc}"[:2000]
        retry = is_transient(exc) and not last_try
        status = Notification.Email.QUEUED if retry else Notification.Email.FAILED
        Notification.objects.filter(pk=notification_id).update(
            email_attempts=attempts, email_error=error, email_status=status
        )
        return Outcome(sent=False, retry=retry, error=error)
    Notification.objects.filter(pk=notification_id).update(
        email_attempts=attempts, email_status=Notification.Email.SENT, email_sent_at=timezone.now(), email_error=""
    )
    return Outcome(sent=True)
