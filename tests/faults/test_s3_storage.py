"""Fault cases of the media storage: the S3 server out of reach during uploads and during processing."""

import os
from urllib.parse import urlparse

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from solution_library.models import Chunk, Document
from solution_library.services.chunking import chunk_text
from tests.s3 import S3Media
from tests.tcp_link import TcpLink
from tests.workers import wait_for

from .test_documents import document_text

pytestmark = [pytest.mark.faults, pytest.mark.integration]


@pytest.fixture
def s3_link():
    """The way to the test stack's S3 server, through a link the case can cut (the objects survive the cut)."""
    link = TcpLink(urlparse(os.environ["STACK_S3_ENDPOINT_URL"]).port).restore()
    yield link
    link.cut()


def upload(client, name: str, data: bytes) -> dict:
    response = client.post(
        reverse("solution_library:upload"), {"files": [SimpleUploadedFile(name, data)]}, HTTP_ACCEPT="application/json"
    )
    return response.json()["results"][0]


def states(ids) -> dict:
    rows = Document.objects.filter(pk__in=ids)
    return {status: rows.filter(review_status=status).count() for status in ("processing", "pending_review", "failed")}


def test_s3_out_of_reach_uploads_are_refused_documents_fail_with_the_reason_and_retry_works(
    record, s3_link, settings, queue_to_own_workers, make_worker, chat_library, user_client
):
    case = record(
        "The S3 server out of reach during uploads and while documents are processed",
        "every connection to the S3 server is refused (the link to it is cut) first during an upload, "
        "then while the embedding worker reads three stored documents; the link is restored and "
        "each document's Retry is clicked",
    )
    media = S3Media(endpoint_url=s3_link.url)
    media.use_in(settings)
    queue_to_own_workers("embedding")
    texts = {f"storage-{n}.txt": document_text(n) for n in range(3)}

    s3_link.cut()
    case.event("link to the S3 server cut")
    refused = upload(user_client, "refused.txt", document_text(7).encode())
    case.check("upload while the storage is out of reach: refused", refused["ok"], False)
    case.check("its message names the storage", "the file storage cannot be reached" in refused["error"], True)
    case.figure("the upload's message", refused["error"])
    case.check("document rows left by the refused upload", Document.objects.filter(title="refused").count(), 0)

    s3_link.restore()
    case.event("link restored; three documents uploaded, their embedding queued (no embedding worker yet)")
    ids = [upload(user_client, name, text.encode())["document"]["id"] for name, text in texts.items()]
    case.check("objects in the bucket", len(media.keys()), 3)

    s3_link.cut()
    make_worker(queues="embedding", concurrency=1, env=media.env)
    case.event("link cut again; an embedding worker started")
    wait_for(lambda: states(ids)["processing"] == 0, timeout=120, interval=0.5, message="no document processing")
    case.event("no document left processing")
    case.check("documents by status", states(ids), {"processing": 0, "pending_review": 0, "failed": 3})
    failed = Document.objects.filter(pk__in=ids)
    case.check("their reason code", sorted({d.error_code for d in failed}), ["storage_unavailable"])
    case.figure("a failed document's message", failed.first().status_message)

    s3_link.restore()
    for document_id in ids:
        user_client.post(reverse("solution_library:document_retry", args=[document_id]))
    case.event("link restored; Retry clicked on each document")
    wait_for(lambda: states(ids)["processing"] == 0, timeout=120, interval=0.5, message="the retried documents")
    case.event("no document left processing")
    case.check("documents by status", states(ids), {"processing": 0, "pending_review": 3, "failed": 0})
    expected = sum(len(chunk_text(text)) for text in texts.values())
    case.check(
        "chunk rows (as a run without the outage stores)", Chunk.objects.filter(document_id__in=ids).count(), expected
    )
    case.check("objects in the bucket (nothing lost, nothing doubled)", len(media.keys()), 3)
