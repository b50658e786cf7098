"""Ingest throughput: the real pipeline vs. the same services in a plain loop.

    set -a; source .run/<dir>/env; set +a
    .venv/bin/python bench/bench_ingest.py [--documents 500] [--workers 2]

Pipeline: store_upload() → post_save signal → on_commit → RabbitMQ → celery
workers on the `embedding` queue → process_document(), timed from the first
upload until every document is pending review. Loop: store_upload() then
process_document() in this process, one after the other. Both use the
offline embedding provider. The figure is pipeline docs/s ÷ loop docs/s.
"""
import argparse
import random
import time

from _setup import setup_django

WORDS = (
    "tenant backup replica region encrypt audit policy latency throughput invoice seat plan export import "
    "schema index query cluster failover snapshot retention compliance gateway token session browser worker "
    "queue message broker cache memory disk network firewall certificate rotation upgrade rollback"
).split()


def make_document(rng: random.Random, number: int, size: int = 5000) -> bytes:
    paragraphs, length = [], 0
    while length < size:
        sentence_count = rng.randint(3, 6)
        paragraph = " ".join(
            f"Item {number}.{len(paragraphs)}.{s}: " + " ".join(rng.choices(WORDS, k=rng.randint(8, 16))) + "."
            for s in range(sentence_count)
        )
        paragraphs.append(paragraph)
        length += len(paragraph) + 2
    return "\n\n".join(paragraphs).encode()


def clear_library():
    from solution_library.models import Document

    for document in Document.objects.filter(title__startswith="bench-"):
        document.file.delete(save=False)
        document.delete()


def run_loop(documents: list[bytes]) -> float:
    from django.test import override_settings

    from solution_library.services.documents import process_document, store_upload

    start = time.perf_counter()
    with override_settings(AUTO_EMBED_DOCUMENTS=False):
        for number, data in enumerate(documents):
            result = store_upload(f"bench-{number}.txt", data)
            assert process_document(result.document.pk).success
    return time.perf_counter() - start


def run_pipeline(documents: list[bytes]) -> float:
    from solution_library.models import Document, ReviewStatus
    from solution_library.services.documents import store_upload

    start = time.perf_counter()
    ids = [store_upload(f"bench-{number}.txt", data).document.pk for number, data in enumerate(documents)]
    while Document.objects.filter(pk__in=ids, review_status=ReviewStatus.PROCESSING).exists():
        time.sleep(0.05)
    elapsed = time.perf_counter() - start
    failed = Document.objects.filter(pk__in=ids, review_status=ReviewStatus.FAILED).count()
    assert failed == 0, f"{failed} documents failed"
    return elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--documents", type=int, default=500)
    parser.add_argument("--workers", type=int, default=2, help="concurrency of the embedding worker")
    args = parser.parse_args()
    setup_django()
    from django.db import connection

    from solution_library.models import Chunk
    from tests.workers import Worker

    rng = random.Random(42)
    documents = [make_document(rng, n) for n in range(args.documents)]
    average_kb = sum(map(len, documents)) / len(documents) / 1024
    clear_library()
    loop_seconds = run_loop(documents)
    chunks = Chunk.objects.filter(document__title__startswith="bench-").count()
    clear_library()

    worker = Worker(queues="embedding", concurrency=args.workers).start()
    try:
        pipeline_seconds = run_pipeline(documents)
    finally:
        worker.stop()
        clear_library()

    loop_rate, pipeline_rate = args.documents / loop_seconds, args.documents / pipeline_seconds
    print(f"database: {connection.vendor}; {args.documents} documents of {average_kb:.1f} KB, {chunks} chunks")
    print(f"plain loop (in-process):            {loop_rate:7.1f} documents/s  ({loop_seconds:.1f} s)")
    print(f"pipeline ({args.workers} embedding worker processes): {pipeline_rate:7.1f} documents/s  ({pipeline_seconds:.1f} s)")
    print(f"ratio pipeline / loop:              {pipeline_rate / loop_rate:7.2f}  (aim >= 0.7)")


if __name__ == "__main__":
    main()
