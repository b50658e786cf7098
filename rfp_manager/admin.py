from django.contrib import admin, messages
from django.db import transaction

from . import tasks
from .models import (
    RFP,
    Answer,
    ImportFormat,
    InformationDocument,
    JobQuestionResult,
    Question,
    QuestionImport,
    RFPBatchJob,
)


@admin.register(RFP)
class RFPAdmin(admin.ModelAdmin):
    list_display = ["name", "client", "due_date", "owner", "status", "created_at"]
    list_filter = ["status"]
    search_fields = ["name", "client"]
    filter_horizontal = ["shared_with"]


@admin.register(Question)
class QuestionAdmin(admin.ModelAdmin):
    list_display = ["rfp", "sheet", "section", "number", "text", "order"]
    list_filter = ["rfp"]
    search_fields = ["text", "number"]


@admin.register(QuestionImport)
class QuestionImportAdmin(admin.ModelAdmin):
    list_display = ["rfp", "kind", "original_name", "mapping_source", "created_at", "applied_at"]
    readonly_fields = ["rows", "bad_rows", "mapping", "fingerprint", "lost_features"]


@admin.register(ImportFormat)
class ImportFormatAdmin(admin.ModelAdmin):
    """Saved questionnaire formats: delete one here when a wrong mapping keeps being proposed."""

    list_display = ["example_name", "saved_by", "updated_at"]
    readonly_fields = ["fingerprint"]


@admin.action(description="Summarize the selected documents (background task)")
def summarize_documents(modeladmin, request, queryset):
    with transaction.atomic():
        for document in queryset:
            tasks.dispatch_summary(document)
    messages.info(request, f"Queued {queryset.count()} summaries.")


@admin.register(InformationDocument)
class InformationDocumentAdmin(admin.ModelAdmin):
    list_display = ["title", "rfp", "status", "summarized_at"]
    list_filter = ["status"]
    actions = [summarize_documents]


@admin.register(Answer)
class AnswerAdmin(admin.ModelAdmin):
    list_display = ["question", "needs_expert", "review_verdict", "review_score", "confidence", "edited_by"]
    list_filter = ["review_verdict"]
    raw_id_fields = ["question", "responder_job", "reviewer_job"]


class JobQuestionResultInline(admin.TabularInline):
    model = JobQuestionResult
    extra = 0
    readonly_fields = ["question", "outcome", "error", "finished_at"]
    can_delete = False


@admin.register(RFPBatchJob)
class RFPBatchJobAdmin(admin.ModelAdmin):
    list_display = [
        "pk",
        "rfp",
        "job_type",
        "status",
        "processed_items",
        "successful_items",
        "failed_items",
        "total_items",
        "created_at",
    ]
    list_filter = ["job_type", "status"]
    readonly_fields = ["celery_task_id", "started_at", "completed_at", "errors", "question_ids"]
    inlines = [JobQuestionResultInline]
