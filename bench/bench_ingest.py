"""Ingest throughput: the real pipeline, from the HTTP upload, vs. the same services in a plain loop.

    set -a; source .run/<dir>/env; set +a
    .venv/bin/python bench/bench_ingest.py [--documents 500] [--workers 2] [--start http|store]
        [--model offline|fresh-default] [--reembed]

Pipeline (`--start http`, the default): a signed-in client POSTs each file to
the library's upload form on gunicorn (the project's config) as the library
page's upload script does — one file per request, three requests at a time,
CSRF header, JSON answer — → store_upload() → post_save signal → on_commit →
RabbitMQ → `celery worker -Q embedding` → process_document(), timed from the
first POST until every document is pending review. `--start store` calls
store_upload() in this process instead of the POST. Loop: store_upload() then
process_document() in this process, one after the other. All use the offline
embedding provider unless `--model fresh-default`: then the default embedding
model of a fresh install (all-MiniLM-L6-v2 on ONNX Runtime, llm_manager
migration 0007). The figure is pipeline docs/s ÷ loop docs/s; chunks/s beside.

`--reembed` also times the library re-embed job (the one Admin › LLM models ›
"Make default" starts) through RabbitMQ and the embedding worker, from the
offline baseline to the fresh install's default model, on the same documents.
"""
import argparse
import random
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from _setup import setup_django  # also puts the project on sys.path
from _web import Browser, Web

PARALLEL_UPLOADS = 3  # static/js/library_upload.js: MAX_PARALLEL

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


def use_model(which: str):
    """Make the offline baseline or the fresh install's default model the default embedding model; return it."""
    from llm_manager.models import LLMApi, LLMModel
    from llm_manager.services import make_default

    kind = LLMApi.KIND_OFFLINE if which == "offline" else LLMApi.KIND_LOCAL
    model = LLMModel.objects.filter(api__kind=kind, model_type=LLMModel.TYPE_EMBEDDING).order_by("pk").first()
    make_default(model)
    return model


def bench_chunks(model) -> int:
    from solution_library.models import Chunk

    return Chunk.objects.filter(document__title__startswith="bench-", embedding_model=model).count()


def reembed(documents: list[bytes], target) -> tuple[float, int]:
    """Seconds the library re-embed job takes through the worker, from the offline baseline to `target`; chunks made."""
    from solution_library.models import EmbedBatchJob
    from solution_library.tasks import dispatch_library_reembed
    from tests.workers import Worker

    use_model("offline")
    run_loop(documents)
    worker = Worker(queues="embedding", concurrency=1).start()
    try:
        start = time.perf_counter()
        job = dispatch_library_reembed(target, None)
        while EmbedBatchJob.objects.get(pk=job.pk).is_active:
            time.sleep(0.05)
        elapsed = time.perf_counter() - start
    finally:
        worker.stop()
    job.refresh_from_db()
    assert job.failed_items == 0 and job.processed_items == len(documents), f"re-embed job: {job.status} {job.errors}"
    chunks = bench_chunks(target)
    clear_library()
    return elapsed, chunks


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


def store_in_process(documents: list[bytes]) -> None:
    from solution_library.services.documents import store_upload

    for number, data in enumerate(documents):
        store_upload(f"bench-{number}.txt", data)


def upload_over_http(browser: Browser, documents: list[bytes]) -> None:
    def post(number: int) -> None:
        status = browser.post_file("/library/upload/", "files", f"bench-{number}.txt", documents[number])
        assert status == 200, f"upload of bench-{number}.txt answered {status}"

    with ThreadPoolExecutor(PARALLEL_UPLOADS) as pool:
        list(pool.map(post, range(len(documents))))


def run_pipeline(documents: list[bytes], upload) -> float:
    """Seconds from the first upload until every document is processed, whatever `upload` is."""
    from solution_library.models import Document, ReviewStatus

    bench = Document.objects.filter(title__startswith="bench-")
    start = time.perf_counter()
    upload(documents)
    while bench.count() < len(documents) or bench.filter(review_status=ReviewStatus.PROCESSING).exists():
        time.sleep(0.05)
    elapsed = time.perf_counter() - start
    failed = bench.filter(review_status=ReviewStatus.FAILED).count()
    assert failed == 0, f"{failed} documents failed"
    return elapsed


def signed_in_browser(web: Web) -> Browser:
    from django.contrib.auth import get_user_model

    user, _ = get_user_model().objects.get_or_create(username="bench-ingest")
    user.set_password("bench-ingest-password-1")
    user.save()
    browser = Browser(web.url)
    browser.sign_in("bench-ingest", "bench-ingest-password-1")
    browser.get("/library/")  # the page the upload script runs on
    return browser


def pipeline(documents: list[bytes], start: str, workers: int) -> float:
    from tests.workers import Worker

    web = Web(Path(tempfile.mkdtemp(prefix="spelunker-bench-web-")) / "gunicorn.log") if start == "http" else None
    worker = Worker(queues="embedding", concurrency=workers).start()
    try:
        upload = (lambda docs: upload_over_http(signed_in_browser(web), docs)) if web else store_in_process
        return run_pipeline(documents, upload)
    finally:
        worker.stop()
        if web:
            web.stop()
        clear_library()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--documents", type=int, default=500)
    parser.add_argument("--workers", type=int, default=2, help="concurrency of the embedding worker")
    parser.add_argument("--start", choices=("http", "store"), default="http",
                        help="http: POST each file to the upload form on gunicorn; store: store_upload() in this process")
    parser.add_argument("--model", choices=("offline", "fresh-default"), default="offline",
                        help="the embedding model: the offline baseline, or a fresh install's default (all-MiniLM-L6-v2)")
    parser.add_argument("--reembed", action="store_true", help="also time the library re-embed job to that model")
    args = parser.parse_args()
    setup_django()
    from django.db import connection

    rng = random.Random(42)
    documents = [make_document(rng, n) for n in range(args.documents)]
    average_kb = sum(map(len, documents)) / len(documents) / 1024
    clear_library()
    model = use_model(args.model)
    loop_seconds = run_loop(documents)
    chunks = bench_chunks(model)
    clear_library()

    pipeline_seconds = pipeline(documents, args.start, args.workers)

    loop_rate, pipeline_rate = args.documents / loop_seconds, args.documents / pipeline_seconds
    print(f"database: {connection.vendor}; embedding model {model.name}; "
          f"{args.documents} documents of {average_kb:.1f} KB, {chunks} chunks")
    print(f"plain loop (in-process):            {loop_rate:7.1f} documents/s  {chunks / loop_seconds:7.1f} chunks/s  "
          f"({loop_seconds:.1f} s)")
    print(f"pipeline from {args.start} ({args.workers} embedding worker processes): {pipeline_rate:7.1f} documents/s  "
          f"{chunks / pipeline_seconds:7.1f} chunks/s  ({pipeline_seconds:.1f} s)")
    print(f"ratio pipeline / loop:              {pipeline_rate / loop_rate:7.2f}  (aim >= 0.9)")
    if args.reembed:
        seconds, made = reembed(documents, model)
        print(f"library re-embed job (offline baseline -> {model.name}, 1 worker process): "
              f"{args.documents / seconds:7.1f} documents/s  {made / seconds:7.1f} chunks/s  ({seconds:.1f} s)")


if __name__ == "__main__":
    main()
