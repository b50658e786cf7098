"""Helpers for tests and benchmarks: an RFP answered as the batch jobs would leave it, made in a few queries."""

from django.utils import timezone

from .models import RFP, Answer, Question
from .services import workflow


def approved_by(user, text: str) -> dict:
    """The Answer fields of a person's approval of `text` (what workflow.approve writes)."""
    return {"approved_by": user, "approved_at": timezone.now(), "approved_text": text}


def verdict_on(verdict: str, text: str) -> dict:
    """The Answer fields of the reviewer's verdict on `text` (what answering.review_answer writes)."""
    return {"review_verdict": verdict, "reviewed_text": text}


SECTIONS = ["Governance", "Data protection", "Operations", "Identity and access", "Resilience"]
SUBJECTS = [
    (
        "Is customer data encrypted at rest?",
        "Yes. Customer data is encrypted at rest with AES-256; keys are kept in an HSM [1].",
    ),
    (
        "How often are backups taken?",
        "Backups are taken every hour and kept for 35 days; restores are tested every quarter [1].",
    ),
    ("Which data centres host the service?", "Two data centres, in Frankfurt and Dublin, with automatic failover [1]."),
    (
        "How is access to production controlled?",
        "Single sign-on and hardware security keys are required for production [1].",
    ),
    (
        "How often do you run penetration tests?",
        "An external penetration test runs every year; critical findings are fixed in 14 days [1].",
    ),
    ("Who is your external auditor?", "There is no supporting content in the library for this question."),
]


def make_answered_rfp(owner, count: int, name: str) -> RFP:
    """An RFP of `count` questions, answered as a responder and a reviewer leave them: drafts, verdicts, expert flags."""
    rfp = RFP.objects.create(name=name, client="Northwind", owner=owner)
    Question.objects.bulk_create(
        [
            Question(
                rfp=rfp,
                section=SECTIONS[i % len(SECTIONS)],
                number=f"{i // 50 + 1}.{i % 50 + 1}",
                order=i,
                text=f"{SUBJECTS[i % len(SUBJECTS)][0]} (control {i + 1})",
                import_key=f"k{i}",
            )
            for i in range(count)
        ]
    )
    answers = []
    for question in rfp.questions.order_by("order"):
        i = question.order
        if i % 10 == 9:
            continue  # some are not answered yet
        text = SUBJECTS[i % len(SUBJECTS)][1]
        expert = i % len(SUBJECTS) == len(SUBJECTS) - 1
        citations = (
            []
            if expert
            else [
                {
                    "n": 1,
                    "chunk_id": 1,
                    "document_id": 1,
                    "document_title": "Security handbook",
                    "text": text,
                    "cited": True,
                }
            ]
        )
        answers.append(
            Answer(
                question=question,
                draft_text=text,
                needs_expert=expert,
                citations=citations,
                confidence=0.0 if expert else (0.35, 0.62, 0.91)[i % 3],
                review_verdict="" if expert or i % 4 == 0 else ("approved", "needs_revision", "approved")[i % 3],
                reviewed_text="" if expert or i % 4 == 0 else text,
                review_score=None if expert or i % 4 == 0 else (0.83, 0.48, 0.77)[i % 3],
            )
        )
    Answer.objects.bulk_create(answers)
    workflow.sync_status(rfp.questions.all())
    return rfp
