"""Writing the audit trail: one function per kind of record."""
from .context import current_user
from .models import AnswerRevision, AuditEvent


def record(action: str, target, rfp=None, actor=None, **detail) -> AuditEvent:
    """An audit event; the actor defaults to the signed-in user of the current request."""
    return AuditEvent.objects.create(action=action, target=str(target)[:300], rfp=rfp,
                                     actor=actor or current_user(), detail=detail)


def record_answer_changes(answer, previous: dict) -> list[AnswerRevision]:
    """Compare an answer with its stored state before the save; one revision per kind of change."""
    revisions = []
    if answer.draft_text != previous.get("draft_text", "") and answer.draft_text:
        job = answer.responder_job
        revisions.append(AnswerRevision(kind=AnswerRevision.Kind.DRAFTED, actor=job.started_by if job else None,
                                        previous_text=previous.get("draft_text", ""), text=answer.draft_text))
    if answer.final_text != previous.get("final_text", ""):
        shown_before = previous.get("final_text") or previous.get("draft_text", "")
        revisions.append(AnswerRevision(kind=AnswerRevision.Kind.EDITED, actor=answer.edited_by or current_user(),
                                        previous_text=shown_before, text=answer.final_text))
    if answer.review_verdict != previous.get("review_verdict", "") and answer.review_verdict:
        job = answer.reviewer_job
        kind = AnswerRevision.Kind.APPROVED if answer.review_verdict == "approved" else AnswerRevision.Kind.REVIEWED
        revisions.append(AnswerRevision(kind=kind, actor=job.started_by if job else current_user(),
                                        previous_text=previous.get("review_feedback", ""),
                                        text=answer.review_feedback))
    for revision in revisions:
        revision.answer = answer
    return AnswerRevision.objects.bulk_create(revisions)
