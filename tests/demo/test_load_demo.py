"""`manage.py load_demo` through the real pipeline: a worker processes the documents and syncs the docs site."""

import io

import pytest
from openpyxl import load_workbook

from demo.services.loading import DOCS_SOURCE_NAME, LIBRARY_DIR
from demo.services.workbook import build_workbook, read_demo_rfp
from rfp_manager.models import RFP, Question
from solution_library.models import Document, DocumentType, ReviewStatus, SyncJob
from tests.workers import wait_for

pytestmark = pytest.mark.integration

DOCS_SITE_PAGES = 6


def ready_uploads() -> int:
    return Document.objects.filter(source__isnull=True, review_status__in=[ReviewStatus.PENDING_REVIEW]).count()


def test_demo_library_and_docs_site_are_processed_by_the_workers(live_worker, load_demo):
    output = load_demo()

    library_count = len(list(LIBRARY_DIR.iterdir()))
    assert f"{library_count} documents queued" in output
    wait_for(lambda: ready_uploads() == library_count, timeout=120, message="every demo document processed")
    uploads = Document.objects.filter(source__isnull=True)
    assert not uploads.filter(review_status=ReviewStatus.FAILED).exists()
    assert set(uploads.values_list("file_type", flat=True)) == set(DocumentType.values)  # every supported format
    whitepaper = uploads.get(title="Orrery security whitepaper")
    assert whitepaper.file_type == DocumentType.PDF and "AES-256" in whitepaper.text
    # A DOCX table row reads as a sentence: each cell after its column header.
    datasheet = uploads.get(title="Orrery product datasheet").text
    assert "Capability: Dedicated customer success manager. Standard: No. Professional: Yes." in datasheet

    job = wait_for(
        lambda: SyncJob.objects.filter(source__name=DOCS_SOURCE_NAME, status="completed").first(),
        timeout=60,
        message="the demo docs sync",
    )
    assert (job.documents_created, job.documents_failed) == (DOCS_SITE_PAGES, 0)
    synced = Document.objects.filter(source=job.source)
    assert "Retention schedules and legal holds" in synced.values_list("title", flat=True)


def test_loading_again_adds_nothing_and_if_empty_leaves_a_used_database_alone(live_worker, load_demo):
    load_demo()
    counts = (Document.objects.filter(source__isnull=True).count(), RFP.objects.count(), Question.objects.count())

    again = load_demo()

    assert "0 documents queued" in again
    assert (
        Document.objects.filter(source__isnull=True).count(),
        RFP.objects.count(),
        Question.objects.count(),
    ) == counts
    assert SyncJob.objects.count() == 1  # the source exists: its schedule syncs it, not a second load
    assert "was not loaded" in load_demo("--if-empty")


def test_the_demo_rfp_workbook_is_laid_out_like_a_clients(db):
    rfp = read_demo_rfp()
    workbook = load_workbook(io.BytesIO(build_workbook(rfp)))

    assert workbook.sheetnames == ["Instructions", "Questionnaire"]
    sheet = workbook["Questionnaire"]
    assert sheet["A5"].value == "Ref" and sheet["B1"].value is None  # a title block above the header row
    assert sheet["A6"].value == "A. Supplier"  # a section row
    assert (sheet["A7"].value, sheet["C7"].value) == ("A.1", None)
    (validation,) = sheet.data_validations.dataValidation
    assert validation.formula1 == '"Yes,No,N/A"' and "C7" in validation.sqref
    assert len(rfp.questions) == 30


def test_the_demo_rfp_imports_every_question_with_its_id_and_section(load_demo):
    """Needs the multi-sheet questionnaire import (issue 9): today's importer reads the instructions sheet."""
    load_demo()

    rfp = RFP.objects.get(client="Eastbrook County Council")
    expected = read_demo_rfp()
    assert list(rfp.questions.order_by("order").values_list("number", "text")) == [tuple(q) for q in expected.questions]
    assert rfp.questions.get(number="B.1").section == "B. Information security"


@pytest.mark.django_db
def test_a_docs_site_not_serving_yet_gets_its_sync_delayed(staff_user):
    """`make run` loads the demo before its web server listens: the sync waits instead of failing at once."""
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("load_demo", "--docs-url", "http://127.0.0.1:1/static/demo/docs/index.html", stdout=out)

    assert "queued in 30 s, once the web server answers" in out.getvalue()
    job = SyncJob.objects.get(source__name=DOCS_SOURCE_NAME)
    assert job.status == "pending" and job.source.allowed_host == "127.0.0.1:1"
