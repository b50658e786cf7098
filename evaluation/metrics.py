"""Ranking metrics over document relevance: recall@k, MRR, nDCG@k; and how sure a share of a small sample is."""

import math


def first_relevant_rank(ranked_documents: list[str], relevant: frozenset[str]) -> int | None:
    """1-based rank of the first passage whose document is relevant, None when there is none."""
    return next((rank for rank, name in enumerate(ranked_documents, start=1) if name in relevant), None)


def recall_at(ranked_documents: list[str], relevant: frozenset[str], k: int) -> float:
    """1 when a passage of a relevant document is among the first k, else 0 (the issue's recall@k)."""
    rank = first_relevant_rank(ranked_documents[:k], relevant)
    return 1.0 if rank is not None else 0.0


def reciprocal_rank(ranked_documents: list[str], relevant: frozenset[str], k: int = 10) -> float:
    rank = first_relevant_rank(ranked_documents[:k], relevant)
    return 1.0 / rank if rank else 0.0


def ndcg_at(ranked_documents: list[str], relevant: frozenset[str], k: int = 10) -> float:
    """nDCG over distinct documents in first-seen order: each relevant document gains once."""
    distinct = list(dict.fromkeys(ranked_documents))[:k]
    dcg = sum(1.0 / math.log2(rank + 1) for rank, name in enumerate(distinct, start=1) if name in relevant)
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(k, len(relevant)) + 1))
    return dcg / ideal if ideal else 0.0


def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def wilson_interval(successes: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of the share successes / total: where the share over all such questions
    plausibly lies, given this sample. Unlike ± 1.96 standard errors it stays within 0..1 and does not shrink to
    nothing at 0 of 20 or 14 of 14, which the small samples here (a dozen approved drafts) often are."""
    if total <= 0:
        return 0.0, 1.0
    share, spread = successes / total, z * z / total
    centre = (share + spread / 2) / (1 + spread)
    half = z * math.sqrt(share * (1 - share) / total + spread / (4 * total)) / (1 + spread)
    return max(0.0, centre - half), min(1.0, centre + half)
