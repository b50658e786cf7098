"""A newcomer's first run, timed: fresh clone → `SPELUNKER_DEMO=1 make run` → answered demo RFP.

    .venv/bin/python bench/bench_first_run.py [--runs 3] [--keep]

Clones the committed HEAD into a temporary folder and runs `make run` there with
the demo data, on free ports and with nothing of this shell's project settings
(as tests/test_fresh_clone.py does). Then, as a person would in the browser:
signs in, waits until the demo library (its uploads and its documentation
sync) has been processed, starts the responder
on the demo RFP with "review when done", and waits for the chained reviewer.
Prints the seconds from `make run` to each step, and Ctrl-C stops the stack.

What it measures: each clone builds its own .venv (bin/venv: uv, pinned, from its
cache in ~/.cache/uv when an earlier install filled it — the line "uv cache" says
which; the very first install on a machine downloads every wheel), starts its own
RabbitMQ and Memcached, migrates a new SQLite database and loads the demo. Under
/readyz it prints when make run's own steps ended (venv, database, services, web),
and the load average, since the 2-core development machine is shared.
"""

import argparse
import os
import re
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.stack_run import RunStack, clone_head, csrf_token, free_port, newcomer_environment, sign_in  # noqa: E402
from tests.workers import wait_for  # noqa: E402

ADMIN_PASSWORD = "pw-first-run-1618"
STEP_TIMEOUT = 900


def library_state(database: Path) -> tuple[int, int, int]:
    """(documents, documents still processing, documentation syncs finished) in the clone's SQLite database."""
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=10) as db:
        total, processing = db.execute(
            "SELECT count(*), sum(review_status = 'processing') FROM solution_library_document"
        ).fetchone()
        (synced,) = db.execute(
            "SELECT count(*) FROM solution_library_syncjob WHERE status IN ('completed', 'failed', 'cancelled')"
        ).fetchone()
    return total, processing or 0, synced


def library_processed(database: Path) -> int:
    """The number of documents once the demo's uploads and its documentation sync are all processed, else 0."""
    if not database.exists():
        return 0
    total, processing, synced = library_state(database)
    return total if total and not processing and synced else 0


def demo_rfp_url(client) -> str:
    listing = client.get("/rfps/").text
    return re.search(r'href="(/rfps/\d+/)"', listing)[1]


def start_responder(client, rfp_url: str) -> str:
    """POST the responder's form with "review when done"; returns the job page's URL."""
    page = client.get(rfp_url).text
    response = client.post(
        f"{rfp_url}jobs/responder/", data={"csrfmiddlewaretoken": csrf_token(page), "review_when_done": "on"}
    )
    assert response.status_code == 302, response.text[:2000]
    return response.headers["location"]


def job_finished(client, job_url: str) -> dict | None:
    status = client.get(f"{job_url}status/", headers={"Accept": "application/json"}).json()
    return status if status["status"] in ("completed", "failed", "cancelled") else None


def chained_reviewer_url(client, responder_url: str) -> str | None:
    match = re.search(r'id="chained-reviewer" href="(/rfps/jobs/\d+/)"', client.get(responder_url).text)
    return match[1] if match else None


# bin/run-stack's lines "<step> after N s" (its clock starts with make run's).
RUN_STACK_STEP = re.compile(r"^(venv ready|database ready|services ready|web answering) after (\d+) s", re.M)


def uv_cache_state() -> str:
    cache = Path(os.environ.get("UV_CACHE_DIR") or Path.home() / ".cache" / "uv")
    if not cache.is_dir():
        return "cold (no uv cache: every wheel is downloaded)"
    size = sum(f.stat().st_size for f in cache.rglob("*") if f.is_file() and not f.is_symlink())
    return f"warm ({size / 1e6:,.0f} MB in uv's cache)"


def load() -> str:
    return "/".join(f"{value:.1f}" for value in os.getloadavg())


def first_run(keep: bool, ready_only: bool = False) -> float:
    """One fresh clone's run; returns the seconds to /readyz 200 (and stops there with `ready_only`)."""
    folder = Path(tempfile.mkdtemp(prefix="spelunker-first-run-"))
    clone = folder / "spelunker"
    clone_head(clone)
    print(f"uv cache: {uv_cache_state()}; load average {load()}", flush=True)
    run = RunStack(
        ["make", "run"],
        cwd=clone,
        log_path=folder / "make-run.log",
        env=newcomer_environment(
            SPELUNKER_PORT=str(free_port()),
            FLOWER_PORT=str(free_port()),
            SPELUNKER_ADMIN_PASSWORD=ADMIN_PASSWORD,
            SPELUNKER_DEMO="1",
        ),
    )
    marks: list[tuple[str, float]] = []

    def mark(step: str) -> None:
        marks.append((step, time.monotonic() - run.started_at))
        print(f"{marks[-1][1]:7.1f} s  {step}", flush=True)

    try:
        run.start()
        run.wait_ready(timeout=STEP_TIMEOUT)
        mark(f"/readyz 200 (venv, services, migrations, demo data queued; load average {load()})")
        for step, seconds in RUN_STACK_STEP.findall(run.output(tail=200_000)):
            print(f"{seconds:>5}   s    make run: {step}", flush=True)
        if ready_only:
            return marks[0][1]
        client = sign_in(run.web_url, "admin", ADMIN_PASSWORD)
        database = clone / "var" / "db.sqlite3"
        total = wait_for(lambda: library_processed(database), STEP_TIMEOUT, 1.0, "the demo library and its sync")
        mark(f"demo library processed ({total} documents, documentation sync included)")
        rfp_url = demo_rfp_url(client)
        responder_url = start_responder(client, rfp_url)
        responder = wait_for(lambda: job_finished(client, responder_url), STEP_TIMEOUT, 0.5, "the responder")
        mark(f"responder {responder['status']}: {responder['processed']} of {responder['total']} questions")
        reviewer_url = wait_for(lambda: chained_reviewer_url(client, responder_url), 60, 0.5, "the chained reviewer")
        reviewer = wait_for(lambda: job_finished(client, reviewer_url), STEP_TIMEOUT, 0.5, "the reviewer")
        mark(f"reviewer {reviewer['status']}: {reviewer['processed']} of {reviewer['total']} answers")
        export = client.get(f"{rfp_url}export.xlsx")
        assert export.status_code == 200, export.status_code
        mark(f"answers exported ({len(export.content):,} bytes of XLSX)")
    finally:
        run.interrupt()
        left = run.processes()
        run.kill()
        if not keep:
            shutil.rmtree(folder, ignore_errors=True)
    print("stopped with Ctrl-C" + (f"; left running and killed: {left}" if left else ", nothing left running"))
    return marks[0][1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1, help="fresh clones one after another (default 1)")
    parser.add_argument("--keep", action="store_true", help="leave the clones in place (stopped all the same)")
    args = parser.parse_args()
    seconds_to_ready = []
    for number in range(1, args.runs + 1):
        print(f"--- first run {number} of {args.runs}", flush=True)
        seconds_to_ready.append(first_run(args.keep))
    print("/readyz 200 after " + ", ".join(f"{seconds:.1f}" for seconds in seconds_to_ready) + " s")


if __name__ == "__main__":
    main()
