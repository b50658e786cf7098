"""`manage.py load_demo`: a small library, a documentation source and an RFP to try Spelunker on."""

import os

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from demo.services.loading import DOCS_START_PATH, load_demo
from solution_library.tasks import dispatch_sync_job


def default_docs_url() -> str:
    """Where `make run` serves the demo documentation site: the web app's own static files."""
    host = os.environ.get("SPELUNKER_HOST") or "127.0.0.1"
    port = os.environ.get("SPELUNKER_PORT") or "8000"
    return f"http://{host}:{port}/{settings.STATIC_URL.strip('/')}/{DOCS_START_PATH}"


class Command(BaseCommand):
    help = (
        "Load the demo: about twenty documents about a fictional product (queued for processing like uploads), "
        "a documentation source served by the web app, and an RFP imported from a client-style workbook. "
        "Running it again adds nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--if-empty",
            action="store_true",
            help="Load only into a database without documents, sources or RFPs (used by make run).",
        )
        parser.add_argument("--user", help="Owner of the demo RFP (default: the first superuser).")
        parser.add_argument(
            "--docs-url",
            default=None,
            help="Start URL of the demo documentation site (default: this app's static files "
            "on SPELUNKER_HOST:SPELUNKER_PORT).",
        )

    def handle(self, *args, **options):
        report = load_demo(
            self._owner(options["user"]),
            options["docs_url"] or default_docs_url(),
            dispatch_sync_job,
            if_empty=options["if_empty"],
        )
        if report.skipped:
            self.stdout.write(report.skipped)
            return
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo library: {len(report.documents_added)} documents queued for processing, "
                f"{len(report.documents_present)} already there."
            )
        )
        for refusal in report.refused:
            self.stderr.write(f"Refused: {refusal}")
        self.stdout.write(f"Documentation source: {report.source.name} at {report.source.start_url}")
        if report.sync_job_id:
            delay = (
                f" in {report.sync_delay_seconds} s, once the web server answers" if report.sync_delay_seconds else ""
            )
            self.stdout.write(f"  sync job {report.sync_job_id} queued{delay}.")
        self.stdout.write(
            f"Demo RFP: “{report.rfp.name}” with {report.rfp.questions.count()} questions "
            f"({report.questions_imported} imported now)."
        )
        self.stdout.write("Next: open the RFP, run the responder (tick “review when done”), then export the answers.")

    def _owner(self, username: str | None):
        users = get_user_model().objects
        owner = (
            users.filter(username=username).first()
            if username
            else users.filter(is_superuser=True).order_by("pk").first()
        )
        if owner is None:
            raise CommandError(
                f"No user {username!r}."
                if username
                else "No superuser yet: run `manage.py ensure_admin` (make run does) or createsuperuser."
            )
        return owner
