"""`make bench` and `make bench-quick`: every benchmark beside its baseline, on a private stack → docs/benchmarks.md.

    .venv/bin/python bench/run_all.py [--quick] [--out docs/benchmarks.md] [--million]

Starts its own stack (bin/stack: RabbitMQ, Memcached, PostgreSQL), real Celery
workers (`-A bench.benchapp`: the project's app and settings plus the
benchmark-only tasks of bench/tasks.py), gunicorn with the project's config,
and the fake OpenAI server where a benchmark needs an LLM. Each figure is
measured next to its baseline in the same run, because the machine is shared
and noisy: the ratio is the figure, absolute times are context. The page gets
the machine's load average before and after, and PNG plots (matplotlib).

--quick is the smoke run CI can afford (tests/test_bench_quick.py): fewer
tasks, shorter load, 2,000-chunk search, a small batch-answering run at 20 ms
latency, no ingestion scaling runs.
"""

import argparse
import functools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _setup import profile_lines  # noqa: E402
from _web import Browser, Web  # noqa: E402
from sources import MEASURED, manifest_for  # noqa: E402

from spelunker.provenance import combined_hash, write_manifest  # noqa: E402


@dataclass
class Figure:
    """One line of the results table."""

    name: str
    ours: str
    baseline: str
    ratio: float | None
    aim: str
    met: bool | None
    command: str
    note: str = ""


@dataclass
class Report:
    quick: bool
    figures: list[Figure] = field(default_factory=list)
    plots: list[tuple[str, str]] = field(default_factory=list)  # (file name, caption)
    notes: list[str] = field(default_factory=list)
    loads: list[str] = field(default_factory=list)
    command: str = "make bench"
    commit: str = ""  # of the code measured, and its files' hashes (bench/sources.py), taken at the start
    file_hashes: dict = field(default_factory=dict)

    @property
    def source_hash(self) -> str:
        return combined_hash(self.file_hashes)

    def profile(self, title: str, call, repeat: int) -> None:
        """Where the time of `call` goes: its SQL queries and a pyinstrument profile, for an aim missed."""
        from django.db import connection
        from django.test.utils import CaptureQueriesContext
        from pyinstrument import Profiler

        call()  # warm: imports, connections, caches
        profiler = Profiler(interval=0.0005)
        with CaptureQueriesContext(connection) as queries:
            profiler.start()
            for _ in range(repeat):
                call()
            profiler.stop()
        kept = profile_lines(profiler)
        self.notes += [
            f"### Where the time goes: {title}",
            "",
            f"{len(queries) / repeat:.1f} SQL queries per call; pyinstrument over {repeat} calls "
            f"(load average {load_average()}):",
            "",
            "```",
            *kept,
            "```",
            "",
        ]

    def add(self, figure: Figure) -> None:
        self.figures.append(figure)
        print(
            f"[bench] {figure.name}: ours {figure.ours}, baseline {figure.baseline}, ratio {figure.ratio}, "
            f"aim {figure.aim}, met {figure.met}",
            flush=True,
        )


def load_average() -> str:
    return " / ".join(f"{x:.1f}" for x in os.getloadavg())


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(pct / 100 * (len(ordered) - 1))))]


# --- the stack ---------------------------------------------------------------------------------
def start_stack(folder: Path) -> None:
    """bin/stack with PostgreSQL; its environment (broker, cache, database URLs) goes into os.environ."""
    subprocess.run([str(ROOT / "bin" / "stack"), "start", str(folder), "--with-postgres"], check=True)
    for line in (folder / "env").read_text().splitlines():
        match = re.match(r"export (\w+)=(.*)", line.strip())
        if match:
            os.environ[match.group(1)] = match.group(2).strip("'\"")


def stop_stack(folder: Path) -> None:
    subprocess.run([str(ROOT / "bin" / "stack"), "stop", str(folder), "--purge"], check=False)


def setup_django(folder: Path) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "spelunker.settings")
    os.environ["SPELUNKER_VAR_DIR"] = str(folder / "var")
    os.environ["SPELUNKER_MEDIA_ROOT"] = str(folder / "var" / "media")
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def bench_worker(concurrency: int = 2, queues: str = "default,embedding,batch"):
    from tests.workers import Worker

    return Worker(queues=queues, concurrency=concurrency, app="bench.benchapp").start()


def staff_user():
    from django.contrib.auth import get_user_model

    user, created = get_user_model().objects.get_or_create(
        username="bench", defaults={"is_staff": True, "is_superuser": True}
    )
    if created:  # only then: a new password would sign out the sessions made so far
        user.set_password("bench-password-1")
        user.save()
    return user


# --- figures ------------------------------------------------------------------------------------
def throughput(send, count: int) -> float:
    """Tasks per second: send `count`, wait for every result."""
    started = time.perf_counter()
    results = [send(i) for i in range(count)]
    for result in results:
        result.get(timeout=120)
    return count / (time.perf_counter() - started)


def task_overhead(report: Report, count: int) -> None:
    from bench.tasks import noop, tracked
    from jobs.models import SystemCheck

    user = staff_user()
    rates = {"noop": [], "tracked": []}
    for _ in range(2):  # alternated, so a burst of load elsewhere hits both
        rates["noop"].append(throughput(lambda i: noop.apply_async(args=[i], queue="default"), count))
        jobs = SystemCheck.objects.bulk_create(SystemCheck(started_by=user, total_items=1) for _ in range(count))
        rates["tracked"].append(throughput(lambda i: tracked.apply_async(args=[jobs[i].pk], queue="default"), count))  # noqa: B023 (called in this iteration)
    ours, base = max(rates["tracked"]), max(rates["noop"])
    report.add(
        Figure(
            "Task overhead: job-tracked task / no-op task (throughput)",
            f"{ours:.0f} tasks/s",
            f"{base:.0f} tasks/s",
            ours / base,
            "≥ 0.5 (reach 0.8)",
            ours / base >= 0.5,
            f"{count} tasks each, twice, one worker of 2 processes on RabbitMQ, best of two",
        )
    )
    if ours / base < 0.8:
        report.profile("a job-tracked task body (run_job), in-process", tracked_task_in_process, 20)


def click_to_running(report: Report, web: Web, clicks: int) -> None:
    """POST /system/checks/ (starts a job of three probe tasks) → each probe task's body starts."""
    from jobs.models import QueueProbe, SystemCheck

    browser = Browser(web.url)
    browser.sign_in("bench", "bench-password-1")
    browser.get("/system/")
    sent, posts = {}, []
    for _ in range(clicks):
        before = SystemCheck.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
        clicked = time.time()
        browser.post("/system/checks/", {})
        posts.append((time.time() - clicked) * 1000)
        check = SystemCheck.objects.filter(pk__gt=before).order_by("pk").values_list("pk", flat=True).first()
        sent[check] = clicked
        time.sleep(0.3)
    deadline = time.monotonic() + 60
    while (
        QueueProbe.objects.filter(check_run__in=sent, answered_at__isnull=True).exists() and time.monotonic() < deadline
    ):
        time.sleep(0.2)
    delays = [
        (answered.timestamp() - sent[check]) * 1000
        for check, answered in QueueProbe.objects.filter(check_run__in=sent, answered_at__isnull=False).values_list(
            "check_run_id", "answered_at"
        )
    ]
    p50, p95 = percentile(delays, 50), percentile(delays, 95)
    report.add(
        Figure(
            "Click to running: POST → task body starts, p50 / p95",
            f"{p50:.0f} / {p95:.0f} ms",
            "—",
            None,
            "p50 ≤ 50 ms",
            p50 <= 50,
            f"{clicks} clicks × 3 probe tasks (one per queue), timed from before the POST to the probe's own timestamp; "
            f"the POST's own response took p50 {percentile(posts, 50):.0f} ms",
        )
    )
    if p50 > 50:
        report.profile("Click to running: the POST that starts a system check, in-process", post_system_check, 10)
    report.click_delays = delays


def wrk(url: str, seconds: int, headers: dict) -> dict:
    """`wrk -t2 -c16` for `seconds`: requests/s and latency percentiles (ms)."""
    args = ["wrk", "-t2", "-c16", f"-d{seconds}s", "--latency"]
    for name, value in headers.items():
        args += ["-H", f"{name}: {value}"]
    out = subprocess.run([*args, url], capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    latency = {p: _ms(re.search(rf"\s{p}%\s+([\d.]+\w+)", out).group(1)) for p in ("50", "99")}
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return {"rate": rate, **latency, "non_2xx": int(errors.group(1)) if errors else 0}


def _ms(text: str) -> float:
    value, unit = re.match(r"([\d.]+)(\w+)", text).groups()
    return float(value) * {"us": 0.001, "ms": 1, "s": 1000, "m": 60000}[unit]


def signed_in_session() -> str:
    """A session key of the bench user, made as the login view makes it (wrk sends it as a cookie)."""
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY

    user = staff_user()
    session = import_module(settings.SESSION_ENGINE).SessionStore()
    session.update(
        {
            SESSION_KEY: str(user.pk),
            BACKEND_SESSION_KEY: settings.AUTHENTICATION_BACKENDS[-1],  # the model backend the login view uses
            HASH_SESSION_KEY: user.get_session_auth_hash(),
        }
    )
    session.create()
    return session.session_key


def live_progress(report: Report, web: Web, seconds: int) -> None:
    """A job's JSON status under 16 clients while the job updates its row, next to /healthz on the same server.

    Both signed in: the cookie makes /healthz pay what every signed-in request pays (the session and
    the user, read by AuthenticationMiddleware for AuditMiddleware), so the ratio is what the status
    endpoint adds to that. /healthz without the cookie, the server's floor, is reported beside it.
    """
    from django.conf import settings

    from bench.tasks import progress
    from jobs.models import SystemCheck

    signed_in = {"Cookie": f"{settings.SESSION_COOKIE_NAME}={signed_in_session()}", "Accept": "application/json"}
    job = SystemCheck.objects.create(started_by=staff_user(), total_items=1000)
    progress.apply_async(args=[job.pk, 6 * seconds + 10], queue="default")
    time.sleep(1)
    urls = {"status": f"{web.url}/system/checks/{job.pk}/status/", "minimal": f"{web.url}/healthz"}
    for url in urls.values():  # warm-up, not counted: each gunicorn worker's first requests (imports, connections)
        wrk(url, 3, signed_in)
    runs = {"status": [], "minimal": []}
    # Twice, the second time in turned order: a cold first run or a burst of load elsewhere hits both alike.
    for order in (("status", "minimal"), ("minimal", "status")):
        for name in order:
            runs[name].append(wrk(urls[name], seconds, signed_in))
    status, minimal = (merged(runs[name]) for name in ("status", "minimal"))
    anonymous = wrk(urls["minimal"], seconds, {"Accept": "application/json"})
    ratio = status["rate"] / minimal["rate"]
    report.add(
        Figure(
            "Live progress under load: status endpoint / minimal view (requests/s)",
            f"{status['rate']:.0f} req/s, p50 {status['50']:.1f} ms, p99 {status['99']:.1f} ms",
            f"{minimal['rate']:.0f} req/s, p50 {minimal['50']:.1f} ms, p99 {minimal['99']:.1f} ms",
            ratio,
            "ratio ≥ 0.9 and p99 ≤ 50 ms",
            ratio >= 0.9 and status["99"] <= 50,
            f"wrk -t2 -c16 -d{seconds}s on the status endpoint and on /healthz, both signed in, after 3 s of each "
            "not counted (warm-up), twice each in turned order (mean requests/s, mean p50, worse p99), while a task "
            "updates the job row every 50 ms; "
            f"/healthz without a session: {anonymous['rate']:.0f} req/s, p99 {anonymous['99']:.1f} ms; "
            f"gunicorn: 2 sync workers; non-2xx: {status['non_2xx']} / {minimal['non_2xx']}; the status JSON is read from "
            "the job row at most every half second (jobs/live_status.py: a payload cached for half a poll, and a tenth of "
            "a poll in the web process), the user from Memcached (spelunker/auth.py)",
        )
    )
    if ratio < 0.9 or status["99"] > 50:
        report.profile("the job status view, in-process (session, queries, JSON)", status_view_in_process, 50)


def first_runs(report: Report, runs: int) -> None:
    """A newcomer's `make run` from a fresh clone to /readyz, `runs` times one after another (bench_first_run.py)."""
    from bench_first_run import first_run, uv_cache_state

    cache = uv_cache_state()
    seconds = [first_run(keep=False, ready_only=True) for _ in range(runs)]
    report.add(
        Figure(
            f"A newcomer's first run: fresh clone → make run → /readyz 200, {runs} runs",
            ", ".join(f"{s:.1f}" for s in seconds) + " s",
            "—",
            None,
            "each < 60 s",
            max(seconds) < 60,
            "bench/bench_first_run.py's first_run: clone HEAD, SPELUNKER_DEMO=1 make run on free ports with a "
            f"newcomer's environment (its own .venv from uv's cache, services, migrations, demo data); uv cache: {cache}",
        )
    )


def merged(runs: list[dict]) -> dict:
    """wrk runs of one URL as one: mean rate and p50, the worse p99, every non-2xx answer."""
    return {
        "rate": sum(r["rate"] for r in runs) / len(runs),
        "50": sum(r["50"] for r in runs) / len(runs),
        "99": max(r["99"] for r in runs),
        "non_2xx": sum(r["non_2xx"] for r in runs),
    }


def run_script(args: list[str], timeout: float = 900, env=None) -> str:
    done = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout, env=env)
    if done.returncode:
        raise RuntimeError(f"{' '.join(args)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}")
    return done.stdout


def search(report: Report, sizes: list[int], folder: Path, quick: bool, sqlite_sizes: list[int] = ()) -> None:
    """search_passages() on the stack's PostgreSQL at `sizes`, then on SQLite (the embedded default) at `sqlite_sizes`."""
    results = []
    for chunks in sizes:
        results.append(search_figure(report, chunks, folder, quick, env=os.environ))
    # SQLite: the database of `make run`, in a folder of its own (no DATABASE_URL: settings' default).
    sqlite_env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"} | {
        "SPELUNKER_VAR_DIR": str(folder / "sqlite")
    }
    for chunks in sqlite_sizes:
        results.append(search_figure(report, chunks, folder, quick, env=sqlite_env))
    report.search_results = results


def search_figure(report: Report, chunks: int, folder: Path, quick: bool, env) -> dict:
    """One library size: latency (first-asked and repeated), recall where the index is approximate, memory."""
    queries, processes = ("60", "1") if quick else ("200", "3")
    out = folder / f"search-{chunks}-{len(report.figures)}.json"
    on_stack = env is os.environ  # faiss, the anchor, beside the stack's database's runs (once per size is enough)
    run_script(
        [
            "bench/bench_search.py",
            "--chunks",
            str(chunks),
            "--queries",
            queries,
            "--processes",
            processes,
            "--keep",
            "--json",
            str(out),
            *(["--faiss"] if on_stack else []),
        ],
        timeout=900 + chunks / 500,
        env=env,
    )  # filling a million takes minutes
    found = json.loads(out.read_text())
    aim = 10 if chunks <= 100_000 else 20
    own = max(p["own"] for p in found["processes"])
    copy_mb = chunks * 384 * 4 / 2**20
    first = max(p["first_ms"] for p in found["processes"])
    approximate = found["approximate_chunks"] > 0
    if approximate:  # recall is of the approximate index against exact search of the same vectors
        recall = (
            f"recall@10 {found['recall_at_10']:.3f} questionnaire questions, {found['dense_recall_at_10']:.3f} "
            f"dense queries (none a stored chunk; {found['approximate_chunks']:,} chunks in inverted lists)"
        )
        recall_baseline = "exact search of the same vectors: recall 1 by definition; "
    else:
        recall = "exact search (below SEARCH_INDEX_APPROXIMATE_FROM): no recall to measure"
        recall_baseline = ""
    report.add(
        Figure(
            f"Search at {chunks:,} chunks ({found['database']}): p50 / p99; first-asked and repeated p50; recall@10; "
            "first search; memory per process",
            f"{found['p50_ms']:.1f} / {found['p99_ms']:.1f} ms; a question asked the first time p50 "
            f"{found['first_asked_p50_ms']:.1f} ms, asked again {found['repeated_p50_ms']:.1f} ms; {recall}; "
            f"first search of a new process ≤ {first:.0f} ms, after a change {found['after_change_ms']:.0f} ms; index built "
            f"in {found['build_s']:.0f} s; per searching process: own memory ≤ {own} MB, "
            f"PSS ≤ {max(p['pss'] for p in found['processes'])} MB, RSS ≤ {max(p['rss'] for p in found['processes'])} MB",
            f"{recall_baseline}full-text step alone p50 {found['lexical_p50_ms']:.1f} ms; an in-process copy of the index: "
            f"{copy_mb:.0f} MB" + (f"; {faiss_anchor(found['faiss'])}" if found.get("faiss") else ""),
            None,
            f"p50 ≤ {aim} ms" + (", recall@10 ≥ 0.95" if approximate else ""),
            found["p50_ms"] <= aim and (not approximate or found["recall_at_10"] >= 0.95),
            f"bench/bench_search.py --chunks {chunks} on {found['database']}: {queries} questionnaire questions (the "
            f"p50 / p99 over all, first-asked ones included); {processes} more searching processes started together",
        )
    )
    if found["p50_ms"] > aim and on_stack:  # in this process: the stack's database only
        report.profile(f"search_passages() at {chunks:,} chunks, in-process", search_once, 30)
    return found


def faiss_anchor(found: dict) -> str:
    """faiss's IVF beside our index: recall@10 and vector-scoring p50 per nprobe, for queries that are not stored chunks."""
    runs = "; ".join(
        f"nprobe {run['nprobe']}: "
        + ", ".join(
            f"{label} recall@10 {run[name]['faiss_recall']:.3f} vs ours {run[name]['recall']:.3f}, "
            f"p50 {run[name]['faiss_p50_ms']:.1f} vs ours {run[name]['index_p50_ms']:.1f} ms"
            for name, label in (("questions", "questions"), ("held_out", "unstored passages"))
        )
        for run in found["runs"]
    )
    return f"faiss IVF ({found['lists']} lists, built in {found['build_s']:.0f} s, one thread): {runs}"


WORKSPACE_AIM_MS, WORKSPACE_AIM_KB = 200, 300


def workspace_page(report: Report, questions: int, runs: int, folder: Path) -> None:
    """The answers workspace of one RFP of `questions` questions: server time and HTML size of each request."""
    out = folder / "workspace.json"
    run_script(
        [
            "bench/bench_workspace.py",
            "--questions",
            str(questions),
            "--runs",
            str(runs),
            "--profile",
            "--json",
            str(out),
        ]
    )
    found = json.loads(out.read_text())
    requests, baseline = found["requests"], found["baseline"]
    first = requests["RFP page, first page"]
    worst_ms = max(r["p50_ms"] for r in requests.values())
    worst_kb = max(r["kb"] for r in requests.values())
    met = worst_ms <= WORKSPACE_AIM_MS and worst_kb <= WORKSPACE_AIM_KB
    command = f"bench/bench_workspace.py --questions {questions} --runs {runs}"
    report.add(
        Figure(
            f"Answers workspace at {questions:,} questions: server time p50 (p90; CPU of the web process) and HTML per request",
            "; ".join(
                f"{name} {r['p50_ms']:.0f} ({r['p90_ms']:.0f}; CPU {r['cpu_ms']:.0f}) ms, {r['kb']:.0f} KB"
                for name, r in requests.items()
            ),
            f"every question on one page, as before paging: {baseline['p50_ms']:.0f} (CPU {baseline['cpu_ms']:.0f}) ms, "
            f"{baseline['kb']:.0f} KB",
            first["p50_ms"] / baseline["p50_ms"],
            f"≤ {WORKSPACE_AIM_MS} ms and ≤ {WORKSPACE_AIM_KB} KB per page",
            met,
            f"{command}: Django's test client against PostgreSQL (no network), signed in; median of the runs",
        )
    )
    load = " → ".join(" / ".join(f"{x:.1f}" for x in found["load"][when]) for when in ("before", "after"))
    report.notes += [
        f"### The answers workspace at {questions:,} questions",
        "",
        f"`{command}`, load average (1/5/15 min) {load} on {os.cpu_count()} cores. Wall time is the server's time "
        "for the request as a client sees it (the database's time included); CPU is the web process's own CPU time, "
        "which a loaded machine does not stretch.",
        "",
        "| request | wall p50 (p90) | CPU of the web process | SQL queries | HTML |",
        "|---|---|---|---|---|",
        *[
            f"| {name} | {r['p50_ms']:,.0f} ({r['p90_ms']:,.0f}) ms | {r['cpu_ms']:,.0f} ms | {r['queries']} | "
            f"{r['kb']:,.0f} KB |"
            for name, r in [*requests.items(), ("baseline: every question on one page", baseline)]
        ],
        "",
    ]
    if not met:
        report.notes += [
            "Where the first page's time goes (pyinstrument, wall clock):",
            "",
            "```",
            found["profile"],
            "```",
            "",
        ]


def ingestion(documents: int, workers: int, repetitions: int, *extra: str) -> dict:
    """bench_ingest.py's figures: pipeline and loop with `workers` processes each, `repetitions` runs in turned order."""
    out = Path(tempfile.mkdtemp(prefix="bench-ingest-")) / "ingest.json"
    run_script(
        [
            "bench/bench_ingest.py",
            "--documents",
            str(documents),
            "--workers",
            str(workers),
            "--start",
            "http",
            "--repetitions",
            str(repetitions),
            *extra,
            "--json",
            str(out),
        ],
        timeout=3600,
    )
    return json.loads(out.read_text())


def rate(side: dict) -> str:
    """A side's median documents/s, its spread, chunks/s and CPU per document."""
    return (
        f"{side['docs_per_s']:.1f} docs/s (min–max {side['min']:.1f}–{side['max']:.1f}), "
        f"{side['chunks_per_s']:.0f} chunks/s, CPU {side['cpu_per_doc_s'] * 1000:.0f} ms per document"
    )


def ingestion_figures(report: Report, documents: int, repetitions: int, scaling: bool) -> None:
    """One embedding worker process against a one-process loop, and two against two."""
    runs = [ingestion(documents, workers, repetitions) for workers in (1, 2)]
    for found in runs:
        n = found["workers"]
        report.add(
            Figure(
                f"Ingestion, {n} against {n}: documents/s from the HTTP upload → RabbitMQ → {n} worker process"
                f"{'es' if n > 1 else ''} → ready, / the in-process loop in {n} process{'es' if n > 1 else ''}",
                rate(found["pipeline"]),
                rate(found["loop"]),
                found["ratio"],
                "≥ 0.9",
                found["ratio"] >= 0.9,
                f"bench/bench_ingest.py --documents {documents} --workers {n} --repetitions {repetitions}: medians of "
                f"{repetitions} runs each side in alternating order; signed in, one POST per file to /library/upload/ on "
                "gunicorn, three at a time (as the library page's upload script), until every document is processed; the "
                "loop's processes take every n-th document; CPU: the loop processes against the worker's and gunicorn's "
                "process trees and the uploading client (RabbitMQ and the database on neither side)",
            )
        )
    if scaling:  # the plot's third point: one run each side, more processes than cores
        four = ingestion(documents, 4, 1)
        report.scaling = [
            {"workers": r["workers"], "loop": r["loop"]["docs_per_s"], "pipeline": r["pipeline"]["docs_per_s"]}
            for r in (*runs, four)
        ]


def encoder_figures(report: Report, chunks: int, repeats: int) -> None:
    """The in-process encoder of a fresh install's default model beside sentence-transformers on PyTorch CPU."""
    out = Path(tempfile.mkdtemp(prefix="bench-encoder-")) / "encoder.json"
    run_script(
        ["bench/bench_encoder.py", "--chunks", str(chunks), "--repeats", str(repeats), "--json", str(out)], timeout=3600
    )  # the first run installs the reference environment (several GB)
    found = json.loads(out.read_text())
    rates, ours = found["rates"], "fp32, all cores"
    variants = "; ".join(
        f"{name}: {rates[name]:.1f} chunks/s, cosine ≥ {found['cosine_min'][name]:.4f}"
        for name in rates
        if name != "reference"
    )
    report.add(
        Figure(
            "Embedding: chunks/s of the in-process encoder (all-MiniLM-L6-v2 on ONNX Runtime) / sentence-transformers "
            "on PyTorch CPU, same chunks; cosine to its vectors",
            f"{rates[ours]:.1f} chunks/s, cosine ≥ {found['cosine_min'][ours]:.5f}",
            f"{rates['reference']:.1f} chunks/s (torch {found['torch']}, {found['cores']} threads)",
            rates[ours] / rates["reference"],
            "≥ 1.0, cosine ≥ 0.999",
            rates[ours] >= rates["reference"] and found["cosine_min"][ours] >= 0.999,
            f"bench/bench_encoder.py --chunks {chunks} --repeats {repeats}: {found['chunks']} chunks of the evaluation "
            f"documents ({found['mean_tokens']:.0f} tokens on average), alternating runs, medians",
            f"Variants: {variants}. Loading ours: {found['load_seconds']:.1f} s.",
        )
    )


def default_model_ingestion(report: Report, documents: int, repetitions: int) -> None:
    """Issue 23 point 5: ingestion and the library re-embed with a fresh install's default model, beside the loop."""
    found = ingestion(documents, 1, repetitions, "--model", "fresh-default", "--reembed")
    loop, pipeline, job = found["loop"], found["pipeline"], found["reembed"]
    command = (
        f"bench/bench_ingest.py --documents {documents} --workers 1 --repetitions {repetitions} --model "
        "fresh-default --reembed: the fresh install's default embedding model (all-MiniLM-L6-v2), one embedding "
        "worker process against a one-process loop, medians of runs in alternating order"
    )
    report.add(
        Figure(
            "Ingestion with a fresh install's default model: HTTP upload → RabbitMQ → 1 worker, / in-process loop",
            rate(pipeline),
            rate(loop),
            found["ratio"],
            "≥ 0.9",
            found["ratio"] >= 0.9,
            command,
        )
    )
    report.add(
        Figure(
            "Library re-embed job to a fresh install's default model (offline baseline → all-MiniLM-L6-v2) / in-process loop",
            f"{job['docs_per_s']:.2f} docs/s, {job['chunks_per_s']:.1f} chunks/s (one run)",
            rate(loop),
            job["docs_per_s"] / loop["docs_per_s"],
            "—",
            None,
            command,
        )
    )


def batch_answering(report: Report, questions: int, latency_ms: int, workers: list[int], library_chunks: int) -> None:
    """One responder job at concurrency 1 and 8 through RabbitMQ and a batch worker, then the scaling runs;
    then the same two jobs against a library of `library_chunks` more chunks, where each question's search costs."""
    found = run_rfp(questions, latency_ms, "--scaling", *map(str, workers), "--jobs", "4")
    speedup_figure(report, found, questions, latency_ms, "a library of two short documents (search costs ~nothing)")
    large = run_rfp(questions, latency_ms, "--library-chunks", str(library_chunks))
    speedup_figure(
        report,
        large,
        questions,
        latency_ms,
        f"a library of {library_chunks:,} more chunks (bench_search.py's passages; every question searches it)",
    )
    report.batch_scaling = found["scaling"]
    if found["scaling"]:
        rates = {r["workers"]: r["rate"] for r in found["scaling"]}
        first, last = min(rates), max(rates)
        report.add(
            Figure(
                f"Batch scaling: questions/s with {last} vs {first} batch worker processes",
                f"{rates[last]:.1f} questions/s",
                f"{rates[first]:.1f} questions/s",
                rates[last] / rates[first],
                "—",
                None,
                f"bench/bench_rfp.py --scaling {' '.join(map(str, workers))}: 4 responder jobs of {questions // 4} questions "
                "started at once, separate `celery worker -Q batch -c 1` processes; "
                + ", ".join(f"{n}: {rate:.1f}/s" for n, rate in rates.items()),
            )
        )


def run_rfp(questions: int, latency_ms: int, *extra: str) -> dict:
    out = Path(tempfile.mkdtemp(prefix="bench-rfp-")) / "rfp.json"
    run_script(
        [
            "bench/bench_rfp.py",
            "--questions",
            str(questions),
            "--latency-ms",
            str(latency_ms),
            "--concurrency",
            "1",
            "8",
            *extra,
            "--json",
            str(out),
        ],
        timeout=3600,
    )
    return json.loads(out.read_text())


def speedup_figure(report: Report, found: dict, questions: int, latency_ms: int, library: str) -> None:
    one, eight = (next(r for r in found["concurrency"] if r["concurrency"] == c) for c in (1, 8))
    speedup = one["seconds"] / eight["seconds"]
    report.add(
        Figure(
            f"Batch answering: {questions} questions, fake LLM {latency_ms} ms, concurrency 8 (default) vs 1; {library}",
            f"{eight['seconds']:.2f} s ({eight['successful']} answered)",
            f"{one['seconds']:.2f} s ({one['successful']} answered)",
            speedup,
            "≥ 7×",
            speedup >= 7,
            f"bench/bench_rfp.py{' --library-chunks ' + str(found['library_chunks']) if found['library_chunks'] else ''}: "
            "the job row and its message as the Draft answers button makes them → RabbitMQ → "
            "a fresh `celery worker -Q batch -c 1` for each side (a process remembers its vectors), timed until the row reads completed "
            f"(the row's own started → completed: {one['row_seconds']:.2f} / {eight['row_seconds']:.2f} s)",
        )
    )


# --- what the profiles run, in this process -------------------------------------------------
def search_once() -> None:
    from solution_library.services.search import search_passages

    search_passages("Do you encrypt backups and test restores of customer data?")


@functools.cache
def signed_in_client():
    """Django's test client, signed in once (so a profile shows the view, not the sign-in)."""
    from django.test import Client

    client = Client(HTTP_HOST="127.0.0.1")  # an allowed host: "testserver" would profile the 400 page
    client.force_login(staff_user())
    return client


def post_system_check() -> None:
    """The view behind the click, through Django's test client (no network): the web side of click-to-running."""
    signed_in_client().post("/system/checks/")


def tracked_task_in_process() -> None:
    """A job-tracked task body run in this process (apply): what run_job adds to a no-op."""
    from bench.tasks import tracked
    from jobs.models import SystemCheck

    tracked.apply(args=[SystemCheck.objects.create(started_by=staff_user(), total_items=1).pk])


def status_view_in_process() -> None:
    signed_in_client().get(latest_status_url(), HTTP_ACCEPT="application/json")


@functools.cache
def latest_status_url() -> str:
    """The status URL of the job live_progress watched, looked up once (so the profile counts the view's queries only)."""
    from jobs.models import SystemCheck

    return f"/system/checks/{SystemCheck.objects.order_by('-pk').values_list('pk', flat=True).first()}/status/"


# --- plots and the page --------------------------------------------------------------------------
def plots(report: Report, folder: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    if any(f.ratio is not None for f in report.figures):
        ratios_plot(report, folder, plt)
    if getattr(report, "search_results", None):
        fig, ax = plt.subplots(figsize=(6, 3.5))
        for database in dict.fromkeys(r["database"] for r in report.search_results):
            results = [r for r in report.search_results if r["database"] == database]
            sizes = [r["chunks"] for r in results]
            ax.plot(sizes, [r["p50_ms"] for r in results], "o-", label=f"{database}: search_passages p50")
            ax.plot(sizes, [r["p99_ms"] for r in results], "s--", label=f"{database}: p99")
            ax.plot(sizes, [r["lexical_p50_ms"] for r in results], "^:", label=f"{database}: full-text step alone, p50")
        ax.set_xscale("log")
        ax.set_xlabel("chunks")
        ax.set_ylabel("ms")
        ax.legend()
        fig.tight_layout()
        fig.savefig(folder / "search.png", dpi=90)
        report.plots.append(("search.png", "Search latency by library size"))
        plt.close(fig)
    if getattr(report, "scaling", None):
        scaling_plot(report, folder, plt)
    if getattr(report, "batch_scaling", None):
        batch_scaling_plot(report, folder, plt)


RATIO_COLOURS = {True: "tab:green", False: "tab:red", None: "tab:grey"}
RATIO_LEGEND = ((True, "aim met"), (False, "aim missed"), (None, "no aim (context)"))


def ratios_plot(report: Report, folder: Path, plt) -> None:
    """One bar per figure with a ratio, in the table's order, each labelled so that no label is cut or shared."""
    from matplotlib.patches import Patch

    rated = [f for f in report.figures if f.ratio is not None]
    fig, ax = plt.subplots(figsize=(9, 0.8 + 0.6 * len(rated)))
    rows = range(len(rated))
    bars = ax.barh(rows, [f.ratio for f in rated], color=[RATIO_COLOURS[f.met] for f in rated])
    ax.set_yticks(rows, ratio_labels(rated))
    ax.bar_label(bars, labels=[f"{f.ratio:.2f}" for f in rated], padding=3, fontsize=8)
    ax.axvline(1.0, color="black", linewidth=0.8, linestyle=":")
    ax.margins(x=0.08)
    ax.set_xlabel("ours / baseline, measured in the same run (dotted: 1)")
    ax.invert_yaxis()
    ax.legend(handles=[Patch(color=RATIO_COLOURS[met], label=label) for met, label in RATIO_LEGEND], fontsize=8)
    fig.tight_layout()
    fig.savefig(folder / "ratios.png", dpi=90)
    report.plots.append(
        ("ratios.png", "Each figure as a ratio to its baseline (green: aim met; red: missed; grey: no aim)")
    )
    plt.close(fig)


def ratio_labels(figures: list[Figure]) -> list[str]:
    """Each figure's name before its colon, wrapped; two figures of one name ("Batch answering") are told apart by
    what their names end with, brackets left out ("a library of 100,000 more chunks")."""
    short = [f.name.split(":")[0] for f in figures]
    labels = [
        f"{name} — {re.sub(r' *[(][^)]*[)]', '', figure.name).rsplit(';', 1)[-1].strip()}"
        if short.count(name) > 1
        else name
        for name, figure in zip(short, figures)
    ]
    return [textwrap.fill(textwrap.shorten(label, 80, placeholder="…"), 40) for label in labels]


def scaling_plot(report: Report, folder: Path, plt) -> None:
    fig, ax = plt.subplots(figsize=(6, 3.5))
    workers = [r["workers"] for r in report.scaling]
    ax.plot(workers, [r["pipeline"] for r in report.scaling], "o-", label="pipeline (HTTP upload, RabbitMQ)")
    ax.plot(workers, [r["loop"] for r in report.scaling], "s--", label="in-process loop (as many processes)")
    ax.set_xlabel("embedding worker processes")
    ax.set_ylabel("documents/s")
    ax.set_xticks(workers)
    ax.legend()
    fig.tight_layout()
    fig.savefig(folder / "scaling.png", dpi=90)
    report.plots.append(("scaling.png", "Ingestion throughput with 1, 2 and 4 worker processes (2-core machine)"))
    plt.close(fig)


def batch_scaling_plot(report: Report, folder: Path, plt) -> None:
    runs = report.batch_scaling
    workers = [r["workers"] for r in runs]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(workers, [r["rate"] for r in runs], "o-", label="responder: 4 jobs at once, through RabbitMQ")
    per_worker = runs[0]["rate"] / workers[0]
    ax.plot(workers, [per_worker * w for w in workers], ":", color="grey", label="linear from the first point")
    ax.set_xlabel("batch worker processes (celery worker -Q batch -c 1)")
    ax.set_ylabel("questions/s")
    ax.set_xticks(workers)
    ax.set_ylim(bottom=0)
    ax.legend()
    fig.tight_layout()
    fig.savefig(folder / "scaling-batch.png", dpi=90)
    report.plots.append(
        ("scaling-batch.png", "Batch answering throughput with 1, 2 and 4 worker processes (2-core machine)")
    )
    plt.close(fig)


def page(report: Report, seconds: float) -> str:
    lines = [
        "# Benchmarks",
        "",
        f"Written by `{report.command}` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} "
        f"in {seconds / 60:.1f} min at commit {report.commit}, source hash `{report.source_hash}` (the files listed in "
        "bench/sources.py; `make test` prints which of them changed since, bench/stale.py). Do not edit: every figure "
        "below comes from that command. "
        f"On {os.cpu_count()} cores; load average (1/5/15 min) {' → '.join(report.loads)}. "
        "Private stack: RabbitMQ, Memcached, PostgreSQL (bin/stack), real Celery workers, gunicorn with the "
        "project's config. Ratios are the figures (ours / baseline, measured in the same run); absolute times are "
        "context on a shared, noisy machine.",
        "",
        "| figure | ours | baseline | ratio | aim | met | how |",
        "|---|---|---|---|---|---|---|",
    ]
    for f in report.figures:
        ratio = "—" if f.ratio is None else f"{f.ratio:.2f}"
        met = {True: "yes", False: "**no**", None: "—"}[f.met]
        lines.append(f"| {f.name} | {f.ours} | {f.baseline} | {ratio} | {f.aim} | {met} | {f.command} |")
    lines.append("")
    for name, caption in report.plots:
        lines += [f"![{caption}](benchmarks/{name})", "", f"*{caption}*", ""]
    lines += report.notes
    return "\n".join(lines) + "\n"


def page_command(args) -> str:
    """The command that makes this page, as its header names it."""
    if args.only:
        return f"bench/run_all.py{' --quick' if args.quick else ''} --only {' '.join(args.only)}"
    if args.quick:
        return "make bench-quick"
    return "make bench BENCH_ARGS=--million" if args.million else "make bench"


SECTIONS = (
    "first_run",
    "task_overhead",
    "click_to_running",
    "live_progress",
    "workspace",
    "ingestion",
    "encoder",
    "batch",
    "search",
)


def run_figures(report: Report, args, folder: Path) -> None:
    """Every figure (or the sections of --only), the quick run's with smaller counts and without the slow ones."""
    quick = args.quick

    def wanted(section: str) -> bool:
        return not args.only or section in args.only

    staff_user()
    if wanted("first_run") and not quick:  # first: the machine is at its quietest before the bench's own load
        first_runs(report, 3)
    if wanted("task_overhead") or wanted("click_to_running") or wanted("live_progress"):
        worker, web = bench_worker(), Web(folder / "gunicorn.log")
        try:
            if wanted("task_overhead"):
                task_overhead(report, 50 if quick else 500)
            if wanted("click_to_running"):
                click_to_running(report, web, 3 if quick else 30)
            if wanted("live_progress"):
                live_progress(report, web, 2 if quick else 10)
        finally:
            worker.stop()
            web.stop()
    if wanted("workspace"):
        workspace_page(report, 2_000, 5 if quick else 20, folder)
    if wanted("ingestion"):
        ingestion_figures(report, 6 if quick else 200, 1 if quick else 3, scaling=not quick)
    if (
        wanted("encoder") and not quick
    ):  # the reference encoder's environment is several GB: never installed by make test
        encoder_figures(report, 128, 3)
        default_model_ingestion(report, 40, 3)
    if wanted("batch"):
        if quick:
            batch_answering(report, 16, 20, [1, 2], library_chunks=500)
        else:
            batch_answering(report, 200, 200, [1, 2, 4], library_chunks=100_000)
    # Last: the search benchmark leaves its library in the database (--keep, so 100,000 reuses
    # the first 10,000), and every responder question would search it.
    if wanted("search"):
        sizes = [2_000] if quick else [10_000, 100_000] + ([1_000_000] if args.million else [])
        # --million: the SQLite rows too (the embedded default's figures, which SEARCH_INDEX_APPROXIMATE_FROM rests on).
        search(report, sizes, folder, quick, sqlite_sizes=[100_000, 1_000_000] if args.million else [])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", default=str(ROOT / "docs" / "benchmarks.md"))
    parser.add_argument(
        "--million",
        action="store_true",
        help="also search at 1,000,000 chunks, and on SQLite at 100,000 and 1,000,000 (about 40 more minutes)",
    )
    parser.add_argument(
        "--only",
        nargs="+",
        choices=SECTIONS,
        help="only these sections (development; the page goes to var/benchmarks-only.md unless --out)",
    )
    args = parser.parse_args()
    if args.only and args.out == str(ROOT / "docs" / "benchmarks.md"):
        args.out = str(ROOT / "var" / "benchmarks-only.md")  # never a partial docs/benchmarks.md
    started = time.perf_counter()
    report = Report(
        quick=args.quick,
        loads=[load_average()],
        command=page_command(args),
        commit=MEASURED.commit(),
        file_hashes=MEASURED.file_hashes(),
    )
    folder = Path(tempfile.mkdtemp(prefix="bench-", dir=ROOT / ".run" if (ROOT / ".run").exists() else None))
    start_stack(folder / "stack")  # its own: the test run's workers would take the bench's probe tasks
    try:
        setup_django(folder)
        run_figures(report, args, folder)
    finally:
        stop_stack(folder / "stack")
        shutil.rmtree(folder, ignore_errors=True)  # the bench library, its index files, logs
    report.loads.append(load_average())
    out = Path(args.out)
    plots(report, out.parent / "benchmarks")
    out.write_text(page(report, time.perf_counter() - started))
    write_manifest(manifest_for(out), report.file_hashes)  # the files as measured: bench/stale.py compares them later
    print(out.read_text())


if __name__ == "__main__":
    main()
