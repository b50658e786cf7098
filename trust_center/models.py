"""The trust center: what a team publishes for prospects, and what its visitors did.

Publication lives here, not in the libraries below: a PublishedEntry points at
an answer-library entry and keeps the text a person approved for the page, so
a later edit of the entry, or its fall into the review queue, changes nothing
visitors see until someone approves the new text here. A PublishedDocument
points at a library document and says whether anyone may download it or only
a visitor whose request (with the NDA ticked) a team member approved.
Visitors are never users: they are known by the email they gave, or by a
keyed hash of their address (never the address itself).
"""

import uuid

from django.conf import settings
from django.core.validators import FileExtensionValidator, RegexValidator
from django.db import models

from core.excerpts import excerpt

HEX_COLOUR = RegexValidator(r"^#[0-9a-fA-F]{6}$", "A colour as #rrggbb.")


class TrustCenter(models.Model):
    """One organisation's public page."""

    slug = models.SlugField(unique=True, help_text="The page's address: <TRUST_CENTER_PATH><slug>/")
    name = models.CharField(max_length=200)
    is_live = models.BooleanField(default=False, help_text="Visitors see the page only when it is live")
    # PNG, JPEG or WebP only: an SVG served from our own origin can run script.
    logo = models.FileField(
        upload_to="trust_center/logos/",
        blank=True,
        validators=[FileExtensionValidator(["png", "jpg", "jpeg", "webp"])],
    )
    brand_colour = models.CharField(max_length=7, default="#1f4e79", validators=[HEX_COLOUR])
    accent_colour = models.CharField(max_length=7, default="#e8f0f8", validators=[HEX_COLOUR])
    overview = models.TextField(help_text="The opening text of the page (plain text, paragraphs by blank lines)")
    contact_email = models.EmailField(blank=True)
    nda_text = models.TextField(help_text="What a visitor agrees to before requesting a document")
    link_valid_days = models.PositiveIntegerField(default=7, help_text="How long an approved visitor's link works")
    inbox_owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="Visitors' questions arrive as one-question RFPs owned by this person",
    )

    def __str__(self):
        return self.name


class Section(models.Model):
    center = models.ForeignKey(TrustCenter, on_delete=models.CASCADE, related_name="sections")
    title = models.CharField(max_length=120)
    order = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["center", "order", "pk"]

    def __str__(self):
        return self.title


class PublishedEntry(models.Model):
    """An answer-library entry on the page, with the text a person approved for it (a snapshot)."""

    section = models.ForeignKey(Section, on_delete=models.CASCADE, related_name="entries")
    entry = models.ForeignKey("answer_library.Entry", on_delete=models.CASCADE, related_name="+")
    order = models.PositiveIntegerField(default=0)
    question = models.TextField(editable=False)
    answer_text = models.TextField(editable=False)
    choice = models.CharField(max_length=3, blank=True, editable=False)
    entry_version = models.PositiveIntegerField(editable=False, help_text="The entry's version the text is from")
    reviewed_at = models.DateTimeField(null=True, editable=False, help_text="When the library approved that text")
    approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+", editable=False
    )
    approved_at = models.DateTimeField(null=True, editable=False)

    class Meta:
        ordering = ["section", "order", "pk"]
        verbose_name_plural = "published entries"
        constraints = [models.UniqueConstraint(fields=["section", "entry"], name="trust_entry_once_per_section")]

    def __str__(self):
        return excerpt(self.question, 80) or f"Entry {self.entry_id}"


class PublishedDocument(models.Model):
    class Access(models.TextChoices):
        PUBLIC = "public", "Public: anyone downloads it"
        ON_REQUEST = "on_request", "On request: after the NDA and a team member's approval"

    center = models.ForeignKey(TrustCenter, on_delete=models.CASCADE, related_name="documents")
    document = models.ForeignKey("solution_library.Document", on_delete=models.CASCADE, related_name="+")
    # What visitors address it by: a number would tell them how many documents the library holds.
    uuid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    title = models.CharField(max_length=200)
    description = models.CharField(max_length=300, blank=True)
    access = models.CharField(max_length=12, choices=Access.choices, default=Access.ON_REQUEST)
    order = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["center", "order", "pk"]

    def __str__(self):
        return self.title

    @property
    def is_public(self) -> bool:
        return self.access == self.Access.PUBLIC


class AccessRequest(models.Model):
    """A visitor asked for an on-request document and accepted the NDA; a team member decides."""

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting for the team"
        APPROVED = "approved", "Approved: link sent"
        DECLINED = "declined", "Declined"

    document = models.ForeignKey(PublishedDocument, on_delete=models.CASCADE, related_name="requests")
    uuid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    name = models.CharField(max_length=200)
    company = models.CharField(max_length=200)
    email = models.EmailField()
    nda_text = models.TextField(help_text="The NDA as the visitor accepted it")
    nda_accepted_at = models.DateTimeField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING, db_index=True)
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    decided_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self):
        return f"{self.email} asks for {self.document}"


class VisitorEvent(models.Model):
    """One thing a visitor did: the visitor log the team reads, and what the rate limits count."""

    class Kind(models.TextChoices):
        PAGE_VIEW = "page_view", "Viewed the page"
        SEARCH = "search", "Searched"
        DOWNLOAD = "download", "Downloaded a document"
        REQUEST = "request", "Requested a document"
        QUESTION = "question", "Sent a question to the team"
        LINK_OPENED = "link_opened", "Opened their link"

    center = models.ForeignKey(TrustCenter, on_delete=models.CASCADE, related_name="events")
    kind = models.CharField(max_length=12, choices=Kind.choices)
    email = models.EmailField(blank=True, help_text="Known when the visitor gave it (a request, a link)")
    visitor_key = models.CharField(max_length=64, db_index=True, help_text="A keyed hash of the visitor's address")
    document = models.ForeignKey(PublishedDocument, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    access_request = models.ForeignKey(
        AccessRequest, null=True, blank=True, on_delete=models.SET_NULL, related_name="events"
    )
    detail = models.CharField(max_length=300, blank=True)
    at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-at", "-pk"]

    def __str__(self):
        return f"{self.at:%Y-%m-%d %H:%M} {self.email or self.visitor_key[:8]} {self.get_kind_display()}"


class VisitorQuestion(models.Model):
    """A question the published answers did not answer, sent to the team as a one-question RFP."""

    center = models.ForeignKey(TrustCenter, on_delete=models.CASCADE, related_name="questions")
    text = models.TextField()
    email = models.EmailField(blank=True)
    rfp = models.ForeignKey("rfp_manager.RFP", null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self):
        return excerpt(self.text, 80)
