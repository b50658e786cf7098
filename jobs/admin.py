from django.contrib import admin

from .models import QueueProbe, SystemCheck


class QueueProbeInline(admin.TabularInline):
    model = QueueProbe
    extra = 0
    readonly_fields = ("queue", "worker", "latency_ms", "answered_at", "celery_task_id")
    can_delete = False


@admin.register(SystemCheck)
class SystemCheckAdmin(admin.ModelAdmin):
    list_display = ("id", "status", "processed_items", "total_items", "created_at", "started_by")
    list_filter = ("status",)
    readonly_fields = ("celery_task_id", "started_at", "completed_at", "errors", "message")
    inlines = [QueueProbeInline]
