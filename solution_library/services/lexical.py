"""Lexical ranking by the database's own full-text engine, and the query it is given.

SQLite: the FTS5 table `solution_library_chunk_fts` ranked by bm25(); PostgreSQL:
the generated `search_vector` column (GIN index) matched by
websearch_to_tsquery() and ranked by ts_rank_cd(). Both index the chunk's
document title and section heading beside its text, weighted above it, and both
are kept current by the database itself (see migration 0005).

Questionnaires wrap what they ask in phrasing that is in no document ("Please
describe how your organisation…", "Provide evidence that…"); those words are
dropped before the search, and the remaining terms are OR-ed so a passage that
has most of them — not necessarily all — ranks first.
"""
import re

from django.db import connection

from llm_manager.providers.grounding import QUESTIONNAIRE_WORDS, STOPWORDS

TERM = re.compile(r"[a-z0-9]+")
# Phrases removed whole before single words are looked at: "if so", "in place".
QUESTIONNAIRE_PHRASES = re.compile(
    r"\b(if (so|yes|not|applicable)|in place|make sure|at (a|the) minimum|such as|e\.g\.|i\.e\.)", re.IGNORECASE
)
FTS_TABLE = "solution_library_chunk_fts"
# Title and heading count twice the text: a passage under "Backups" is about backups.
SQLITE_BM25_WEIGHTS = "2.0, 2.0, 1.0"
POSTGRES_WEIGHTS = "{0.25, 0.25, 0.5, 0.5}"  # D (text), C, B (heading), A (title)
# Chunks holding a word with a given prefix: (query, how the prefix is written in it) per engine.
FREQUENCY_QUERIES = {
    "postgresql": (
        "SELECT count(*) FROM solution_library_chunk "
        "WHERE search_vector @@ to_tsquery('simple', %s) AND embedding_model_id = %s",
        "{}:*",
    ),
    "sqlite": (
        f"SELECT count(*) FROM {FTS_TABLE} JOIN solution_library_chunk c ON c.id = {FTS_TABLE}.rowid "
        f"WHERE {FTS_TABLE} MATCH %s AND c.embedding_model_id = %s",
        '"{}"*',
    ),
}


def plain_terms(text: str) -> list[str]:
    """The query's words minus English stopwords, in order, once each (the BM25 baseline's query)."""
    return list(dict.fromkeys(t for t in TERM.findall(text.lower()) if t not in STOPWORDS))


def questionnaire_terms(text: str) -> list[str]:
    """The subject words of a questionnaire question: plain_terms without the form's own phrasing."""
    return [t for t in plain_terms(QUESTIONNAIRE_PHRASES.sub(" ", text)) if t not in QUESTIONNAIRE_WORDS]


def lexical_ranking(
    terms: list[str], limit: int, model_id: int, document_ids: list[int] | None = None, *, text_only: bool = False
) -> list[tuple[int, float]]:
    """(chunk_id, score) of the `limit` chunks of one embedding model that best match any of `terms`, best first.

    `text_only` ranks the passage text alone (no title or heading): the plain BM25 baseline of `make eval`.
    """
    if not terms or limit <= 0 or document_ids == []:
        return []
    if connection.vendor == "postgresql":
        return _postgres_ranking(terms, limit, model_id, document_ids, text_only)
    return _sqlite_ranking(terms, limit, model_id, document_ids, text_only)


def _sqlite_ranking(terms, limit, model_id, document_ids, text_only) -> list[tuple[int, float]]:
    match = " OR ".join(f'"{t}"' for t in terms)
    if text_only:
        match = f"text : ({match})"
    where, params = "", [match, model_id]
    if document_ids is not None:
        where = f" AND c.document_id IN ({', '.join('%s' for _ in document_ids)})"
        params += list(document_ids)
    sql = (
        f"SELECT c.id, bm25({FTS_TABLE}, {SQLITE_BM25_WEIGHTS}) AS rank FROM {FTS_TABLE} "
        f"JOIN solution_library_chunk c ON c.id = {FTS_TABLE}.rowid "
        f"WHERE {FTS_TABLE} MATCH %s AND c.embedding_model_id = %s{where} ORDER BY rank, c.id LIMIT %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, limit])
        # bm25() is lower-is-better (negative); flip it so every ranking here is higher-is-better.
        return [(chunk_id, -rank) for chunk_id, rank in cursor.fetchall()]


def _postgres_ranking(terms, limit, model_id, document_ids, text_only) -> list[tuple[int, float]]:
    vector = "to_tsvector('english', text)" if text_only else "search_vector"
    where, params = "", [" or ".join(terms), model_id]
    if document_ids is not None:
        where, params = " AND document_id = ANY(%s)", [*params, list(document_ids)]
    sql = (
        f"SELECT id, ts_rank_cd('{POSTGRES_WEIGHTS}', {vector}, query) AS rank "
        "FROM solution_library_chunk, websearch_to_tsquery('english', %s) AS query "
        f"WHERE {vector} @@ query AND embedding_model_id = %s{where} ORDER BY rank DESC, id LIMIT %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, limit])
        return [(chunk_id, float(rank)) for chunk_id, rank in cursor.fetchall()]


def chunk_frequencies(prefixes: list[str], model_id: int) -> tuple[int, dict[str, int]]:
    """(number of chunks, {prefix: chunks holding a word that starts with it}) for one embedding model.

    What makes a word telling: one that few passages hold (or none) says more
    about whether the library answers a question than one that most hold.
    """
    from ..models import Chunk

    total = Chunk.objects.filter(embedding_model_id=model_id).count()
    sql, pattern = FREQUENCY_QUERIES["postgresql" if connection.vendor == "postgresql" else "sqlite"]
    frequencies = {}
    with connection.cursor() as cursor:
        for prefix in prefixes:
            if TERM.fullmatch(prefix):
                cursor.execute(sql, [pattern.format(prefix), model_id])
                frequencies[prefix] = cursor.fetchone()[0]
    return total, frequencies
