"""A newcomer's first `make run`: clone, run, sign in, Ctrl-C, nothing left behind.

It clones the repository's committed HEAD (commit before you run it: the
working tree's changes are not in the clone) into a temporary folder and runs
`make run` there exactly as the README says, with nothing of the test run's
environment except free ports and an admin password. The clone builds its own
.venv with bin/venv (uv, whose wheel cache in ~/.cache/uv is shared), so a warm
cache keeps this to about a minute.
"""

import os
import shutil
import time
from pathlib import Path

import httpx
import pytest
from kombu import Connection

from tests.stack_run import RunStack, clone_head, free_port, newcomer_environment, sign_in

pytestmark = pytest.mark.integration

ADMIN_PASSWORD = "pw-newcomer-2718"
# What `make run` must have started (a fragment of each command line), and so must stop.
EXPECTED_PROCESSES = {
    "supervisord": "supervisord -c",
    "web": "gunicorn spelunker.wsgi:application",
    "worker-default": "worker -Q default",
    "worker-embedding": "worker -Q embedding",
    "worker-batch": "worker -Q batch",
    "scheduler": "celery -A spelunker beat",
    "flower": "celery -A spelunker flower",
    "rabbitmq": "beam.smp",
    "epmd": "epmd -port",
    "memcached": "memcached -l 127.0.0.1",
}


def broker_and_cache_ports(env_file: Path) -> set[str]:
    text = env_file.read_text()
    return {
        text.split("CELERY_BROKER_URL=")[1].split("@127.0.0.1:")[1].split("/")[0],
        text.split("KVDB_LOCATION=127.0.0.1:")[1].split()[0],
    }


@pytest.mark.timeout(900)  # a cold pip cache downloads every requirement
def test_fresh_clone_make_run_serves_and_ctrl_c_stops_everything(tmp_path, capsys):
    clone = tmp_path / "spelunker"
    clone_head(clone)
    assert not (clone / "var").exists() and not (clone / ".venv").exists()
    run = RunStack(
        ["make", "run"],
        cwd=clone,
        log_path=tmp_path / "make-run.log",
        env=newcomer_environment(
            SPELUNKER_PORT=str(free_port()), FLOWER_PORT=str(free_port()), SPELUNKER_ADMIN_PASSWORD=ADMIN_PASSWORD
        ),
    )
    try:
        run.start()
        ready = run.wait_ready(timeout=780)
        seconds_to_ready = time.monotonic() - run.started_at
        with capsys.disabled():
            print(
                f"\n[fresh clone] make run -> /readyz 200 in {seconds_to_ready:.0f}s (venv, services, migrations included)"
            )
        assert ready == {"status": "ok", "database": "ok", "broker": "ok", "cache": "ok"}

        sign_in(run.web_url, "admin", ADMIN_PASSWORD).close()
        assert run.wait_answer(f"{run.flower_url}/", timeout=120).status_code == 401
        flower_password = (clone / ".run" / "dev" / "flower_password").read_text().strip()
        assert httpx.get(f"{run.flower_url}/", auth=("admin", flower_password), timeout=30).status_code == 200

        # Private services of its own, not the test run's.
        test_stack_ports = {
            os.environ["CELERY_BROKER_URL"].split("@127.0.0.1:")[1].split("/")[0],
            os.environ["KVDB_LOCATION"].split(":")[1],
        }
        assert broker_and_cache_ports(clone / ".run" / "dev" / "env").isdisjoint(test_stack_ports)

        started = run.processes()
        for name, fragment in EXPECTED_PROCESSES.items():
            assert any(fragment in command for command in started.values()), f"no {name} among {started}"

        run.interrupt()
        assert run.processes() == {}, f"left running after Ctrl-C:\n{run.processes()}\n{run.output()}"
        assert "stopping the services" in run.output()
        with Connection(os.environ["CELERY_BROKER_URL"], connect_timeout=5) as conn:
            conn.ensure_connection(max_retries=1)  # the test run's own broker still answers
    finally:
        run.kill()
        shutil.rmtree(clone, ignore_errors=True)
