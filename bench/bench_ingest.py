"""Ingest throughput: the real pipeline, from the HTTP upload, vs. the same services in a plain loop.

    set -a; source .run/<dir>/env; set +a
    .venv/bin/python bench/bench_ingest.py [--documents 500] [--workers 2] [--repetitions 3]
        [--start http|store] [--model offline|fresh-default] [--reembed] [--json out.json]

Pipeline (`--start http`, the default): a signed-in client POSTs each file to
the library's upload form on gunicorn (the project's config) as the library
page's upload script does — one file per request, three requests at a time,
CSRF header, JSON answer — → store_upload() → post_save signal → on_commit →
RabbitMQ → `celery worker -Q embedding` → process_document(), timed from the
first POST until every document is pending review. `--start store` calls
store_upload() in this process instead of the POST. Loop: store_upload() then
process_document(), one after the other, in as many processes as the pipeline
has embedding worker processes (`--workers`: one against one, two against two;
each loop process takes every N-th document, all start together), so both
sides use the same number of processes on the same cores. The two sides run
`--repetitions` times each in alternating order (loop first, then pipeline
first, …), so a burst of load elsewhere falls on both; the page gets medians
and the spread (min–max), and CPU-seconds per document of each side: the loop
processes' own CPU, against the worker's and gunicorn's process trees and this
process (the uploading client) — RabbitMQ's and the database's CPU on neither
side. All use the offline
embedding provider unless `--model fresh-default`: then the default embedding
model of a fresh install (all-MiniLM-L6-v2 on ONNX Runtime, llm_manager
migration 0002_local_minilm_default). The figure is pipeline docs/s ÷ loop docs/s; chunks/s beside.

`--reembed` also times the library re-embed job (the one Admin › LLM models ›
"Make default" starts) through RabbitMQ and the embedding worker, from the
offline baseline to the fresh install's default model, on the same documents.
"""

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from _setup import ROOT, setup_django, tree_cpu_seconds, use_model  # setup_django puts the project on sys.path
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


def bench_chunks(model) -> int:
    from solution_library.models import Chunk

    return Chunk.objects.filter(document__title__startswith="bench-", embedding_model=model).count()


def reembed(documents: list[bytes], target) -> tuple[float, int]:
    """Seconds the library re-embed job takes through the worker, from the offline baseline to `target`; chunks made."""
    from django.db import transaction

    from solution_library.models import EmbedBatchJob
    from solution_library.services.documents import create_library_reembed_job
    from solution_library.tasks import dispatch_embed_batch_job
    from tests.workers import Worker

    use_model("offline")
    run_loop(list(enumerate(documents)))
    worker = Worker(queues="embedding", concurrency=1).start()
    try:
        start = time.perf_counter()
        with transaction.atomic():
            job = create_library_reembed_job(target, None)
            dispatch_embed_batch_job(job)
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


def run_loop(numbered: list[tuple[int, bytes]]) -> float:
    from django.test import override_settings

    from solution_library.services.documents import process_document, store_upload

    start = time.perf_counter()
    with override_settings(AUTO_EMBED_DOCUMENTS=False):
        for number, data in numbered:
            result = store_upload(f"bench-{number}.txt", data)
            assert process_document(result.document.pk).success
    return time.perf_counter() - start


def loop_part(documents: list[bytes], part: str) -> None:
    """One of the loop's processes (`--loop-part i/N`): every N-th document from the i-th, when the parent says go."""
    index, parts = map(int, part.split("/"))
    mine = list(enumerate(documents))[index::parts]
    print("READY", flush=True)
    sys.stdin.readline()
    cpu, started = time.process_time(), time.time()
    run_loop(mine)
    print("RESULT " + json.dumps({"start": started, "end": time.time(), "cpu": time.process_time() - cpu}), flush=True)


def loop_processes(count: int, processes: int) -> dict:
    """The loop in `processes` processes at once: wall seconds from the first start to the last end, CPU of all."""
    procs = [
        subprocess.Popen(
            [sys.executable, __file__, "--documents", str(count), "--loop-part", f"{i}/{processes}"],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for i in range(processes)
    ]
    for proc in procs:  # Django set up in each before the clock starts
        while proc.stdout.readline().strip() != "READY":
            assert proc.poll() is None, "a loop process exited before it was ready"
    for proc in procs:
        proc.stdin.write("go\n")
        proc.stdin.flush()
    runs = []
    for proc in procs:
        out, _ = proc.communicate(timeout=3600)
        assert proc.returncode == 0, f"a loop process failed: {out[-2000:]}"
        runs.append(json.loads(next(line for line in out.splitlines() if line.startswith("RESULT "))[7:]))
    return {"seconds": max(r["end"] for r in runs) - min(r["start"] for r in runs), "cpu": sum(r["cpu"] for r in runs)}


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


def pipeline(documents: list[bytes], start: str, workers: int) -> dict:
    """Wall seconds from the first upload to the last document processed, and the CPU it took (see the docstring)."""
    from tests.workers import Worker

    web = Web(Path(tempfile.mkdtemp(prefix="spelunker-bench-web-")) / "gunicorn.log") if start == "http" else None
    worker = Worker(queues="embedding", concurrency=workers).start()
    try:
        if web:
            browser = signed_in_browser(web)
            upload = lambda docs: upload_over_http(browser, docs)  # noqa: E731
        else:
            upload = store_in_process
        trees = [worker.proc.pid] + ([web.proc.pid] if web else [])
        cpu = sum(map(tree_cpu_seconds, trees)) + time.process_time()
        seconds = run_pipeline(documents, upload)
        return {"seconds": seconds, "cpu": sum(map(tree_cpu_seconds, trees)) + time.process_time() - cpu}
    finally:
        worker.stop()
        if web:
            web.stop()
        clear_library()


def alternating_runs(documents: list[bytes], args, model) -> tuple[dict, int]:
    """Loop and pipeline `args.repetitions` times each, in turned order; and the chunks one pass makes."""
    runs, chunks = {"loop": [], "pipeline": []}, 0
    for repetition in range(args.repetitions):
        for side in ("loop", "pipeline") if repetition % 2 == 0 else ("pipeline", "loop"):
            if side == "loop":
                runs["loop"].append(loop_processes(len(documents), args.workers))
                chunks = bench_chunks(model)
                clear_library()
            else:
                runs["pipeline"].append(pipeline(documents, args.start, args.workers))
    return runs, chunks


def summary(runs: list[dict], documents: int, chunks: int) -> dict:
    rates = [documents / r["seconds"] for r in runs]
    return {
        "docs_per_s": statistics.median(rates),
        "min": min(rates),
        "max": max(rates),
        "runs": rates,
        "chunks_per_s": statistics.median(chunks / r["seconds"] for r in runs),
        "cpu_per_doc_s": statistics.median(r["cpu"] for r in runs) / documents,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--documents", type=int, default=500)
    parser.add_argument(
        "--workers", type=int, default=2, help="embedding worker processes of the pipeline, and processes of the loop"
    )
    parser.add_argument("--repetitions", type=int, default=3, help="runs of each side, in alternating order")
    parser.add_argument(
        "--start",
        choices=("http", "store"),
        default="http",
        help="http: POST each file to the upload form on gunicorn; store: store_upload() in this process",
    )
    parser.add_argument(
        "--model",
        choices=("offline", "fresh-default"),
        default="offline",
        help="the embedding model: the offline baseline, or a fresh install's default (all-MiniLM-L6-v2)",
    )
    parser.add_argument("--reembed", action="store_true", help="also time the library re-embed job to that model")
    parser.add_argument("--json", help="also write the figures here (make bench reads them)")
    parser.add_argument("--loop-part", help=argparse.SUPPRESS)
    args = parser.parse_args()
    setup_django()
    rng = random.Random(42)
    documents = [make_document(rng, n) for n in range(args.documents)]
    if args.loop_part:
        loop_part(documents, args.loop_part)
        return
    from django.db import connection

    average_kb = sum(map(len, documents)) / len(documents) / 1024
    clear_library()
    model = use_model(args.model)
    runs, chunks = alternating_runs(documents, args, model)
    loop, piped = (summary(runs[side], args.documents, chunks) for side in ("loop", "pipeline"))
    print(
        f"database: {connection.vendor}; embedding model {model.name}; "
        f"{args.documents} documents of {average_kb:.1f} KB, {chunks} chunks; "
        f"{args.repetitions} runs of each side in alternating order, medians (min–max)"
    )
    for name, side in (
        (f"plain loop ({args.workers} processes)", loop),
        (f"pipeline from {args.start} ({args.workers} embedding worker processes)", piped),
    ):
        print(
            f"{name}: {side['docs_per_s']:7.2f} documents/s  {side['chunks_per_s']:7.1f} chunks/s  "
            f"(min–max {side['min']:.2f}–{side['max']:.2f} documents/s; CPU {side['cpu_per_doc_s'] * 1000:.0f} ms "
            "per document)"
        )
    ratio = piped["docs_per_s"] / loop["docs_per_s"]
    print(f"ratio pipeline / loop (medians):    {ratio:7.2f}  (aim >= 0.9)")
    figures = {
        "documents": args.documents,
        "chunks": chunks,
        "workers": args.workers,
        "repetitions": args.repetitions,
        "loop": loop,
        "pipeline": piped,
        "ratio": ratio,
    }
    if args.reembed:
        seconds, made = reembed(documents, model)
        print(
            f"library re-embed job (offline baseline -> {model.name}, 1 worker process): "
            f"{args.documents / seconds:7.2f} documents/s  {made / seconds:7.1f} chunks/s  ({seconds:.1f} s)"
        )
        figures["reembed"] = {"docs_per_s": args.documents / seconds, "chunks_per_s": made / seconds}
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
