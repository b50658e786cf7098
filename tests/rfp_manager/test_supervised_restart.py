"""Under `make run`'s supervisor, a worker killed mid-job comes back and the job completes.

The stack is bin/run-stack itself, the script `make run` runs, with its
private RabbitMQ and Memcached in a temporary folder and the test database as
DATABASE_URL, so this test can create the library and the RFP and read the
job's counts. The kill is what the kernel's OOM killer does: SIGKILL to the
batch worker's main process (its pool processes die with it).
"""

import os
import re
import signal
import socket
import subprocess
import threading
from pathlib import Path

import httpx
import pytest
from django.urls import reverse
from kombu import Connection
from kombu.pidbox import Mailbox

from llm_manager.testing.fixtures import register_fake_api
from rfp_manager.models import Answer, RFPBatchJob
from solution_library.testing import add_library_document
from tests.stack_run import RunStack, csrf_token, free_port, sign_in
from tests.workers import database_url_for_current_connection, wait_for

from .conftest import LIBRARY, QUESTIONS, make_rfp

pytestmark = [pytest.mark.integration, pytest.mark.supervised]

ROOT = Path(__file__).resolve().parents[2]
TOTAL = 24
BATCH_NODE = f"batch@{socket.gethostname()}"  # the Procfile's -n batch@%h


@pytest.fixture
def supervised_stack(transactional_db, tmp_path):
    """bin/run-stack on free ports and the test database; SIGTERM afterwards, and nothing may survive it.

    (SIGTERM to the script alone, as a service manager stops it; tests/test_fresh_clone.py checks Ctrl-C.)
    """
    run_dir = tmp_path / "run"
    env = {
        **os.environ,
        "DATABASE_URL": database_url_for_current_connection(),
        "SPELUNKER_RUN_DIR": str(run_dir),
        "SPELUNKER_PORT": str(free_port()),
        "FLOWER_PORT": str(free_port()),
    }
    run = RunStack([str(ROOT / "bin" / "run-stack")], cwd=ROOT, env=env, log_path=tmp_path / "run-stack.log")
    try:
        run.start().wait_ready(timeout=240)
        yield run, run_dir
        run.terminate()
        assert run.processes() == {}, f"left running after SIGTERM: {run.processes()}"
    finally:
        run.kill()


def supervisorctl(run_dir: Path, *args: str) -> str:
    result = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "supervisorctl"), "-c", str(run_dir / "supervisord.conf"), *args],
        capture_output=True,
        text=True,
        timeout=30,
    )
    return result.stdout


def program_pids(run_dir: Path) -> dict[str, int]:
    """{program: pid} of every program that has a process, STARTING as well as RUNNING.

    `supervisorctl status` prints a pid for RUNNING programs only, and a program
    stays STARTING for its first START_SECONDS (bin/supervisord-conf) although
    its process is up and working; `supervisorctl pid NAME` gives the pid in
    every state (0 when there is no process).
    """
    names = re.findall(r"^(\S+)\s", supervisorctl(run_dir, "status"), re.M)
    pids = {name: int(supervisorctl(run_dir, "pid", name).strip() or 0) for name in names}
    return {name: pid for name, pid in pids.items() if pid}


def ask_batch_worker(broker_url: str, command: str):
    """A Celery remote-control command (`stats`, `active`) to the stack's batch worker; None while it does not answer.

    Through kombu's mailbox, as `celery inspect` does: Celery's own control API
    would publish through a producer pool that CELERY_BROKER_URL (the test
    run's broker, in this process's environment) binds to another RabbitMQ.
    """
    with Connection(broker_url) as conn:
        replies = Mailbox("celery", type="fanout", accept=["json"])(conn).call([BATCH_NODE], command, timeout=2)
    return next((reply[BATCH_NODE] for reply in replies or [] if BATCH_NODE in reply), None)


def batch_worker_pid(broker_url: str) -> int | None:
    return (ask_batch_worker(broker_url, "stats") or {}).get("pid")


def active_task_ids(broker_url: str) -> set[str]:
    return {task["id"] for task in ask_batch_worker(broker_url, "active") or []}


class HealthPoller(threading.Thread):
    """GET /healthz every 0.2 s until stopped; keeps every status (or error) seen."""

    def __init__(self, base_url: str):
        super().__init__(daemon=True)
        self.url = f"{base_url}/healthz"
        self.results: list[int | str] = []
        self.done = threading.Event()

    def run(self):
        with httpx.Client(timeout=5) as client:
            while not self.done.wait(0.2):
                try:
                    self.results.append(client.get(self.url).status_code)
                except httpx.HTTPError as exc:
                    self.results.append(f"{type(exc).__name__}: {exc}")


@pytest.mark.timeout(600)
def test_killed_batch_worker_is_restarted_and_its_job_completes(supervised_stack, fake_llm, user):
    run, run_dir = supervised_stack
    broker_url = re.search(r"^export CELERY_BROKER_URL=(\S+)", (run_dir / "env").read_text(), re.M)[1]
    # One question at a time, half a second each: the job outlives the kill and the restart.
    register_fake_api(fake_llm, max_concurrent=1, requests_per_minute=0)
    fake_llm.configure(latency_ms=500)
    for title, text in LIBRARY.items():
        add_library_document(title, text)
    rfp = make_rfp(user, [f"{QUESTIONS[i % 6]} (variant {i})" for i in range(TOTAL)])

    # Given a responder job started through the supervised web and running on the batch worker,
    web = sign_in(run.web_url, "alice", "pw-alice-123")
    start = web.post(
        reverse("rfp_manager:start_responder", args=[rfp.pk]),
        data={"csrfmiddlewaretoken": csrf_token(web.get("/").text)},
    )
    assert start.status_code == 302, start.text[:1000]
    job = RFPBatchJob.objects.get(rfp=rfp, job_type="responder")
    wait_for(
        lambda: RFPBatchJob.objects.get(pk=job.pk).processed_items >= 3, timeout=120, message="progress before the kill"
    )
    job.refresh_from_db()
    wait_for(
        lambda: job.celery_task_id in active_task_ids(broker_url), timeout=20, message="the job on the batch worker"
    )
    before = program_pids(run_dir)
    health = HealthPoller(run.web_url)
    health.start()

    # when the OOM killer takes the batch worker's main process,
    os.kill(before["worker-batch"], signal.SIGKILL)

    # then supervisord starts a new one, which answers and finishes the job with exact counts,
    def restarted_pid():
        pid = program_pids(run_dir).get("worker-batch")
        return pid if pid != before["worker-batch"] else None

    new_pid = wait_for(restarted_pid, timeout=60, message="a new batch worker")
    wait_for(lambda: batch_worker_pid(broker_url) == new_pid, timeout=90, message="the new worker to answer")
    job = wait_for(
        lambda: RFPBatchJob.objects.filter(pk=job.pk, status="completed").first(),
        timeout=180,
        message="the job to complete",
    )
    assert (job.total_items, job.processed_items, job.successful_items, job.failed_items) == (TOTAL, TOTAL, TOTAL, 0)
    assert Answer.objects.filter(question__rfp=rfp).count() == TOTAL
    health.done.set()
    health.join()

    # while everything else kept running and the web answered throughout,
    after = program_pids(run_dir)
    assert {name: pid for name, pid in after.items() if name != "worker-batch"} == {
        name: pid for name, pid in before.items() if name != "worker-batch"
    }
    assert len(health.results) >= 10 and set(health.results) == {200}, health.results
    # and the terminal said what happened, and shows the new worker's own lines under its name.
    output = run.output(tail=200_000)
    assert "exited: worker-batch (terminated by SIGKILL; not expected)" in output
    restarted = output.split(f"spawned: 'worker-batch' with pid {new_pid}", 1)
    assert len(restarted) == 2, output[-5000:]
    assert re.search(rf"^worker-batch\s+\| .*{re.escape(BATCH_NODE)} ready\.", restarted[1], re.M), output[-5000:]
