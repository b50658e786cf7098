"""The embedded default (`make run` without DATABASE_URL): SQLite in WAL mode with a real worker."""

import os
import subprocess
import sys

import pytest

from tests.workers import ROOT, Worker

pytestmark = [pytest.mark.integration]

SMOKE = """
import time
from django.db import connection
from django.db import transaction
from jobs.services import create_system_check
from jobs.tasks import dispatch_system_check
with transaction.atomic():
    check = create_system_check(None)
    dispatch_system_check(check)
for _ in range(150):
    check.refresh_from_db()
    if not check.is_active:
        break
    time.sleep(0.2)
with connection.cursor() as cursor:
    cursor.execute("PRAGMA journal_mode")
    mode = cursor.fetchone()[0]
print("RESULT", check.status, check.processed_items, mode, connection.settings_dict["NAME"])
"""


def manage(env, *args):
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def session_worker_paused(celery_worker_process):
    """The session's worker (on the PostgreSQL test DB) must not take this test's probes."""
    from spelunker.celery import app

    target = [celery_worker_process.name]
    for queue in app.conf.task_queues:
        app.control.cancel_consumer(queue.name, destination=target, reply=True)
    yield
    for queue in app.conf.task_queues:
        app.control.add_consumer(queue.name, destination=target, reply=True)


def test_walking_skeleton_on_sqlite_wal(tmp_path, session_worker_paused):
    db_path = tmp_path / "db.sqlite3"
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["SPELUNKER_VAR_DIR"] = str(tmp_path)  # the embedded default: var/db.sqlite3 under here

    migrated = manage(env, "migrate", "--noinput")
    assert migrated.returncode == 0, migrated.stderr

    worker = Worker(env={"DATABASE_URL": f"sqlite:///{db_path}", "SPELUNKER_VAR_DIR": str(tmp_path)})
    worker.start()
    try:
        smoke = manage(env, "shell", "-c", SMOKE)
    finally:
        worker.stop()
    assert smoke.returncode == 0, smoke.stderr
    line = next(line for line in smoke.stdout.splitlines() if line.startswith("RESULT"))
    assert line.split() == ["RESULT", "completed", "3", "wal", str(db_path)]
