"""Thin Celery wrapper: email an approved visitor their link (retried on a passing mail failure)."""

import logging

from celery import shared_task
from django.conf import settings
from django.core.mail import get_connection

from jobs.backoff import backoff_seconds
from jobs.dispatch import dispatch_after_commit
from teamwork.services.email import is_transient

from .models import AccessRequest
from .services import access

logger = logging.getLogger(__name__)


@shared_task(
    bind=True,
    name="trust_center.send_access_link",
    soft_time_limit=120,
    time_limit=150,
    max_retries=settings.EMAIL_MAX_RETRIES,
)
def send_access_link(self, access_request_id: int) -> dict:
    """Send the link of a request that is still approved (a declined one gets nothing)."""
    access_request = (
        AccessRequest.objects.select_related("document__center")
        .filter(pk=access_request_id, status=AccessRequest.Status.APPROVED)
        .first()
    )
    if access_request is None:
        return {"success": True, "sent": False}
    try:
        with get_connection(fail_silently=False) as connection:
            connection.send_messages([access.message_for(access_request)])
    except Exception as exc:  # classified: only a passing failure is retried
        if is_transient(exc) and self.request.retries < self.max_retries:
            countdown = backoff_seconds(
                self.request.retries, base=settings.EMAIL_RETRY_BASE_SECONDS, cap=settings.EMAIL_RETRY_MAX_SECONDS
            )
            raise self.retry(countdown=countdown) from exc
        logger.error("Access link not sent: %s", exc, extra={"access_request_id": access_request_id})
        return {"success": False, "sent": False, "error": f"{type(exc).__name__}: {exc}"}
    return {"success": True, "sent": True}


def dispatch_access_link(access_request: AccessRequest) -> None:
    """Email the link from a worker once the approval commits (through the outbox)."""
    dispatch_after_commit(access_request, send_access_link, args=[access_request.pk])
