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
from django.db import connection

from llm_manager import services as llm

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
    model, version = default_model_and_version()
    depth = max(CANDIDATES, limit)
    index = index_for(model.pk, version)
    terms = affordable_terms(questionnaire_terms(query), model.pk, version)
    fused = fuse(
        [
            (lexical_ranking(terms, depth, model.pk, document_ids, index=index), LEXICAL_WEIGHT),
            (vector_ranking(query, model, depth, document_ids, index), VECTOR_WEIGHT),
        ]
    )
    passages = load_passages(fused[:depth])
    return rerank(query, passages)[:limit]


# The default embedding model as last read, by the stamps it was read with (see below).
_default_model: dict[tuple, object] = {}

DEFAULT_MODEL_STAMPS = (
    "SELECT m.id, m.updated_at, m.is_active, m.embedding_dimensions, a.id, a.updated_at, a.is_active, v.version "
    "FROM llm_manager_llmmodel m JOIN llm_manager_llmapi a ON a.id = m.api_id "
    "LEFT JOIN solution_library_searchindexversion v ON v.embedding_model_id = m.id "
    "WHERE m.model_type = 'embedding' AND m.is_system_default"
)


def default_model_and_version():
    """The default embedding model and its index token, in one plain query.

    llm.get_default_model() is an ORM query with a join — a fifth of a whole
    search at 100,000 chunks. What it returns changes only when a model or its
    API is saved (updated_at moves) or one of the fields that are updated
    without save() changes (is_active, embedding_dimensions), so this reads those
    stamps beside the index token and reuses the model object while they hold.
    Anything unusual (no default, inactive) goes to get_default_model(), which
    raises the error the user should see.
    """
    with connection.cursor() as cursor:
        cursor.execute(DEFAULT_MODEL_STAMPS)
        row = cursor.fetchone()
    if row is None or not (row[2] and row[6]):
        llm.get_default_model("embedding")  # raises NoDefaultModel with the reason
    stamps, version = tuple(row[:7]), row[7] or ""
    model = _default_model.get(stamps)
    if model is None:
        model = llm.get_default_model("embedding")
        _default_model.clear()
        _default_model[stamps] = model
    return model, version


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
    if not ranked:
        return []
    with connection.cursor() as cursor:  # plain SQL: it runs on every search, the ORM's overhead was a third of it
        cursor.execute(
            "SELECT c.id, c.document_id, d.title, c.text, c.position, c.heading FROM solution_library_chunk c "
            "JOIN solution_library_document d ON d.id = c.document_id "
            f"WHERE c.id IN ({', '.join('%s' for _ in ranked)})",
            [chunk_id for chunk_id, _ in ranked],
        )
        found = {row[0]: row for row in cursor.fetchall()}
    return [
        Passage(chunk_id, document_id, title, text, round(score, 6), position, heading)
        for chunk_id, score in ranked
        if (row := found.get(chunk_id)) is not None
        for _, document_id, title, text, position, heading in [row]
    ]
