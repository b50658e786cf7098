"""Write everything the team owns to a backup folder, or to an archive of one."""

import shutil
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from datetime import UTC, datetime, time
from pathlib import Path, PurePosixPath
from tempfile import TemporaryDirectory

from django.core import serializers
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection, transaction

from . import manifest
from .contents import SKIPPED, applied_migrations, exported_models, field_storage, file_fields, label
from .manifest import BackupError, safe_relative, sha256_of


def export_team(destination: Path) -> dict:
    """Every exported table as data/<model>.jsonl and every stored file under files/, then the manifest.

    `destination` is a new (or empty) folder, or an archive path ending in .tar, .tar.gz or .tgz.
    Returns the manifest.
    """
    destination = Path(destination)
    archive = manifest.is_archive(destination)
    if destination.exists() and (archive or any(destination.iterdir())):
        raise BackupError(f"{destination} already exists: give a new folder or archive name")
    with TemporaryDirectory(prefix="spelunker-export-") if archive else nullcontext(destination) as folder:
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        with consistent_snapshot():
            data = [dump_model(model, folder) for model in exported_models()]
            files, missing = copy_files(folder)
        contents = {
            "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "database": connection.vendor,
            "migrations": applied_migrations(),
            "data": data,
            "files": files,
            "missing_files": missing,
            "skipped": SKIPPED,
        }
        manifest.write(folder, contents)
        if archive:
            manifest.pack(folder, destination)
    return contents


@contextmanager
def consistent_snapshot():
    """Every table read as of one moment, while the people working meanwhile go on writing."""
    if connection.in_atomic_block:  # the caller's transaction is the snapshot already
        yield
    elif connection.vendor == "postgresql":
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            yield
    else:
        # SQLite in WAL mode: a deferred transaction reads one snapshot without taking the write lock
        # that Django's own (IMMEDIATE) transactions take, so uploads are not held up by a long export.
        with connection.cursor() as cursor:
            cursor.execute("BEGIN DEFERRED")
        try:
            yield
        finally:
            with connection.cursor() as cursor:
                cursor.execute("COMMIT")


def dump_model(model, folder: Path) -> dict:
    """One table through Django's JSON-lines serializer, users, groups and permissions by natural key."""
    path = PurePosixPath("data") / f"{label(model)}.jsonl"
    target = folder / path
    target.parent.mkdir(exist_ok=True)
    rows = Counted(model._base_manager.order_by("pk").iterator(chunk_size=2000))
    with target.open("w") as fh:
        serializers.serialize(
            "jsonl",
            rows,
            stream=fh,
            cls=ExactJSONEncoder,
            use_natural_foreign_keys=True,
            use_natural_primary_keys=True,
        )
    return {"model": label(model), "path": str(path), "rows": rows.count, "sha256": sha256_of(target)}


class ExactJSONEncoder(DjangoJSONEncoder):
    """Times to the microsecond: Django's encoder keeps milliseconds, and a restore must give back every row exactly."""

    def default(self, o):
        if isinstance(o, datetime | time):
            return o.isoformat()
        return super().default(o)


class Counted:
    """Passes rows through, counting them (the serializer streams; a table is read once)."""

    def __init__(self, rows: Iterator):
        self.rows = rows
        self.count = 0

    def __iter__(self):
        for row in self.rows:
            self.count += 1
            yield row


def stored_files() -> dict[str, str]:
    """Every file a row names, by storage name, with the field that stores it ("app.model.field")."""
    found = {}
    for model in exported_models():
        for field in file_fields(model):
            names = model._base_manager.exclude(**{field.attname: ""}).exclude(**{f"{field.attname}__isnull": True})
            for name in names.values_list(field.attname, flat=True).distinct():
                found.setdefault(name, f"{label(model)}.{field.name}")
    return found


def copy_files(folder: Path) -> tuple[list[dict], list[str]]:
    """Each stored file copied through the storage API (local disk or S3); names no file answers are listed."""
    copied, missing = [], []
    for name, field in sorted(stored_files().items()):
        storage = field_storage(field)
        if not storage.exists(name):
            missing.append(name)
            continue
        path = PurePosixPath("files") / safe_relative(name)
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        with storage.open(name, "rb") as source, target.open("wb") as fh:
            shutil.copyfileobj(source, fh, 1 << 20)
        copied.append(
            {
                "name": name,
                "field": field,
                "path": str(path),
                "bytes": target.stat().st_size,
                "sha256": sha256_of(target),
            }
        )
    return copied, missing
