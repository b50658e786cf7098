from django.contrib import admin, messages
from django.db import models, transaction
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.html import format_html

from .models import Chunk, Document, DocumentationSource, DocumentJob, EmbedBatchJob, SyncJob
from .services.documents import create_embed_batch_job, delete_document
from .services.scheduling import create_sync_job
from .tasks import dispatch_embed_batch_job, dispatch_sync_job


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):
    list_display = ("title", "file_type", "review_status", "chunk_count", "source", "uploaded_by", "created_at")
    list_filter = ("review_status", "file_type", "source")
    search_fields = ("title", "source_url", "content_hash")
    readonly_fields = (
        "content_hash",
        "size_bytes",
        "chunk_count",
        "embedding_model",
        "processed_at",
        "created_at",
        "updated_at",
    )
    exclude = ("text",)
    actions = ["embed_selected"]

    @admin.action(description="Re-embed the selected documents (batch job)")
    def embed_selected(self, request, queryset):
        with transaction.atomic():
            job = create_embed_batch_job(list(queryset.values_list("pk", flat=True)), request.user)
            dispatch_embed_batch_job(job)
        messages.info(request, f"Embedding job {job.pk} queued for {job.total_items} documents.")
        return redirect("solution_library:embed_job", pk=job.pk)

    # Deleted one by one as the sync deletes them: under the embedding run's row lock, the file with it.
    def delete_model(self, request, obj):
        delete_document(obj)

    def delete_queryset(self, request, queryset):
        for document in queryset:
            delete_document(document)


@admin.register(Chunk)
class ChunkAdmin(admin.ModelAdmin):
    list_display = ("document", "position", "embedding_model")
    list_select_related = ("document", "embedding_model")
    readonly_fields = ("document", "position", "text", "start_char", "end_char", "embedding_model")
    exclude = ("embedding",)

    def has_add_permission(self, request):
        return False


@admin.register(DocumentationSource)
class DocumentationSourceAdmin(admin.ModelAdmin):
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
    list_display = ("name", "start_url", "sync_interval_hours", "is_active", "last_synced_at", "page_link")
    readonly_fields = ("last_synced_at",)
    actions = ["sync_selected"]

    @admin.display(description="Page")
    def page_link(self, obj):
        return format_html('<a href="{}">open</a>', reverse("solution_library:source", args=[obj.pk]))

    @admin.action(description="Sync the selected sources now")
    def sync_selected(self, request, queryset):
        for source in queryset:
            job = create_sync_job(source, request.user, dispatch=dispatch_sync_job)
            if job is None:
                messages.warning(request, f"{source.name}: a sync is already running.")
            else:
                messages.info(
                    request,
                    format_html(
                        '{}: <a href="{}">sync job {}</a> queued.',
                        source.name,
                        reverse("solution_library:sync_job", args=[job.pk]),
                        job.pk,
                    ),
                )


class JobAdmin(admin.ModelAdmin):
    list_display = ("pk", "status", "processed_items", "total_items", "failed_items", "created_at", "started_by")
    list_filter = ("status",)
    readonly_fields = ("celery_task_id", "started_at", "completed_at", "errors", "message")


@admin.register(SyncJob)
class SyncJobAdmin(JobAdmin):
    list_display = (*JobAdmin.list_display, "source", "documents_created", "documents_updated", "documents_skipped")


@admin.register(EmbedBatchJob)
class EmbedBatchJobAdmin(JobAdmin):
    pass


@admin.register(DocumentJob)
class DocumentJobAdmin(JobAdmin):
    list_display = ("pk", "document", "status", "error_code", "created_at", "started_by")
    list_select_related = ("document", "started_by")
    raw_id_fields = ("document",)
