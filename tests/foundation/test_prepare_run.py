"""`manage.py prepare_run`: what `make run` does before its processes start, in one process."""

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management.base import CommandError
from django.db.migrations.loader import MigrationLoader

from spelunker.management.commands.prepare_run import wait_for_broker
from tests.stack_run import free_port

ROOT = Path(__file__).resolve().parents[2]


def test_prepare_run_migrates_creates_the_admin_collects_static_and_warns_about_exposure(tmp_path):
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_", "SPELUNKER_", "DJANGO_"))},
        "SPELUNKER_VAR_DIR": str(tmp_path),
        "SPELUNKER_ADMIN_PASSWORD": "pw-prepare-run-31415",
        "SPELUNKER_HOST": "0.0.0.0",  # development secrets beyond loopback: the exposure check must warn
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "prepare_run"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=280
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "spelunker.W001" in result.stderr
    assert "Database and static files ready in" in result.stdout

    with sqlite3.connect(tmp_path / "db.sqlite3") as db:
        applied = set(db.execute("SELECT app, name FROM django_migrations"))
        admins = db.execute("SELECT username FROM auth_user WHERE is_superuser").fetchall()
    latest = set(MigrationLoader(None).graph.leaf_nodes())
    assert latest <= applied, f"not applied: {latest - applied}"
    assert admins == [("admin",)]
    assert (tmp_path / "staticfiles" / "admin" / "css" / "base.css").is_file()


@pytest.mark.integration
def test_the_demo_waits_for_the_broker_it_queues_work_on():
    wait_for_broker(10)  # the test stack's RabbitMQ answers: no wait
    assert settings.CELERY_BROKER_URL.startswith("amqp://")


def test_a_broker_that_never_answers_fails_the_start_with_a_reason(settings):
    settings.CELERY_BROKER_URL = f"amqp://guest:guest@127.0.0.1:{free_port()}//"
    started = time.monotonic()
    with pytest.raises(CommandError, match="the broker did not answer in 1 s"):
        wait_for_broker(1)
    assert time.monotonic() - started < 30
