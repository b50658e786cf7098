"""The files docs/benchmarks.md's figures depend on: `make bench` records their hash, `make test` says which changed.

The benchmarks measure the whole path of a request or a task — the web side
(middleware, views, templates), the job toolkit, the tasks and services of
every app a benchmark drives, the settings, the services' start-up (bin/stack,
the test-suite's worker launcher, make run's steps for the first run) and the benchmarks themselves — so the list
is the product code, not one module. A full `make bench` takes a quarter of an
hour on this machine, too long for every test run: the staleness of the page is
printed by `make test` (bench/stale.py), not failed.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from spelunker.provenance import MeasuredSources  # noqa: E402

MEASURED = MeasuredSources(
    (
        "bench",
        "spelunker",
        "jobs",
        "core",
        "text",
        "questionnaires",
        "home",
        "solution_library",
        "rfp_manager",
        "llm_manager",
        "answer_library",
        "audit",
        "teamwork",
        "templates",
        "tests/workers.py",
        "bin/stack",
        "bin/run-stack",  # the first run: make run's steps, its venv, the demo
        "bin/venv",
        "Makefile",
        "demo",
        "tests/stack_run.py",
        "requirements.txt",
        "requirements-models.txt",
    )
)


def manifest_for(page: Path) -> Path:
    """Where the per-file hashes of a page live: in its plots folder (docs/benchmarks/sources.json)."""
    return page.parent / page.stem / "sources.json"
