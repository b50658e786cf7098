"""docs/quality.md: the figures of one `make eval` run, and whether each target is met."""
from datetime import datetime, timezone

from django.db import connection

# The targets.
HYBRID_MARGIN_OVER_BM25 = 0.10
NO_SUPPORT_PRECISION = 0.8
FAULT_DETECTION = 0.9
CORRECT_APPROVAL = 0.8
LIBRARY_RECALL = 0.9
LIBRARY_FALSE_MATCHES = 0.05
CONFIDENCE_BUCKETS = ((0.0, 0.2), (0.2, 0.4), (0.4, 0.6), (0.6, 1.01))


def render(*, retrieval, library, drafts, draft_score, reviewer, documents, questions, models, seconds) -> str:
    methods = list(retrieval)
    bm25, hybrid = retrieval[methods[0]], retrieval[methods[-1]]
    answerable = sum(q.answerable for q in questions)
    lines = [
        "# Retrieval and answer quality",
        "",
        f"Written by `make eval` on {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC in {seconds:.0f} s "
        f"({connection.vendor} in-process; embedding model `{models[0]}`, chat model `{models[1]}`).",
        f"Evaluation set: {documents} public documents (evaluation/documents/SOURCES.md) and {len(questions)} "
        f"questionnaire-style questions (evaluation/questions.json), {answerable} answerable from the library and "
        f"{len(questions) - answerable} not. A passage answers when its document is one the question lists.",
        "",
        "## Targets",
        "",
        "| target | measured | met |",
        "|---|---|---|",
        _target(f"hybrid recall@5 ≥ BM25's + {HYBRID_MARGIN_OVER_BM25:.2f} ({bm25.recall_at_5:.3f} + "
                f"{HYBRID_MARGIN_OVER_BM25:.2f})", hybrid.recall_at_5, bm25.recall_at_5 + HYBRID_MARGIN_OVER_BM25),
        _target(f"\"no supporting content\" precision ≥ {NO_SUPPORT_PRECISION}", draft_score.no_support_precision,
                NO_SUPPORT_PRECISION),
        _target(f"reviewer flags ≥ {FAULT_DETECTION:.0%} of planted faults", reviewer.detection_rate, FAULT_DETECTION),
        _target(f"reviewer approves ≥ {CORRECT_APPROVAL:.0%} of correct answers", reviewer.approval_rate,
                CORRECT_APPROVAL),
        _target(f"answer library: reworded question finds its entry, recall@1 ≥ {LIBRARY_RECALL} "
                f"({library[-1].model})", library[-1].recall_at_1, LIBRARY_RECALL),
        _at_most(f"answer library: unrelated question matches an entry ≤ {LIBRARY_FALSE_MATCHES} "
                 f"({library[-1].model})", library[-1].false_match_rate, LIBRARY_FALSE_MATCHES),
        "",
        f"## Retrieval ({answerable} answerable questions)",
        "",
        "| method | recall@5 | MRR@10 | nDCG@10 | missed at 5 |",
        "|---|---|---|---|---|",
        *[f"| {name} | {s.recall_at_5:.3f} | {s.mrr:.3f} | {s.ndcg_at_10:.3f} | {len(s.missed_at_5)} |"
          for name, s in retrieval.items()],
        "",
        "recall@5: share of questions with a passage of a relevant document among the first five; MRR@10: mean "
        "reciprocal rank of the first such passage; nDCG@10: over distinct documents in ranked order. "
        "Search latency is measured by bench/bench_search.py, not here.",
        "",
        f"Missed at 5 by the hybrid: {', '.join(hybrid.missed_at_5) or 'none'}; by BM25: "
        f"{', '.join(bm25.missed_at_5) or 'none'}.",
        "",
        *_library_section(library),
        "## Drafts",
        "",
        f"- \"No supporting content\" drafts: {draft_score.flagged}, of which {draft_score.flagged_correctly} for "
        f"questions the library cannot answer — precision {draft_score.no_support_precision:.3f}, recall "
        f"{draft_score.no_support_recall:.3f} (of {draft_score.unanswerable} unanswerable questions).",
        f"- Answerable questions drafted from a relevant document (citing one): {draft_score.grounded_in_relevant} "
        f"of {draft_score.answerable}.",
        "",
        "## Reviewer",
        "",
        f"- Correct drafts (answerable, drafted, citing a relevant document) approved: {reviewer.correct_approved} "
        f"of {reviewer.correct_judged} ({reviewer.approval_rate:.1%}).",
        f"- Planted faults flagged (verdict other than approved): {reviewer.caught} of {reviewer.planted} "
        f"({reviewer.detection_rate:.1%}).",
        "",
        "| planted fault | planted | flagged |",
        "|---|---|---|",
        *[f"| {kind} | {len(caught)} | {sum(caught)} |" for kind, caught in reviewer.faults.items()],
        "",
        "Faults are planted into each correct draft: the draft of another question about other documents with "
        "that question's passages (an answer from an unrelated passage); the draft plus a fabricated sentence "
        "citing its first passage (a sentence with no support); every citation moved to a retrieved passage that "
        "does not support its sentence (a citation of the wrong passage).",
        "",
        "## Confidence",
        "",
        "What the RFP page sorts by, after review, for the drafted answers (a \"no supporting content\" draft "
        "has confidence 0 and is listed first by its expert flag). A drafted answer is right when it cites a "
        "passage of a relevant document.",
        "",
        "| confidence | drafted answers | right |",
        "|---|---|---|",
        *_calibration([d for d in drafts if not d.needs_expert]),
        "",
    ]
    return "\n".join(lines)


def _at_most(label: str, measured: float, threshold: float) -> str:
    return f"| {label} | {measured:.3f} | {'yes' if measured <= threshold else 'NO'} |"


def _library_section(library) -> list[str]:
    from .library import SWEEP

    first = library[-1]
    lines = [
        f"## Answer library ({first.entries} entries, {first.reworded} reworded questions, {first.unrelated} unrelated)",
        "",
        "Does the responder reuse the right approved entry for a question asked in other words, and no entry for a "
        "question none answers? evaluation/library_entries.json: each reworded question must find its own entry "
        "first and above the match threshold (recall@1); an unrelated question (some close to an entry's topic on "
        "purpose, e.g. certificate renewal beside key rotation) must match none (false matches). Matching is "
        "answer_library.services.matching.find_match, the responder's own.",
        "",
        f"| embedding model | threshold | recall@1 | found | false-match rate | false matches |",
        "|---|---|---|---|---|---|",
        *[f"| {s.model} | {s.threshold:.2f} | {s.recall_at_1:.3f} | {s.found_first} / {s.reworded} | "
          f"{s.false_match_rate:.3f} | {s.false_matches} / {s.unrelated} |" for s in library],
        "",
        "The threshold (ANSWER_LIBRARY_MATCH_THRESHOLD) was chosen on this set, for all-MiniLM-L6-v2; the sweep "
        "shows what others would give (recall@1 / false-match rate). It is tuned on the set it is measured on, so "
        "expect somewhat less on new questionnaires.",
        "",
        "| model | " + " | ".join(f"{t:.2f}" for t in SWEEP) + " |",
        "|---|" + "---|" * len(SWEEP),
        *[f"| {s.model} | " + " | ".join("{:.2f} / {:.2f}".format(*s.at(t)) for t in SWEEP) + " |" for s in library],
        "",
        f"Not found by {first.model}: {'; '.join(first.misses) or 'none'}.",
        "",
        f"False matches by {first.model}: {'; '.join(first.wrong) or 'none'}.",
        "",
    ]
    return lines


def _target(label: str, measured: float, threshold: float) -> str:
    return f"| {label} | {measured:.3f} | {'yes' if measured >= threshold else 'NO'} |"


def _calibration(drafts) -> list[str]:
    rows = []
    for low, high in CONFIDENCE_BUCKETS:
        bucket = [d for d in drafts if low <= d.reviewed_confidence < high]
        right = sum(d.question.answerable and d.cites_relevant for d in bucket)
        share = f"{right / len(bucket):.0%}" if bucket else "–"
        rows.append(f"| {low:.1f}–{min(high, 1.0):.1f} | {len(bucket)} | {right} ({share}) |")
    return rows
