"""Who may do what on an RFP: the RFP pages ask here, and the app that keeps the RFP's team answers.

The RFP manager knows an RFP's owner but not its team (roles, assignments: the teamwork app, built on it), so its
pages ask the access policy installed at start-up (`install`, from that app's AppConfig.ready()). Until one is
installed, the RFP's owner and superusers may do everything and nobody else anything: a missing policy locks the
RFPs, it never opens them.

A page needs VIEWER (read, download the exports) or OWNER (settings, imports, documents, jobs, approval, acting
on many questions). Editing an answer is asked question by question (`require_edit`): a policy may give it to
some people for some questions only.
"""

from dataclasses import dataclass
from typing import Protocol

from django.core.exceptions import PermissionDenied

VIEWER = "viewer"
OWNER = "owner"


class Access(Protocol):
    """One person's access to one RFP, as the pages and their templates read it."""

    role: str | None  # VIEWER, OWNER, a role of the policy's own, or None (not a member)

    @property
    def owns(self) -> bool:
        """Holds the owner's controls."""

    @property
    def label(self) -> str:
        """The role in words, shown to the person."""

    def edits(self, question) -> bool:
        """May edit, re-draft and comment on the answer to `question`."""


class AccessPolicy(Protocol):
    def access(self, rfp, user) -> Access: ...

    def require(self, rfp, user, need: str) -> Access:
        """The user's access, or PermissionDenied saying why it falls short of `need` (VIEWER or OWNER)."""

    def edit_refusal(self, question, user) -> str:
        """Why `user` may not edit the answer to `question` ("" when they may)."""

    def people(self, rfp) -> list:
        """Everyone who may work on the RFP, by name."""


@dataclass(frozen=True)
class OwnerAccess:
    role: str | None

    @property
    def owns(self) -> bool:
        return self.role == OWNER

    @property
    def label(self) -> str:
        return "owner" if self.owns else "not a member"

    def edits(self, question) -> bool:
        return self.owns


class OwnerOnly:
    """The policy in force until one is installed: the RFP's owner and superusers, nobody else."""

    def access(self, rfp, user) -> OwnerAccess:
        owns = user.is_authenticated and (user.is_superuser or rfp.owner_id == user.pk)
        return OwnerAccess(OWNER if owns else None)

    def require(self, rfp, user, need: str) -> OwnerAccess:
        held = self.access(rfp, user)
        if not held.owns:
            raise PermissionDenied(f"Only the owner of “{rfp.name}” may open or change it.")
        return held

    def edit_refusal(self, question, user) -> str:
        if self.access(question.rfp, user).owns:
            return ""
        return f"Only the owner of “{question.rfp.name}” may change its answers."

    def people(self, rfp) -> list:
        return [rfp.owner]


_policy: AccessPolicy = OwnerOnly()


def install(policy: AccessPolicy) -> AccessPolicy:
    """Make `policy` answer from now on; returns the one it replaces."""
    global _policy
    previous, _policy = _policy, policy
    return previous


def access(rfp, user) -> Access:
    return _policy.access(rfp, user)


def require(rfp, user, need: str) -> Access:
    return _policy.require(rfp, user, need)


def edit_refusal(question, user) -> str:
    return _policy.edit_refusal(question, user)


def require_edit(question, user) -> None:
    reason = edit_refusal(question, user)
    if reason:
        raise PermissionDenied(reason)


def people(rfp) -> list:
    return _policy.people(rfp)
