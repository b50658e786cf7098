"""Responder jobs through RabbitMQ and real `celery worker -Q batch` processes: concurrency, and scaling by workers.

    set -a; source .run/<dir>/env; set +a
    .venv/bin/python bench/bench_rfp.py [--questions 200] [--latency-ms 200] [--concurrency 1 8]
                                        [--scaling 1 2 4] [--jobs 4] [--library-chunks 100000] [--json out.json]

Starts the fake OpenAI-compatible server as its own process with
`--latency-ms` on every request, makes it the default chat and embedding API,
puts two documents in the library (and, with `--library-chunks N`, N more
chunks made as bench/bench_search.py makes its libraries, embedded for the
fake API's embedding model, so that each question's search costs what it costs
in a real library), and starts responder jobs as the "Draft
answers" button does (`create_batch_job` + `dispatch_batch_job` in one
transaction: the job row, then the message after commit). A real worker
process (`celery -A spelunker worker -Q batch`) takes the message from
RabbitMQ and runs `rfp_manager.batch_generate_responder_answers`. Each job is
timed from just before the transaction that starts it until its row reads
completed (polled every 20 ms), and also by the row's own started_at →
completed_at.

Concurrency: one job of `--questions` questions per value of the API's
max_concurrent_requests (what the job reads through
llm_manager.concurrency_limit; 8 is the default, 1 the seed's one-by-one
design), each on a fresh worker process: a process remembers the vectors it
embedded (llm.embed_remembered), and the runs ask the same questions, so a run
after another in the same process would embed nothing. Each question costs its
chat call and the embedding of its own text and parts; the library's passages
and sentences are embedded once per process.

Scaling: `--jobs` jobs of `--questions / --jobs` questions each, all started
at once (default concurrency), with 1, 2, 4 … worker processes — separate
`celery worker -c 1` processes, as workers on more machines would join the
same RabbitMQ and PostgreSQL: questions per second from the first start to
the last completion.

The previous default models are restored and the benchmark's rows deleted at the end.
"""

import argparse
import json
import subprocess
import sys
import time
from types import SimpleNamespace

from _setup import ROOT, setup_django

TOPICS = [
    "How is customer data encrypted at rest and in transit?",
    "How often are backups taken and how long are they kept?",
    "Which data centres host the service?",
    "How is access to production systems controlled?",
    "How often do you run penetration tests?",
    "What support hours and response times do you offer?",
]


def start_fake_server(latency_ms: float) -> tuple[subprocess.Popen, str]:
    """`python -m llm_manager.testing.fake_openai` in a subprocess; it prints its base URL."""
    cmd = [sys.executable, "-m", "llm_manager.testing.fake_openai", "--port", "0", "--latency-ms", str(latency_ms)]
    process = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    return process, process.stdout.readline().strip()


LIBRARY_PREFIX = "bench-rfp-library-"


def large_library(chunks: int) -> None:
    """`chunks` passages of the evaluation manuals for the default (the fake API's) embedding model, and its index."""
    from bench_search import build_from_database, fill_library

    from llm_manager.services import get_default_model

    model = get_default_model("embedding")
    started = time.perf_counter()
    fill_library(chunks, model, prefix=LIBRARY_PREFIX)
    build_from_database(model.pk)  # the index files, as a machine that has served searches already has them
    print(
        f"library: {chunks} more chunks for {model.name}, filled and indexed in {time.perf_counter() - started:.0f} s"
    )


def make_rfp(owner, count: int, label: str):
    from rfp_manager.models import RFP, Question

    rfp = RFP.objects.create(name=f"bench-rfp-{label}", owner=owner)
    Question.objects.bulk_create(
        Question(
            rfp=rfp,
            number=str(i + 1),
            text=f"{TOPICS[i % len(TOPICS)]} (item {i + 1})",
            order=i,
            import_key=f"n:|{i + 1}",
        )
        for i in range(count)
    )
    return rfp


def start_job(rfp, owner):
    """What the "Draft answers" view does: the job row and, after commit, its message to the batch queue."""
    from django.db import transaction

    from rfp_manager.models import RFPBatchJob
    from rfp_manager.services.batch import create_batch_job
    from rfp_manager.tasks import dispatch_batch_job

    with transaction.atomic():
        job = create_batch_job(rfp, RFPBatchJob.JOB_TYPE_RESPONDER, owner)
        dispatch_batch_job(job)
    return job


def wait_until_finished(job_ids: list[int], timeout: float = 1800) -> list:
    from jobs.models import ACTIVE_STATUSES
    from rfp_manager.models import RFPBatchJob

    deadline = time.monotonic() + timeout
    while RFPBatchJob.objects.filter(pk__in=job_ids, status__in=ACTIVE_STATUSES).exists():
        if time.monotonic() > deadline:
            raise TimeoutError(f"responder jobs {job_ids} still running after {timeout:.0f} s")
        time.sleep(0.02)
    return list(RFPBatchJob.objects.filter(pk__in=job_ids).order_by("pk"))


def run_jobs(owner, sizes: list[int], label: str) -> dict:
    """Start one job per size at once; wall seconds from the first start to the last completion."""
    rfps = [make_rfp(owner, size, f"{label}-{n}") for n, size in enumerate(sizes)]
    started = time.perf_counter()
    job_ids = [start_job(rfp, owner).pk for rfp in rfps]
    jobs = wait_until_finished(job_ids)
    wall = time.perf_counter() - started
    own = max(j.completed_at for j in jobs) - min(j.started_at for j in jobs)
    return {
        "seconds": wall,
        "row_seconds": own.total_seconds(),
        "questions": sum(sizes),
        "statuses": sorted({j.status for j in jobs}),
        "successful": sum(j.successful_items for j in jobs),
        "failed": sum(j.failed_items for j in jobs),
    }


def workers(count: int):
    from tests.workers import Worker

    return [Worker(queues="batch", concurrency=1).start() for _ in range(count)]


def stop(started: list) -> None:
    for worker in started:
        worker.stop()


def concurrency_runs(owner, api, questions: int, values: list[int]) -> list[dict]:
    results = []
    for concurrency in values:
        api.max_concurrent_requests = concurrency
        api.save(update_fields=["max_concurrent_requests"])
        started = workers(1)  # a fresh process: the run before it left its vectors in the old one
        try:
            results.append({"concurrency": concurrency, **run_jobs(owner, [questions], f"c{concurrency}")})
        finally:
            stop(started)
    return results


def scaling_runs(owner, api, questions: int, jobs: int, counts: list[int], api_limit: int = 8) -> list[dict]:
    api.max_concurrent_requests = api_limit
    api.save(update_fields=["max_concurrent_requests"])
    sizes = [questions // jobs] * jobs
    results = []
    for count in counts:
        started = workers(count)
        try:
            run = run_jobs(owner, sizes, f"w{count}")
        finally:
            stop(started)
        results.append({"workers": count, "rate": run["questions"] / run["seconds"], **run})
    return results


def report(args, results: list[dict], scaling: list[dict]) -> None:
    print(
        f"{args.questions} questions, fake LLM latency {args.latency_ms:.0f} ms per request (embedding + chat per question), "
        "through RabbitMQ and `celery worker -Q batch -c 1`"
    )
    base = results[0]["seconds"] if results else None
    for r in results:
        print(
            f"  concurrency {r['concurrency']:>2}: {r['seconds']:7.2f} s start → completed  (row {r['row_seconds']:.2f} s)  "
            f"{'/'.join(r['statuses'])} {r['successful']}/{r['questions']} ok, {r['failed']} failed, "
            f"speed-up {base / r['seconds']:4.1f}x"
        )
    for r in scaling:
        print(
            f"  {r['workers']} worker processes (API limit {args.api_limit} requests at once): {r['rate']:6.1f} questions/s  ({r['questions']} questions in {args.jobs} jobs, "
            f"{r['seconds']:.2f} s; {'/'.join(r['statuses'])}, {r['failed']} failed)"
        )
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"concurrency": results, "scaling": scaling, "library_chunks": args.library_chunks}, out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--latency-ms", type=float, default=200)
    parser.add_argument("--concurrency", type=int, nargs="*", default=[1, 8])
    parser.add_argument("--scaling", type=int, nargs="*", default=[], help="worker process counts, e.g. 1 2 4")
    parser.add_argument("--jobs", type=int, default=4, help="responder jobs at once in the scaling runs")
    parser.add_argument(
        "--api-limit",
        type=int,
        default=8,
        help="the API's max_concurrent_requests in the scaling runs (shared by every worker)",
    )
    parser.add_argument(
        "--library-chunks",
        type=int,
        default=0,
        help="also this many chunks in the library (bench_search.py's passages), for the search's real cost",
    )
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()
    setup_django()

    from django.contrib.auth import get_user_model

    from llm_manager.models import LLMApi, LLMModel
    from llm_manager.services import make_default
    from llm_manager.testing.fake_openai import FakeConfig
    from llm_manager.testing.fixtures import register_fake_api
    from rfp_manager.models import RFP
    from solution_library.models import Document
    from solution_library.testing import add_library_document

    previous_defaults = list(LLMModel.objects.filter(is_system_default=True))
    server, url = start_fake_server(args.latency_ms)
    owner, _ = get_user_model().objects.get_or_create(username="bench-rfp")
    fake = SimpleNamespace(url=url, config=FakeConfig())  # what register_fake_api reads: URL and served models
    api = register_fake_api(fake, name="Bench fake OpenAI", requests_per_minute=0, timeout_seconds=30)
    try:
        add_library_document(
            "Bench security handbook",
            "All customer data is encrypted at rest with AES-256 and in transit with TLS 1.3.\n\n"
            "Access to production requires single sign-on and hardware keys. Penetration tests run every year.",
        )
        add_library_document(
            "Bench operations guide",
            "The service runs in Frankfurt and Dublin. Backups are taken every hour and kept "
            "for 35 days.\n\nSupport is available 24 hours a day with a one hour response time.",
        )
        if args.library_chunks:
            large_library(args.library_chunks)
        results = concurrency_runs(owner, api, args.questions, args.concurrency)
        scaling = scaling_runs(owner, api, args.questions, args.jobs, args.scaling, args.api_limit)
        report(args, results, scaling)
    finally:
        RFP.objects.filter(owner=owner).delete()
        Document.objects.filter(title__startswith="Bench ").delete()
        Document.objects.filter(title__startswith=LIBRARY_PREFIX).delete()
        for model in previous_defaults:
            make_default(model)
        LLMApi.objects.filter(pk=api.pk).delete()
        server.terminate()


if __name__ == "__main__":
    main()
