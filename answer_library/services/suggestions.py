"""Suggestions: the entries that may answer a question the library was not sure enough to reuse, for a person to pick.

The responder keeps them (`keep`, from answer_library.reuse) when `matching.triage` reuses nothing; a person
uses one (`use`: the entry's answer is written exactly as an automatic reuse writes it, by
rfp_manager's `reuse_entry`, with who chose it) or rejects it (`reject`: never suggested
for that question again). Every decided row stays as the record the library learns from: the wording asked,
the entry, the outcome. A use adds the wording to the entry's phrasings, so the next question asked that way
may be reused without asking; entries whose suggestions are mostly rejected go to the review queue (review.py).
"""

from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from rfp_manager.models import Question
from rfp_manager.reuse import Reusable
from rfp_manager.services import answering

from ..models import Suggestion
from . import entries
from .matching import Match

# The review queue lists an entry whose suggestions were rejected at least this often, and more often than used.
OFTEN_REJECTED = 3


def reusable(entry, score: float) -> Reusable:
    """What answering writes for a reuse of `entry` (its answer, citations and choice), matched at `score`."""
    return Reusable(entry.pk, entry.answer_text, entry.sources, entry.choice, score)


def rejected_entry_ids(question_id: int) -> frozenset[int]:
    """The entries a person rejected for this question: never suggested nor reused for it again."""
    rejected = Suggestion.objects.filter(question_id=question_id, outcome=Suggestion.Outcome.REJECTED)
    return frozenset(rejected.values_list("entry_id", flat=True))


@transaction.atomic
def keep(question_id: int, wording: str, matches: list[Match]) -> None:
    """The question's pending suggestions become `matches`, best first (a redraft rewrites them, never adds twice).

    Decided rows are records, left as they are; a pending row no longer suggested goes.
    """
    decided = set(
        Suggestion.objects.filter(question_id=question_id)
        .exclude(outcome=Suggestion.Outcome.PENDING)
        .values_list("entry_id", flat=True)
    )
    offered = [m for m in matches if m.entry.pk not in decided]
    pending = Suggestion.objects.filter(question_id=question_id, outcome=Suggestion.Outcome.PENDING)
    pending.exclude(entry_id__in=[m.entry.pk for m in offered]).delete()
    for rank, match in enumerate(offered, start=1):
        Suggestion.objects.update_or_create(
            question_id=question_id,
            entry=match.entry,
            defaults={"rank": rank, "score": match.score, "wording": wording},
        )


def pending(question_id: int):
    return (
        Suggestion.objects.filter(question_id=question_id, outcome=Suggestion.Outcome.PENDING)
        .select_related("entry__owner")
        .order_by("rank")
    )


def _decide(suggestion: Suggestion, outcome: str, user) -> None:
    suggestion.outcome, suggestion.decided_by, suggestion.decided_at = outcome, user, timezone.now()
    suggestion.save(update_fields=["outcome", "decided_by", "decided_at"])


def _pending_for_update(question: Question, suggestion_id: int) -> Suggestion | None:
    return (
        Suggestion.objects.select_for_update(of=("self",))
        .select_related("entry")
        .filter(pk=suggestion_id, question=question, outcome=Suggestion.Outcome.PENDING)
        .first()
    )


@transaction.atomic
def use(question: Question, suggestion_id: int, user) -> bool:
    """The person's pick becomes the question's answer, recorded as theirs; False when it is not pending for it.

    The pick vouches for the text the way a person's own writing does, so the export carries it
    (deliverable.person_behind) — one key, not two; the owner's approval stays a step of its own, as for an edit.
    """
    suggestion = _pending_for_update(question, suggestion_id)
    if suggestion is None:
        return False
    entry = suggestion.entry
    answering.reuse_entry(question, reusable(entry, suggestion.score), chosen_by=user)
    _decide(suggestion, Suggestion.Outcome.USED, user)
    # The other entries were passed over, not judged wrong: they leave the row without a rejection on record.
    pending(question.pk).delete()
    if suggestion.wording not in entry.phrasings:
        entries.save_entry(
            entry,
            user,
            "wording added: a person used the entry for it",
            alternatives=[*entry.alternatives, suggestion.wording],
        )
    return True


@transaction.atomic
def reject(question: Question, suggestion_id: int, user) -> bool:
    """The entry does not answer this question: remembered, and not suggested for it again."""
    suggestion = _pending_for_update(question, suggestion_id)
    if suggestion is None:
        return False
    _decide(suggestion, Suggestion.Outcome.REJECTED, user)
    return True


def use_first(questions: list[Question], user) -> int:
    """Each question's first pending suggestion used, as `use` does for one; how many questions got one."""
    used = 0
    for question in questions:
        first = pending(question.pk).first()
        used += bool(first and use(question, first.pk, user))
    return used


def often_rejected() -> dict[int, tuple[int, int]]:
    """Entry id → (rejections, uses) for entries rejected at least OFTEN_REJECTED times and more than used."""
    counts = (
        Suggestion.objects.values("entry_id")
        .annotate(
            rejected=Count("pk", filter=Q(outcome=Suggestion.Outcome.REJECTED)),
            used=Count("pk", filter=Q(outcome=Suggestion.Outcome.USED)),
        )
        .filter(rejected__gte=OFTEN_REJECTED)
    )
    return {c["entry_id"]: (c["rejected"], c["used"]) for c in counts if c["rejected"] > c["used"]}
