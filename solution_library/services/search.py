"""search_passages(): the one retrieval service (library search page, rfp_manager).

Ranking is hybrid: the database's full-text engine ranks chunks by the
question's subject words (bm25 / idf-weighted ts_rank over title, heading and text, see
lexical.py), the vector index ranks them by meaning, and reciprocal rank fusion
merges the two lists — a rank-based merge, so neither score's scale matters and
a passage that both rankings like rises to the top. With a model that ranks by
meaning, the lexical ranking votes only for passages that model finds
plausible (its first PLAUSIBLE_BY_MEANING) and for its own best one: clients
word questions in their own terms, and a passage that merely shares a few of
those words is a frequent wrong answer when it is let in from anywhere. `make eval` measures this fusion
against each ranking alone and against plain BM25 (docs/quality.md).
When a re-ranker model is configured, it re-orders the fused head (rerank.py).
"""

import functools
import logging
import time
from dataclasses import dataclass

from django.db import DEFAULT_DB_ALIAS, connection

from llm_manager import services as llm

from .lexical import affordable_terms, lexical_ranking, questionnaire_terms
from .rerank import passages_to_read, rerank
from .search_index import current_version, index_for

logger = logging.getLogger(__name__)

CANDIDATES = 50
RRF_K = 60
# Equal weights, the standard fusion; make eval compares it with each ranking alone.
LEXICAL_WEIGHT = 1.0
VECTOR_WEIGHT = 1.0
# The lexical ranking re-orders the meaning ranking's first passages rather than bringing in its own: on the
# client-worded dev questions an unrestricted lexical vote took recall@5 from the model's 0.91 to 0.76 ("Where do
# your servers ship their logs…" went to the standby-server manual, which says "ship" and "servers" often).
# Dev recall@5 was the same with 10, 20 or 30 here, once the lexical list is deep enough to place most of them
# (LEXICAL_CANDIDATES): with 50 it placed fewer, and the few it placed were pushed up by their vote alone.
PLAUSIBLE_BY_MEANING = 20
LEXICAL_CANDIDATES = 100


@dataclass(frozen=True)
class Passage:
    chunk_id: int
    document_id: int
    document_title: str
    text: str
    score: float
    position: int
    heading: str = ""
    # Why it ranks: its place in the full-text and in the meaning ranking (None: not in that list's head).
    lexical_rank: int | None = None
    vector_rank: int | None = None

    @property
    def number(self) -> int:
        """Its number in its document as people read it, from 1 (Chunk.number)."""
        return self.position + 1


def search_passages(query: str, limit: int = 5, *, document_ids: list[int] | None = None, model=None) -> list[Passage]:
    """The `limit` passages that best answer `query`, best first.

    `model`: the default embedding model a batch job read once at its start (read here when not given).
    """
    query = (query or "").strip()
    if not query or limit <= 0:
        return []
    model, version = (model, current_version(model.pk)) if model else default_model_and_version()
    depth = max(CANDIDATES, limit)
    index = index_for(model.pk, version)
    terms = affordable_terms(questionnaire_terms(query), model.pk, version)
    lexical = lexical_ranking(terms, max(LEXICAL_CANDIDATES, depth), model.pk, document_ids, index=index)
    vector = vector_ranking(query, model, depth, document_ids, index)
    votes = plausible_lexical(lexical, vector) if ranks_by_meaning(model) else lexical
    fused = fuse([(votes, LEXICAL_WEIGHT), (vector, VECTOR_WEIGHT)])
    passages = load_passages(fused, passages_to_read(limit), ranks=(_ranks(lexical), _ranks(vector)))
    return rerank(query, passages)[:limit]


def warm_up() -> float | None:
    """One search, so this process has loaded what every search needs before a person waits for it: the embedding
    model (a local model's weights take about 3 s to read and build, once per process: each web process's first
    search waited for it) and the vector index. The seconds it took; None when it failed (logged, never raised: a
    process starts without it, and its first search says what is wrong)."""
    started = time.perf_counter()
    try:
        search_passages("warm-up", 1)
    except Exception:  # no default model, an API down: the first real search reports it to the person
        logger.warning("The search could not be warmed up", exc_info=True)
        return None
    seconds = time.perf_counter() - started
    logger.info("Search warmed up in %.1f s", seconds)
    return seconds


def default_model_and_version():
    """The default embedding model (with its API) and its index token, in one query.

    The same row llm.get_default_model() reads, with the SearchIndexVersion token
    joined in: a search makes one round trip fewer. Read on every search, never
    assumed: a model's API settings (concurrency, timeouts, keys) change without
    notice. Anything unusual (no default, inactive, a local model that cannot run
    here) goes to get_default_model(), which raises the error the user should see
    or gives the model that stands in.
    """
    from ..models import SearchIndexVersion

    row = _default_model_row()
    model = _model_for_columns(row[:-1]) if row else None
    if model is None or not (model.is_active and model.api.is_active) or llm.model_problem(model):
        model = llm.get_default_model("embedding")  # raises NoDefaultModel with the reason, or the stand-in
        version = SearchIndexVersion.objects.filter(embedding_model=model).values_list("version", flat=True).first()
        return model, version or ""
    return model, row[-1] or ""


def _default_model_row() -> tuple | None:
    """Every column of the default embedding model's row and of its API's, then the model's index token."""
    from llm_manager.models import LLMModel

    with connection.cursor() as cursor:  # plain SQL: building the ORM's query was two thirds of this lookup
        cursor.execute(_default_model_sql(), [LLMModel.TYPE_EMBEDDING])
        return cursor.fetchone()


@functools.cache
def _default_model_sql() -> str:
    from llm_manager.models import LLMApi, LLMModel

    from ..models import SearchIndexVersion

    columns = [f"m.{f.column}" for f in _fields(LLMModel)] + [f"a.{f.column}" for f in _fields(LLMApi)]
    return (
        f"SELECT {', '.join(columns)}, v.version FROM {LLMModel._meta.db_table} m "
        f"JOIN {LLMApi._meta.db_table} a ON a.id = m.api_id "
        f"LEFT JOIN {SearchIndexVersion._meta.db_table} v ON v.embedding_model_id = m.id "
        "WHERE m.model_type = %s AND m.is_system_default ORDER BY m.id LIMIT 1"
    )


# The columns of the default model's and its API's rows last seen → their field values as the ORM read them.
_read_by_the_orm: dict[tuple, tuple[list, list]] = {}


def _model_for_columns(columns: tuple):
    """A new model instance (with its API) for these raw columns of the two rows.

    The ORM reads the rows the first time their columns are seen (it converts each database's values to
    Python's); while every column stays the same, instances are built from what it read. Any change to
    either row, made through the ORM or not, is columns not seen yet.
    """
    from llm_manager.models import LLMApi, LLMModel

    read = _read_by_the_orm.get(columns)
    if read is None:
        model = LLMModel.objects.select_related("api").get(pk=columns[0])  # the id is the first column
        read = (
            [getattr(model, f.attname) for f in _fields(LLMModel)],
            [getattr(model.api, f.attname) for f in _fields(LLMApi)],
        )
        _read_by_the_orm.clear()
        _read_by_the_orm[columns] = read
    model = LLMModel.from_db(DEFAULT_DB_ALIAS, [f.attname for f in _fields(LLMModel)], read[0])
    model.api = LLMApi.from_db(DEFAULT_DB_ALIAS, [f.attname for f in _fields(LLMApi)], read[1])
    return model


def _fields(model_class) -> list:
    return model_class._meta.concrete_fields


def vector_ranking(
    query: str, model, limit: int, document_ids: list[int] | None = None, index=None
) -> list[tuple[int, float]]:
    """(chunk_id, cosine) of the `limit` chunks nearest to the query's embedding, best first."""
    vector = llm.embed_remembered([query], model)[0]  # the draft that follows compares passages with it too
    return (index if index is not None else index_for(model.pk)).top(vector, limit, document_ids)


def fuse(rankings: list[tuple[list[tuple[int, float]], float]], k: int = RRF_K) -> list[tuple[int, float]]:
    """Weighted reciprocal rank fusion: each ranking gives weight / (k + rank) to the chunks it lists."""
    scores: dict[int, float] = {}
    for ranking, weight in rankings:
        for rank, (chunk_id, _) in enumerate(ranking, start=1):
            scores[chunk_id] = scores.get(chunk_id, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))


def plausible_lexical(
    lexical: list[tuple[int, float]], vector: list[tuple[int, float]], plausible: int = PLAUSIBLE_BY_MEANING
) -> list[tuple[int, float]]:
    """The lexical ranking, kept to its first passage and those among the vector ranking's first `plausible`.

    Its first passage stays whatever the model thinks: an exact code or name ("ERR-4711", "pg_upgrade") is
    what the full-text engine finds and an embedding model blurs.
    """
    near = {chunk_id for chunk_id, _ in vector[:plausible]}
    return [item for rank, item in enumerate(lexical) if rank == 0 or item[0] in near]


def ranks_by_meaning(model) -> bool:
    """False for the offline baseline: its embedding is a bag of hashed words, another lexical ranking, which
    cannot tell a paraphrase from a chance shared word (on dev, restricting the lexical votes to its first
    passages took hybrid recall@5 from 0.80 to 0.74)."""
    from llm_manager.models import LLMApi

    return model.api.kind != LLMApi.KIND_OFFLINE


def _ranks(ranking: list[tuple[int, float]]) -> dict[int, int]:
    return {chunk_id: rank for rank, (chunk_id, _) in enumerate(ranking, start=1)}


def load_passages(ranked: list[tuple[int, float]], wanted: int, ranks: tuple[dict, dict] = ({}, {})) -> list[Passage]:
    """The passages of the first `wanted` ranked chunk ids, in order; a chunk deleted since the ranking is skipped
    and the next one read in its place.

    Only those are read: a passage's text is stored out of line (migration 0001_squashed), a lookup each, and reading
    the whole fused head for five answers took a fifth of a search. `ranks`: each chunk's place in the
    lexical and the vector ranking, kept on the passage to say why it ranks."""
    passages, start = [], 0
    while len(passages) < wanted and start < len(ranked):
        batch = ranked[start : start + wanted - len(passages)]
        start += len(batch)
        passages += _read_passages(batch, ranks)
    return passages


def _read_passages(ranked: list[tuple[int, float]], ranks: tuple[dict, dict]) -> list[Passage]:
    with connection.cursor() as cursor:  # plain SQL: it runs on every search, the ORM's overhead was a third of it
        cursor.execute(
            "SELECT c.id, c.document_id, d.title, c.text, c.position, c.heading FROM solution_library_chunk c "
            "JOIN solution_library_document d ON d.id = c.document_id "
            f"WHERE c.id IN ({', '.join('%s' for _ in ranked)})",
            [chunk_id for chunk_id, _ in ranked],
        )
        found = {row[0]: row for row in cursor.fetchall()}
    return [
        Passage(
            chunk_id,
            document_id,
            title,
            text,
            round(score, 6),
            position,
            heading,
            ranks[0].get(chunk_id),
            ranks[1].get(chunk_id),
        )
        for chunk_id, score in ranked
        if (row := found.get(chunk_id)) is not None
        for _, document_id, title, text, position, heading in [row]
    ]
