from django.contrib import admin

from .models import Assignment, Comment, Membership, Notification


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ("rfp", "user", "role", "updated_at")
    list_filter = ("role",)


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ("question", "assignee", "due_date", "answered_at")
    list_filter = ("due_date",)
    raw_id_fields = ("question",)


@admin.register(Comment)
class CommentAdmin(admin.ModelAdmin):
    list_display = ("question", "author", "created_at")
    raw_id_fields = ("question",)


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):
    """Undelivered emails show here with their error (and on Notifications → Emails not delivered)."""

    list_display = ("created_at", "recipient", "kind", "email_status", "email_attempts", "email_error")
    list_filter = ("email_status", "kind")
    raw_id_fields = ("question",)
