"""`manage.py import_team SRC`: a backup made by export_team, into a fresh install (see docs/deployment.md)."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from spelunker.backup.importing import import_team
from spelunker.backup.manifest import BackupError


class Command(BaseCommand):
    help = (
        "Read a backup folder or archive made by export_team into this install, which must be fresh (migrated, "
        "no library, RFPs or answer library yet). Checks every SHA-256 first; files go to the configured media "
        "storage, rows into the configured database, in one transaction."
    )

    def add_arguments(self, parser):
        parser.add_argument("source", type=Path, help="the backup folder or archive")

    def handle(self, *args, source: Path, **options):
        try:
            contents = import_team(source)
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        rows = sum(part["rows"] for part in contents["data"])
        self.stdout.write(
            f"Imported {rows} rows of {len(contents['data'])} tables and {len(contents['files'])} files "
            f"from {source} (exported {contents['created_at']} from {contents['database']})."
        )
