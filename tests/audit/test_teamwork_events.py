"""What teamwork does reaches the audit trail through teamwork's own signals (teamwork.events): the same events
as when teamwork wrote them itself, inside the transaction of the change."""

from datetime import date

import pytest

from audit.models import AuditEvent
from teamwork.events import role_changed
from teamwork.models import Membership, Role
from teamwork.services import assignments, comments, members
from tests.teamwork.conftest import bob, rfp  # noqa: F401  (fixtures)

pytestmark = pytest.mark.django_db


def _recorded(action: str) -> tuple:
    event = AuditEvent.objects.get(action=action)
    return event.target, event.rfp, event.actor, event.detail


@pytest.fixture
def hank(django_user_model):
    return django_user_model.objects.create_user("hank")


def test_a_role_given_is_recorded(rfp, user, hank):
    members.set_role(rfp, hank, Role.VIEWER, by=user)
    detail = {"user": "hank", "before": "", "after": "viewer"}
    assert _recorded("role_changed") == (f"RFP {rfp.pk} Acme tender", rfp, user, detail)


def test_an_assignment_is_recorded_once_for_all_its_questions(rfp, user, bob):
    first, second = rfp.questions.order_by("order")[:2]
    assignments.assign_questions(rfp, [first, second], bob, date(2026, 12, 1), by=user)
    detail = {"questions": ["Q1", "Q2"], "assignee": "bob", "due": "2026-12-01"}
    assert _recorded("assigned") == (f"RFP {rfp.pk} Acme tender", rfp, user, detail)


def test_a_comment_is_recorded_with_its_text(rfp, bob):
    comments.add_comment(rfp.questions.get(number="1"), bob, "Is AES-256 the right wording?")
    detail = {"question": "Q1", "text": "Is AES-256 the right wording?"}
    assert _recorded("commented") == (f"Q1 of RFP {rfp.pk} Acme tender", rfp, bob, detail)


def test_a_change_and_its_audit_event_commit_or_roll_back_together(rfp, user, hank):
    """A receiver failing after the audit event was written undoes the role change and the event alike."""

    def fail(**kwargs):
        raise RuntimeError("a later receiver failed")

    role_changed.connect(fail, dispatch_uid="test.fail")
    try:
        with pytest.raises(RuntimeError):
            members.set_role(rfp, hank, Role.VIEWER, by=user)
    finally:
        role_changed.disconnect(dispatch_uid="test.fail")
    assert not Membership.objects.filter(user=hank).exists()
    assert not AuditEvent.objects.filter(action="role_changed").exists()
