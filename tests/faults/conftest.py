"""Fixtures of the fault suite: the private stack's services, the case record, a library and workers per queue."""

import os
import subprocess
from pathlib import Path

import pytest

from tests.workers import Beat

from .record import CaseRecord
from .report import write_report_after

ROOT = Path(__file__).resolve().parents[2]


class StackServices:
    """Stop and start one service of the test run's private stack (bin/stack stop-service/start-service)."""

    def __init__(self, stack_dir: str):
        self.stack_dir = stack_dir
        self.stopped: set[str] = set()

    def _run(self, action: str, service: str) -> None:
        subprocess.run(
            [str(ROOT / "bin" / "stack"), f"{action}-service", self.stack_dir, service],
            check=True,
            capture_output=True,
            timeout=180,
        )

    def stop(self, service: str) -> None:
        self.stopped.add(service)
        self._run("stop", service)

    def start(self, service: str) -> None:
        self._run("start", service)
        self.stopped.discard(service)


@pytest.fixture
def stack():
    """The services of this run's stack; whatever a case stopped is started again afterwards."""
    stack_dir = os.environ.get("SPELUNKER_STACK_DIR")
    assert stack_dir, "the fault suite runs under `make test` (bin/test-stack), which owns the stack it stops"
    services = StackServices(stack_dir)
    yield services
    for service in list(services.stopped):
        services.start(service)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.when == "call":
        item.fault_outcome = report.outcome
    return report


@pytest.fixture
def record(request):
    """Call `record(title, fault)` once: the CaseRecord saved to docs/reliability/<test name>.json at the end."""
    records = []

    def start(title: str, fault: str) -> CaseRecord:
        records.append(CaseRecord(request.node.name.removeprefix("test_"), title, fault))
        return records[-1]

    yield start
    for case in records:
        case.save(getattr(request.node, "fault_outcome", "error"))
    request.config._reliability_cases_ran = True


def pytest_sessionfinish(session):
    """Rewrite docs/reliability.md from the records, unless they mix commits (a run of some cases only)."""
    write_report_after(session)


@pytest.fixture
def chat_library(fake_llm):
    """The fake LLM as the default chat and embedding API, and a small library to answer from."""
    from llm_manager.testing.fixtures import register_fake_api
    from solution_library.testing import add_library_document
    from tests.rfp_manager.conftest import LIBRARY

    register_fake_api(fake_llm, max_concurrent=4, requests_per_minute=0)
    return [add_library_document(title, text) for title, text in LIBRARY.items()]


@pytest.fixture
def beat(transactional_db):
    """A real Beat process running the toolkit's seeded schedules (the flush between tests removed the rows)."""
    import importlib

    from django.apps import apps

    importlib.import_module("spelunker.migrations.0001_squashed").create_schedules(apps, None)
    process = Beat().start()
    yield process
    process.stop()
