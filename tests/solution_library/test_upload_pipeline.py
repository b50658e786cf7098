"""Upload → real worker → chunks, end to end on the real broker and database."""

import pytest
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings

from solution_library.models import Chunk, Document, ReviewStatus
from solution_library.services.chunking import chunk_text
from solution_library.services.parsing import extract_text
from solution_library.tasks import embed_document
from tests.workers import wait_for

from . import files

pytestmark = pytest.mark.integration

GOOD_FILES = {
    "handbook.pdf": (files.pdf_bytes(files.long_paragraphs("pdf", 20)), "pdf"),
    "contract.docx": (files.docx_bytes(files.long_paragraphs("docx", 40)), "docx"),
    "guide.html": (files.html_bytes("Guide", files.long_paragraphs("html", 40)), "html"),
    "notes.md": (files.markdown_bytes("Notes", files.long_paragraphs("markdown", 40)), "markdown"),
    "readme.txt": ("\n\n".join(files.long_paragraphs("text", 40)).encode(), "text"),
}
BAD_FILES = {
    "empty.txt": (b"", "empty"),
    "picture.png": (files.png_bytes(), "holds no document the library can read"),
    "locked.pdf": (files.encrypted_pdf_bytes(["secret"]), "encrypted"),
    "broken.pdf": (b"%PDF-1.4\n" + b"garbage " * 50, "cannot be read"),
    "huge.txt": (b"a" * 2_000_000, "larger than 1 MB, the library's limit"),
}


def post_files(client, named: dict):
    uploads = [SimpleUploadedFile(name, data) for name, (data, _) in named.items()]
    return client.post("/library/upload/", {"files": uploads}, HTTP_ACCEPT="application/json")


def wait_until_processed(document_ids, timeout=90):
    def done():
        docs = list(Document.objects.filter(pk__in=document_ids))
        return docs if all(not d.is_processing for d in docs) else None

    return wait_for(done, timeout, message="documents to finish processing")


def chunk_rows(document_id):
    return list(
        Chunk.objects.filter(document_id=document_id)
        .order_by("position")
        .values_list("id", "position", "text", "start_char", "end_char", "embedding", "embedding_model_id")
    )


@override_settings(SOLUTION_LIBRARY_MAX_UPLOAD_MB=1)
def test_mixed_upload_good_files_reach_pending_review_bad_files_get_their_message(
    live_worker, offline_embedding, user_client
):
    response = post_files(user_client, {**GOOD_FILES, **BAD_FILES})
    assert response.status_code == 400  # not everything went through
    results = {r["filename"]: r for r in response.json()["results"]}

    for name, (_, message) in BAD_FILES.items():
        assert results[name]["ok"] is False
        assert message in results[name]["error"], (name, results[name]["error"])
    assert Document.objects.count() == len(GOOD_FILES)

    ids = {name: results[name]["document"]["id"] for name in GOOD_FILES}
    documents = {d.pk: d for d in wait_until_processed(ids.values())}
    for name, (data, file_type) in GOOD_FILES.items():
        document = documents[ids[name]]
        assert document.review_status == ReviewStatus.PENDING_REVIEW, (name, document.status_message)
        assert document.file_type == file_type
        expected = chunk_text(extract_text(data, file_type))
        rows = chunk_rows(document.pk)
        assert [r[2] for r in rows] == [c.text for c in expected], name
        assert document.chunk_count == len(expected) >= 1
        assert all(len(bytes(r[5])) == 384 * 4 and r[6] == offline_embedding.pk for r in rows)
    assert Document.objects.get(pk=ids["contract.docx"]).chunk_count > 1


def test_same_file_twice_is_stored_once(live_worker, offline_embedding, user_client):
    data = GOOD_FILES["readme.txt"][0]
    first = post_files(user_client, {"readme.txt": (data, "text")}).json()["results"][0]
    again = post_files(user_client, {"copy-of-readme.txt": (data, "text")}).json()["results"][0]
    assert again["duplicate"] is True
    assert again["document"]["id"] == first["document"]["id"]
    assert Document.objects.count() == 1
    wait_until_processed([first["document"]["id"]])  # no embedding left running into the next test's flush


def test_embedding_twice_gives_identical_chunk_rows(live_worker, offline_embedding, user_client):
    data = GOOD_FILES["notes.md"][0]
    document_id = post_files(user_client, {"notes.md": (data, "markdown")}).json()["results"][0]["document"]["id"]
    wait_until_processed([document_id])
    before = chunk_rows(document_id)

    for _ in range(2):
        result = embed_document.delay(document_id=document_id).get(timeout=60)
        assert result["success"] is True and result["chunks_created"] == len(before)
    assert chunk_rows(document_id) == before
    assert Chunk.objects.filter(document_id=document_id).count() == len(before)


def test_re_embedding_after_the_chunks_changed_replaces_them_all(live_worker, offline_embedding, user_client):
    data = GOOD_FILES["readme.txt"][0]
    document_id = post_files(user_client, {"readme.txt": (data, "text")}).json()["results"][0]["document"]["id"]
    wait_until_processed([document_id])
    count = Document.objects.get(pk=document_id).chunk_count
    # Someone's half-finished write: stray and missing rows must not survive a re-embed.
    Chunk.objects.filter(document_id=document_id, position=0).delete()

    result = embed_document.delay(document_id=document_id).get(timeout=60)

    assert result["success"] is True and result["unchanged"] is False
    positions = list(Chunk.objects.filter(document_id=document_id).values_list("position", flat=True))
    assert positions == list(range(count))


def test_failed_document_shows_its_reason_and_retry_processes_it(live_worker, offline_embedding, user_client):
    data = GOOD_FILES["readme.txt"][0]
    document_id = post_files(user_client, {"readme.txt": (data, "text")}).json()["results"][0]["document"]["id"]
    wait_until_processed([document_id])
    document = Document.objects.get(pk=document_id)
    document.file.storage.delete(document.file.name)  # the stored file vanished
    embed_document.delay(document_id=document_id).get(timeout=60)
    document.refresh_from_db()
    assert document.review_status == ReviewStatus.FAILED and "No such file" in document.status_message

    document.file.save("readme.txt", ContentFile(data))
    status = user_client.post(f"/library/documents/{document_id}/retry/", HTTP_ACCEPT="application/json").json()
    assert status["status"] == ReviewStatus.PROCESSING
    (document,) = wait_until_processed([document_id])
    assert document.review_status == ReviewStatus.PENDING_REVIEW and document.status_message == ""


@pytest.mark.django_db
def test_an_unexpected_error_fails_the_document_with_its_reason(offline_embedding):
    from solution_library.testing import add_library_document

    document = add_library_document("Corrupt row", "A perfectly fine text about backups.")
    Document.objects.filter(pk=document.pk).update(file_type="bogus")  # e.g. a hand-edited row

    result = embed_document.apply(kwargs={"document_id": document.pk}).get()

    document.refresh_from_db()
    assert result["success"] is False
    assert document.review_status == ReviewStatus.FAILED
    assert "KeyError" in document.status_message and document.error_code == "task_error"


@pytest.mark.django_db
def test_an_older_run_never_writes_its_chunks_over_a_newer_version(offline_embedding):
    from solution_library.services.chunking import chunk_text
    from solution_library.services.documents import DocumentSuperseded, embed_in_batches, replace_chunks
    from solution_library.testing import add_library_document

    document = add_library_document("Backups", "Backups are taken every hour and kept for 35 days.")
    stale_view = Document.objects.get(pk=document.pk)  # what an older run read before the sync updated the row
    Document.objects.filter(pk=document.pk).update(content_hash="0" * 64)  # the newer version, stored meanwhile
    old_text = "Backups were taken once a week."
    old_pieces = chunk_text(old_text)
    model = document.embedding_model
    old_vectors = embed_in_batches([p.text for p in old_pieces], model)

    with pytest.raises(DocumentSuperseded):
        replace_chunks(stale_view, old_text, old_pieces, old_vectors, model)

    assert list(Chunk.objects.filter(document=document).values_list("text", flat=True)) == [
        "Backups are taken every hour and kept for 35 days."
    ]
