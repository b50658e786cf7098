"""export_team / import_team in one process: a team's rows and files come back exactly; a bad backup is refused.

The restore goes into the same database emptied by `flush` and seeded again as `migrate` seeds it — a fresh
install whose content types and permissions have new ids — with media on an empty disk. SQLite under plain
pytest, PostgreSQL under bin/test-stack; tests/backup/test_round_trip.py restores into another database and S3.
"""

import json

import pytest
from django.apps import apps
from django.core.management import CommandError, call_command

from solution_library.services.documents import process_document, store_upload
from solution_library.services.search import search_passages
from spelunker.backup.contents import SKIPPED, exported_models, label
from tests.backup.conftest import build_teamwork_rfp, seed_like_migrate
from tests.backup.snapshot import differences, snapshot

POLICY = b"# Key management\n\nEncryption keys are rotated every 90 days by the platform team.\n"


@pytest.fixture
def team(transactional_db, local_media, settings, django_user_model):
    """A library document with its chunks, and a teamwork RFP, in a database seeded as migrate seeds it."""
    settings.AUTO_EMBED_DOCUMENTS = False
    seed_like_migrate()
    from llm_manager.models import LLMModel
    from llm_manager.services import make_default

    make_default(LLMModel.objects.get(api__kind="offline", model_type=LLMModel.TYPE_EMBEDDING))
    owner = django_user_model.objects.create_user("alice", password="pw-alice-123")
    document = store_upload("key-management.md", POLICY, owner).document
    process_document(document.pk)
    build_teamwork_rfp(owner, django_user_model)


def fresh_install(local_media, django_user_model) -> None:
    """What a new machine starts from: migrate's rows only, `make run`'s admin, an empty media disk."""
    call_command("flush", interactive=False, verbosity=0)
    seed_like_migrate()
    django_user_model.objects.create_superuser("admin", password="pw-admin-123")
    local_media("new")


def without_admin(state: dict) -> dict:
    users = state["tables"]["auth.user"]
    assert [u["fields"]["username"] for u in users].count("admin") == 1
    state["tables"]["auth.user"] = [u for u in users if u["fields"]["username"] != "admin"]
    return state


@pytest.mark.parametrize("name", ["folder", "team.tar.gz"])
def test_every_row_and_file_comes_back_into_a_fresh_install(team, local_media, django_user_model, tmp_path, name):
    before = snapshot()
    call_command("export_team", str(tmp_path / name))

    fresh_install(local_media, django_user_model)
    call_command("import_team", str(tmp_path / name))

    assert differences(before, without_admin(snapshot())) == {}
    assert len(before["files"]) == 2  # the library document and the RFP's own document
    assert "rotated every 90 days" in search_passages("How often are encryption keys rotated?")[0].text


def test_a_file_changed_since_the_export_is_refused_before_anything_is_written(team, tmp_path):
    call_command("export_team", str(tmp_path / "backup"))
    manifest = json.loads((tmp_path / "backup" / "manifest.json").read_text())
    changed = tmp_path / "backup" / manifest["files"][0]["path"]
    changed.write_bytes(changed.read_bytes() + b"!")
    before = snapshot()

    with pytest.raises(CommandError, match=f"SHA-256 differs.*{manifest['files'][0]['path']}"):
        call_command("import_team", str(tmp_path / "backup"))

    assert snapshot() == before


def test_an_install_that_holds_a_team_is_refused(team, tmp_path):
    call_command("export_team", str(tmp_path / "backup"))

    with pytest.raises(CommandError, match="already holds a team's data.*solution_library.document"):
        call_command("import_team", str(tmp_path / "backup"))


def test_a_backup_of_another_release_is_refused(team, tmp_path):
    call_command("export_team", str(tmp_path / "backup"))
    manifest_path = tmp_path / "backup" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["migrations"].append("rfp_manager.9999_from_a_newer_release")
    manifest_path.write_text(json.dumps(manifest))

    with pytest.raises(
        CommandError, match="another release.*only in the backup: rfp_manager.9999_from_a_newer_release"
    ):
        call_command("import_team", str(tmp_path / "backup"))


@pytest.mark.parametrize(
    ("name", "path"),
    [("x.txt", "../../etc/passwd"), ("../../settings.py", "files/x.txt"), ("/etc/passwd", "files/x.txt")],
    ids=["read from outside", "saved outside the media", "saved at an absolute path"],
)
def test_a_path_out_of_the_backup_is_refused(tmp_path, name, path):
    folder = tmp_path / "backup"
    folder.mkdir()
    outside = {"name": name, "field": "solution_library.document.file", "path": path, "sha256": ""}
    (folder / "manifest.json").write_text(
        json.dumps({"format": "spelunker-team-export", "version": 1, "migrations": [], "data": [], "files": [outside]})
    )

    with pytest.raises(CommandError, match="outside the backup"):
        call_command("import_team", str(folder))


def test_an_export_never_overwrites(tmp_path):
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "something").write_text("kept")

    with pytest.raises(CommandError, match="already exists"):
        call_command("export_team", str(tmp_path / "used"))


def test_every_table_is_exported_unless_skipped_with_a_reason():
    every = {label(m) for m in apps.get_models() if not m._meta.proxy}
    exported = {label(m) for m in exported_models()}

    assert set(SKIPPED) <= every  # no reason left for a table that is gone
    assert exported == every - set(SKIPPED)
    assert {"solution_library.chunk", "rfp_manager.questionimport", "audit.auditevent", "auth.user"} <= exported
