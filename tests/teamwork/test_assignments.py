"""Assigning questions: who may be given them, "My questions", when an assignment is answered, due reminders."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from django_celery_beat.models import PeriodicTask

from audit.models import AuditEvent
from teamwork.models import Assignment, Membership, Notification, Role
from teamwork.services import assignments

from .conftest import add_member, make_rfp

pytestmark = pytest.mark.django_db


def _assign(client, rfp, questions, assignee, due=""):
    return client.post(
        reverse("teamwork:assign", args=[rfp.pk]),
        {"questions": [q.pk for q in questions], "assignee": assignee.pk, "due_date": due},
    )


def test_an_owner_assigns_questions_with_a_due_date_and_the_assignee_is_notified(rfp, user, user_client, bob):
    questions = list(rfp.questions.order_by("order")[:5])
    due = timezone.localdate() + timedelta(days=7)
    response = _assign(user_client, rfp, questions, bob, due.isoformat())

    assert response.status_code == 302
    rows = Assignment.objects.filter(assignee=bob).order_by("question__order")
    assert [a.question for a in rows] == questions and {a.due_date for a in rows} == {due}
    notice = Notification.objects.get(recipient=bob)
    assert notice.kind == "assigned" and "alice assigned you 5 questions" in notice.text and f"due {due}" in notice.text
    assert notice.email_status == "queued"
    event = AuditEvent.objects.get(action="assigned")
    assert event.actor == user and event.detail["questions"] == ["Q1", "Q2", "Q3", "Q4", "Q5"]


@pytest.mark.parametrize("who", ["outsider", "viewer"])
def test_assigning_to_someone_who_cannot_answer_is_refused_with_the_reason(who, rfp, user_client, django_user_model):
    if who == "viewer":
        assignee = add_member(rfp, django_user_model, "carol", Role.VIEWER)
        reason = "carol is a viewer of “Acme tender” and cannot answer: make them a contributor first."
    else:
        assignee = django_user_model.objects.create_user("eve", email="eve@example.com", password="pw-eve-12345")
        reason = "eve cannot see “Acme tender”: add them as a contributor under People"

    response = _assign(user_client, rfp, rfp.questions.all()[:2], assignee)

    assert response.status_code == 400
    assert reason in response.content.decode()
    assert not Assignment.objects.exists() and not Notification.objects.exists()


def test_a_group_the_rfp_is_shared_with_may_be_assigned(rfp, user, django_user_model):
    from django.contrib.auth.models import Group

    team = Group.objects.create(name="security")
    rfp.shared_with.add(team)
    dan = django_user_model.objects.create_user("dan", email="dan@example.com")
    dan.groups.add(team)
    assert len(assignments.assign_questions(rfp, list(rfp.questions.all()[:1]), dan, None, user)) == 1


def test_only_owners_assign(rfp, bob, client):
    client.force_login(bob)
    assert _assign(client, rfp, rfp.questions.all()[:1], bob).status_code == 403
    assert not Assignment.objects.exists()


def test_my_questions_lists_open_assignments_across_rfps_soonest_first(rfp, user, bob, client):
    other = make_rfp(user, name="Globex renewal", questions=["Do you offer single sign-on?"])
    today = timezone.localdate()
    assignments.assign_questions(
        rfp, list(rfp.questions.filter(number__in=["1", "2"])), bob, today + timedelta(days=5), user
    )
    Membership.objects.create(rfp=other, user=bob, role=Role.CONTRIBUTOR)
    assignments.assign_questions(other, list(other.questions.all()), bob, today - timedelta(days=1), user)

    client.force_login(bob)
    page = client.get(reverse("teamwork:my_questions")).content.decode()

    assert page.index("Do you offer single sign-on?") < page.index("Do you encrypt data at rest?")  # overdue first
    assert "overdue" in page and "Globex renewal" in page and "Acme tender" in page
    assert "How often are backups taken?" not in page  # not assigned to bob


def test_saving_an_answer_closes_the_assignment_and_my_questions_moves_on(rfp, user, bob, client):
    question = rfp.questions.get(number="1")
    assignments.assign_questions(rfp, [question], bob, None, user)
    client.force_login(bob)

    response = client.post(reverse("rfp_manager:answer_edit", args=[question.pk]), {"final_text": "Yes, AES-256."})

    assert response.status_code == 302
    assert Assignment.objects.get(question=question).answered_at is not None
    assert "Do you encrypt data at rest?" not in client.get(reverse("teamwork:my_questions")).content.decode()
    assert "Do you encrypt data at rest?" in client.get(reverse("teamwork:my_questions") + "?done=1").content.decode()


def test_an_rfp_no_longer_visible_drops_out_of_my_questions(rfp, user, bob, client):
    assignments.assign_questions(rfp, list(rfp.questions.all()[:1]), bob, None, user)
    rfp.memberships.filter(user=bob).delete()
    client.force_login(bob)
    assert "Acme tender" not in client.get(reverse("teamwork:my_questions")).content.decode()


def test_due_reminders_before_and_overdue_notices_after_each_sent_once(rfp, user, bob):
    today = timezone.localdate()
    soon, late, later = rfp.questions.order_by("order")[:3]
    assignments.assign_questions(rfp, [soon], bob, today + timedelta(days=1), user)
    assignments.assign_questions(rfp, [late], bob, today - timedelta(days=2), user)
    assignments.assign_questions(rfp, [later], bob, today + timedelta(days=10), user)

    first = assignments.send_due_reminders(today)
    again = assignments.send_due_reminders(today)

    assert first == {"due_soon": 1, "overdue": 2} and again == {"due_soon": 0, "overdue": 0}
    due_soon = Notification.objects.get(kind="due_soon")
    assert due_soon.recipient == bob and "Q1 of “Acme tender”" in due_soon.text and "is due on" in due_soon.text
    overdue = Notification.objects.filter(kind="overdue")
    assert {n.recipient for n in overdue} == {bob, user} and all("was due on" in n.text for n in overdue)


def test_a_new_due_date_reminds_again_and_an_answered_question_never(rfp, user, bob):
    today = timezone.localdate()
    question = rfp.questions.get(number="1")
    assignments.assign_questions(rfp, [question], bob, today, user)
    assignments.send_due_reminders(today)
    assignments.assign_questions(rfp, [question], bob, today + timedelta(days=1), user)
    assert assignments.send_due_reminders(today) == {"due_soon": 1, "overdue": 0}
    Assignment.objects.update(answered_at=timezone.now())
    assert assignments.send_due_reminders(today + timedelta(days=5)) == {"due_soon": 0, "overdue": 0}


def test_the_reminders_run_from_a_beat_schedule_that_expires():
    task = PeriodicTask.objects.get(task="teamwork.send_due_reminders")
    assert task.enabled and task.interval.every == 1 and task.interval.period == "hours"
    assert 0 < task.expire_seconds < 3600


def test_one_question_assigned_is_named_with_the_start_of_its_text_cut_at_a_word(rfp, user_client, bob):
    """The assignee's notification and email say what to answer, not only "Q1"; a long question ends " …"."""
    question = rfp.questions.order_by("order").first()
    question.text = "Describe how administrators are granted access to production systems, " * 4
    question.save(update_fields=["text"])
    _assign(user_client, rfp, [question], bob)

    text = Notification.objects.get(recipient=bob).text
    assert text.startswith(f"alice assigned you Q1 of “{rfp.name}”: “Describe how administrators are granted")
    quoted = text.split(": “", 1)[1].removesuffix("”")
    assert quoted.endswith(" …") and len(quoted) <= assignments.ASKED_CHARS
    assert question.text.startswith(quoted.removesuffix(" …") + " ")  # whole words only
