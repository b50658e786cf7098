"""Load the demo through the same doors a person uses, so it exercises the real pipeline.

- Library files are stored like uploads (`store_upload`): each new document is
  parsed, chunked and embedded by the embedding worker.
- The demo documentation site (static files of this app, served by the web
  app itself) is registered as a documentation source and synced by a worker.
- The demo RFP's workbook goes through the question import service, exactly
  as if it had been uploaded on the RFP page.

Loading twice adds nothing: identical files are recognised by their hash, the
source and the RFP by their names.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

import httpx
from django.core.files.base import ContentFile
from django.db import transaction

from rfp_manager.models import RFP
from rfp_manager.services import importing
from solution_library.models import Document, DocumentationSource, SyncJob
from solution_library.services.documents import store_upload
from solution_library.services.scheduling import create_sync_job

from .rendering import parse_blocks, render_docx, render_pdf, title_of
from .workbook import build_workbook, read_demo_rfp

LIBRARY_DIR = Path(__file__).resolve().parent.parent / "content" / "library"
DOCS_START_PATH = "demo/docs/index.html"  # under STATIC_URL: whitenoise serves it without a login
DOCS_SOURCE_NAME = "Orrery documentation (demo)"
# `make run` loads the demo before its web server listens; a sync queued then
# waits this long, so the worker does not find the documentation site closed.
DOCS_SYNC_DELAY_SECONDS = 30

# (sync job, countdown) → None, queues the job after commit:
# solution_library.tasks.dispatch_sync_job, passed in by the caller (no Celery here).
DispatchSync = Callable[[SyncJob, float], None]


@dataclass
class DemoReport:
    """What `load_demo` did, for the command to print and the tests to check."""

    skipped: str = ""  # why nothing was loaded (if_empty on a database with data)
    documents_added: list[str] = field(default_factory=list)
    documents_present: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    source: DocumentationSource | None = None
    sync_job_id: int | None = None
    sync_delay_seconds: int = 0
    rfp: RFP | None = None
    questions_imported: int = 0


def database_is_empty() -> bool:
    """Nothing a person would miss: no documents, sources or RFPs (users and LLM settings don't count)."""
    return not (Document.objects.exists() or DocumentationSource.objects.exists() or RFP.objects.exists())


def load_demo(user, docs_start_url: str, dispatch_sync: DispatchSync, *, if_empty: bool = False) -> DemoReport:
    """Load the demo library, documentation source and RFP (owned by `user`)."""
    if if_empty and not database_is_empty():
        return DemoReport(skipped="The database already has documents, sources or RFPs; the demo was not loaded.")
    report = DemoReport()
    _load_library(user, report)
    _register_docs_source(user, docs_start_url, dispatch_sync, report)
    _load_rfp(user, report)
    return report


# --- library -------------------------------------------------------------------------


def library_files() -> list[tuple[str, bytes]]:
    """(file name, bytes) of every demo library document, binary formats rendered from their text sources."""
    files = []
    for path in sorted(LIBRARY_DIR.iterdir()):
        name, source = path.name, path.read_text(encoding="utf-8")
        if name.endswith((".pdf.md", ".docx.md")):
            name = name.removesuffix(".md")
            title = title_of(parse_blocks(source), default=name)
            render = render_pdf if name.endswith(".pdf") else render_docx
            files.append((name, render(source, title)))
        else:
            files.append((name, path.read_bytes()))
    return files


def _load_library(user, report: DemoReport) -> None:
    for name, data in library_files():
        result = store_upload(name, data, user)
        if result.error:
            report.refused.append(f"{name}: {result.error}")
        elif result.duplicate:
            report.documents_present.append(name)
        else:
            report.documents_added.append(name)


# --- documentation source -----------------------------------------------------------------


def _register_docs_source(user, start_url: str, dispatch_sync: DispatchSync, report: DemoReport) -> None:
    source, created = DocumentationSource.objects.get_or_create(
        name=DOCS_SOURCE_NAME,
        defaults={"start_url": start_url, "allowed_host": urlparse(start_url).netloc, "page_limit": 50},
    )
    report.source = source
    if not created:
        return  # synced already, or on its schedule
    report.sync_delay_seconds = 0 if site_answers(start_url) else DOCS_SYNC_DELAY_SECONDS
    job = create_sync_job(source, user, dispatch=lambda job: dispatch_sync(job, report.sync_delay_seconds))
    report.sync_job_id = job.pk if job else None


def site_answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


# --- RFP ---------------------------------------------------------------------------------------


def _load_rfp(user, report: DemoReport) -> None:
    demo = read_demo_rfp()
    with transaction.atomic():
        rfp, created = RFP.objects.get_or_create(
            name=demo.name, client=demo.client, defaults={"owner": user, "due_date": demo.due_date}
        )
        report.rfp = rfp
        if not created and rfp.questions.exists():
            return
        upload = ContentFile(build_workbook(demo), name=demo.filename)
        record = importing.prepare_import(rfp, user, upload=upload)
        report.questions_imported = importing.apply_import(record)["created"]
