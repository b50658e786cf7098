"""A refused upload says what is wrong and what to do; the library's technical reason is in the log only."""

import io
import logging
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from . import files

pytestmark = pytest.mark.django_db


def pdf_without_startxref() -> bytes:
    data = files.pdf_bytes(["Backups are taken every hour."])
    return data[: data.rfind(b"startxref")] + b"%%EOF\n"


def docx_with_broken_parts() -> bytes:
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", "<not xml")
    return data.getvalue()


# name, bytes, what the person reads, what only the log says
REFUSED = [
    ("handbook.pdf", pdf_without_startxref(), "This PDF is damaged and cannot be read. Open it in a PDF reader", "startxref not found"),
    ("manual.pdf", b"%PDF-1.4\n" + b"garbage " * 50, "This PDF is damaged and cannot be read.", "PdfStreamError"),
    ("setup.pdf", b"MZ\x90\x00" + b"\x00" * 200, "A .exe file holds no document the library can read. Upload PDF", "application/x-msdownload"),
    ("notes.docx", docx_with_broken_parts(), "This Word document is damaged and cannot be read. Open it in Word", "AttributeError"),
    # cut short in a download: it starts as a zip but opens as none ("A .zip file…" told the uploader of a .docx)
    ("report.docx", b"PK\x03\x04" + b"cut short" * 20, "This Word document is damaged and cannot be read.", "application/zip"),
]  # fmt: skip


@pytest.mark.parametrize("name, data, plain, technical", REFUSED, ids=[r[0] for r in REFUSED])
def test_refused_upload_reads_plainly_and_logs_the_reason(user_client, caplog, name, data, plain, technical):
    with caplog.at_level(logging.WARNING, logger="spelunker.refusals"):
        response = user_client.post("/library/upload/", {"files": [SimpleUploadedFile(name, data)]}, follow=True)
    page = response.content.decode()
    assert plain in page
    assert technical not in page
    assert technical in caplog.text


def test_the_upload_script_gets_the_same_plain_message(user_client):
    response = user_client.post(
        "/library/upload/",
        {"files": [SimpleUploadedFile("setup.pdf", b"MZ\x90\x00" + b"\x00" * 200)]},
        HTTP_ACCEPT="application/json",
    )
    (result,) = response.json()["results"]
    assert result["error"].startswith("A .exe file holds no document the library can read.")
    assert "x-msdownload" not in result["error"]
