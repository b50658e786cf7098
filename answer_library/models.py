"""The answer library: approved question-and-answer entries, their versions, and the jobs that keep them honest.

An entry is what a person approved once and wants reused: the question, the
other ways it has been asked, the answer, an optional Yes / No / N/A, the
library passages it rests on, who owns it and when it must be looked at
again. Every change writes an EntryVersion, so the history says who changed
what and when. The responder reuses an entry before it drafts from documents
(services/matching.py).
"""

from django.conf import settings
from django.db import models
from django.db.models import Q

from core.excerpts import excerpt
from jobs.models import ACTIVE_STATUSES, BaseJob

CHOICES = [("yes", "Yes"), ("no", "No"), ("na", "N/A")]


class EntryQuerySet(models.QuerySet):
    def usable(self):
        """Entries the responder may reuse: not retired or merged (one waiting for review stays usable, marked)."""
        return self.filter(status__in=(Entry.Status.ACTIVE, Entry.Status.NEEDS_REVIEW))


class Entry(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active", "Current"
        NEEDS_REVIEW = "needs_review", "Needs review"
        RETIRED = "retired", "Retired"
        MERGED = "merged", "Merged into another entry"

    class Origin(models.TextChoices):
        RFP = "rfp", "Approved in an RFP"
        IMPORT = "import", "Imported from an answered questionnaire"
        MANUAL = "manual", "Written in the library"

    question = models.TextField()
    alternatives = models.JSONField(default=list, blank=True, help_text="Other wordings of the same question")
    answer_text = models.TextField()
    choice = models.CharField(max_length=3, choices=CHOICES, blank=True)
    # The cited passages at approval: n, chunk_id, document_id, document_title, text, document_hash.
    sources = models.JSONField(default=list, blank=True)
    tags = models.JSONField(default=list, blank=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="library_entries"
    )
    review_by = models.DateField(null=True, blank=True)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.ACTIVE, db_index=True)
    # Why it is in the review queue (written by the periodic review task): [{"code", "text"}].
    review_reasons = models.JSONField(default=list, blank=True)
    origin = models.CharField(max_length=10, choices=Origin.choices, default=Origin.MANUAL)
    origin_answer = models.ForeignKey(
        "rfp_manager.Answer", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    origin_label = models.CharField(max_length=300, blank=True, help_text="e.g. the RFP or the workbook and row")
    # Makes an import idempotent: the same workbook row updates its entry instead of adding one.
    origin_key = models.CharField(max_length=300, blank=True)
    merged_into = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="merged")
    version = models.PositiveIntegerField(default=1)
    approved_at = models.DateTimeField(null=True, blank=True, help_text="When the current text was approved")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = EntryQuerySet.as_manager()

    class Meta:
        ordering = ["-updated_at", "-pk"]
        verbose_name_plural = "entries"
        constraints = [
            models.UniqueConstraint(fields=["origin_key"], condition=~Q(origin_key=""), name="entry_unique_origin_key"),
        ]
        # Granted in the admin to a person or a group ("answer library editors"); superusers hold it.
        permissions = [("edit_library", "Can approve, edit, retire and merge entries and decide conflicts")]

    def __str__(self):
        return f"Entry {self.pk}: {excerpt(self.question, 60)}"

    @property
    def phrasings(self) -> list[str]:
        return [self.question, *[a for a in self.alternatives if a.strip()]]


class EntryVersion(models.Model):
    """The entry as it was after one change: who, when, and why."""

    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    question = models.TextField()
    alternatives = models.JSONField(default=list, blank=True)
    answer_text = models.TextField()
    choice = models.CharField(max_length=3, choices=CHOICES, blank=True)
    sources = models.JSONField(default=list, blank=True)
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    note = models.CharField(max_length=300, blank=True)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-number"]
        constraints = [models.UniqueConstraint(fields=["entry", "number"], name="one_entry_version_per_number")]


class EntryPhrasing(models.Model):
    """One text of an entry with its embedding: what the responder's match compares a question against.

    A wording of the entry's question, or the entry as answered (its question with its answer: what it says,
    not only what it was asked). Kept per embedding model; a change of the default model re-embeds on the
    next match (matching.py).
    """

    class Kind(models.TextChoices):
        WORDING = "wording", "A wording of the question"
        ANSWERED = "answered", "The question with its answer"

    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="phrasing_rows")
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.WORDING)
    text = models.TextField()
    embedding = models.JSONField(default=list)
    embedding_model = models.ForeignKey("llm_manager.LLMModel", null=True, on_delete=models.SET_NULL, related_name="+")


class Candidate(models.Model):
    """A person's edit of a drafted answer: a proposal for the library, until someone approves or dismisses it."""

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        SAVED = "saved", "Saved to the library"
        DISMISSED = "dismissed", "Dismissed"

    answer = models.OneToOneField("rfp_manager.Answer", on_delete=models.CASCADE, related_name="library_candidate")
    text = models.TextField()
    edited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at"]


class LibraryImport(models.Model):
    """An answered questionnaire to seed the library from: the file, the mapping, and the rows with their answers."""

    original_name = models.CharField(max_length=255)
    kind = models.CharField(max_length=10)
    file = models.FileField(upload_to="library_imports/%Y/%m/")
    mapping = models.JSONField(default=dict, blank=True)
    mapping_source = models.CharField(max_length=10, blank=True)
    # Good rows that carry an answer: sheet, row, section, number, text, key, answer, choice.
    rows = models.JSONField(default=list, blank=True)
    skipped = models.JSONField(default=list, blank=True, help_text="Rows left out, with the reason")
    tags = models.JSONField(default=list, blank=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    review_by = models.DateField(null=True, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self):
        return f"Library import {self.pk} of {self.original_name}"


class LibraryJob(BaseJob):
    """The reading of an answered questionnaire too large to read inside the upload request, its import, or a
    duplicates-and-conflicts scan (the row comes first)."""

    READ = "read"
    IMPORT = "import"
    CONFLICTS = "conflicts"
    JOB_TYPE_CHOICES = [
        (READ, "Reading of a file to import"),
        (IMPORT, "Library import"),
        (CONFLICTS, "Duplicates and conflicts scan"),
    ]

    job_type = models.CharField(max_length=20, choices=JOB_TYPE_CHOICES)
    library_import = models.ForeignKey(
        LibraryImport, null=True, blank=True, on_delete=models.CASCADE, related_name="jobs"
    )
    summary = models.JSONField(default=dict, blank=True)

    class Meta(BaseJob.Meta):
        verbose_name = "library job"
        constraints = [
            # The duplicate-job guard in the database: one active import per file, one active scan.
            models.UniqueConstraint(
                fields=["library_import"],
                condition=Q(status__in=ACTIVE_STATUSES, job_type="import"),
                name="one_active_import_job_per_file",
            ),
            models.UniqueConstraint(
                fields=["job_type"],
                condition=Q(status__in=ACTIVE_STATUSES, job_type="conflicts"),
                name="one_active_conflicts_scan",
            ),
        ]

    def __str__(self):
        return f"{self.get_job_type_display()} {self.pk}"


class Finding(models.Model):
    """Two entries that say the same thing (merge them) or answer the same question differently (decide)."""

    class Kind(models.TextChoices):
        DUPLICATE = "duplicate", "Near-duplicate"
        CONFLICT = "conflict", "Conflict"

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        MERGED = "merged", "Merged"
        RESOLVED = "resolved", "Resolved"
        DISMISSED = "dismissed", "Not a problem"

    kind = models.CharField(max_length=10, choices=Kind.choices)
    first = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="+")
    second = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="+")
    similarity = models.FloatField()
    detail = models.TextField(blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN, db_index=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    found_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["status", "kind", "-similarity"]
        constraints = [models.UniqueConstraint(fields=["first", "second"], name="one_finding_per_entry_pair")]


class CanonicalFact(models.Model):
    """A fact every answer must state the same way (legal name, certifications, regions, retention periods).

    `pattern` is a regular expression that finds the fact in an answer; its
    first group (or the whole match) is the value stated, compared with `value`
    ignoring case and spacing. Answers that do not mention the fact are not checked.
    """

    name = models.CharField(max_length=200, unique=True)
    pattern = models.CharField(max_length=500, help_text=r"e.g. password[^.]*?(\d+)\s*days")
    value = models.CharField(max_length=300, help_text="The canonical value, e.g. 90")
    is_active = models.BooleanField(default=True)

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return f"{self.name} = {self.value}"


class Suggestion(models.Model):
    """An entry the library suggests for a question it did not reuse automatically, and what a person did with it.

    Written by the responder (one row per question and entry, rank and score rewritten on a redraft); a person
    uses one (its answer becomes the question's, as an automatic reuse) or rejects it (never suggested for that
    question again). The decided rows are what the library learns from: the wording asked, the entry, the outcome.
    """

    class Outcome(models.TextChoices):
        PENDING = "pending", "Pending"
        USED = "used", "Used"
        REJECTED = "rejected", "Rejected"

    question = models.ForeignKey("rfp_manager.Question", on_delete=models.CASCADE, related_name="library_suggestions")
    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="suggestions")
    rank = models.PositiveSmallIntegerField()
    score = models.FloatField()
    # The question's wording when it was suggested: what a use adds to the entry's phrasings.
    wording = models.TextField()
    outcome = models.CharField(max_length=10, choices=Outcome.choices, default=Outcome.PENDING, db_index=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["question", "rank"]
        constraints = [models.UniqueConstraint(fields=["question", "entry"], name="one_suggestion_per_question_entry")]

    def __str__(self):
        return f"Suggestion of entry {self.entry_id} for question {self.question_id} ({self.outcome})"
