"""Hybrid retrieval: the database's full-text ranking, kept in step with chunks, fused with vectors."""

import os
import re
import subprocess
import sys

import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from llm_manager.exceptions import NoDefaultModel
from llm_manager.models import LLMApi, LLMModel
from llm_manager.testing.fixtures import register_fake_api
from solution_library.models import Chunk
from solution_library.services import lexical as lexical_service
from solution_library.services.lexical import chunk_frequencies, lexical_ranking, plain_terms, questionnaire_terms
from solution_library.services.search import (
    default_model_and_version,
    fuse,
    load_passages,
    plausible_lexical,
    ranks_by_meaning,
    search_passages,
)
from solution_library.services.search_index import current_version
from solution_library.testing import add_library_document
from tests.workers import ROOT
from text.words import stem


@pytest.fixture
def library(offline_embedding):
    return {
        "backup": add_library_document(
            "Operations runbook",
            "# Backups\n\nSnapshots are copied nightly to a second region and kept for 35 days.\n\n"
            "# Incidents\n\nThe on-call engineer answers a page within fifteen minutes.",
        ),
        "codes": add_library_document(
            "Error reference", "Error ERR-4711 means the licence key has expired; renew it in the portal."
        ),
        "pricing": add_library_document("Pricing sheet", "The enterprise plan is billed per seat each month."),
    }


def lexical(terms, **kwargs):
    model_id = Chunk.objects.values_list("embedding_model_id", flat=True).first()
    return [chunk_id for chunk_id, _ in lexical_ranking(terms, 10, model_id, **kwargs)]


def test_fusion_rewards_what_both_rankings_like():
    lexical_list = [(1, 9.0), (2, 5.0), (3, 1.0)]
    vector_list = [(3, 0.9), (2, 0.8), (4, 0.7)]
    fused = dict(fuse([(lexical_list, 1.0), (vector_list, 1.0)], k=60))
    assert fused == pytest.approx({3: 1 / 63 + 1 / 61, 2: 2 / 62, 1: 1 / 61, 4: 1 / 63})
    assert list(fused) == [3, 2, 1, 4]  # on both lists first, best-placed overall first
    assert fuse([(lexical_list, 1.0), (vector_list, 0.0)])[0][0] == 1  # a zero weight leaves one ranking


def test_lexical_votes_go_to_what_the_meaning_ranking_finds_plausible_and_to_its_own_best():
    lexical_list = [(1, 9.0), (2, 5.0), (3, 1.0), (4, 0.5)]
    vector_list = [(3, 0.9), (5, 0.8), (4, 0.7), (2, 0.1)]
    # 2 shares words but the model places it fourth: no vote; 1, the exact match, keeps its vote.
    assert plausible_lexical(lexical_list, vector_list, plausible=3) == [(1, 9.0), (3, 1.0), (4, 0.5)]
    fused = [
        chunk_id for chunk_id, _ in fuse([(plausible_lexical(lexical_list, vector_list, 3), 1.0), (vector_list, 1.0)])
    ]
    assert fused.index(2) > fused.index(5)  # a shared word no longer lifts 2 above the model's second


def test_only_an_embedding_that_ranks_by_meaning_restricts_the_lexical_votes():
    from llm_manager.models import LLMApi, LLMModel

    assert not ranks_by_meaning(LLMModel(name="offline-embed-v1", api=LLMApi(kind=LLMApi.KIND_OFFLINE)))
    assert ranks_by_meaning(LLMModel(name="all-MiniLM-L6-v2", api=LLMApi(kind=LLMApi.KIND_LOCAL)))
    assert ranks_by_meaning(LLMModel(name="text-embedding-3-small", api=LLMApi(kind=LLMApi.KIND_OPENAI)))


def test_questionnaire_phrasing_is_dropped_before_lexical_search():
    assert questionnaire_terms("Please describe how your organization encrypts backups, if so provide evidence.") == [
        "encrypts",
        "backups",
    ]
    assert plain_terms("Do you encrypt backups?") == ["encrypt", "backups"]


def test_chunks_carry_their_document_title_and_section_heading(library):
    chunks = list(Chunk.objects.filter(document=library["backup"]).values_list("title", "heading"))
    assert chunks == [("Operations runbook", "Backups")]


def test_a_renamed_document_is_found_by_its_new_title(library):
    library["pricing"].title = "Licensing terms"
    library["pricing"].save()
    assert lexical(["licensing"]) == [Chunk.objects.get(document=library["pricing"]).pk]


def test_full_text_index_follows_inserts_updates_and_deletes(library):
    """The database keeps the lexical index in step with chunk rows (a tsvector column or FTS5 triggers)."""
    codes = Chunk.objects.get(document=library["codes"])
    assert lexical(["licence", "expired"]) == [codes.pk]
    Chunk.objects.filter(pk=codes.pk).update(text="The disk quota is exhausted.", heading="Storage")
    assert lexical(["licence"]) == []
    assert lexical(["quota"]) == [codes.pk]
    assert lexical(["storage"]) == [codes.pk]
    library["codes"].delete()
    assert lexical(["quota"]) == []


def test_title_and_heading_rank_above_a_passing_mention(library):
    """A question about pricing finds the pricing sheet by its title, not a chance word in another text."""
    add_library_document("Sales notes", "Seat counts are reviewed when a customer renews.")
    ranked = lexical(["pricing", "seat"])
    assert ranked[0] == Chunk.objects.get(document=library["pricing"]).pk
    assert lexical(["pricing"], text_only=True) == []  # the baseline sees the text alone


def test_exact_codes_win_through_the_lexical_ranking(library):
    top = search_passages("Do you document what error ERR-4711 means? Please describe.", limit=3)[0]
    assert top.document_id == library["codes"].pk


def test_client_phrasing_still_finds_the_passage(library):
    top = search_passages("Please provide evidence that backups are retained for a period of time.", limit=3)[0]
    assert top.document_id == library["backup"].pk and top.heading == "Backups"


def test_search_is_limited_to_some_documents(library):
    passages = search_passages("backups region", limit=5, document_ids=[library["pricing"].pk])
    assert {p.document_id for p in passages} <= {library["pricing"].pk}


def test_only_words_rare_enough_for_the_row_budget_are_scored(library, monkeypatch):
    """On a large library the most common words are left out of the lexical query: they cost most, weigh least."""
    add_library_document("Backup addendum", "Backups of the pricing database are kept too.")
    model_id = library["codes"].embedding_model_id
    monkeypatch.setattr(lexical_service, "LEXICAL_ROW_BUDGET", 2)
    assert lexical_service.affordable_terms(["backups", "licence", "kept"], model_id) == [
        "licence"
    ]  # 2, 1 and 2 chunks
    monkeypatch.setattr(lexical_service, "LEXICAL_ROW_BUDGET", 0)
    assert lexical_service.affordable_terms(["backups", "licence"], model_id) == []  # the vector ranking decides alone


def test_counting_a_word_stops_where_the_budget_needs_no_more(library):
    """A word held by more chunks than the budget allows is left out however many more hold it: not counted on."""
    add_library_document("Backup addendum", "Backups of the pricing database are kept too.")
    model_id = library["codes"].embedding_model_id
    assert chunk_frequencies(["backups"], model_id, whole_words=True)[1] == {"backups": 2}
    assert chunk_frequencies(["backups"], model_id, whole_words=True, at_most=1)[1] == {"backups": 1}


def test_rare_words_are_counted_by_the_database(library):
    model_id = library["codes"].embedding_model_id
    total, frequencies = chunk_frequencies(["backup", "insura", "seat"], model_id)
    assert total == 3
    assert frequencies == {"backup": 1, "insura": 0, "seat": 1}


def test_a_cut_stem_is_counted_in_every_form_of_its_word_on_either_engine(library):
    """A question's "expire" (cut as text.words cuts it) meets the passage's "expired": both engines stem the
    prefix as they stemmed the text. Unmatched, a common word reads as one no passage holds."""
    model_id = library["codes"].embedding_model_id
    words = [stem("expire"), stem("renewing"), stem("seats")]
    assert chunk_frequencies(words, model_id)[1] == {"expire": 1, "renew": 1, "seats": 1}


@pytest.fixture
def reranker(fake_llm, library):
    """A chat model on the fake server as the configured re-ranker (the library keeps the offline embeddings)."""
    fake_llm.configure(models=[{"id": "rerank-chat", "type": "chat"}])
    register_fake_api(fake_llm, default=False, name="Re-ranker")
    with override_settings(SEARCH_RERANK_MODEL="rerank-chat"):
        yield fake_llm


def test_configured_reranker_orders_the_fused_head(reranker, library):
    passages = search_passages("How long are backups kept in the second region?", limit=3)
    calls = reranker.requests_to("/v1/chat/completions")
    assert [call["model"] for call in calls] == ["rerank-chat"]
    assert passages[0].document_id == library["backup"].pk


def test_a_failing_reranker_leaves_the_fused_order(reranker, library):
    expected = [p.chunk_id for p in search_passages("nightly snapshots second region", limit=3)]
    reranker.configure(fault="401")
    assert [p.chunk_id for p in search_passages("nightly snapshots second region", limit=3)] == expected


SQLITE_SCRIPT = """
from django.db import connection
from solution_library.models import Chunk
from solution_library.services.lexical import lexical_ranking
from solution_library.testing import add_library_document

def found(term):
    model_id = Chunk.objects.values_list("embedding_model_id", flat=True).first()
    return [c for c, _ in lexical_ranking([term], 5, model_id)]

document = add_library_document("Error reference", "Error ERR-4711 means the licence key has expired.")
chunk = Chunk.objects.get(document=document)
steps = [found("4711") == [chunk.pk]]
Chunk.objects.filter(pk=chunk.pk).update(text="Error ERR-5000 means the disk is full.")
steps += [found("4711") == [], found("5000") == [chunk.pk]]
Chunk.objects.filter(pk=chunk.pk).update(heading="Storage")
steps += [found("storage") == [chunk.pk]]
document.delete()
steps += [found("5000") == []]
with connection.cursor() as cursor:
    cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'solution_library_chunk_fts_%'")
    triggers = sorted(row[0] for row in cursor.fetchall())
print("RESULT", connection.vendor, steps, triggers)
"""


def test_sqlite_fts5_index_follows_chunk_changes(tmp_path):
    """The embedded default: migrations create the FTS5 table and its triggers, which keep it current."""
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update(
        SPELUNKER_VAR_DIR=str(tmp_path), SPELUNKER_MEDIA_ROOT=str(tmp_path / "media"), AUTO_EMBED_DOCUMENTS="false"
    )

    def manage(*args):
        return subprocess.run(
            [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=180
        )

    migrated = manage("migrate", "--noinput")
    assert migrated.returncode == 0, migrated.stderr
    result = manage("shell", "-c", SQLITE_SCRIPT)
    assert result.returncode == 0, result.stderr
    line = next(line for line in result.stdout.splitlines() if line.startswith("RESULT"))
    assert line == (
        "RESULT sqlite [True, True, True, True, True] "
        "['solution_library_chunk_fts_delete', 'solution_library_chunk_fts_insert', 'solution_library_chunk_fts_update']"
    )


def test_postgresql_index_is_a_generated_column_with_a_gin_index(db):
    assert connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT is_generated FROM information_schema.columns "
            "WHERE table_name = 'solution_library_chunk' AND column_name = 'search_vector'"
        )
        assert cursor.fetchone() == ("ALWAYS",)
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'chunk_search_vector_idx'")
        assert "gin (search_vector)" in cursor.fetchone()[0]


def test_a_search_reads_only_the_passages_it_returns_and_skips_one_deleted_meanwhile(library):
    """A passage's text is stored out of line: reading the whole fused head for two answers cost a lookup each."""
    ids = list(Chunk.objects.order_by("id").values_list("id", flat=True))
    Chunk.objects.filter(pk=ids[0]).delete()  # deleted between the ranking and the read
    ranked = [(chunk_id, 1.0 / n) for n, chunk_id in enumerate(ids, start=1)]
    with CaptureQueriesContext(connection) as queries:
        passages = load_passages(ranked, 2)
    assert [p.chunk_id for p in passages] == ids[1:3]  # the next one read in the deleted one's place
    read = [re.search(r"IN \(([^)]*)\)", q["sql"]).group(1).split(",") for q in queries.captured_queries]
    # Two asked for, then one more in place of the deleted one: not every ranked one.
    assert [len(ids) for ids in read] == [2, 1]


def test_each_search_reads_the_default_model_as_it_is_now_in_one_query(library):
    """Its rows are read on every search (one plain query); a change made in any way is seen by the next search."""
    model, version = default_model_and_version()
    assert version == current_version(model.pk)
    with CaptureQueriesContext(connection) as queries:
        again, _ = default_model_and_version()
    assert len(queries.captured_queries) == 1 and again.pk == model.pk
    again.api.timeout_seconds = 99  # a caller's change to its instance stays its own
    LLMApi.objects.filter(pk=model.api_id).update(max_concurrent_requests=3)  # a change that bypasses save()
    now, _ = default_model_and_version()
    assert (now.api.max_concurrent_requests, now.api.timeout_seconds) == (3, model.api.timeout_seconds)
    LLMModel.objects.filter(pk=model.pk).update(is_active=False)
    with pytest.raises(NoDefaultModel):
        default_model_and_version()
