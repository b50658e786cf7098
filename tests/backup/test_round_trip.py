"""A whole machine replaced: the demo and a teamwork RFP leave this run's install and come back in another kind.

The source is the test run's database and media (PostgreSQL and local disk under bin/test-stack), filled
through the real paths (`load_demo`, processed by a real worker; the teamwork services). The target is a
fresh install in other processes: a new SQLite file made by `manage.py migrate`, `make run`'s admin, media
in the stack's S3 server. Every row of every exported table and every file is compared.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

from teamwork.models import Notification
from tests.backup.conftest import build_teamwork_rfp
from tests.backup.snapshot import differences, snapshot
from tests.backup.test_backup import without_admin
from tests.demo.conftest import docs_url, load_demo, offline_llm, settled  # noqa: F401  (the demo's fixtures)
from tests.s3 import S3Media
from tests.workers import wait_for

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parent.parent.parent
SEARCH_IN_THE_TARGET = (
    "from solution_library.services.search import search_passages; "
    "print(search_passages('How often are master keys rotated?')[0].text)"
)


class FreshInstall:
    """Another install of the same code: its own SQLite database, search index and S3 media."""

    def __init__(self, folder: Path, media: S3Media):
        self.env = {
            **os.environ,
            **media.env,
            "DJANGO_SETTINGS_MODULE": "spelunker.settings",
            "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
            "SPELUNKER_MEDIA_ROOT": str(folder / "media"),
            "SPELUNKER_SEARCH_INDEX_DIR": str(folder / "search-index"),
            "SPELUNKER_ADMIN_PASSWORD": "pw-admin-123",
        }

    def run(self, *args: str) -> str:
        done = subprocess.run(
            [sys.executable, *args], cwd=ROOT, env=self.env, capture_output=True, text=True, timeout=240
        )
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout

    def manage(self, *args: str) -> str:
        return self.run("manage.py", *args)


def nothing_left_to_do() -> bool:
    """No document, sync or notification email still in the worker's hands: the rows stand still."""
    return settled() and not Notification.objects.filter(email_status=Notification.Email.QUEUED).exists()


def test_the_demo_and_a_teamwork_rfp_come_back_on_a_new_machine(
    load_demo,  # noqa: F811
    live_worker,
    staff_user,
    django_user_model,
    tmp_path,
):
    load_demo()
    build_teamwork_rfp(staff_user, django_user_model)
    wait_for(nothing_left_to_do, timeout=180, message="the worker to finish the demo and send the notifications")
    before = snapshot()
    call_command("export_team", str(tmp_path / "team.tar.gz"))

    media = S3Media()
    target = FreshInstall(tmp_path / "new-machine", media)
    target.manage("migrate", "--no-input", "-v0")
    target.manage("ensure_admin")
    target.manage("import_team", str(tmp_path / "team.tar.gz"))
    target.run("-m", "tests.backup.snapshot", str(tmp_path / "after.json"))
    after = json.loads((tmp_path / "after.json").read_text())

    assert differences(before, without_admin(after)) == {}
    assert media.keys() == sorted(before["files"])  # really in the bucket, under the names the rows hold
    assert len(before["files"]) >= 20  # the demo's uploads, its RFP workbook and the RFP's own document
    assert "rotated automatically every 12 months" in target.run("manage.py", "shell", "-c", SEARCH_IN_THE_TARGET)
