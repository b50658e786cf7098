"""RFPs, their questions and answers, and the batch jobs that answer and review them."""

from django.conf import settings
from django.db import models
from django.db.models import Count, Q
from django.utils import timezone

from core.excerpts import excerpt
from jobs.models import ACTIVE_STATUSES, BaseJob, JobStatus


class RFPQuerySet(models.QuerySet):
    def visible_to(self, user):
        """An RFP is seen by its owner, the groups it is shared with and the people given a role on it
        (teamwork.Membership); superusers see all. What each may do: `rfp_manager.access`."""
        if user.is_superuser:
            return self
        return self.filter(Q(owner=user) | Q(shared_with__in=user.groups.all()) | Q(memberships__user=user)).distinct()

    def with_progress(self):
        """question_count and approved_count on each RFP: its progress, in the same query.

        Distinct counts, so the joins visible_to adds (groups, roles) never count a question twice."""
        return self.annotate(
            question_count=Count("questions", distinct=True),
            approved_count=Count("questions", filter=Q(questions__status=QuestionStatus.APPROVED), distinct=True),
        )


class RFP(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        IN_PROGRESS = "in_progress", "In progress"
        APPROVED = "approved", "All approved"
        SUBMITTED = "submitted", "Submitted"
        ARCHIVED = "archived", "Archived"

    # Set by a person; the others follow the questions (services/workflow.refresh_rfp_status).
    MANUAL_STATUSES = (Status.SUBMITTED, Status.ARCHIVED)

    name = models.CharField(max_length=200)
    client = models.CharField(max_length=200, blank=True)
    due_date = models.DateField(null=True, blank=True)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="rfps")
    shared_with = models.ManyToManyField("auth.Group", blank=True, related_name="rfps")
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.DRAFT)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = RFPQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "RFP"

    def __str__(self):
        return self.name

    def context_summary(self, max_chars: int = 2000) -> str:
        """The RFP's own documents, summarized: extra context for every answer."""
        summaries = self.information_documents.exclude(summary="").values_list("summary", flat=True)
        return " ".join(" ".join(s.split()) for s in summaries)[:max_chars]


class ImportFormat(models.Model):
    """A questionnaire format seen before: its structure's fingerprint and the mapping the user confirmed.

    The fingerprint covers sheet names and header labels, never questions or
    answers, so proposing a saved mapping reveals nothing to someone who does not
    already hold a file of the same structure.
    """

    fingerprint = models.CharField(max_length=64, unique=True)
    mapping = models.JSONField()
    example_name = models.CharField(max_length=255, blank=True, help_text="The file it was confirmed on")
    saved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"Format of {self.example_name or self.fingerprint[:12]}"


class QuestionImport(models.Model):
    """One uploaded file or pasted text, analysed and previewed before it is applied.

    Keeping the parse on a row (not in the session) lets the preview survive a
    reload; the file is kept for remapping and for the write-back export, and
    the mapping the user chose is stored with it.
    """

    class Kind(models.TextChoices):
        XLSX = "xlsx", "Excel workbook"
        CSV = "csv", "CSV"
        TEXT = "text", "Pasted text"
        DOCX = "docx", "Word document"
        PDF = "pdf", "PDF"

    # The kinds whose questions keep their place in the stored file (for the answers written back into it).
    FILE_KINDS_WITH_PLACES = (Kind.XLSX, Kind.CSV, Kind.DOCX, Kind.PDF)

    class MappingSource(models.TextChoices):
        PROPOSED = "proposed", "Proposed by the analysis"
        SAVED = "saved", "Saved from an earlier file of the same format"
        EDITED = "edited", "Corrected by hand"

    rfp = models.ForeignKey(RFP, on_delete=models.CASCADE, related_name="imports")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    original_name = models.CharField(max_length=255, blank=True)
    file = models.FileField(upload_to="rfp_imports/%Y/%m/", blank=True)
    mapping = models.JSONField(default=dict, blank=True, help_text="Per sheet: include, header row, column roles")
    mapping_source = models.CharField(max_length=10, choices=MappingSource.choices, blank=True)
    fingerprint = models.CharField(max_length=64, blank=True, help_text="Sheet names and header labels, hashed")
    lost_features = models.JSONField(default=list, blank=True, help_text="What a copy saved by openpyxl will not keep")
    rows = models.JSONField(default=list, help_text="Good rows: sheet, row, section, number, text, key, cells")
    bad_rows = models.JSONField(default=list, help_text="Rows left out: sheet, row, reason, text")
    applied_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self):
        return f"{self.get_kind_display()} import {self.pk} for {self.rfp}"

    def analysis_job(self):
        """The newest job that read this import's file (None when it was read in the upload request)."""
        return self.analysis_jobs.order_by("-pk").first()


class QuestionImportJob(BaseJob):
    """The reading and analysis of an uploaded questionnaire too large to read inside the web request, or of one
    correction of its mapping (`changes`), which reads the file again.

    Written with its import (file stored, nothing read yet) before its task is queued; its three items are
    the steps: read the file, analyse the sheets, select the questions. The import's preview page shows its
    progress, opens the preview when it completes and shows its message when it failed.
    """

    question_import = models.ForeignKey(QuestionImport, on_delete=models.CASCADE, related_name="analysis_jobs")
    # Empty for the first reading of the file; a correction of the mapping (importing.remap's arguments) to apply
    # by reading the file again, for a file too large to read inside the remap request.
    changes = models.JSONField(default=dict, blank=True)

    class Meta(BaseJob.Meta):
        verbose_name = "questionnaire analysis job"
        constraints = [
            # The duplicate-job guard: one file is read by one job at a time.
            models.UniqueConstraint(
                fields=["question_import"],
                condition=Q(status__in=ACTIVE_STATUSES),
                name="one_active_analysis_per_question_import",
            )
        ]

    def __str__(self):
        return f"Reading {self.question_import.original_name or 'a questionnaire'}"

    @property
    def rfp(self):
        return self.question_import.rfp


class QuestionStatus(models.TextChoices):
    """Where a question stands: unanswered → drafted → in review → approved, or needs an expert."""

    UNANSWERED = "unanswered", "Unanswered"
    DRAFTED = "drafted", "Drafted"
    IN_REVIEW = "in_review", "In review"
    APPROVED = "approved", "Approved"
    NEEDS_EXPERT = "needs_expert", "Needs an expert"


def status_of(answer) -> str:
    """A question's status from its answer's fields (None: no answer yet).

    A person's approval of the text shown wins (the reviewer's verdict is never
    an approval); then the expert flag (until someone writes the answer, which
    clears it); an edit or a reviewer's verdict puts it in review; a draft alone
    is drafted. Reads attributes only, so migrations can use it.
    """
    if answer is None:
        return QuestionStatus.UNANSWERED
    if approval_holds(answer):
        return QuestionStatus.APPROVED
    if answer.needs_expert and not answer.final_text:
        return QuestionStatus.NEEDS_EXPERT
    if answer.final_text or answer.review_verdict:
        return QuestionStatus.IN_REVIEW
    if answer.draft_text:
        return QuestionStatus.DRAFTED
    return QuestionStatus.UNANSWERED


def approval_holds(answer) -> bool:
    """A person approved the text the answer shows now: an edit or a redraft since makes the approval stale.

    The approved text is kept and compared, so an approval cannot outlive its text even where a write
    forgets to withdraw it (workflow.APPROVAL_RESET). Reads attributes only, so migrations can use it.
    """
    return bool(answer.approved_at) and answer.approved_text == (answer.final_text or answer.draft_text)


class Question(models.Model):
    Status = QuestionStatus

    rfp = models.ForeignKey(RFP, on_delete=models.CASCADE, related_name="questions")
    section = models.CharField(max_length=255, blank=True)
    number = models.CharField(max_length=50, blank=True)
    text = models.TextField()
    order = models.PositiveIntegerField(default=0)
    # Stable identity across re-imports: section+number when numbered, else a hash of the text.
    import_key = models.CharField(max_length=300)
    source_import = models.ForeignKey(
        QuestionImport, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    source_row = models.PositiveIntegerField(null=True, blank=True, help_text="Row in the source workbook (1-based)")
    sheet = models.CharField(max_length=100, blank=True, help_text="Sheet of the source workbook")
    answer_cells = models.JSONField(
        default=dict, blank=True, help_text='Where its answer goes: {"choice": "F18", "text": "I18"}'
    )
    # Kept from the answer by services/workflow.sync_status: a column, so thousands filter and count by it.
    status = models.CharField(max_length=20, choices=QuestionStatus.choices, default=QuestionStatus.UNANSWERED)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["rfp", "order", "pk"]
        constraints = [models.UniqueConstraint(fields=["rfp", "import_key"], name="rfp_question_unique_key")]
        indexes = [models.Index(fields=["rfp", "status"], name="rfp_question_status")]

    def __str__(self):
        return f"{self.label}: {excerpt(self.text, 60)}"

    @property
    def label(self) -> str:
        """The question's name everywhere (workspace, assignment page, messages, e-mails): the client's own number as
        written ("A.1", "DATA-01"), a bare count as "Q12", an unnumbered question by its place ("#3")."""
        if not self.number:
            return f"#{self.order + 1}"
        return f"Q{self.number}" if self.number.isdigit() else self.number


class InformationDocument(models.Model):
    """The RFP's own files (scope, terms…), summarized as context for its answers."""

    class Status(models.TextChoices):
        UPLOADED = "uploaded", "Uploaded"
        SUMMARIZING = "summarizing", "Summarizing"
        SUMMARIZED = "summarized", "Summarized"
        FAILED = "failed", "Failed"

    rfp = models.ForeignKey(RFP, on_delete=models.CASCADE, related_name="information_documents")
    title = models.CharField(max_length=255)
    file = models.FileField(upload_to="rfp_documents/%Y/%m/")
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.UPLOADED)
    summary = models.TextField(blank=True)
    summary_error = models.TextField(blank=True)
    summarized_at = models.DateTimeField(null=True, blank=True)
    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at"]

    def __str__(self):
        return self.title


class Answer(models.Model):
    """One answer per question: the model's draft, its review, and the human's final text."""

    class Verdict(models.TextChoices):
        """The reviewer's verdict on a text, never an approval: only a person approves (approved_by).

        The stored value "approved" predates that distinction; it reads "Supported" everywhere."""

        APPROVED = "approved", "Supported"
        NEEDS_REVISION = "needs_revision", "Needs revision"
        REJECTED = "rejected", "Rejected"

    question = models.OneToOneField(Question, on_delete=models.CASCADE, related_name="answer")
    draft_text = models.TextField(blank=True)
    # Every retrieved passage: n, chunk_id, document_id, document_title, heading (a cited one's: the section its
    # quoted sentences sit in, answering.quoted_section), text, score, cited.
    citations = models.JSONField(default=list, blank=True)
    # Sentences of those passages the draft does not quote that may answer too, best first, for a person to insert:
    # chunk_id, document_title, heading (the sentence's section), text (answering.draft, evidence.runners_up). Empty
    # for a reused entry.
    may_answer = models.JSONField(default=list, blank=True)
    # 0..1, the share of such drafts that answered: read from how well the library covers the question
    # (answering.confidence); once reviewed, from the text's match to the question and the verdict (reviewed_confidence).
    confidence = models.FloatField(null=True, blank=True, db_index=True)
    # The best retrieved passage's share of the question's subject words: the retrieval half of confidence.
    evidence = models.FloatField(null=True, blank=True)
    # The library had no supporting content: a subject-matter expert must answer.
    needs_expert = models.BooleanField(default=False, db_index=True)
    responder_job = models.ForeignKey("RFPBatchJob", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    # Reused from the answer library instead of drafted: the entry's id, and how well its wording matched (0..1).
    # An id, not a foreign key: the answer library sits above this app and owns the link (rfp_manager/reuse.py).
    library_entry_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    library_score = models.FloatField(null=True, blank=True)
    # The person who picked that entry among the library's suggestions (None: the responder reused it unasked). The
    # pick vouches for the text as a person's own writing does (deliverable.person_behind); approval stays apart.
    library_chosen_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    generated_at = models.DateTimeField(null=True, blank=True)

    review_verdict = models.CharField(max_length=20, choices=Verdict.choices, blank=True)
    review_feedback = models.TextField(blank=True)
    # The findings in a few words, as the RFP page lists them ("Opens on something else; names nothing specific.");
    # "" when the reviewer found nothing, or only a chat model's review has words for it (the feedback then).
    review_summary = models.TextField(blank=True)
    review_score = models.FloatField(null=True, blank=True)
    reviewer_job = models.ForeignKey("RFPBatchJob", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    reviewed_at = models.DateTimeField(null=True, blank=True)
    # The answer the verdict was given on: a redraft or an edit since makes the verdict stale (review_is_stale).
    reviewed_text = models.TextField(blank=True)

    # The Yes / No / Partly / NA the questionnaire's choice column asks for, proposed from the draft (services/choices.py).
    choice = models.CharField(
        max_length=6, choices=[("yes", "Yes"), ("no", "No"), ("partly", "Partly"), ("na", "N/A")], blank=True
    )
    choice_needs_review = models.BooleanField(
        default=False, help_text="The proposal was a guess: a person should check it"
    )

    final_text = models.TextField(blank=True, help_text="A person's edited answer; wins over the draft")
    edited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    edited_at = models.DateTimeField(null=True, blank=True)

    # A person approved this text for the client; a redraft or an edit withdraws it (approval_holds).
    approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    approved_at = models.DateTimeField(null=True, blank=True)
    approved_text = models.TextField(blank=True, help_text="The text the person approved")

    class Meta:
        ordering = ["question__order"]

    def __str__(self):
        return f"Answer to {self.question}"

    @property
    def final_answer(self) -> str:
        return self.final_text or self.draft_text

    @property
    def is_approved(self) -> bool:
        """A person approved the text shown now (the reviewer's verdict never counts)."""
        return approval_holds(self)

    @property
    def review_is_current(self) -> bool:
        """A verdict on the text shown now."""
        return bool(self.review_verdict) and not self.review_is_stale

    @property
    def review_is_stale(self) -> bool:
        """The verdict was given on another text: the answer was redrafted or edited since its review."""
        return bool(self.review_verdict) and self.reviewed_text != self.final_answer

    @property
    def cited_passages(self) -> list[dict]:
        return [c for c in self.citations if c.get("cited")]

    @property
    def origin(self) -> str:
        """Where the answer shown came from: library, edited, expert needed, drafted (or "" before any)."""
        if self.final_text:
            return "edited"
        if self.library_entry_id:
            return "library"
        if self.needs_expert:
            return "expert"
        return "drafted" if self.draft_text else ""


class RFPBatchJob(BaseJob):
    """A responder or reviewer run over a set of an RFP's questions, written before its task is queued.

    `question_ids` fixes the scope when the job is created, so a retry job can
    cover only the questions an earlier job failed.
    """

    JOB_TYPE_RESPONDER = "responder"
    JOB_TYPE_REVIEWER = "reviewer"
    JOB_TYPE_CHOICES = [(JOB_TYPE_RESPONDER, "Responder"), (JOB_TYPE_REVIEWER, "Reviewer")]

    rfp = models.ForeignKey(RFP, on_delete=models.CASCADE, related_name="batch_jobs")
    job_type = models.CharField(max_length=20, choices=JOB_TYPE_CHOICES)
    question_ids = models.JSONField(default=list)
    review_when_done = models.BooleanField(
        default=False, help_text="Start a reviewer job when this responder job completes"
    )
    retry_of = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="retries")
    chained_from = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="chained_jobs",
        help_text="The responder job whose completion started this reviewer",
    )

    class Meta(BaseJob.Meta):
        verbose_name = "RFP batch job"
        constraints = [
            # The duplicate-job guard lives in the database: twenty clicks, one job.
            models.UniqueConstraint(
                fields=["rfp", "job_type"],
                condition=Q(status__in=ACTIVE_STATUSES),
                name="one_active_batch_job_per_rfp_and_type",
            )
        ]

    def __str__(self):
        return f"{self.get_job_type_display()} job {self.pk} for {self.rfp}"

    # The toolkit counts items; an RFP job's items are its questions, and its pages and results say so.
    @property
    def total_questions(self) -> int:
        return self.total_items

    @property
    def processed_questions(self) -> int:
        return self.processed_items

    @property
    def successful_questions(self) -> int:
        return self.successful_items

    @property
    def failed_questions(self) -> int:
        return self.failed_items

    # The task creates the chained reviewer just after the responder completes.
    CHAIN_WAIT_SECONDS = 30

    def awaits_chained_reviewer(self) -> bool:
        """Completed a moment ago with "review when done", and its reviewer is not there yet.

        The progress block keeps polling meanwhile, so the link to the reviewer
        appears without a reload; after a short wait it gives up (the chaining
        can be refused, e.g. when no answer succeeded).
        """
        if not (self.review_when_done and self.status == JobStatus.COMPLETED and self.completed_at):
            return False
        waited = (timezone.now() - self.completed_at).total_seconds()
        return waited < self.CHAIN_WAIT_SECONDS and not self.chained_jobs.exists()


class JobQuestionResult(models.Model):
    """What one job did with one question: the idempotency and resume record.

    Counters are recomputed from these rows (exact, never +=), a re-delivered job
    skips questions that already succeeded here, and "Retry failed" reads them.
    """

    class Outcome(models.TextChoices):
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"

    job = models.ForeignKey(RFPBatchJob, on_delete=models.CASCADE, related_name="results")
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+")
    outcome = models.CharField(max_length=20, choices=Outcome.choices)
    error = models.TextField(blank=True)
    finished_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["job", "question"], name="one_result_per_job_question")]
