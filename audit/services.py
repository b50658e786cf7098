"""Writing the audit trail (one function per kind of record), and reading it back: filters and the CSV export."""

import csv
import io

from rfp_manager.services.export import safe_cell

from .context import current_user, is_restoring
from .models import AnswerRevision, AuditEvent
from .sentences import before_after, sentence

# Before/after texts kept on an audit event; the answer's full texts are on its AnswerRevision.
KEPT_TEXT = 4000

REVISION_ACTIONS = {
    AnswerRevision.Kind.EDITED: AuditEvent.Action.ANSWER_EDITED,
    AnswerRevision.Kind.APPROVED: AuditEvent.Action.ANSWER_APPROVED,
    AnswerRevision.Kind.REVIEWED: AuditEvent.Action.ANSWER_REVIEWED,
}


def record(action: str, target, rfp=None, actor=None, **detail) -> AuditEvent | None:
    """An audit event; the actor defaults to the signed-in user of the current request. None while restoring."""
    if is_restoring():
        return None
    return AuditEvent.objects.create(
        action=action, target=str(target)[:300], rfp=rfp, actor=actor or current_user(), detail=detail
    )


def record_answer_changes(answer, previous: dict) -> list[AnswerRevision]:
    """Compare an answer with its stored state before the save; one revision per kind of change.

    A change a person made in a request is also an audit event, with the text
    before and after. Drafts and reviews written by a job are kept as
    revisions only: the job's start is the audit event (one per job, not one
    per answer of a 2,000-question run).
    """
    revisions = []
    if answer.draft_text != previous.get("draft_text", "") and answer.draft_text:
        job = answer.responder_job
        revisions.append(
            AnswerRevision(
                kind=AnswerRevision.Kind.DRAFTED,
                # A library answer a person picked among the suggestions is theirs; a job's draft, its starter's.
                actor=answer.library_chosen_by or (job.started_by if job else None),
                previous_text=previous.get("draft_text", ""),
                text=answer.draft_text,
            )
        )
    if answer.final_text != previous.get("final_text", ""):
        shown_before = previous.get("final_text") or previous.get("draft_text", "")
        revisions.append(
            AnswerRevision(
                kind=AnswerRevision.Kind.EDITED,
                actor=answer.edited_by or current_user(),
                previous_text=shown_before,
                text=answer.final_text,
            )
        )
    if answer.review_verdict != previous.get("review_verdict", "") and answer.review_verdict:
        job = answer.reviewer_job
        revisions.append(
            AnswerRevision(
                kind=AnswerRevision.Kind.REVIEWED,  # a verdict, whatever it says: only a person approves
                actor=job.started_by if job else current_user(),
                previous_text=previous.get("review_feedback", ""),
                text=answer.review_feedback,
            )
        )
    for revision in revisions:
        revision.answer = answer
    saved = AnswerRevision.objects.bulk_create(revisions)
    if current_user() is not None:
        _record_revisions_as_events(answer, saved, previous)
    return saved


def _record_revisions_as_events(answer, revisions: list[AnswerRevision], previous: dict) -> None:
    question = answer.question
    rfp = question.rfp
    for revision in revisions:
        action = REVISION_ACTIONS.get(revision.kind)
        if action:
            record(
                action,
                f"{question.label} of RFP {rfp.pk} {rfp.name}",
                rfp=rfp,
                actor=revision.actor,
                question=question.label,
                verdict=answer.review_verdict,
                before=revision.previous_text[:KEPT_TEXT],
                after=revision.text[:KEPT_TEXT],
            )


def record_approvals(answers, actor) -> list[AuditEvent]:
    """Answers a person approved (a bulk update sends no signals): one event each, with the text approved,
    and an "Approved" revision in each answer's history."""
    AnswerRevision.objects.bulk_create(
        AnswerRevision(answer=answer, kind=AnswerRevision.Kind.APPROVED, actor=actor, text=answer.final_answer)
        for answer in answers
    )
    events = []
    for answer in answers:
        question = answer.question
        rfp = question.rfp
        events.append(
            AuditEvent(
                action=AuditEvent.Action.ANSWER_APPROVED,
                rfp=rfp,
                actor=actor or current_user(),
                target=f"{question.label} of RFP {rfp.pk} {rfp.name}"[:300],
                detail={"question": question.label, "before": "", "after": answer.final_answer[:KEPT_TEXT]},
            )
        )
    return AuditEvent.objects.bulk_create(events)


# --- reading it back ---------------------------------------------------------------------------


def filtered(events, rfp_id: str = "", actor_id: str = "", action: str = ""):
    if rfp_id.isdigit():
        events = events.filter(rfp_id=int(rfp_id))
    if actor_id.isdigit():
        events = events.filter(actor_id=int(actor_id))
    if action in AuditEvent.Action.values:
        events = events.filter(action=action)
    return events


def events_csv(events) -> bytes:
    """The events as CSV: when, who, action, RFP, the sentence, before, after; every cell formula-safe."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["When (UTC)", "Who", "Action", "RFP", "What happened", "Before", "After"])
    for event in events.iterator():
        before, after = before_after(event)
        row = [
            event.at.strftime("%Y-%m-%d %H:%M:%S"),
            event.actor.get_username() if event.actor_id else "system",
            event.get_action_display(),
            event.rfp.name if event.rfp_id else "",
            sentence(event),
            before,
            after,
        ]
        writer.writerow([safe_cell(cell) for cell in row])
    return ("\ufeff" + out.getvalue()).encode("utf-8")
