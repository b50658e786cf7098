"""Canonical facts checked across an RFP's answers before export: one legal name, one retention period…"""

import re
from dataclasses import dataclass

from ..models import CanonicalFact


@dataclass(frozen=True)
class Mismatch:
    question_id: int
    question_label: str
    fact: str
    stated: str
    canonical: str


def _normal(value: str) -> str:
    return " ".join(value.lower().split()).strip(" .,;")


def stated_values(fact: CanonicalFact, text: str) -> list[str]:
    """Each value the text states for the fact (the pattern's first group, or its whole match)."""
    try:
        pattern = re.compile(fact.pattern, re.IGNORECASE)
    except re.error:
        return []  # a broken pattern is the admin's to fix (the admin form checks it); it never blocks an export
    return [(m.group(1) if m.groups() else m.group(0)) or "" for m in pattern.finditer(text)]


def check_answers(answers, facts: list[CanonicalFact] | None = None) -> list[Mismatch]:
    """Every place an answer states a canonical fact differently from its canonical value."""
    facts = list(CanonicalFact.objects.filter(is_active=True)) if facts is None else facts
    mismatches = []
    for answer in answers:
        for fact in facts:
            for value in stated_values(fact, answer.final_answer):
                if _normal(value) != _normal(fact.value):
                    mismatches.append(
                        Mismatch(answer.question_id, answer.question.label, fact.name, value.strip(), fact.value)
                    )
    return mismatches


def check_rfp(rfp) -> list[Mismatch]:
    """The RFP's mismatches; it runs on every view of the RFP page, so only the columns the check reads are loaded."""
    from rfp_manager.models import Answer

    facts = list(CanonicalFact.objects.filter(is_active=True))
    if not facts:
        return []
    answers = (
        Answer.objects.filter(question__rfp=rfp)
        .select_related("question")
        .order_by("question__order")
        .only("question_id", "draft_text", "final_text", "question__number", "question__order")
    )
    return check_answers(answers, facts)
