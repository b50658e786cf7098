"""Lexical ranking by the database's own full-text engine, and the query it is given.

SQLite: the FTS5 table `solution_library_chunk_fts` ranked by bm25(); PostgreSQL:
the generated `search_vector` column (GIN index) matched by
websearch_to_tsquery() and ranked by ts_rank() per word, weighed by the word's
rarity as bm25 weighs it (postgres_ranking_sql). Both index the chunk's
document title and section heading beside its text, weighted above it, and both
are kept current by the database itself (see migration 0001_squashed).

Questionnaires wrap what they ask in phrasing that is in no document ("Please
describe how your organisation…", "Provide evidence that…"); those words are
dropped before the search, and the remaining terms are OR-ed so a passage that
has most of them — not necessarily all — ranks first.
"""

import math
import threading

from django.db import connection, transaction

from text.words import QUESTIONNAIRE_PHRASES, QUESTIONNAIRE_WORDS, STOPWORDS, WORD

from .search_index import current_version

FTS_TABLE = "solution_library_chunk_fts"
# Title and heading count twice the text: a passage under "Backups" is about backups.
SQLITE_BM25_WEIGHTS = "2.0, 2.0, 1.0"
POSTGRES_WEIGHTS = "{0.25, 0.25, 0.5, 0.5}"  # D (text), C, B (heading), A (title)
# Each word's rank (postgres_ranking_sql): the function and its length normalisation, chosen on make eval's dev
# split (product's lexical recall@5 on dev: ts_rank 0.791, ts_rank_cd 0.678; normalisation 1: 0.783, 2: 0.757).
POSTGRES_RANK = "ts_rank"
POSTGRES_NORMALIZATION = 0
# At most this many matching chunks are scored per search (see affordable_terms): bm25 and
# ts_rank_cd cost some microseconds per matching chunk, and the search's budget is 10 ms.
LEXICAL_ROW_BUDGET = 1500
# The FTS5 table holds every model's chunks: fetch more, keep the current model's.
OVERFETCH_FOR_OTHER_MODELS = 2


def plain_terms(text: str) -> list[str]:
    """The query's words minus English stopwords, in order, once each (the BM25 baseline's query)."""
    return list(dict.fromkeys(t for t in WORD.findall(text.lower()) if t not in STOPWORDS))


def questionnaire_terms(text: str) -> list[str]:
    """The subject words of a questionnaire question: plain_terms without the form's own phrasing."""
    return [t for t in plain_terms(QUESTIONNAIRE_PHRASES.sub(" ", text)) if t not in QUESTIONNAIRE_WORDS]


def lexical_ranking(
    terms: list[str],
    limit: int,
    model_id: int,
    document_ids: list[int] | None = None,
    *,
    text_only: bool = False,
    index=None,
) -> list[tuple[int, float]]:
    """(chunk_id, score) of the `limit` chunks of one embedding model that best match any of `terms`, best first.

    `text_only` ranks the passage text alone (no title or heading): the plain BM25 baseline of `make eval`.
    `index` is the model's vector index when the caller holds it: SQLite's full-text table holds
    every model's chunks, and the index tells which are this model's without another query.
    """
    if not terms or limit <= 0 or document_ids == []:
        return []
    if connection.vendor == "postgresql":
        return _postgres_ranking(terms, limit, model_id, document_ids, text_only)
    return _sqlite_ranking(terms, limit, model_id, document_ids, text_only, index)


def affordable_terms(terms: list[str], model_id: int, version: str | None = None) -> list[str]:
    """The query's rarest terms, as many as keep the chunks to score within LEXICAL_ROW_BUDGET.

    Ranking cost grows with every chunk that holds any query word, and a word
    that most chunks hold barely changes the ranking (its inverse document
    frequency is near zero). When even the rarest word is held by more chunks
    than the budget, the lexical ranking is left out and the vector ranking decides.
    """
    # A question's new words are counted in one query on PostgreSQL (the per-document counts the database keeps,
    # ChunkWordCount); walking each word's index entry cost 2 ms a word at 100,000 chunks even when it stopped at
    # the budget, as it still does on SQLite: a word held by more chunks is left out however many more hold it.
    _, frequencies = chunk_frequencies(terms, model_id, version, whole_words=True, at_most=LEXICAL_ROW_BUDGET + 1)
    kept, rows = set(), 0
    for term in sorted(terms, key=lambda t: frequencies.get(t, 0)):
        rows += frequencies.get(term, 0)
        if rows > LEXICAL_ROW_BUDGET:
            break
        kept.add(term)
    return [t for t in terms if t in kept]


def _sqlite_ranking(terms, limit, model_id, document_ids, text_only, index=None) -> list[tuple[int, float]]:
    match = " OR ".join(f'"{t}"' for t in terms)
    if text_only:
        match = f"text : ({match})"
    if document_ids is None:
        # The FTS table alone, then the model filter on the few best: joining every
        # matching row to the chunk table would read each row's embedding pages too.
        sql = (
            f"SELECT rowid, bm25({FTS_TABLE}, {SQLITE_BM25_WEIGHTS}) AS rank FROM {FTS_TABLE} "
            f"WHERE {FTS_TABLE} MATCH %s ORDER BY rank, rowid LIMIT %s"
        )
        params = [match, limit * OVERFETCH_FOR_OTHER_MODELS]
    else:
        sql = (
            f"SELECT c.id, bm25({FTS_TABLE}, {SQLITE_BM25_WEIGHTS}) AS rank FROM {FTS_TABLE} "
            f"JOIN solution_library_chunk c ON c.id = {FTS_TABLE}.rowid WHERE {FTS_TABLE} MATCH %s "
            f"AND c.embedding_model_id = %s AND c.document_id IN ({', '.join('%s' for _ in document_ids)}) "
            "ORDER BY rank, c.id LIMIT %s"
        )
        params = [match, model_id, *document_ids, limit]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        # bm25() is lower-is-better (negative); flip it so every ranking here is higher-is-better.
        ranked = [(chunk_id, -rank) for chunk_id, rank in cursor.fetchall()]
    if document_ids is not None:
        return ranked  # the join above already kept the model's chunks
    return _of_model(ranked, model_id, index)[:limit]


def _of_model(ranked: list[tuple[int, float]], model_id: int, index=None) -> list[tuple[int, float]]:
    if not ranked:
        return []
    if index is not None:
        ids = index.holds([chunk_id for chunk_id, _ in ranked])
        return [(chunk_id, score) for chunk_id, score in ranked if chunk_id in ids]
    with connection.cursor() as cursor:  # plain SQL: this runs on every search, the ORM's overhead would double it
        cursor.execute(
            f"SELECT id FROM solution_library_chunk WHERE embedding_model_id = %s "
            f"AND id IN ({', '.join('%s' for _ in ranked)})",
            [model_id, *(chunk_id for chunk_id, _ in ranked)],
        )
        ids = {row[0] for row in cursor.fetchall()}
    return [(chunk_id, score) for chunk_id, score in ranked if chunk_id in ids]


def _postgres_ranking(terms, limit, model_id, document_ids, text_only) -> list[tuple[int, float]]:
    # The counts affordable_terms has just read (the same cache entry): above the budget a word is dropped anyway.
    total, held = chunk_frequencies(terms, model_id, whole_words=True, at_most=LEXICAL_ROW_BUDGET + 1)
    rarity = {term: inverse_document_frequency(total, held.get(term, 0)) for term in terms}
    with connection.cursor() as cursor:
        cursor.execute(*postgres_ranking_sql(terms, limit, model_id, document_ids, text_only, rarity))
        return [(chunk_id, float(rank)) for chunk_id, rank in cursor.fetchall()]


def inverse_document_frequency(chunks: int, holding: int) -> float:
    """BM25's inverse document frequency (never negative): a word few chunks hold counts more."""
    return math.log(1 + (chunks - holding + 0.5) / (holding + 0.5))


def postgres_ranking_sql(
    terms, limit, model_id, document_ids=None, text_only=False, rarity: dict[str, float] | None = None
) -> tuple[str, list]:
    """The PostgreSQL ranking query and its parameters (a test EXPLAINs it: the GIN index, not a table scan).

    ts_rank and ts_rank_cd know no inverse document frequency: on an OR of a question's words, a chunk holding
    the common ones ("data", "access") outranked one holding the one rare word that names the subject, and
    PostgreSQL's recall@5 was far below SQLite's bm25 (dev, lexical only: 0.635 against 0.774). So each word is
    ranked on its own (POSTGRES_RANK) and weighed by its rarity in the library (`rarity`: word → BM25's idf,
    1 each when not given), as bm25 weighs it; the OR of all words still selects the chunks, through the GIN index.
    """
    # The text's vector is made once per chunk (a function in FROM), not once per word ranked.
    source = "to_tsvector('english', text) AS text_vector, " if text_only else ""
    vector = "text_vector" if text_only else "search_vector"
    rarity = rarity or {}
    per_word = " + ".join(
        f"%s * {POSTGRES_RANK}('{POSTGRES_WEIGHTS}', {vector}, plainto_tsquery('english', %s), "
        f"{POSTGRES_NORMALIZATION})"
        for _ in terms
    )
    params = [value for term in terms for value in (rarity.get(term, 1.0), term)]
    where, params = "", [*params, " or ".join(terms), model_id]
    if document_ids is not None:
        where, params = " AND document_id = ANY(%s)", [*params, list(document_ids)]
    sql = (
        f"SELECT id, {per_word} AS rank "
        f"FROM solution_library_chunk, {source}websearch_to_tsquery('english', %s) AS query "
        f"WHERE {vector} @@ query AND embedding_model_id = %s{where} ORDER BY rank DESC, id LIMIT %s"
    )
    return sql, [*params, limit]


# --- how many chunks hold a word ------------------------------------------------------------
_frequency_cache: dict[tuple[int, bool, int | None], tuple[str, int, dict[str, int]]] = {}
_cache_lock = threading.Lock()


def chunk_frequencies(
    words: list[str],
    model_id: int,
    version: str | None = None,
    *,
    whole_words: bool = False,
    at_most: int | None = None,
) -> tuple[int, dict[str, int]]:
    """(number of chunks, {word: chunks that the full-text engine matches for it}).

    A word is matched as the engine matches a query word (stemmed) with
    `whole_words`, else as a prefix ("encryp" holds "encrypt", "encryption").
    With `at_most`, a word held by more chunks counts as `at_most` (where counting walks the index, it stops there).
    What makes a word telling: one that few passages hold (or none) says more
    about whether the library answers a question than one that most hold.
    Counts cover the chunks of every embedding model (during a re-embed each
    passage is there twice; the shares stay the same). They are kept per process
    until the model's chunks change (its SearchIndexVersion token), except inside
    a transaction, whose rows may still be rolled back. A caller that has just
    read the token (the vector index) passes it as `version`.
    """
    words = [w for w in words if WORD.fullmatch(w)]
    if transaction.get_connection().in_atomic_block:
        return _count_chunks(), _count_matching(words, whole_words, at_most)
    version = current_version(model_id) if version is None else version
    with _cache_lock:
        cached = _frequency_cache.get((model_id, whole_words, at_most))
        if cached is None or cached[0] != version:
            cached = _frequency_cache[(model_id, whole_words, at_most)] = (version, _count_chunks(), {})
        _, total, counts = cached
        counts.update(_count_matching([w for w in dict.fromkeys(words) if w not in counts], whole_words, at_most))
        return total, {w: counts[w] for w in words}


def _count_chunks() -> int:
    from ..models import Chunk

    return Chunk.objects.count()


def _count_matching(words: list[str], whole_words: bool, at_most: int | None = None) -> dict[str, int]:
    """{word: chunks the engine matches for it (up to `at_most`)}."""
    if not words:
        return {}
    if whole_words and connection.vendor == "postgresql":
        counts = _summed_word_counts(words)
    else:
        counts = {word: _walk_index_entry(word, whole_words, at_most) for word in words}
    return {word: count if at_most is None else min(count, at_most) for word, count in counts.items()}


def _summed_word_counts(words: list[str]) -> dict[str, int]:
    """PostgreSQL: every word's count in one query, from the per-document counts the database keeps (ChunkWordCount).

    A word is the lexeme the query parser makes of it ("backups" → backup; a stopword → none, held by no
    chunk). A word that parses to several lexemes is matched by chunks holding all of them, counted here as
    the rarest one's count: an upper bound (chunks holding that lexeme without the others count too), never
    too few.
    """
    with connection.cursor() as cursor:
        cursor.execute(
            # One index lookup per lexeme (the correlated subquery): a join let the planner scan the whole table.
            "SELECT word, coalesce(("
            "  SELECT min(("
            "    SELECT coalesce(sum(counts.chunks), 0) FROM solution_library_chunkwordcount counts"
            "    WHERE counts.lexeme = parsed.lexeme"
            "  )) FROM unnest(tsvector_to_array(to_tsvector('english', word))) AS parsed(lexeme)"
            "), 0) FROM unnest(%s::text[]) AS word",
            [list(words)],
        )
        return {word: int(held) for word, held in cursor.fetchall()}


def _walk_index_entry(word: str, whole_word: bool, at_most: int | None = None) -> int:
    """Chunks the engine matches for one word (up to `at_most`): a walk of its index entry, no ranking."""
    if connection.vendor == "postgresql":
        # A prefix is stemmed as the index's words were, as SQLite's porter tokenizer stems it: the cut stem
        # "expire" meets "expired" (lexeme "expir"). Unstemmed, it met nothing, and a common word of a question
        # read as one no passage holds: its rarity cost the evidence gate, on PostgreSQL alone.
        query = "plainto_tsquery('english', %s)" if whole_word else "to_tsquery('english', %s)"
        matching = f"SELECT 1 FROM solution_library_chunk WHERE search_vector @@ {query}"
        params = [word if whole_word else f"{word}:*"]
    else:
        matching = f"SELECT 1 FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH %s"
        params = [f'"{word}"' if whole_word else f'"{word}"*']
    if at_most is not None:
        matching, params = f"{matching} LIMIT %s", [*params, at_most]
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*) FROM ({matching}) AS matching", params)
        return int(cursor.fetchone()[0])
