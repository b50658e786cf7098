"""Read a backup into a fresh install: files through the storage API, then every row in one transaction."""

from pathlib import Path

from django.core.files import File
from django.core.management import call_command
from django.db import transaction

from audit.context import restoring
from solution_library.models import Chunk
from solution_library.services.search_index import bump_version

from . import manifest
from .contents import (
    MADE_BY_A_FRESH_INSTALL,
    MERGED_BY_NATURAL_KEY,
    applied_migrations,
    exported_models,
    field_storage,
    label,
)
from .manifest import BackupError, safe_relative, sha256_of_stream


def import_team(source: Path) -> dict:
    """Check the backup's checksums and that this install holds no team yet; then restore it. Returns the manifest."""
    with manifest.unpacked(Path(source)) as folder:
        contents = manifest.read(folder)
        refuse_another_schema(contents["migrations"])
        refuse_unless_fresh()
        restore_files(folder, contents["files"])
        fixtures = [str(folder / safe_relative(part["path"])) for part in contents["data"] if part["rows"]]
        with restoring(), transaction.atomic():
            make_room()
            call_command("loaddata", *fixtures, verbosity=0)
            check_row_counts(contents["data"])
            draw_new_index_tokens()
    return contents


def refuse_another_schema(exported_at: list[str]) -> None:
    """Rows fit the tables of the release that wrote them: the same migrations must be applied here."""
    here = applied_migrations()
    if exported_at != here:
        only_backup = sorted(set(exported_at) - set(here))
        only_here = sorted(set(here) - set(exported_at))
        raise BackupError(
            "the backup was made by another release (migrations only in the backup: "
            f"{', '.join(only_backup) or 'none'}; only here: {', '.join(only_here) or 'none'}): "
            "import it with the release that made it (then upgrade), or run migrate here first"
        )


def refuse_unless_fresh() -> None:
    """A backup replaces nothing a team made: only what migrate and a first `make run` make may be there."""
    held = [
        label(model)
        for model in exported_models()
        if label(model) not in MADE_BY_A_FRESH_INSTALL and model._base_manager.exists()
    ]
    if held:
        raise BackupError(f"this database already holds a team's data ({', '.join(held)}): import into a fresh install")


def restore_files(folder: Path, files: list[dict]) -> None:
    """Each file saved under its own name; one already there with the same content is kept."""
    for part in files:
        storage = field_storage(part["field"])
        name = part["name"]
        if storage.exists(name):
            with storage.open(name, "rb") as stored:
                same = sha256_of_stream(stored) == part["sha256"]
            if not same:
                raise BackupError(f"the media storage already holds another file named {name}")
            continue
        with (folder / safe_relative(part["path"])).open("rb") as fh:
            saved = storage.save(name, File(fh, name=name))
        if saved != name:
            raise BackupError(f"the media storage saved {name} as {saved}")


def make_room() -> None:
    """Empty the tables a fresh install seeded (LLM APIs and models, …) so the backup's rows keep their ids.

    Users and groups stay: the backup's are matched to them by name.
    """
    for model in reversed(exported_models()):
        if label(model) not in MERGED_BY_NATURAL_KEY:
            model._base_manager.all().delete()


def check_row_counts(data: list[dict]) -> None:
    """Every table holds exactly the backup's rows (users and groups: at least, a fresh install's may stay)."""
    models = {label(model): model for model in exported_models()}
    wrong = []
    for part in data:
        count = models[part["model"]]._base_manager.count()
        merged = part["model"] in MERGED_BY_NATURAL_KEY
        if count < part["rows"] or (count != part["rows"] and not merged):
            wrong.append(f"{part['model']} {count} rows, backup {part['rows']}")
    if wrong:
        raise BackupError(f"rows differ after loading: {'; '.join(wrong)}")


def draw_new_index_tokens() -> None:
    """Every machine's search index is rebuilt from the restored chunks, never refreshed from older files."""
    for model_id in Chunk.objects.values_list("embedding_model_id", flat=True).distinct().order_by():
        bump_version(model_id)
