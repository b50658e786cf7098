"""Admin for LLM APIs and models, with the actions that validate APIs and choose defaults."""

from django.contrib import admin, messages

from . import services
from .forms import LLMApiForm
from .models import LLMApi, LLMModel, ValidationRun
from .signals import embedding_default_requested
from .tasks import queue_validation


class LLMModelInline(admin.TabularInline):
    model = LLMModel
    extra = 0
    fields = ["name", "model_type", "embedding_dimensions", "context_window", "is_active", "is_system_default"]
    readonly_fields = ["is_system_default"]


@admin.register(LLMApi)
class LLMApiAdmin(admin.ModelAdmin):
    form = LLMApiForm
    list_display = [
        "name",
        "kind",
        "base_url",
        "is_active",
        "health_status",
        "last_validated_at",
        "consecutive_failures",
    ]
    list_filter = ["kind", "is_active", "health_status"]
    search_fields = ["name", "base_url"]
    readonly_fields = ["health_status", "last_validated_at", "last_error", "consecutive_failures", "circuit_opened_at"]
    fieldsets = [
        (None, {"fields": ["name", "kind", "base_url", "api_key", "clear_api_key", "is_active"]}),
        (
            "Limits (shared by all workers)",
            {"fields": ["timeout_seconds", "max_concurrent_requests", "requests_per_minute"]},
        ),
        ("Health", {"fields": readonly_fields}),
    ]
    inlines = [LLMModelInline]
    actions = ["validate_selected"]

    # A change to these is a different endpoint: what the last validation said no longer holds.
    CONNECTION_FIELDS = {"kind", "base_url", "api_key", "clear_api_key", "is_active"}

    def save_model(self, request, obj, form, change):
        """A new API, or one whose connection changed, is validated at once (after commit): its health reads what it
        is, not "Unknown" until someone presses Validate now."""
        super().save_model(request, obj, form, change)
        if obj.is_active and (not change or self.CONNECTION_FIELDS & set(form.changed_data)):
            queue_validation(obj, request.user)

    @admin.action(description="Validate selected APIs")
    def validate_selected(self, request, queryset):
        queued = [api.name for api in queryset if queue_validation(api, request.user)]
        skipped = queryset.count() - len(queued)
        if queued:
            self.message_user(request, f"Validation queued for {', '.join(queued)}.", messages.INFO)
        if skipped:
            self.message_user(request, f"{skipped} API(s) already had a validation running.", messages.WARNING)


@admin.register(LLMModel)
class LLMModelAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "api",
        "model_type",
        "embedding_dimensions",
        "context_window",
        "is_active",
        "is_system_default",
    ]
    list_filter = ["model_type", "is_active", "is_system_default", "api"]
    search_fields = ["name", "api__name"]
    readonly_fields = ["is_system_default"]
    actions = ["make_default"]

    @admin.action(description="Make default (for its type)")
    def make_default(self, request, queryset):
        chosen = {}
        for model in queryset.select_related("api"):
            chosen.setdefault(model.model_type, model)
        if len(chosen) < queryset.count():
            self.message_user(
                request,
                "Only one model per type can be the default; the first of each type was used.",
                messages.WARNING,
            )
        for model in chosen.values():
            job = _preparation_job(model, request.user) if model.model_type == LLMModel.TYPE_EMBEDDING else None
            if job:
                self.message_user(
                    request,
                    f"Re-embedding the library with {model} (job {job.pk}); it becomes the default embedding model "
                    "when every document is done, and the current index serves searches until then.",
                    messages.SUCCESS,
                )
                continue
            services.make_default(model)
            self.message_user(request, f"{model} is now the default {model.model_type} model.", messages.SUCCESS)


def _preparation_job(model: LLMModel, user):
    """The job an app started to embed its data with `model` before it becomes the default (see signals.py)."""
    responses = embedding_default_requested.send(sender=LLMModel, model=model, user=user)
    return next((job for _receiver, job in responses if job), None)


@admin.register(ValidationRun)
class ValidationRunAdmin(admin.ModelAdmin):
    list_display = [
        "pk",
        "api",
        "trigger",
        "status",
        "successful_items",
        "failed_items",
        "created_at",
        "celery_task_id",
    ]
    list_filter = ["status", "trigger"]
    readonly_fields = [f.name for f in ValidationRun._meta.fields]

    def has_add_permission(self, request):
        return False
