"""A refused questionnaire says what is wrong and what to do; the parser's technical reason is in the log only."""

import io
import logging

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from openpyxl import Workbook

from rfp_manager.models import RFP, QuestionImport
from tests.solution_library import files

pytestmark = pytest.mark.django_db


def header_only_workbook() -> bytes:
    workbook = Workbook()
    workbook.active.title = "Questions"
    workbook.active.append(["ID", "Question", "Answer", "Comments"])
    data = io.BytesIO()
    workbook.save(data)
    return data.getvalue()


# name, bytes, what the person reads, what only the log says
REFUSED = [
    ("questionnaire.pdf", b"%PDF-1.4\n" + b"garbage " * 50, "The PDF is damaged and cannot be read. Open it in a PDF reader", "PdfStreamError"),
    ("questionnaire.xlsx", b"PK\x03\x04" + b"\x00" * 200, "The file is damaged or is not an Excel workbook. Open it in Excel", "BadZipFile"),
    ("questionnaire.docx", b"PK\x03\x04" + b"\x00" * 200, "The document is damaged or is not a Word .docx file. Open it in Word", "BadZipFile"),
]  # fmt: skip


@pytest.fixture
def rfp(user):
    return RFP.objects.create(name="Acme", owner=user)


def post_import(client, rfp, name: str, data: bytes):
    return client.post(reverse("rfp_manager:import", args=[rfp.pk]), {"file": SimpleUploadedFile(name, data)})


@pytest.mark.parametrize("name, data, plain, technical", REFUSED, ids=[r[0] for r in REFUSED])
def test_refused_import_reads_plainly_and_logs_the_reason(rfp, user_client, caplog, name, data, plain, technical):
    with caplog.at_level(logging.WARNING, logger="spelunker.refusals"):
        response = post_import(user_client, rfp, name, data)
    page = response.content.decode()
    assert response.status_code == 400
    assert plain in page
    assert technical not in page.split('id="page-error"')[1].split("</p>")[0]
    assert technical in caplog.text
    assert not QuestionImport.objects.exists()


def test_a_header_only_workbook_is_said_to_have_no_rows_under_its_headings(rfp, user_client):
    response = post_import(user_client, rfp, "questionnaire.xlsx", header_only_workbook())
    page = response.content.decode()
    assert response.status_code == 400
    assert "“Questions” has column headings but no rows under them" in page
    assert "question-like" not in page


def test_a_pdf_questionnaire_without_startxref_is_refused_without_the_parsers_words(rfp, user_client, caplog):
    data = files.pdf_bytes(["Scope of work."])
    data = data[: data.rfind(b"startxref")] + b"%%EOF\n"
    with caplog.at_level(logging.WARNING, logger="spelunker.refusals"):
        response = post_import(user_client, rfp, "questionnaire.pdf", data)
    assert "The PDF is damaged and cannot be read." in response.content.decode()
    assert "startxref" not in response.content.decode()
    assert "startxref not found" in caplog.text


def test_a_damaged_rfp_document_says_so_plainly_on_the_rfp_page(rfp, user, user_client, caplog):
    from rfp_manager.models import InformationDocument
    from rfp_manager.tasks import summarize_information_document

    document = InformationDocument.objects.create(
        rfp=rfp, title="Scope", file=SimpleUploadedFile("scope.pdf", b"%PDF-1.4\n" + b"garbage " * 50), uploaded_by=user
    )
    with caplog.at_level(logging.WARNING):
        summarize_information_document.apply(args=[document.pk])
    page = user_client.get(reverse("rfp_manager:detail", args=[rfp.pk])).content.decode()
    assert "This PDF is damaged and cannot be read. Open it in a PDF reader" in page
    assert "PdfStreamError" not in page and "DocumentTextError" not in page
    assert "PdfStreamError" in caplog.text
