"""`manage.py export_team DEST`: everything the team owns, to a folder or archive (see docs/deployment.md)."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from spelunker.backup.exporting import export_team
from spelunker.backup.manifest import BackupError


class Command(BaseCommand):
    help = (
        "Write every table the team owns (users, groups, library, answer library, RFPs, jobs, audit) and every "
        "stored file to DEST, a new folder or an archive (.tar, .tar.gz, .tgz), with a manifest of SHA-256 sums."
    )

    def add_arguments(self, parser):
        parser.add_argument("destination", type=Path, help="a new folder, or an archive path ending .tar.gz")

    def handle(self, *args, destination: Path, **options):
        try:
            contents = export_team(destination)
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        rows = sum(part["rows"] for part in contents["data"])
        size = sum(part["bytes"] for part in contents["files"])
        self.stdout.write(
            f"Exported {rows} rows of {len(contents['data'])} tables and {len(contents['files'])} files "
            f"({size / 1e6:.1f} MB) to {destination}."
        )
        for name in contents["missing_files"]:
            self.stdout.write(self.style.WARNING(f"Not in the media storage, so not exported: {name}"))
