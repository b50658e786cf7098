"""The library: documents, their embedded chunks, documentation sources and their jobs."""

from django.conf import settings
from django.db import models
from django.db.models import Exists, Q
from django.utils import timezone

from jobs.models import ACTIVE_STATUSES, BaseJob, JobStatus


class DocumentType(models.TextChoices):
    PDF = "pdf", "PDF"
    DOCX = "docx", "Word (DOCX)"
    MARKDOWN = "markdown", "Markdown"
    HTML = "html", "HTML"
    TEXT = "text", "Plain text"


class ReviewStatus(models.TextChoices):
    PROCESSING = "processing", "Processing"
    # Processed and searchable. Nobody has to review a document before it is used, so it reads "Ready";
    # the stored value keeps its old name (jobs, tests and URLs filter by it).
    PENDING_REVIEW = "pending_review", "Ready"
    APPROVED = "approved", "Approved"
    FAILED = "failed", "Failed"


# A document processing longer than this gets its Retry button back.
STUCK_PROCESSING_SECONDS = 15 * 60

# Statuses whose chunks are complete and searchable ("ready" in the UI).
READY_STATUSES = (ReviewStatus.PENDING_REVIEW, ReviewStatus.APPROVED)


class DocumentationSource(models.Model):
    """A documentation website synced page by page into library documents."""

    name = models.CharField(max_length=200, unique=True)
    start_url = models.URLField(max_length=1000, help_text="First page to crawl, or a sitemap.xml")
    allowed_host = models.CharField(
        max_length=255, help_text="Only pages on this host are fetched (e.g. docs.example.com)"
    )
    page_limit = models.PositiveIntegerField(default=200)
    sync_interval_hours = models.PositiveIntegerField(
        default=24, help_text="How often the scheduled sync runs it; 0 = only on demand"
    )
    is_active = models.BooleanField(default=True)
    last_synced_at = models.DateTimeField(null=True, blank=True)
    # The database half of the one-sync-at-a-time guard (see locks.py): a lease
    # that still holds when memcached is down or has evicted the cache key.
    sync_lock_token = models.CharField(max_length=255, blank=True, editable=False)
    sync_lock_expires_at = models.DateTimeField(null=True, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name


class DocumentQuerySet(models.QuerySet):
    def processing(self):
        """The documents still being read and embedded: search does not find them yet."""
        return self.filter(review_status=ReviewStatus.PROCESSING)

    def ready(self):
        """The documents search finds: processed and embedded."""
        return self.filter(review_status__in=READY_STATUSES)

    def mark_failed(self, reason: str, code: str) -> int:
        """Show these documents as failed, with the reason and its stable code (jobs.models.ErrorCode). A failed
        document is not searchable: its `processed_at` is cleared, so read again, even unchanged, it becomes
        searchable then, and a question drafted while it failed is offered a redraft."""
        return self.update(
            review_status=ReviewStatus.FAILED,
            status_message=reason[:2000],
            error_code=code,
            processed_at=None,
            updated_at=timezone.now(),
        )


class Document(models.Model):
    """One uploaded file or synced page, and where it is in its processing.

    `review_status` is the document's state as its pages and search read it; each request to process
    it is a DocumentJob, which does the delivery bookkeeping.
    """

    title = models.CharField(max_length=300)
    file = models.FileField(upload_to="library/%Y/%m/", max_length=500)
    content_hash = models.CharField(max_length=64, db_index=True, help_text="SHA-256 of the file's bytes")
    file_type = models.CharField(max_length=20, choices=DocumentType.choices)
    size_bytes = models.PositiveBigIntegerField(default=0)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    source = models.ForeignKey(
        DocumentationSource, null=True, blank=True, on_delete=models.CASCADE, related_name="documents"
    )
    source_url = models.URLField(max_length=1000, blank=True)

    review_status = models.CharField(
        max_length=20, choices=ReviewStatus.choices, default=ReviewStatus.PROCESSING, db_index=True
    )
    status_message = models.TextField(blank=True, help_text="Why processing failed")
    error_code = models.CharField(
        max_length=40, blank=True, help_text="Stable reason code (spelunker.jobs.models.ErrorCode)"
    )
    text = models.TextField(blank=True, help_text="The text extracted from the file")
    embedding_model = models.ForeignKey(
        "llm_manager.LLMModel", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    chunk_count = models.PositiveIntegerField(default=0)
    processed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = DocumentQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            # An uploaded file is stored once, whoever uploads it again.
            models.UniqueConstraint(
                fields=["content_hash"], condition=Q(source__isnull=True), name="uploaded_document_unique_hash"
            ),
            # A synced page is one document per URL of its source.
            models.UniqueConstraint(
                fields=["source", "source_url"], condition=Q(source__isnull=False), name="synced_document_unique_url"
            ),
        ]

    def __str__(self):
        return self.title

    @property
    def is_ready(self) -> bool:
        return self.review_status in READY_STATUSES

    @property
    def is_processing(self) -> bool:
        return self.review_status == ReviewStatus.PROCESSING

    @property
    def can_retry(self) -> bool:
        """Not while queued or running — unless it has been stuck for a while (lost message)."""
        if not self.is_processing:
            return True
        return (timezone.now() - self.updated_at).total_seconds() > STUCK_PROCESSING_SECONDS


class Chunk(models.Model):
    """A passage of a document and its embedding (float32 bytes, see services/search_index.py).

    The document title and the section heading are copied onto the chunk so
    the database's full-text index ranks them with the passage (a PostgreSQL
    generated column cannot read another table). A document's chunks exist once
    per embedding model: while the library is re-embedded with a new model, the
    old model's chunks keep serving searches until the new set is complete.
    """

    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="chunks")
    position = models.PositiveIntegerField()
    title = models.CharField(max_length=300, blank=True, help_text="The document's title when the chunk was made")
    heading = models.CharField(max_length=300, blank=True, help_text="The section heading the passage sits under")
    text = models.TextField()
    start_char = models.PositiveIntegerField(default=0, help_text="Offset of the passage in Document.text")
    end_char = models.PositiveIntegerField(default=0)
    embedding = models.BinaryField()
    embedding_model = models.ForeignKey("llm_manager.LLMModel", on_delete=models.CASCADE, related_name="+")

    class Meta:
        ordering = ["document", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["document", "embedding_model", "position"], name="chunk_unique_model_position"
            )
        ]
        indexes = [models.Index(fields=["embedding_model", "id"], name="chunk_model_id_idx")]

    def __str__(self):
        return f"{self.document_id}#{self.position}"

    @property
    def number(self) -> int:
        """The passage's number as people read it: the first passage of a document is passage 1."""
        return self.position + 1


class SearchIndexVersion(models.Model):
    """Changed in the same transaction as any change to one model's chunks.

    Every process reads this one row before a search to learn cheaply whether
    the shared index files it has open are still current (services/search_index.py).
    The version is a random token, not a counter, so a rolled-back or restored
    database can never present an old number that a process mistakes for the
    current one; its first part (the lineage) stays the same across changes.
    """

    embedding_model = models.OneToOneField("llm_manager.LLMModel", on_delete=models.CASCADE, primary_key=True)
    version = models.CharField(max_length=32)


class ChunkWordCount(models.Model):
    """How many of one document's chunks hold a word (a full-text lexeme): PostgreSQL keeps these rows itself.

    Search leaves out the words too common to rank cheaply (services/lexical.affordable_terms), so it
    must know, for each new word of a question, how many chunks hold it. Counting them through the
    GIN index reads every matching row (2 ms a word at 100,000 chunks); summing these rows reads one
    row per document that holds the word, all of a question's words in one query. Triggers on the
    chunk table keep the rows in step within the same transaction (migration 0001_squashed), so no code path
    can forget them. One row per document, not per word, so that two workers ingesting at once
    never wait on each other's rows. A plain id, not a foreign key: Django would otherwise load and
    delete these rows itself whenever a document is deleted, and the triggers already do. SQLite's
    FTS5 table answers the same question itself; there this table stays empty.
    """

    lexeme = models.TextField()
    document_id = models.BigIntegerField()
    chunks = models.PositiveIntegerField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["lexeme", "document_id"], name="chunk_word_count_unique")]

    def __str__(self):
        return f"{self.lexeme} × {self.chunks} in document {self.document_id}"


class SyncJob(BaseJob):
    """One sync of a documentation source; at most one is active per source."""

    source = models.ForeignKey(DocumentationSource, on_delete=models.CASCADE, related_name="sync_jobs")
    documents_created = models.PositiveIntegerField(default=0)
    documents_updated = models.PositiveIntegerField(default=0)
    documents_skipped = models.PositiveIntegerField(default=0)
    documents_failed = models.PositiveIntegerField(default=0)
    documents_removed = models.PositiveIntegerField(default=0)

    class Meta(BaseJob.Meta):
        verbose_name = "sync job"
        constraints = [
            models.UniqueConstraint(
                fields=["source"], condition=Q(status__in=ACTIVE_STATUSES), name="one_active_sync_per_source"
            )
        ]

    def __str__(self):
        return f"Sync {self.pk} of {self.source}"

    def status_payload(self) -> dict:
        return {
            **super().status_payload(),
            "source_id": self.source_id,
            "created": self.documents_created,
            "updated": self.documents_updated,
            "skipped": self.documents_skipped,
            "failed_documents": self.documents_failed,
            "removed": self.documents_removed,
        }


class DocumentJob(BaseJob):
    """One request to process a document (its upload, a Retry, a sync that changed its page).

    Created processing, as the document then shows: the sweeper watches it from the moment its
    message leaves the outbox, so a message lost before any worker took it is sent again too.
    """

    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="jobs")
    embedding_model = models.ForeignKey(
        "llm_manager.LLMModel",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The embedding model asked for; empty for the default one",
    )

    class Meta(BaseJob.Meta):
        verbose_name = "document processing job"

    def __str__(self):
        return self.document.title

    def on_finish(self) -> None:
        """A failed job fails its document with the same message and code, unless a newer request took it over."""
        if self.status == JobStatus.FAILED:
            newer = DocumentJob.objects.filter(document_id=self.document_id, pk__gt=self.pk)
            Document.objects.filter(~Exists(newer), pk=self.document_id).mark_failed(self.message, self.error_code)


class EmbedBatchJob(BaseJob):
    """Re-embedding of documents chosen in the admin, or of the whole library with a new model.

    With `target_model` set, every ready document gets chunks of that model
    beside its current ones; only when all are done does the model become the
    default and the other models' chunks go, so search never sees a half index.
    """

    document_ids = models.JSONField(default=list)
    target_model = models.ForeignKey(
        "llm_manager.LLMModel",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="+",
        help_text="Re-embed the library with this model, then make it the default embedding model",
    )

    class Meta(BaseJob.Meta):
        verbose_name = "embedding batch job"

    def __str__(self):
        return f"Embedding batch {self.pk} ({len(self.document_ids)} documents)"
