"""Writing entries: a new one, an update that adds a version, approval from an RFP answer, a review.

Every write of an entry's content goes through `save_entry`, which bumps the
version, records an EntryVersion (who, when, why) and refreshes the phrasings
the responder matches against, so history and matching never drift apart.
"""

from datetime import date, timedelta

from django.db import transaction
from django.utils import timezone

from solution_library.models import Document

from ..models import Candidate, Entry, EntryVersion
from . import matching

DEFAULT_REVIEW_MONTHS = 12
CONTENT_FIELDS = ("question", "alternatives", "answer_text", "choice", "sources")


def default_review_by(today: date | None = None) -> date:
    return (today or timezone.localdate()) + timedelta(days=round(DEFAULT_REVIEW_MONTHS * 30.5))


def clean_lines(values: list[str]) -> list[str]:
    """Distinct non-empty values (alternatives, tags), spacing normalised, order kept."""
    return list(dict.fromkeys(" ".join(v.split()) for v in values if v and v.strip()))


def stamped_sources(citations: list[dict]) -> list[dict]:
    """The cited passages with their document's content hash now: the review queue compares against it."""
    hashes = dict(
        Document.objects.filter(pk__in=[c.get("document_id") for c in citations]).values_list("pk", "content_hash")
    )
    return [
        {
            "n": n,
            "chunk_id": c.get("chunk_id"),
            "document_id": c.get("document_id"),
            "document_title": c.get("document_title", ""),
            "text": c.get("text", ""),
            "score": c.get("score"),
            "cited": True,
            "document_hash": hashes.get(c.get("document_id"), ""),
        }
        for n, c in enumerate(citations, start=1)
    ]


@transaction.atomic
def save_entry(entry: Entry, user, note: str, **changes) -> Entry:
    """Apply `changes` to the entry (new or existing), write its next version, refresh its phrasings."""
    for name, value in changes.items():
        setattr(entry, name, value)
    entry.alternatives = [a for a in clean_lines(entry.alternatives) if a != " ".join(entry.question.split())]
    entry.tags = clean_lines(entry.tags)
    if entry.pk:
        entry.version = (entry.versions.order_by("-number").values_list("number", flat=True).first() or 0) + 1
    if any(name in CONTENT_FIELDS for name in changes) or not entry.pk:
        entry.approved_at = timezone.now()
    entry.save()
    EntryVersion.objects.create(
        entry=entry,
        number=entry.version,
        changed_by=user,
        note=note[:300],
        **{name: getattr(entry, name) for name in CONTENT_FIELDS},
    )
    matching.index_entry(entry)
    return entry


def entry_from_answer(answer) -> Entry | None:
    """The entry an RFP answer came from: reused from the library, or approved from this very answer before."""
    if answer.library_entry_id:
        return Entry.objects.filter(pk=answer.library_entry_id).first()
    return Entry.objects.filter(origin_answer=answer).exclude(status=Entry.Status.MERGED).order_by("-pk").first()


def approve_answer(
    answer,
    user,
    *,
    update: Entry | None = None,
    question: str = "",
    alternatives=(),
    answer_text: str = "",
    choice: str = "",
    tags=(),
    owner=None,
    review_by=None,
) -> Entry:
    """Save an RFP answer a person approved: as a new entry, or as the next version of `update`.

    The RFP's wording of the question joins the entry's alternatives when the
    entry is updated from a reworded question, so the next rewording matches too.
    """
    rfp = answer.question.rfp
    text = answer_text.strip() or answer.final_answer
    question = " ".join((question or answer.question.text).split())
    values = {
        "answer_text": text,
        "choice": choice if choice is not None else answer.choice,
        "sources": stamped_sources(answer.cited_passages),
        "tags": list(tags),
        "owner": owner or user,
        "review_by": review_by or default_review_by(),
        "status": Entry.Status.ACTIVE,
        "review_reasons": [],
    }
    if update is not None:
        wordings = [*update.alternatives, *alternatives]
        if question != update.question:
            wordings.append(question)
        entry = save_entry(
            update, user, f"Updated from {rfp.name}, {answer.question.label}", alternatives=wordings, **values
        )
    else:
        entry = save_entry(
            Entry(
                origin=Entry.Origin.RFP, origin_answer=answer, origin_label=f"{rfp.name}, {answer.question.label}"[:300]
            ),
            user,
            f"Approved in {rfp.name}, {answer.question.label}",
            question=question,
            alternatives=list(alternatives),
            **values,
        )
    Candidate.objects.filter(answer=answer).update(status=Candidate.Status.SAVED)
    return entry


def record_candidate(answer) -> None:
    """A person's edit of an answer is a proposal for the library (one open candidate per answer, the latest text)."""
    if not answer.final_text.strip():
        return
    Candidate.objects.update_or_create(
        answer=answer,
        defaults={"text": answer.final_text, "edited_by": answer.edited_by, "status": Candidate.Status.OPEN},
    )


def propose(answer, user, text: str) -> Candidate:
    """Someone who may not edit the library proposes an answer for it: an open candidate an editor decides on."""
    candidate, _ = Candidate.objects.update_or_create(
        answer=answer, defaults={"text": text, "edited_by": user, "status": Candidate.Status.OPEN}
    )
    return candidate


def mark_reviewed(entry: Entry, user) -> Entry:
    """The owner checked the entry: its sources are stamped as they are now, the next review is a year away."""
    current = stamped_sources([s for s in entry.sources if Document.objects.filter(pk=s.get("document_id")).exists()])
    return save_entry(
        entry,
        user,
        "Reviewed: still correct",
        sources=current,
        review_by=default_review_by(),
        status=Entry.Status.ACTIVE,
        review_reasons=[],
    )
