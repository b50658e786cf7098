"""Where each question stands, and what a person does about it: approve, flag for an expert, clear.

A question's status is derived from its answer (models.status_of) and kept in
a column, so a workspace of thousands of questions filters and counts by it;
every write that changes an answer calls sync_status for the questions it
touched. The RFP's own status follows its questions (refresh_rfp_status),
except the statuses a person sets (submitted, archived).
"""

from django.db import transaction
from django.db.models import Count
from django.utils import timezone

from ..models import RFP, Answer, Question, QuestionStatus, status_of
from ..signals import answers_approved

# An approval answers for a text; these are the fields that withdraw it when the text changes. A write that
# forgets them cannot send a stale approval anyway: models.approval_holds compares the approved text.
APPROVAL_RESET = {"approved_at": None, "approved_by": None, "approved_text": ""}


def sync_status(questions) -> None:
    """Write each question's status from its answer (a queryset or a list of Questions)."""
    ids = [q.pk for q in questions] if isinstance(questions, list) else list(questions.values_list("pk", flat=True))
    answers = {a.question_id: a for a in Answer.objects.filter(question_id__in=ids)}
    changed = []
    for question in Question.objects.filter(pk__in=ids).only("pk", "status", "rfp_id"):
        status = status_of(answers.get(question.pk))
        if question.status != status:
            question.status = status
            changed.append(question)
    Question.objects.bulk_update(changed, ["status"], batch_size=500)
    for rfp_id in {q.rfp_id for q in changed}:
        refresh_rfp_status(RFP.objects.get(pk=rfp_id))


def sync_answer(answer: Answer) -> None:
    """One answer just written: its question's status, and its RFP's."""
    status = status_of(answer)
    if Question.objects.filter(pk=answer.question_id).exclude(status=status).update(status=status):
        refresh_rfp_status(RFP.objects.get(questions__pk=answer.question_id))


def status_counts(rfp: RFP) -> dict[str, int]:
    """Questions per status (every status present, zeros included), and "total"."""
    rows = dict(rfp.questions.order_by().values_list("status").annotate(n=Count("pk")))
    counts = {status: rows.get(status, 0) for status in QuestionStatus.values}
    counts["total"] = sum(rows.values())
    return counts


def progress_percent(counts: dict[str, int]) -> int:
    """The share of questions approved, as a whole percentage (0 with no questions)."""
    return round(100 * counts[QuestionStatus.APPROVED] / counts["total"]) if counts["total"] else 0


def rfp_status_for(counts: dict[str, int]) -> str:
    if counts["total"] and counts[QuestionStatus.APPROVED] == counts["total"]:
        return RFP.Status.APPROVED
    if counts["total"] > counts[QuestionStatus.UNANSWERED]:
        return RFP.Status.IN_PROGRESS
    return RFP.Status.DRAFT


def refresh_rfp_status(rfp: RFP) -> str:
    """Draft until something is answered, in progress, all approved once every question is; a person's status stays."""
    if rfp.status in RFP.MANUAL_STATUSES:
        return rfp.status
    status = rfp_status_for(status_counts(rfp))
    if status != rfp.status:
        RFP.objects.filter(pk=rfp.pk).exclude(status__in=RFP.MANUAL_STATUSES).update(status=status)
        rfp.status = status
    return status


# --- what a person does to one or many questions --------------------------------------------


def approvable(answer: Answer | None) -> bool:
    """An answer with text a client may receive: not empty, not the expert flag's placeholder."""
    return (
        answer is not None and bool(answer.final_answer.strip()) and not (answer.needs_expert and not answer.final_text)
    )


@transaction.atomic
def approve(questions: list[Question], user) -> tuple[int, int]:
    """Approve each question's current answer; (approved, skipped: nothing to approve). Approving twice is a no-op."""
    answers = (
        Answer.objects.select_for_update(of=("self",)).select_related("question__rfp").filter(question__in=questions)
    )
    ready = [a for a in answers if approvable(a)]
    now = timezone.now()
    to_approve = [a for a in ready if not a.is_approved]
    for answer in to_approve:
        answer.approved_at, answer.approved_by, answer.approved_text = now, user, answer.final_answer
    Answer.objects.bulk_update(to_approve, list(APPROVAL_RESET))
    answers_approved.send(sender=Answer, answers=to_approve, user=user)  # bulk_update sends no post_save
    sync_status(list(questions))
    return len(ready), len(questions) - len(ready)


@transaction.atomic
def mark_for_expert(questions: list[Question]) -> int:
    """Flag each question for a subject-matter expert (an approval is withdrawn)."""
    for question in questions:
        Answer.objects.update_or_create(question=question, defaults={"needs_expert": True, **APPROVAL_RESET})
    sync_status(list(questions))
    return len(questions)


@transaction.atomic
def clear(questions: list[Question]) -> int:
    """Empty the answers (draft, edit, citations, review, approval, flag): the questions are unanswered again."""
    cleared = Answer.objects.filter(question__in=questions).update(
        draft_text="",
        final_text="",
        citations=[],
        confidence=None,
        evidence=None,
        needs_expert=False,
        library_entry_id=None,
        library_score=None,
        library_chosen_by=None,
        generated_at=None,
        review_verdict="",
        review_feedback="",
        review_summary="",
        review_score=None,
        reviewed_at=None,
        choice="",
        choice_needs_review=False,
        edited_by=None,
        edited_at=None,
        **APPROVAL_RESET,
    )
    sync_status(list(questions))
    return cleared
