"""Documents on request: the visitor's request with the NDA, the team's decision, the signed link, the watermark.

The link carries the request's uuid signed with a timestamp (TimestampSigner):
it opens that one request's document and nothing else, for the center's
`link_valid_days`, and only while the request stays approved (a team member
may decline it later and the link stops at once).
"""

import io

from django.conf import settings
from django.core import signing
from django.core.mail import EmailMessage
from django.urls import reverse
from django.utils import timezone
from pypdf import PdfReader, PdfWriter
from reportlab.lib.colors import Color
from reportlab.pdfgen import canvas

from audit import services as audit
from core.excerpts import SUBJECT_CHARS, excerpt

from ..models import AccessRequest, PublishedDocument

SALT = "trust_center.access-link"
DAY = 24 * 3600


def request_access(document: PublishedDocument, *, name: str, company: str, email: str) -> AccessRequest:
    """The visitor accepted the center's NDA as it reads now (kept with the request)."""
    return AccessRequest.objects.create(
        document=document,
        name=name,
        company=company,
        email=email,
        nda_text=document.center.nda_text,
        nda_accepted_at=timezone.now(),
    )


def decide(access_request: AccessRequest, user, *, approve: bool) -> None:
    """A team member approves or declines the request (the caller has a worker email the link of an approval)."""
    access_request.status = AccessRequest.Status.APPROVED if approve else AccessRequest.Status.DECLINED
    access_request.decided_by = user
    access_request.decided_at = timezone.now()
    access_request.save(update_fields=["status", "decided_by", "decided_at"])
    audit.record(
        "trust_center",
        f"{access_request.get_status_display().split(':')[0].lower()} {access_request.email}'s request "
        f"for “{access_request.document.title}” on the {access_request.document.center.name} trust center",
        actor=user,
        email=access_request.email,
    )


# --- the link ------------------------------------------------------------------------------------


def make_token(access_request: AccessRequest) -> str:
    return signing.TimestampSigner(salt=SALT).sign(str(access_request.uuid))


def link_for(access_request: AccessRequest) -> str:
    center = access_request.document.center
    path = reverse("trust_center:access", kwargs={"slug": center.slug, "token": make_token(access_request)})
    return settings.SPELUNKER_SITE_URL.rstrip("/") + path


def request_for_token(token: str, slug: str) -> AccessRequest | None:
    """The approved request the token opens, while it is valid; None for anything else (expired, forged, declined).

    The signature is checked first (a forged token costs no query), its age against the center's own limit next.
    """
    signer = signing.TimestampSigner(salt=SALT)
    try:
        request_uuid = signer.unsign(token)
    except signing.BadSignature:
        return None
    access_request = (
        AccessRequest.objects.select_related("document__center", "document__document")
        .filter(uuid=request_uuid, status=AccessRequest.Status.APPROVED, document__center__slug=slug)
        .first()
    )
    if access_request is None:
        return None
    try:
        signer.unsign(token, max_age=access_request.document.center.link_valid_days * DAY)
    except signing.SignatureExpired:
        return None
    return access_request


def message_for(access_request: AccessRequest) -> EmailMessage:
    center = access_request.document.center
    body = (
        f"Hello {access_request.name},\n\n"
        f"{center.name} approved your request for “{access_request.document.title}”.\n"
        f"Download it here (the link works for {center.link_valid_days} days and only for you):\n\n"
        f"{link_for(access_request)}\n\n"
        f"{mark_note(access_request)}\n"
    )
    subject = excerpt(f"{center.name}: your access to {access_request.document.title}", SUBJECT_CHARS)
    return EmailMessage(subject=subject, body=body, to=[access_request.email])


# --- the watermark -------------------------------------------------------------------------------


def carries_mark(file_type: str) -> bool:
    """Only a PDF gets the recipient's mark written into it (`watermarked`); other formats are served as they are."""
    return file_type == "pdf"


def mark_note(access_request: AccessRequest) -> str:
    """What the visitor is told of the mark, in the email and on the link's page: never that a file is marked when
    it is not."""
    email = access_request.email
    if carries_mark(access_request.document.document.file_type):
        return f"Your copy is marked with your email address, {email}."
    return f"Your download is recorded against your email address, {email}."


def watermarked(data: bytes, file_type: str, email: str, company_name: str) -> tuple[bytes, bool]:
    """The document marked for `email`: a PDF gets it in its metadata and a footer line on every page.

    Other formats are served as they are (False): writing into them would need a parser per format.
    """
    if not carries_mark(file_type):
        return data, False
    reader = PdfReader(io.BytesIO(data))
    writer = PdfWriter(clone_from=reader)
    line = f"Provided by {company_name} to {email} on {timezone.now():%Y-%m-%d}. Confidential: under NDA."
    for page in writer.pages:
        page.merge_page(_footer_page(float(page.mediabox.width), float(page.mediabox.height), line))
    writer.add_metadata({**(reader.metadata or {}), "/Subject": line, "/SpelunkerRecipient": email})
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue(), True


def _footer_page(width: float, height: float, line: str):
    """A page of the given size holding only the footer line (drawn with reportlab, merged over the original)."""
    buffer = io.BytesIO()
    drawing = canvas.Canvas(buffer, pagesize=(width, height))
    drawing.setFont("Helvetica", 8)
    drawing.setFillColor(Color(0.35, 0.35, 0.35))
    drawing.drawCentredString(width / 2, 14, line)
    drawing.save()
    return PdfReader(io.BytesIO(buffer.getvalue())).pages[0]
