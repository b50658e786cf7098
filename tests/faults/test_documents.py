"""Fault cases of the embedding queue: a worker killed mid-upload, and a document that kills every worker."""

import pytest

from solution_library.models import Chunk, Document
from solution_library.services.chunking import chunk_text
from solution_library.services.documents import store_upload
from tests.workers import wait_for

from .poison_worker import POISON_MARKER

pytestmark = [pytest.mark.faults, pytest.mark.integration]

TOPICS = [
    "encryption at rest",
    "backup retention",
    "incident response",
    "access reviews",
    "data residency",
    "vendor management",
    "business continuity",
    "logging and monitoring",
]


def document_text(n: int) -> str:
    """A different text for each n, of varied length (1 to 12 paragraphs), so chunk counts vary."""
    topic = TOPICS[n % len(TOPICS)]
    paragraphs = [
        f"Document {n}, section {p}: our policy on {topic} is reviewed every {p + 1} months, and "
        f"each review records its findings, owners and deadlines in the register number {n * 31 + p}."
        for p in range(1 + n % 12)
    ]
    return "\n\n".join(paragraphs)


def states(ids) -> dict:
    rows = Document.objects.filter(pk__in=ids)
    return {status: rows.filter(review_status=status).count() for status in ("processing", "pending_review", "failed")}


def test_embedding_worker_sigkilled_during_a_200_document_upload(
    record, queue_to_own_workers, make_worker, chat_library, user
):
    case = record(
        "SIGKILL of the embedding worker during a 200-document upload",
        "the embedding worker (main process and pool) gets SIGKILL while the 200 documents are being "
        "embedded; a new worker is started",
    )
    total = 200
    queue_to_own_workers("embedding")
    worker = make_worker(queues="embedding", concurrency=2)
    texts = {f"policy-{n:03}.txt": document_text(n) for n in range(total)}
    expected = {name: len(chunk_text(text)) for name, text in texts.items()}  # what a crash-free run stores
    ids = {store_upload(name, text.encode(), user).document.pk: name for name, text in texts.items()}
    case.event(f"{total} documents stored through the upload service; their embedding is queued")
    ready = lambda: states(ids)["pending_review"]  # noqa: E731
    wait_for(lambda: ready() >= total // 4, timeout=240, message="a quarter of the documents ready")
    worker.kill()
    case.event(f"embedding worker killed with {ready()} of {total} documents ready")
    make_worker(queues="embedding", concurrency=2)
    case.event("a new embedding worker started")
    wait_for(lambda: states(ids)["processing"] == 0, timeout=300, interval=1, message="every document processed")
    case.event("no document left processing")

    stored = {ids[d.pk]: (d.chunk_count, d.chunks.count()) for d in Document.objects.filter(pk__in=ids)}
    case.check("documents by status", states(ids), {"processing": 0, "pending_review": total, "failed": 0})
    case.check("document rows (one per file)", Document.objects.filter(title__startswith="policy").count(), total)
    case.check(
        "documents whose chunk count differs from a crash-free run",
        sorted(name for name, counts in stored.items() if counts != (expected[name], expected[name])),
        [],
    )
    case.check("chunk rows in all", Chunk.objects.filter(document_id__in=ids).count(), sum(expected.values()))
    case.figure("chunks expected (crash-free)", sum(expected.values()))


def test_a_poison_document_is_failed_and_the_queue_keeps_flowing(
    record, queue_to_own_workers, make_worker, chat_library, user
):
    from django.conf import settings

    limit = settings.JOB_MAX_UNFINISHED_DELIVERIES
    case = record(
        "A poison document",
        "a document whose parsing kills the worker's pool process with SIGKILL every time (as the OOM "
        "killer would); it is queued ahead of two good documents on one worker of concurrency 1",
    )
    queue_to_own_workers("embedding")
    worker = make_worker(queues="embedding", concurrency=1, app="tests.faults.poison_worker")
    poison = store_upload("poison.txt", f"A document with {POISON_MARKER} inside.".encode(), user).document
    good = [store_upload(f"good-{n}.txt", document_text(n).encode(), user).document for n in range(2)]
    case.event("the poison document and then two good ones queued for embedding")
    wait_for(
        lambda: states([poison.pk, *(d.pk for d in good)])["processing"] == 0,
        timeout=180,
        interval=0.5,
        message="all three documents processed",
    )
    case.event("no document left processing")
    poison.refresh_from_db()
    deaths = worker.log_path.read_text(errors="replace").count("exited with 'signal 9 (SIGKILL)'")
    case.check("poison document status", poison.review_status, "failed")
    case.check("its reason code", poison.error_code, "poison_message")
    case.figure("its message", poison.status_message)
    case.check("pool processes killed by it (deliveries before it was failed)", deaths, limit)
    case.check(
        "the good documents queued behind it",
        states([d.pk for d in good]),
        {"processing": 0, "pending_review": 2, "failed": 0},
    )
    case.check("the worker itself is still up", worker.alive, True)
