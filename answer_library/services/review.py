"""The review queue: entries past their review date, or whose cited document changed or went away since approval.

`refresh_review_queue` recomputes every usable entry's reasons from scratch and
writes them as absolute values, so running it twice (Beat re-delivers) gives
the same rows. A marked entry stays usable: the responder still reuses it, and
the RFP page says it waits for review.
"""

from django.db import transaction
from django.utils import timezone

from solution_library.models import Document

from ..models import Entry


def reasons_for(entry: Entry, documents: dict[int, str], today) -> list[dict]:
    """Why the entry needs its owner's look ([] when it does not). `documents` maps id → content hash now."""
    reasons = []
    if entry.review_by and entry.review_by < today:
        reasons.append({"code": "past_review_date", "text": f"Review was due on {entry.review_by:%Y-%m-%d}."})
    for source in entry.sources:
        document_id, title = source.get("document_id"), source.get("document_title") or "a cited document"
        if document_id not in documents:
            reasons.append({"code": "document_removed", "text": f"“{title}” was removed from the library."})
        elif source.get("document_hash") and documents[document_id] != source["document_hash"]:
            reasons.append({"code": "document_changed", "text": f"“{title}” changed since the answer was approved."})
    return list({r["text"]: r for r in reasons}.values())  # one reason per document, however many passages


def refresh_review_queue(today=None) -> dict:
    """Mark and unmark entries by their reasons now; returns how many are in the queue and how many changed."""
    today = today or timezone.localdate()
    entries = list(Entry.objects.usable())
    cited = {s.get("document_id") for e in entries for s in e.sources}
    documents = dict(Document.objects.filter(pk__in=cited).values_list("pk", "content_hash"))
    changed = 0
    with transaction.atomic():
        for entry in entries:
            reasons = reasons_for(entry, documents, today)
            status = Entry.Status.NEEDS_REVIEW if reasons else Entry.Status.ACTIVE
            if status != entry.status or reasons != entry.review_reasons:
                # A plain UPDATE: a review mark is not a new version of the entry's content.
                Entry.objects.filter(pk=entry.pk).update(status=status, review_reasons=reasons)
                changed += 1
    queued = Entry.objects.filter(status=Entry.Status.NEEDS_REVIEW).count()
    return {"in_queue": queued, "changed": changed, "checked": len(entries)}
