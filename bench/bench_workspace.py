"""The answers workspace at 2,000 questions (issue 21: a page in ≤ 200 ms server time and ≤ 300 KB of HTML).

    set -a; source .run/<dir>/env; set +a
    .venv/bin/python bench/bench_workspace.py [--questions 2000] [--runs 20] [--json out.json]

Builds an RFP of `--questions` questions answered as the batch jobs leave them
(rfp_manager.testing.make_answered_rfp: drafts, verdicts, expert flags, some
unanswered), then times, through Django's test client against the stack's
database (no network: the server's own time), the requests a reviewer makes:
the RFP page (first page, needs attention first), a page deep in document
order, a filtered and searched page, and the htmx swap of the workspace alone.
Prints each request's median and p90 time, its CPU time in this process (what
the request costs the web process, apart from waiting for a core on a loaded
machine, and apart from the database's own time), its SQL queries and its HTML
size; the load average before and after. --profile adds a pyinstrument profile
of the first page (make bench prints it when the aim is missed).

Baseline, in the same run: the same RFP page with every question on one page
(the workspace's page size set to the question count), which is what the page
was before paging. The ratio is the load-independent figure. The rows are deleted.
"""

import argparse
import json
import os
import statistics
import time

from _setup import percentile, profile_lines, setup_django

REQUESTS = {
    "RFP page, first page": "",
    "page 41 in document order": "?sort=document&page=41",
    "filtered: drafted, a section, words": "?status=drafted&section=Resilience&q=backups",
}


def measure(client, url: str, runs: int, headers: dict | None = None) -> dict:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.get(url, headers=headers or {})  # warm: templates, connections
    with CaptureQueriesContext(connection) as queries:  # counted after the warm-up, as every later request runs
        client.get(url, headers=headers or {})
    query_count = len(queries)  # now: the next request's start empties the log the context reads
    times, cpu, size = [], [], 0
    for _ in range(runs):
        started, started_cpu = time.perf_counter(), time.process_time()
        response = client.get(url, headers=headers or {})
        times.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - started_cpu) * 1000)
        assert response.status_code == 200, (url, response.status_code)
        size = len(response.content)
    return {
        "p50_ms": statistics.median(times),
        "p90_ms": percentile(times, 90),
        "cpu_ms": statistics.median(cpu),
        "kb": size / 1024,
        "queries": query_count,
    }


def profile(client, url: str, runs: int) -> str:
    """Where the first page's time goes (pyinstrument, wall clock), its top lines."""
    from pyinstrument import Profiler

    profiler = Profiler(interval=0.0005)
    profiler.start()
    for _ in range(runs):
        client.get(url)
    profiler.stop()
    return "\n".join(profile_lines(profiler))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--questions", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--json")
    parser.add_argument("--profile", action="store_true", help="also profile the first page (pyinstrument)")
    args = parser.parse_args()
    load_before = os.getloadavg()
    setup_django()
    from django.contrib.auth import get_user_model
    from django.test import Client

    from rfp_manager.services import workspace
    from rfp_manager.testing import make_answered_rfp

    user, _ = get_user_model().objects.get_or_create(username="bench-workspace")
    rfp = make_answered_rfp(user, args.questions, f"Workspace benchmark ({args.questions} questions)")
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(user)
    base = f"/rfps/{rfp.pk}/"
    try:
        results = {name: measure(client, base + query, args.runs) for name, query in REQUESTS.items()}
        results["htmx swap of the workspace (page 2)"] = measure(
            client, base + "?page=2", args.runs, {"HX-Request": "true", "HX-Target": "workspace"}
        )
        profiled = profile(client, base, max(3, args.runs // 4)) if args.profile else ""
        workspace.PAGE_SIZE = args.questions  # the baseline: every question on the page, as before paging
        baseline = measure(client, base, max(3, args.runs // 4))
    finally:
        rfp.delete()
    load = {"before": load_before, "after": os.getloadavg()}
    for name, r in [*results.items(), ("baseline: every question on one page", baseline)]:
        print(
            f"{name}: p50 {r['p50_ms']:.1f} ms, p90 {r['p90_ms']:.1f} ms, CPU {r['cpu_ms']:.1f} ms, "
            f"{r['queries']} queries, {r['kb']:.0f} KB"
        )
    print("load average (1/5/15 min): " + " → ".join(" / ".join(f"{x:.1f}" for x in v) for v in load.values()))
    if profiled:
        print(profiled)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(
                {
                    "questions": args.questions,
                    "runs": args.runs,
                    "requests": results,
                    "baseline": baseline,
                    "load": load,
                    "profile": profiled,
                },
                out,
                indent=1,
            )


if __name__ == "__main__":
    main()
