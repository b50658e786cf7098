"""Giving questions to a colleague with a due date, "My questions", and the reminders before and after it."""

from datetime import date, timedelta

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from core.excerpts import excerpt
from rfp_manager.models import RFP

from ..events import questions_assigned
from ..models import Assignment, Notification
from . import roles
from .notifications import notify

ASKED_CHARS = 120  # of a question assigned alone, in the notification and its email: enough to know what to answer


class AssignmentRefused(Exception):
    """The assignee may not answer this RFP; the message says why and what to do."""


def assign_questions(rfp, questions, assignee, due: date | None, by) -> list[Assignment]:
    """Give `questions` of `rfp` to `assignee`, due on `due`; refused (AssignmentRefused) if they cannot answer it.

    Re-assigning a question replaces its assignment and opens it again. One
    audit event and one notification per call, however many questions.
    """
    reason = roles.assignment_refusal(rfp, assignee)
    if reason:
        raise AssignmentRefused(reason)
    questions = [q for q in questions if q.rfp_id == rfp.pk]
    if not questions:
        raise AssignmentRefused("Choose at least one question of this RFP.")
    now = timezone.now()
    with transaction.atomic():
        assignments = [
            Assignment.objects.update_or_create(
                question=q,
                defaults={
                    "assignee": assignee,
                    "due_date": due,
                    "assigned_by": by,
                    "assigned_at": now,
                    "answered_at": None,
                },
            )[0]
            for q in questions
        ]
        questions_assigned.send(Assignment, rfp=rfp, questions=questions, assignee=assignee, due=due, by=by)
        if assignee != by:
            notify(
                assignee,
                Notification.Kind.ASSIGNED,
                _assigned_text(rfp, questions, due, by),
                # One question: its page; several: the assignee's list of them.
                url=reverse("rfp_manager:answer_edit", args=[questions[0].pk])
                if len(questions) == 1
                else reverse("teamwork:my_questions"),
                question=questions[0] if len(questions) == 1 else None,
            )
    return assignments


def _assigned_text(rfp, questions: list, due: date | None, by) -> str:
    """One question is named with the start of its text (the email then says what to answer); several by label."""
    labels = [q.label for q in questions]
    what = (
        labels[0]
        if len(labels) == 1
        else f"{len(labels)} questions ({', '.join(labels[:5])}{'…' if len(labels) > 5 else ''})"
    )
    when = f", due {due:%Y-%m-%d}" if due else ""
    asked = f": “{excerpt(questions[0].text, ASKED_CHARS)}”" if len(questions) == 1 else "."
    return f"{by.get_username()} assigned you {what} of “{rfp.name}”{when}{asked}"


def my_questions(user, show_done: bool = False):
    """The user's assignments on every RFP they may still see: open first, soonest due first."""
    rows = Assignment.objects.filter(assignee=user, question__rfp__in=RFP.objects.visible_to(user))
    if not show_done:
        rows = rows.filter(answered_at__isnull=True)
    return rows.select_related("question__rfp", "question__answer", "assigned_by").order_by(
        "answered_at", "due_date", "question__rfp_id", "question__order"
    )


def send_due_reminders(today: date | None = None) -> dict:
    """Periodic: remind assignees of open questions due within REMIND_DAYS, and tell assignee and assigner of
    overdue ones. Idempotent: one reminder of each kind per assignment and due date (`Notification.dedupe_key`)."""
    today = today or timezone.localdate()
    soon = today + timedelta(days=settings.ASSIGNMENT_REMIND_DAYS)
    open_due = Assignment.objects.filter(answered_at__isnull=True, due_date__isnull=False, due_date__lte=soon)
    counts = {"due_soon": 0, "overdue": 0}
    for assignment in open_due.select_related("question__rfp", "assignee", "assigned_by").iterator():
        overdue = assignment.due_date < today
        kind = Notification.Kind.OVERDUE if overdue else Notification.Kind.DUE_SOON
        recipients = [assignment.assignee]
        if overdue and assignment.assigned_by and assignment.assigned_by != assignment.assignee:
            recipients.append(assignment.assigned_by)
        for recipient in recipients:
            sent = notify(
                recipient,
                kind,
                _reminder_text(assignment, overdue),
                question=assignment.question,
                url=reverse("rfp_manager:answer_edit", args=[assignment.question_id]),
                dedupe_key=f"{kind}:{assignment.pk}:{assignment.due_date:%Y-%m-%d}",
            )
            counts[kind] += sent is not None
    return counts


def _reminder_text(assignment: Assignment, overdue: bool) -> str:
    question = assignment.question
    state = "was due" if overdue else "is due"
    return (
        f"{question.label} of “{question.rfp.name}”, assigned to {assignment.assignee.get_username()}, "
        f"{state} on {assignment.due_date:%Y-%m-%d}."
    )
