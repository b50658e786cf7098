"""search_passages(): the one retrieval service (library search page, rfp_manager).

Ranking is hybrid: the vector index proposes the best candidates by cosine
similarity, then a light keyword score (the share of the query's terms found
in the passage) re-orders them, so an exact product name or error code in the
question lifts the passage that contains it.
"""
import re
from dataclasses import dataclass

import numpy as np

from llm_manager import services as llm

from ..models import Chunk
from .search_index import index_for

CANDIDATES_PER_RESULT = 4
MIN_CANDIDATES = 20
KEYWORD_WEIGHT = 0.25
TERM = re.compile(r"[a-z0-9]{3,}")
STOPWORDS = frozenset(
    "the and for are but not you all any can had her was one our out has have how its may who did yes what when "
    "where which why with this that from your does will into they them then than there these those about would "
    "should could their been were".split()
)


@dataclass(frozen=True)
class Passage:
    chunk_id: int
    document_id: int
    document_title: str
    text: str
    score: float
    position: int


def search_passages(query: str, limit: int = 5, *, document_ids: list[int] | None = None) -> list[Passage]:
    """The `limit` passages that best answer `query`, best first."""
    query = (query or "").strip()
    if not query or limit <= 0:
        return []
    model = llm.get_default_model("embedding")
    vector = np.asarray(llm.embed_texts([query], model)[0], dtype=np.float32)
    index = index_for(model.pk)
    candidates = index.top(vector, max(MIN_CANDIDATES, limit * CANDIDATES_PER_RESULT), document_ids)
    if not candidates:
        return []
    chunks = Chunk.objects.select_related("document").only(
        "id", "text", "position", "document_id", "document__title"
    ).in_bulk([chunk_id for chunk_id, _ in candidates])
    terms = query_terms(query)
    scored = [
        (_blend(cosine, keyword_score(terms, chunks[chunk_id].text)), chunks[chunk_id])
        for chunk_id, cosine in candidates
        if chunk_id in chunks  # deleted since the index was read
    ]
    scored = [pair for pair in scored if pair[0] > 0]  # nothing in common with the question
    scored.sort(key=lambda pair: (-pair[0], pair[1].pk))
    return [
        Passage(c.pk, c.document_id, c.document.title, c.text, round(score, 4), c.position)
        for score, c in scored[:limit]
    ]


def query_terms(text: str) -> set[str]:
    return {t for t in TERM.findall(text.lower()) if t not in STOPWORDS}


def keyword_score(terms: set[str], text: str) -> float:
    """Share of the query's terms that the passage contains (0..1)."""
    if not terms:
        return 0.0
    return len(terms & set(TERM.findall(text.lower()))) / len(terms)


def _blend(cosine: float, keywords: float) -> float:
    return (1 - KEYWORD_WEIGHT) * cosine + KEYWORD_WEIGHT * keywords
