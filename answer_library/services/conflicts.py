"""Near-duplicate entries (merge them) and entries that answer the same question differently (decide).

Two entries ask the same question when their closest wordings are as near in
meaning as a question the responder would answer with the other entry
(matching.MATCH_THRESHOLD).
Then their answers are compared: a different Yes/No/N/A, or different numbers
("90 days" against "180 days"), is a conflict; otherwise they are duplicates.
Findings are upserted per pair, so a second scan updates rather than adds, and
a decision (merged, dismissed) is never reopened by a later scan.
"""

import numpy as np
from django.db import transaction

from llm_manager import services as llm
from llm_manager.providers import grounding

from ..models import Entry, Finding, LibraryJob
from . import matching
from .entries import save_entry

# The same question: what the responder would treat as the same question.
SAME_QUESTION = matching.MATCH_THRESHOLD
numbers = grounding.figures  # the figures an answer states; its citation marks ([1]) are not figures


def compare_answers(first: Entry, second: Entry) -> tuple[str, str]:
    """(kind, detail) for two entries that ask the same question."""
    if first.choice and second.choice and first.choice != second.choice:
        return Finding.Kind.CONFLICT, f"One says {first.get_choice_display()}, the other {second.get_choice_display()}."
    a, b = numbers(first.answer_text), numbers(second.answer_text)
    if a and b and a != b:
        return Finding.Kind.CONFLICT, f"Different figures: {', '.join(sorted(a))} against {', '.join(sorted(b))}."
    return Finding.Kind.DUPLICATE, "The same question with a consistent answer: merge them into one entry."


def entry_pairs(index: matching.Index) -> list[tuple[int, int, float]]:
    """(first id, second id, score) of the entry pairs whose closest wordings ask the same question."""
    if not index.entry_ids:
        return []
    cosines = index.vectors @ index.vectors.T
    best: dict[tuple[int, int], float] = {}
    for i, j in zip(*np.triu_indices(len(index.entry_ids), k=1)):
        a, b = index.entry_ids[i], index.entry_ids[j]
        if a == b:
            continue
        pair = (min(a, b), max(a, b))
        score = matching.match_score(float(cosines[i, j]))
        best[pair] = max(best.get(pair, 0.0), score)
    return sorted((a, b, s) for (a, b), s in best.items() if s >= SAME_QUESTION)


def scan(progress=None) -> dict:
    """Find and record the pairs; returns counts. `progress(done, total)` is called as entries are compared."""
    index = matching.Index.load(llm.get_default_model("embedding"))
    pairs = entry_pairs(index)
    entries = Entry.objects.in_bulk({e for a, b, _ in pairs for e in (a, b)})
    counts = {"pairs": len(pairs), "duplicates": 0, "conflicts": 0}
    for done, (a, b, score) in enumerate(pairs, start=1):
        kind, detail = compare_answers(entries[a], entries[b])
        counts["duplicates" if kind == Finding.Kind.DUPLICATE else "conflicts"] += 1
        finding = Finding.objects.filter(first_id=a, second_id=b).first()
        if finding is None:
            Finding.objects.create(first_id=a, second_id=b, kind=kind, similarity=score, detail=detail)
        elif finding.status == Finding.Status.OPEN:
            Finding.objects.filter(pk=finding.pk).update(kind=kind, similarity=score, detail=detail)
        if progress:
            progress(done, len(pairs))
    return counts


@transaction.atomic
def keep(finding: Finding, kept: Entry, user) -> Entry:
    """Decide a finding: keep one entry; the other's wordings join it and it is marked merged into it."""
    other = finding.second if kept.pk == finding.first_id else finding.first
    kept = save_entry(
        kept, user, f"Merged entry {other.pk} into this one", alternatives=[*kept.alternatives, *other.phrasings]
    )
    other.status, other.merged_into = Entry.Status.MERGED, kept
    other.save(update_fields=["status", "merged_into", "updated_at"])
    other.phrasing_rows.all().delete()  # a merged entry is no longer matched
    finding.status = Finding.Status.MERGED if finding.kind == Finding.Kind.DUPLICATE else Finding.Status.RESOLVED
    finding.decided_by = user
    finding.save(update_fields=["status", "decided_by", "found_at"])
    return kept


def dismiss(finding: Finding, user) -> None:
    finding.status, finding.decided_by = Finding.Status.DISMISSED, user
    finding.save(update_fields=["status", "decided_by", "found_at"])


def run_conflicts_job(job) -> dict:
    """The scan as a job: its progress is the pairs compared so far."""

    def progress(done, total):
        job.set_counts(total_items=total, processed_items=done, successful_items=done)

    counts = scan(progress)
    job.set_counts(total_items=counts["pairs"], processed_items=counts["pairs"], successful_items=counts["pairs"])
    job.summary = counts
    job.save(update_fields=["summary", "updated_at"])
    return counts


def create_scan_job(user) -> LibraryJob:
    """The scan's row; the database refuses a second active scan (IntegrityError). The caller dispatches it."""
    return LibraryJob.objects.create(job_type=LibraryJob.CONFLICTS, started_by=user)
