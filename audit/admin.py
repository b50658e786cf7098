from django.contrib import admin

from .models import AnswerRevision, AuditEvent


class ReadOnlyAdmin(admin.ModelAdmin):
    """An audit trail is read, never edited."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    list_display = ("at", "actor", "action", "target")
    list_filter = ("action",)
    search_fields = ("target",)


@admin.register(AnswerRevision)
class AnswerRevisionAdmin(ReadOnlyAdmin):
    list_display = ("at", "actor", "kind", "answer")
    list_filter = ("kind",)
