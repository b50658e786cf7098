"""Giving people a role on an RFP, changing it and taking it away; every change is in the audit trail."""

from django.db import transaction

from audit.models import AuditEvent
from audit.services import record

from ..models import Membership


def set_role(rfp, user, role: str, by) -> Membership:
    with transaction.atomic():
        before = Membership.objects.filter(rfp=rfp, user=user).values_list("role", flat=True).first() or ""
        membership, _ = Membership.objects.update_or_create(rfp=rfp, user=user, defaults={"role": role, "added_by": by})
        if before != role:
            record(
                AuditEvent.Action.ROLE_CHANGED,
                f"RFP {rfp.pk} {rfp.name}",
                rfp=rfp,
                actor=by,
                user=user.get_username(),
                before=before,
                after=role,
            )
    return membership


def remove(rfp, user, by) -> bool:
    with transaction.atomic():
        before = Membership.objects.filter(rfp=rfp, user=user).values_list("role", flat=True).first()
        if before is None:
            return False
        Membership.objects.filter(rfp=rfp, user=user).delete()
        record(
            AuditEvent.Action.ROLE_CHANGED,
            f"RFP {rfp.pk} {rfp.name}",
            rfp=rfp,
            actor=by,
            user=user.get_username(),
            before=before,
            after="",
        )
    return True
