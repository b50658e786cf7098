"""Who changed what: an answer's revisions, and an audit log of the actions worth tracing."""

from django.conf import settings
from django.db import models


class AuditEvent(models.Model):
    """One traced action. Rows are only ever added (the admin shows them read-only)."""

    class Action(models.TextChoices):
        EXPORT = "export", "Exported answers"
        JOB_STARTED = "job_started", "Started a job"
        JOB_CANCELLED = "job_cancelled", "Cancelled a job"
        LLM_API_CHANGED = "llm_api_changed", "Changed an LLM API"
        LLM_API_DELETED = "llm_api_deleted", "Deleted an LLM API"
        SHARING_CHANGED = "sharing_changed", "Changed who an RFP is shared with"
        ANSWER_EDITED = "answer_edited", "Edited an answer"
        ANSWER_APPROVED = "answer_approved", "Approved an answer"
        ANSWER_REVIEWED = "answer_reviewed", "Reviewed an answer"
        ASSIGNED = "assigned", "Assigned questions"
        COMMENTED = "commented", "Commented"
        QUESTIONS_IMPORTED = "questions_imported", "Imported questions"
        DOCUMENT_UPLOADED = "document_uploaded", "Uploaded a document"
        LIBRARY_CHANGED = "library_changed", "Changed the answer library"
        LIBRARY_IMPORT = "library_import", "Imported into the answer library"
        ROLE_CHANGED = "role_changed", "Changed a role"

    at = models.DateTimeField(auto_now_add=True, db_index=True)
    # Null for work nobody started in a request (Beat, a task).
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    action = models.CharField(max_length=30, choices=Action.choices)
    target = models.CharField(max_length=300, help_text="What it was done to, e.g. “RFP 12 Acme tender”")
    rfp = models.ForeignKey("rfp_manager.RFP", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    detail = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-at", "-pk"]
        indexes = [
            models.Index(fields=["rfp", "-at"], name="audit_event_by_rfp"),
            models.Index(fields=["actor", "-at"], name="audit_event_by_actor"),
        ]

    def __str__(self):
        return f"{self.at:%Y-%m-%d %H:%M} {self.actor or 'system'} {self.get_action_display()} {self.target}"


class AnswerRevision(models.Model):
    """One change to an answer: who, when, what kind, and the text before and after."""

    class Kind(models.TextChoices):
        DRAFTED = "drafted", "Drafted"
        EDITED = "edited", "Edited"
        APPROVED = "approved", "Approved"
        REVIEWED = "reviewed", "Reviewed"

    answer = models.ForeignKey("rfp_manager.Answer", on_delete=models.CASCADE, related_name="revisions")
    at = models.DateTimeField(auto_now_add=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    kind = models.CharField(max_length=20, choices=Kind.choices)
    previous_text = models.TextField(blank=True)
    text = models.TextField(blank=True)

    class Meta:
        ordering = ["-at", "-pk"]

    def __str__(self):
        return f"{self.get_kind_display()} by {self.actor or 'system'} at {self.at:%Y-%m-%d %H:%M}"

    @property
    def by_machine(self) -> bool:
        """Written by Spelunker's responder or reviewer (the actor, if any, started the job); an edit is a person's."""
        return self.kind != self.Kind.EDITED
