"""Changing the default embedding model: the library is re-embedded beside the serving index, then switched."""

import pytest

from llm_manager.models import LLMModel
from llm_manager.services import get_default_model
from llm_manager.testing.fixtures import register_fake_api
from solution_library.models import Chunk, Document, EmbedBatchJob
from solution_library.services.documents import library_document_ids, process_document, run_embed_batch
from solution_library.services.search import search_passages
from solution_library.testing import add_library_document


@pytest.fixture
def library(offline_embedding):
    return [
        add_library_document("Backup policy", "Backups are copied nightly to a second region and kept for 35 days."),
        add_library_document("Access policy", "Administrators sign in with single sign-on and hardware keys."),
    ]


@pytest.fixture
def new_model(fake_llm, library):
    """An embedding model on the (fake) OpenAI-compatible server, not yet the default."""
    register_fake_api(fake_llm, default=False)
    return LLMModel.objects.get(name="fake-embed")


def start_job(model) -> EmbedBatchJob:
    ids = library_document_ids()
    return EmbedBatchJob.objects.create(document_ids=ids, total_items=len(ids), target_model=model)


def chunk_models() -> set[str]:
    return set(Chunk.objects.values_list("embedding_model__name", flat=True))


def test_the_old_index_serves_until_every_document_has_new_chunks(library, new_model, offline_embedding):
    process_document(library[0].pk, new_model.pk, alongside=True)  # the job is half way

    assert get_default_model("embedding") == offline_embedding
    assert chunk_models() == {"offline-embed-v1", "fake-embed"}
    assert search_passages("How long are backups kept?")[0].document_id == library[0].pk
    library[0].refresh_from_db()
    assert library[0].is_ready and library[0].embedding_model == offline_embedding


def test_a_finished_job_switches_the_default_and_drops_the_old_chunks(library, new_model):
    job = start_job(new_model)
    result = run_embed_batch(job)

    assert result == {"succeeded": 2, "failed": 0, "switched": True, "missing_documents": []}
    assert get_default_model("embedding") == new_model
    assert chunk_models() == {"fake-embed"}  # the model's identity is on every chunk
    assert set(Document.objects.values_list("embedding_model__name", flat=True)) == {"fake-embed"}
    job.refresh_from_db()
    assert (job.processed_items, job.successful_items, job.get_progress_percentage()) == (2, 2, 100)
    assert search_passages("Who signs in with hardware keys?")[0].document_id == library[1].pk


def test_documents_added_during_the_job_are_caught_up_before_the_switch(library, new_model):
    job = start_job(new_model)
    late = add_library_document("Late policy", "Incidents are reported to customers within 24 hours.")  # old model

    result = run_embed_batch(job)

    assert result["switched"] is True
    assert Chunk.objects.get(document=late).embedding_model == new_model


def test_a_document_that_fails_keeps_the_old_index_serving(library, new_model, fake_llm, offline_embedding):
    fake_llm.configure(fault="401")  # the new model's server refuses every request
    result = run_embed_batch(start_job(new_model))

    assert result["switched"] is False and result["failed"] == 2
    assert get_default_model("embedding") == offline_embedding
    assert chunk_models() == {"offline-embed-v1"}
    assert all(d.is_ready for d in Document.objects.all())  # a failed re-embed does not hide a document


def test_making_a_new_embedding_model_default_in_the_admin_starts_the_reembed(
    staff_client, library, new_model, offline_embedding
):
    response = staff_client.post(
        "/admin/llm_manager/llmmodel/", {"action": "make_default", "_selected_action": [new_model.pk]}, follow=True
    )
    assert response.status_code == 200
    job = EmbedBatchJob.objects.get(target_model=new_model)
    assert sorted(job.document_ids) == sorted(d.pk for d in library)
    assert get_default_model("embedding") == offline_embedding  # until the job completes
    assert b"Re-embedding the library" in response.content
