"""Responder job wall time: one question at a time (the seed's design) vs. concurrent questions.

    set -a; source .run/<dir>/env; set +a
    .venv/bin/python bench/bench_rfp.py [--questions 200] [--latency-ms 200] [--concurrency 1 8]

Starts the fake OpenAI-compatible server as its own process (so its CPU work
does not compete with the job for this process's GIL) with `--latency-ms` on
every request, makes it the default chat and embedding API, puts two
documents in the library, and runs the real responder task body
(`rfp_manager.batch_generate_responder_answers`, via Celery's `apply`, so no
broker is timed) over `--questions` questions once per concurrency value —
the API's max_concurrent_requests, which the job reads through
llm_manager.concurrency_limit. Each question costs two requests: the query
embedding for the library search and the chat call. Prints the wall time per
run and the speed-up over the first. The previous default models are
restored and the benchmark's rows deleted at the end.
"""
import argparse
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


def make_rfp(owner, count: int, label: str):
    from rfp_manager.models import RFP, Question

    rfp = RFP.objects.create(name=f"bench-rfp-{label}", owner=owner)
    Question.objects.bulk_create(
        Question(rfp=rfp, number=str(i + 1), text=f"{TOPICS[i % len(TOPICS)]} (item {i + 1})", order=i, import_key=f"n:|{i + 1}")
        for i in range(count)
    )
    return rfp


def run_once(rfp, owner, api, concurrency: int) -> tuple[float, object]:
    from rfp_manager.models import RFPBatchJob
    from rfp_manager.services.batch import create_batch_job
    from rfp_manager.tasks import batch_generate_responder_answers

    api.max_concurrent_requests = concurrency
    api.save(update_fields=["max_concurrent_requests"])
    job = create_batch_job(rfp, RFPBatchJob.JOB_TYPE_RESPONDER, owner)
    started = time.perf_counter()
    batch_generate_responder_answers.apply(args=(rfp.pk, owner.pk, job.pk)).get()
    elapsed = time.perf_counter() - started
    job.refresh_from_db()
    return elapsed, job


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--latency-ms", type=float, default=200)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8])
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
        add_library_document("Bench security handbook", "All customer data is encrypted at rest with AES-256 and in transit with TLS 1.3.\n\n"
                             "Access to production requires single sign-on and hardware keys. Penetration tests run every year.")
        add_library_document("Bench operations guide", "The service runs in Frankfurt and Dublin. Backups are taken every hour and kept "
                             "for 35 days.\n\nSupport is available 24 hours a day with a one hour response time.")
        results = []
        for concurrency in args.concurrency:
            rfp = make_rfp(owner, args.questions, f"c{concurrency}")
            elapsed, job = run_once(rfp, owner, api, concurrency)
            results.append((concurrency, elapsed, job))
        print(f"{args.questions} questions, fake LLM latency {args.latency_ms:.0f} ms per request (embedding + chat per question)")
        base = results[0][1]
        for concurrency, elapsed, job in results:
            print(f"  concurrency {concurrency:>2}: {elapsed:7.2f} s wall  {job.status} {job.successful_items}/{job.total_items} "
                  f"ok, {job.failed_items} failed, speed-up {base / elapsed:4.1f}x")
    finally:
        RFP.objects.filter(owner=owner).delete()
        Document.objects.filter(title__startswith="Bench ").delete()
        for model in previous_defaults:
            make_default(model)
        LLMApi.objects.filter(pk=api.pk).delete()
        server.terminate()


if __name__ == "__main__":
    main()
