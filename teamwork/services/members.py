"""Giving people a role on an RFP, changing it and taking it away; every change goes to the audit trail (`events.role_changed`)."""

from django.db import transaction

from ..events import role_changed
from ..models import Membership


def set_role(rfp, user, role: str, by) -> Membership:
    with transaction.atomic():
        before = _current_role(rfp, user) or ""
        membership, _ = Membership.objects.update_or_create(rfp=rfp, user=user, defaults={"role": role, "added_by": by})
        if before != role:
            role_changed.send(Membership, rfp=rfp, user=user, by=by, before=before, after=role)
    return membership


def remove(rfp, user, by) -> bool:
    with transaction.atomic():
        before = _current_role(rfp, user)
        if before is None:
            return False
        Membership.objects.filter(rfp=rfp, user=user).delete()
        role_changed.send(Membership, rfp=rfp, user=user, by=by, before=before, after="")
    return True


def _current_role(rfp, user) -> str | None:
    return Membership.objects.filter(rfp=rfp, user=user).values_list("role", flat=True).first()
