"""Who may do what on an RFP: its owner, contributors and viewers.

- **owner**: `RFP.owner`, a superuser, or someone given the owner role. Everything: the RFP's settings, sharing
  and roles, imports, documents, jobs, assignments, approval, export, any answer.
- **contributor**: someone given the role by name answers (edits and comments on) the questions assigned to
  them; everyone in a group the RFP is shared with is a contributor on every question (the RFP is shared
  with their team).
- **viewer**: reads everything and downloads the exports; changes nothing.

Anyone else does not see the RFP at all (`RFP.objects.visible_to`: 404, its existence is not disclosed).

This module is the RFP manager's access policy (`rfp_manager.access`, installed by TeamworkConfig.ready()):
the RFP pages ask it through that module, which does not know these roles.
"""

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db.models import Q

from ..models import ROLE_RANK, Membership, Role


@dataclass(frozen=True)
class Access:
    role: str | None
    # In a group the RFP is shared with: a contributor on every question, not only the assigned ones.
    on_every_question: bool = False
    user_id: int | None = None

    def at_least(self, role: str) -> bool:
        return self.role is not None and ROLE_RANK[self.role] >= ROLE_RANK[role]

    @property
    def owns(self) -> bool:
        """Approves, assigns, acts on many questions, runs jobs, imports: the owner's controls (for templates)."""
        return self.at_least(Role.OWNER)

    @property
    def edits_every_question(self) -> bool:
        return self.owns or (self.role == Role.CONTRIBUTOR and self.on_every_question)

    def edits(self, question) -> bool:
        """May edit, re-draft and comment on the answer to `question` (reads `question.assignment`: select it)."""
        if self.edits_every_question:
            return True
        assignment = getattr(question, "assignment", None)  # None when the question is not assigned
        return self.role == Role.CONTRIBUTOR and assignment is not None and assignment.assignee_id == self.user_id

    @property
    def label(self) -> str:
        return Role(self.role).label.lower() if self.role else "not a member"


def access(rfp, user) -> Access:
    if not user.is_authenticated:
        return Access(None)
    if user.is_superuser or rfp.owner_id == user.pk:
        return Access(Role.OWNER, on_every_question=True, user_id=user.pk)
    named = Membership.objects.filter(rfp=rfp, user=user).values_list("role", flat=True).first()
    team = rfp.shared_with.filter(pk__in=user.groups.values("pk")).exists()
    roles = [r for r in (named, Role.CONTRIBUTOR if team else None) if r]
    role = max(roles, key=ROLE_RANK.get, default=None)
    return Access(role, on_every_question=team or role == Role.OWNER, user_id=user.pk)


def require(rfp, user, role: str) -> Access:
    """The user's access, or PermissionDenied saying which role the action needs."""
    held = access(rfp, user)
    if not held.at_least(role):
        raise PermissionDenied(
            f"You are a {held.label} of “{rfp.name}”; this needs the {Role(role).label.lower()} "
            "role. Ask the RFP's owner."
        )
    return held


def edit_refusal(question, user) -> str:
    """Why `user` may not edit or comment on the answer to `question` ("" when they may)."""
    held = access(question.rfp, user)
    if held.edits(question):
        return ""
    if held.role == Role.CONTRIBUTOR:
        return f"{question.label} is not assigned to you: contributors answer the questions assigned to them."
    return f"You are a {held.label} of “{question.rfp.name}”: viewers read, they do not change answers."


def assignment_refusal(rfp, assignee) -> str:
    """Why `assignee` cannot be given questions of `rfp` ("" when they can): they must see it and may answer."""
    held = access(rfp, assignee)
    name = assignee.get_username()
    if held.role is None:
        return (
            f"{name} cannot see “{rfp.name}”: add them as a contributor under People, or share the RFP with "
            "one of their groups, then assign."
        )
    if held.role == Role.VIEWER:
        return f"{name} is a viewer of “{rfp.name}” and cannot answer: make them a contributor first."
    return ""


def people(rfp) -> list:
    """Everyone who may work on the RFP (owner, named members, the shared groups' members), by name."""
    users = get_user_model().objects.filter(is_active=True)
    return list(users.filter(_may_see(rfp)).distinct().order_by("username"))


def _may_see(rfp):
    return Q(pk=rfp.owner_id) | Q(rfp_memberships__rfp=rfp) | Q(groups__in=rfp.shared_with.all())


def owned_rfps(user):
    """The RFPs `user` is an owner of (all of them for a superuser)."""
    from rfp_manager.models import RFP

    if user.is_superuser:
        return RFP.objects.all()
    return RFP.objects.filter(Q(owner=user) | Q(memberships__user=user, memberships__role=Role.OWNER)).distinct()
