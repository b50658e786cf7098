"""A live trust center for Acme: three published entries in two sections, an unpublished one, two documents."""

import hashlib
import io
from types import SimpleNamespace

import pytest
from django.core.files.base import ContentFile
from reportlab.pdfgen import canvas

from answer_library.models import Entry
from answer_library.services.entries import save_entry
from solution_library.models import Document, DocumentType
from tests.solution_library.conftest import offline_embedding  # noqa: F401  (entries are embedded on save)
from trust_center.models import PublishedDocument, Section, TrustCenter
from trust_center.services import publishing

PUBLISHED = {
    "Infrastructure": [
        ("Where is customer data hosted?", "In AWS eu-central-1 (Frankfurt), across three availability zones."),
        ("How often are backups taken?", "Hourly incremental and daily full backups, kept for 35 days."),
    ],
    "Data protection": [
        ("Is customer data encrypted at rest?", "Yes. All customer data is encrypted at rest with AES-256."),
    ],
}
UNPUBLISHED = ("Do you have an open critical pen-test finding?", "One critical finding is open until March.")


def make_pdf(text: str, pages: int = 2) -> bytes:
    buffer = io.BytesIO()
    drawing = canvas.Canvas(buffer)
    for n in range(pages):
        drawing.drawString(72, 720, f"{text} (page {n + 1})")
        drawing.showPage()
    drawing.save()
    return buffer.getvalue()


def add_document(title: str, data: bytes, file_type: str, name: str) -> Document:
    """A library document as uploaded (its processing is the library's business, not the page's)."""
    document = Document(
        title=title, content_hash=hashlib.sha256(data).hexdigest(), file_type=file_type, size_bytes=len(data)
    )
    document.file.save(name, ContentFile(data), save=False)
    document.save()
    return document


def add_entry(question: str, answer: str, user) -> Entry:
    return save_entry(Entry(), user, "Written for the tests", question=question, answer_text=answer)


@pytest.fixture
def team(django_user_model):
    return django_user_model.objects.create_user("sam", password="pw-sam-12345", is_staff=True, is_superuser=True)


@pytest.fixture
def acme(db, offline_embedding, team):  # noqa: F811
    center = TrustCenter.objects.create(
        slug="acme",
        name="Acme Cloud",
        is_live=True,
        brand_colour="#0b3d91",
        accent_colour="#eaf1fb",
        overview="Acme Cloud keeps customer data safe.\n\nSOC 2 Type II audited every year.",
        contact_email="security@acme.example",
        nda_text="You will keep the documents confidential and share them with nobody.",
        link_valid_days=7,
        inbox_owner=team,
    )
    published = {}
    for order, (title, rows) in enumerate(PUBLISHED.items()):
        section = Section.objects.create(center=center, title=title, order=order)
        for question, answer in rows:
            published[question] = publishing.publish(section, add_entry(question, answer, team), team)
    hidden = add_entry(*UNPUBLISHED, team)
    report = add_document("SOC 2 Type II report", make_pdf("Acme SOC 2 Type II report"), DocumentType.PDF, "soc2.pdf")
    overview = add_document(
        "Security overview", make_pdf("Acme security overview", pages=1), DocumentType.PDF, "overview.pdf"
    )
    secret = add_document("Internal runbook", b"Never published.", DocumentType.TEXT, "runbook.txt")
    return SimpleNamespace(
        center=center,
        published=published,
        hidden=hidden,
        public=PublishedDocument.objects.create(
            center=center,
            document=overview,
            title="Security overview",
            description="Our controls at a glance (PDF)",
            access=PublishedDocument.Access.PUBLIC,
        ),
        on_request=PublishedDocument.objects.create(
            center=center,
            document=report,
            title="SOC 2 Type II report",
            description="Independent auditor's report, 2026 (under NDA)",
            access=PublishedDocument.Access.ON_REQUEST,
        ),
        secret=secret,
        url="/trust/acme/",
    )
