"""Who works on an RFP and how: roles, assignments with due dates, comments, and the notifications they cause.

An RFP's owner is `RFP.owner`; further people get a role here. Everyone in a
group the RFP is shared with is a contributor on every question (the bid
team); a contributor added by name answers the questions assigned to them.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q

from core.excerpts import excerpt
from rfp_manager import access


class Role(models.TextChoices):
    # Ordered from least to most: `ROLE_RANK` compares them. The RFP pages ask for access.VIEWER or access.OWNER.
    VIEWER = access.VIEWER, "Viewer"
    CONTRIBUTOR = "contributor", "Contributor"
    OWNER = access.OWNER, "Owner"


ROLE_RANK = {Role.VIEWER: 1, Role.CONTRIBUTOR: 2, Role.OWNER: 3}


class Membership(models.Model):
    """One person's role on one RFP."""

    rfp = models.ForeignKey("rfp_manager.RFP", on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rfp_memberships")
    role = models.CharField(max_length=20, choices=Role.choices)
    added_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["rfp", "user"], name="one_role_per_rfp_and_user")]

    def __str__(self):
        return f"{self.user} is {self.get_role_display().lower()} of {self.rfp}"


class Assignment(models.Model):
    """A question given to one person, with an optional due date; open until they save an answer."""

    question = models.OneToOneField("rfp_manager.Question", on_delete=models.CASCADE, related_name="assignment")
    assignee = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignments")
    due_date = models.DateField(null=True, blank=True)
    assigned_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    assigned_at = models.DateTimeField()
    answered_at = models.DateTimeField(null=True, blank=True, help_text="When the assignee saved an answer")

    class Meta:
        indexes = [models.Index(fields=["assignee", "answered_at", "due_date"], name="assignment_open_by_user")]

    def __str__(self):
        return f"{self.question} → {self.assignee}"

    @property
    def is_open(self) -> bool:
        return self.answered_at is None


class Comment(models.Model):
    """A remark on a question, shown with its answer's history; @name mentions notify."""

    question = models.ForeignKey("rfp_manager.Question", on_delete=models.CASCADE, related_name="comments")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    text = models.TextField()
    mentions = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "pk"]

    def __str__(self):
        return f"Comment by {self.author} on {self.question.label}"


class Notification(models.Model):
    """Something a person should know, shown in the app and sent by email.

    The row is the email's queue too: the send task reads it, records each
    attempt and its error, and marks it sent or failed, so an unreachable mail
    server never costs the action that caused it, and staff see what failed.
    """

    class Kind(models.TextChoices):
        ASSIGNED = "assigned", "Assigned to you"
        DUE_SOON = "due_soon", "Due soon"
        OVERDUE = "overdue", "Overdue"
        MENTIONED = "mentioned", "Mentioned"
        LIBRARY_GREW = "library_grew", "The library may answer now"

    class Email(models.TextChoices):
        QUEUED = "queued", "Queued"
        SENT = "sent", "Sent"
        FAILED = "failed", "Failed"
        NONE = "none", "No email address"

    recipient = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    text = models.CharField(max_length=500)
    url = models.CharField(max_length=300, blank=True)
    question = models.ForeignKey(
        "rfp_manager.Question", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    # Makes a periodic reminder idempotent: one row per assignment, kind and due date.
    dedupe_key = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    read_at = models.DateTimeField(null=True, blank=True)

    email_status = models.CharField(max_length=10, choices=Email.choices, default=Email.QUEUED, db_index=True)
    email_attempts = models.PositiveIntegerField(default=0)
    email_error = models.TextField(blank=True)
    email_sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["recipient", "dedupe_key"], condition=~Q(dedupe_key=""), name="notification_unique_dedupe_key"
            )
        ]
        indexes = [models.Index(fields=["recipient", "read_at"], name="notification_unread")]

    def __str__(self):
        return f"{self.get_kind_display()} for {self.recipient}: {excerpt(self.text, 60)}"
