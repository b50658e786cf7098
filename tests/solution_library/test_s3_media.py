"""Media in S3-compatible storage: the test stack's real S3 server (moto's server mode), real workers.

Uploads go to the bucket and not to the local folder, a worker process reads them from there,
deleting a document deletes its object; wrong credentials and a missing bucket refuse the upload
with a sentence that says which, and leave nothing behind. (The storage going away mid-work is a
case of the fault suite: tests/faults/test_s3_storage.py.)
"""

from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.files.uploadedfile import SimpleUploadedFile

from solution_library.models import Chunk, Document, ReviewStatus
from solution_library.services.chunking import chunk_text
from solution_library.services.documents import delete_document
from tests.s3 import S3Media
from tests.workers import wait_for

from . import files

pytestmark = pytest.mark.integration

TEXT = "\n\n".join(files.long_paragraphs("s3", 12))


def upload(client, name: str, data: bytes):
    return client.post("/library/upload/", {"files": [SimpleUploadedFile(name, data)]}, HTTP_ACCEPT="application/json")


def local_media_files() -> list[Path]:
    root = Path(django_settings.MEDIA_ROOT)
    return [p for p in root.rglob("*") if p.is_file()] if root.exists() else []


def test_an_upload_goes_to_the_bucket_a_worker_reads_it_there_and_delete_removes_it(
    s3_worker, s3_media, offline_embedding, user_client
):
    local_before = local_media_files()
    response = upload(user_client, "policy.txt", TEXT.encode())
    assert response.status_code == 200, response.content
    document = Document.objects.get(pk=response.json()["results"][0]["document"]["id"])

    assert s3_media.keys() == [document.file.name]
    assert s3_media.read(document.file.name) == TEXT.encode()
    assert local_media_files() == local_before  # nothing on this machine's disk

    document = wait_for(
        lambda: Document.objects.filter(pk=document.pk).exclude(review_status=ReviewStatus.PROCESSING).first(),
        timeout=90,
        message="the worker to process the document",
    )
    assert (document.review_status, document.status_message) == (ReviewStatus.PENDING_REVIEW, "")
    assert document.chunk_count == Chunk.objects.filter(document=document).count() == len(chunk_text(TEXT))

    assert delete_document(document)
    assert s3_media.keys() == []
    assert not Document.objects.filter(pk=document.pk).exists()


@pytest.mark.parametrize(
    "storage, says",
    [
        pytest.param({"secret_key": "not-the-secret"}, "the file storage refused our credentials", id="wrong-secret"),
        pytest.param(
            {"access_key": "AKIANOBODY", "secret_key": "x"},
            "the file storage refused our credentials",
            id="unknown-key",
        ),
        pytest.param({"bucket": "no-such-bucket"}, "bucket does not exist", id="missing-bucket"),
    ],
)
def test_an_upload_the_storage_refuses_is_refused_with_the_reason_and_leaves_nothing(
    storage, says, transactional_db, settings, offline_embedding, user_client
):
    broken = S3Media(**storage)
    broken.use_in(settings)
    response = upload(user_client, "policy.txt", TEXT.encode())

    assert response.status_code == 400
    result = response.json()["results"][0]
    assert result["ok"] is False
    assert says in result["error"] and "Nothing was saved" in result["error"], result["error"]
    assert Document.objects.count() == 0
    assert S3Media().client().list_objects_v2(Bucket=S3Media().bucket, Prefix=broken.prefix).get("KeyCount") == 0


def test_readyz_checks_the_bucket_with_our_credentials(transactional_db, settings, client):
    S3Media().use_in(settings)
    assert client.get("/readyz").json()["storage"] == "ok"
    S3Media(secret_key="not-the-secret").use_in(settings)
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["storage"].startswith("error: ClientError") and "403" in response.json()["storage"]
