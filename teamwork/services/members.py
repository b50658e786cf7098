"""Giving people a role on an RFP, changing it and taking it away; every change is in the audit trail."""

from django.db import transaction

from audit.models import AuditEvent
from audit.services import record

from ..models import Membership


def set_role(rfp, user, role: str, by) -> Membership:
    with transaction.atomic():
        before = _current_role(rfp, user) or ""
        membership, _ = Membership.objects.update_or_create(rfp=rfp, user=user, defaults={"role": role, "added_by": by})
        if before != role:
            _record_role_change(rfp, user, by, before, role)
    return membership


def remove(rfp, user, by) -> bool:
    with transaction.atomic():
        before = _current_role(rfp, user)
        if before is None:
            return False
        Membership.objects.filter(rfp=rfp, user=user).delete()
        _record_role_change(rfp, user, by, before, "")
    return True


def _current_role(rfp, user) -> str | None:
    return Membership.objects.filter(rfp=rfp, user=user).values_list("role", flat=True).first()


def _record_role_change(rfp, user, by, before: str, after: str) -> None:
    """The audit trail's line for a role given, changed or taken away ("" is no role)."""
    record(
        AuditEvent.Action.ROLE_CHANGED,
        f"RFP {rfp.pk} {rfp.name}",
        rfp=rfp,
        actor=by,
        user=user.get_username(),
        before=before,
        after=after,
    )
