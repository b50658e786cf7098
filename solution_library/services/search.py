"""search_passages(): the one retrieval service (library search page, rfp_manager).

Ranking is hybrid: the database's full-text engine ranks chunks by the
question's subject words (bm25 / ts_rank_cd over title, heading and text, see
lexical.py), the vector index ranks them by meaning, and reciprocal rank fusion
merges the two lists — a rank-based merge, so neither score's scale matters and
a passage that both rankings like rises to the top. `make eval` measures this
fusion against each ranking alone and against plain BM25 (docs/quality.md).
When a re-ranker model is configured, it re-orders the fused head (rerank.py).
"""
from dataclasses import dataclass

import numpy as np

from llm_manager import services as llm

from ..models import Chunk
from .lexical import affordable_terms, lexical_ranking, questionnaire_terms
from .rerank import rerank
from .search_index import index_for

CANDIDATES = 50
RRF_K = 60
# Equal weights, the standard fusion; make eval compares it with each ranking alone.
LEXICAL_WEIGHT = 1.0
VECTOR_WEIGHT = 1.0


@dataclass(frozen=True)
class Passage:
    chunk_id: int
    document_id: int
    document_title: str
    text: str
    score: float
    position: int
    heading: str = ""


def search_passages(query: str, limit: int = 5, *, document_ids: list[int] | None = None) -> list[Passage]:
    """The `limit` passages that best answer `query`, best first."""
    query = (query or "").strip()
    if not query or limit <= 0:
        return []
    model = llm.get_default_model("embedding")
    depth = max(CANDIDATES, limit)
    index = index_for(model.pk)
    terms = affordable_terms(questionnaire_terms(query), model.pk, index.version)
    fused = fuse(
        [
            (lexical_ranking(terms, depth, model.pk, document_ids), LEXICAL_WEIGHT),
            (vector_ranking(query, model, depth, document_ids, index), VECTOR_WEIGHT),
        ]
    )
    passages = load_passages(fused[:depth])
    return rerank(query, passages)[:limit]


def vector_ranking(query: str, model, limit: int, document_ids: list[int] | None = None, index=None) -> list[tuple[int, float]]:
    """(chunk_id, cosine) of the `limit` chunks nearest to the query's embedding, best first."""
    vector = np.asarray(llm.embed_texts([query], model)[0], dtype=np.float32)
    return (index or index_for(model.pk)).top(vector, limit, document_ids)


def fuse(rankings: list[tuple[list[tuple[int, float]], float]], k: int = RRF_K) -> list[tuple[int, float]]:
    """Weighted reciprocal rank fusion: each ranking gives weight / (k + rank) to the chunks it lists."""
    scores: dict[int, float] = {}
    for ranking, weight in rankings:
        for rank, (chunk_id, _) in enumerate(ranking, start=1):
            scores[chunk_id] = scores.get(chunk_id, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))


def load_passages(ranked: list[tuple[int, float]]) -> list[Passage]:
    """Passages for ranked chunk ids, in order; chunks deleted since the ranking are left out."""
    rows = Chunk.objects.filter(pk__in=[chunk_id for chunk_id, _ in ranked]).values_list(
        "id", "document_id", "document__title", "text", "position", "heading"
    )
    found = {row[0]: row for row in rows}
    return [
        Passage(chunk_id, document_id, title, text, round(score, 6), position, heading)
        for chunk_id, score in ranked
        if (row := found.get(chunk_id)) is not None
        for _, document_id, title, text, position, heading in [row]
    ]
