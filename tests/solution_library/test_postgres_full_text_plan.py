"""PostgreSQL's full-text step reads the chunks that match, through the GIN index, never the whole table.

The stored `search_vector` column and its GIN index (migration 0001_squashed) are only worth having if the
planner uses them: a table scan reads every chunk's tsvector from out-of-line storage, which is
what made search slow on PostgreSQL (docs/benchmarks.md). EXPLAIN of the very query the search
runs (lexical.postgres_ranking_sql), with the terms the search would keep (affordable_terms).

Chunks are of a real chunk's size (~1,000 characters of varied words, a 384-dimension embedding):
the tsvector of such a row must stay in it (migration 0001_squashed); moved out of line, ranking reads the
TOAST index and table for every matching chunk, and the pages the query reads show it.
"""

import json
import os
import random

import pytest
from django.db import connection

from solution_library.models import Chunk, Document, DocumentType, ReviewStatus
from solution_library.services.lexical import affordable_terms, postgres_ranking_sql
from solution_library.services.search import CANDIDATES

CHUNKS = 6000
RARE = 25
VOCABULARY = [f"{stem}{n}" for stem in ("audit", "backup", "policy", "vendor", "access", "review") for n in range(60)]


def chunk_text(i: int) -> str:
    """~1,000 characters of words from VOCABULARY (a tsvector of ~1 KB, as a real passage's)."""
    rng = random.Random(i)
    words = " ".join(rng.choice(VOCABULARY) for _ in range(115))
    rare = " The zeppelin hangar runbook applies." if i % (CHUNKS // RARE) == 0 else ""
    return f"Our security policy covers {words}.{rare}"


@pytest.fixture
def large_library(db, offline_embedding):
    document = Document.objects.create(
        title="Plan",
        content_hash="plan",
        file_type=DocumentType.TEXT,
        review_status=ReviewStatus.PENDING_REVIEW,
        embedding_model=offline_embedding,
    )
    Chunk.objects.bulk_create(
        [
            Chunk(
                document=document,
                position=i,
                title="Plan",
                start_char=0,
                end_char=0,
                embedding=os.urandom(384 * 4),
                embedding_model=offline_embedding,
                text=chunk_text(i),
            )
            for i in range(CHUNKS)
        ],
        batch_size=1000,
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE solution_library_chunk")
    return offline_embedding


def plan_nodes(plan: dict):
    yield plan
    for child in plan.get("Plans", []):
        yield from plan_nodes(child)


def test_the_ranking_query_reads_matching_chunks_through_the_gin_index(large_library):
    assert connection.vendor == "postgresql", "make test runs on the stack's PostgreSQL"
    terms = affordable_terms(["security", "policy", "zeppelin", "hangar"], large_library.pk)
    assert terms == ["zeppelin", "hangar"]  # common words would make every chunk a candidate

    sql, params = postgres_ranking_sql(terms, CANDIDATES, large_library.pk)
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) {sql}", params)
        explained = cursor.fetchone()[0]
    plan = (json.loads(explained) if isinstance(explained, str) else explained)[0]["Plan"]
    nodes = list(plan_nodes(plan))
    on_chunks = [n for n in nodes if n.get("Relation Name") == "solution_library_chunk"]
    assert [n["Node Type"] for n in on_chunks] == ["Bitmap Heap Scan"], [n["Node Type"] for n in nodes]
    index_scans = [n for n in nodes if n["Node Type"] == "Bitmap Index Scan"]
    assert [n["Index Name"] for n in index_scans] == ["chunk_search_vector_idx"]
    assert on_chunks[0]["Actual Rows"] == RARE  # the matching chunks, not the table's 6,000
    # Pages read besides the index's: one per matching chunk (each lies on its own page), none of TOAST's.
    pages = blocks(plan) - sum(blocks(n) for n in index_scans)
    assert on_chunks[0]["Exact Heap Blocks"] == RARE
    assert pages <= RARE + 5, f"{pages} pages read to rank {RARE} chunks: their tsvectors are out of line"


def blocks(node: dict) -> int:
    return node["Shared Hit Blocks"] + node["Shared Read Blocks"]
