"""Who a visitor is (a keyed hash of their address), what they did (the visitor log and the audit trail), and how
much they may do (rate limits counted on that log)."""

import hashlib
import hmac
from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from audit import services as audit

from ..models import TrustCenter, VisitorEvent

# The audit trail's action for every visitor event (the audit app's own list is for the team's actions).
AUDIT_ACTION = "trust_center"
Kind = VisitorEvent.Kind
# What each limit counts, per visitor address and hour (settings: TRUST_CENTER_*_PER_HOUR).
LIMITED = {
    Kind.REQUEST: "TRUST_CENTER_REQUESTS_PER_HOUR",
    Kind.QUESTION: "TRUST_CENTER_QUESTIONS_PER_HOUR",
    Kind.SEARCH: "TRUST_CENTER_SEARCHES_PER_HOUR",
}


def visitor_key(request) -> str:
    """The visitor's address, hashed with the secret key: enough to count and group by, not to find them."""
    address = request.META.get("REMOTE_ADDR", "")
    return hmac.new(settings.SECRET_KEY.encode(), address.encode(), hashlib.sha256).hexdigest()


def log(center: TrustCenter, kind: str, request, *, email="", document=None, access_request=None, detail=""):
    """One line of the visitor log, and the same in the audit trail."""
    event = VisitorEvent.objects.create(
        center=center,
        kind=kind,
        email=email,
        visitor_key=visitor_key(request),
        document=document,
        access_request=access_request,
        detail=detail[:300],
    )
    who = email or f"visitor {event.visitor_key[:8]}"
    what = event.get_kind_display().lower() + (f" “{document.title}”" if document else "")
    audit.record(AUDIT_ACTION, f"{who} {what} on the {center.name} trust center", actor=None, kind=kind, email=email)
    return event


def over_limit(center: TrustCenter, kind: str, request) -> bool:
    """The visitor already did `kind` as often as an hour allows."""
    limit = getattr(settings, LIMITED[kind])
    since = timezone.now() - timedelta(hours=1)
    done = VisitorEvent.objects.filter(center=center, kind=kind, visitor_key=visitor_key(request), at__gte=since)
    return done.count() >= limit
