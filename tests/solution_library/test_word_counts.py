"""The word counts search needs (how many chunks hold each word) are kept by PostgreSQL itself.

Each count is checked against the full-text engine's own answer for the same word — the number of
chunks whose search_vector matches it — after every kind of change a chunk goes through: a document
processed, its chunks written again (a task that runs twice), a chunk's text edited, a chunk deleted and a
document deleted. The counts come from ChunkWordCount, filled by triggers (migration 0001_squashed).
"""

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from solution_library.models import Chunk, ChunkWordCount, Document
from solution_library.services.chunking import chunk_text
from solution_library.services.documents import replace_chunks
from solution_library.services.lexical import chunk_frequencies
from solution_library.testing import add_library_document

WORDS = ["backups", "snapshots", "region", "licence", "expired", "seat", "billed", "nightly", "dirigible", "the"]


@pytest.fixture
def library(offline_embedding):
    return [
        add_library_document(
            "Operations runbook",
            "# Backups\n\nSnapshots are copied nightly to a second region and kept for 35 days.\n\n"
            "# Restores\n\nBackups are restored to a scratch region every quarter.",
        ),
        add_library_document("Error reference", "Error ERR-4711 means the licence key has expired."),
        add_library_document("Pricing sheet", "The enterprise plan is billed per seat; backups are included."),
    ]


def engine_counts(words: list[str]) -> dict[str, int]:
    """How many chunks the full-text engine itself matches for each word (the figure the counts must equal)."""
    counts = {}
    with connection.cursor() as cursor:
        for word in words:
            cursor.execute(
                "SELECT count(*) FROM solution_library_chunk WHERE search_vector @@ plainto_tsquery('english', %s)",
                [word],
            )
            counts[word] = cursor.fetchone()[0]
    return counts


def rewrite_chunks(document: Document) -> None:
    document.refresh_from_db()
    pieces = chunk_text(document.text)
    model = Chunk.objects.filter(document=document).first().embedding_model
    replace_chunks(document, document.text, pieces, np.zeros((len(pieces), 384), dtype=np.float32), model)


def kept_counts(words: list[str]) -> dict[str, int]:
    model_id = Chunk.objects.values_list("embedding_model_id", flat=True).first()
    return chunk_frequencies(words, model_id, whole_words=True)[1]


def test_the_counts_follow_every_change_to_the_chunks(library):
    runbook, errors, pricing = library
    expected = engine_counts(WORDS)
    assert expected["backups"] == 2 and expected["dirigible"] == 0  # the set-up holds what the test needs
    assert kept_counts(WORDS) == expected

    for _ in range(2):  # the runbook's chunks written again, twice, as a task delivered twice writes them
        rewrite_chunks(runbook)
    assert kept_counts(WORDS) == engine_counts(WORDS) == expected

    Chunk.objects.filter(document=errors).update(text="The dirigible licence was renewed.")
    chunk = Chunk.objects.filter(document=runbook).order_by("position").last()
    chunk.delete()
    Document.objects.get(pk=pricing.pk).delete()
    after = engine_counts(WORDS)
    assert after != expected and after["dirigible"] == 1  # the changes moved the counts
    assert kept_counts(WORDS) == after
    assert not ChunkWordCount.objects.filter(document_id=pricing.pk).exists()  # nothing left of a deleted document
    assert not ChunkWordCount.objects.filter(chunks=0).exists()


def test_a_questions_new_words_are_counted_in_one_query(library):
    model_id = Chunk.objects.values_list("embedding_model_id", flat=True).first()
    with CaptureQueriesContext(connection) as queries:
        _, counts = chunk_frequencies(["backups", "region", "licence", "seat", "dirigible"], model_id, whole_words=True)
    assert counts == {"backups": 2, "region": 1, "licence": 1, "seat": 1, "dirigible": 0}
    counting = [q["sql"] for q in queries.captured_queries if "solution_library_chunk" in q["sql"]]
    assert len(counting) == 2, counting  # how many chunks there are, and every word's count at once
