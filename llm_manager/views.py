"""LLM API pages: the list with health, an API's models, and validation with live progress.

Everyone signed in may look (which models answer questions is no secret);
only staff validate. The API key is never put in a context: templates get
`has_api_key` and nothing else.
"""

from django.contrib import messages
from django.db import transaction
from django.db.models import Count, Q
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from core.permissions import staff_required
from jobs.views import job_status_response, progress_context

from .models import LLMApi, ValidationRun
from .services import embedding_fallback, get_or_create_validation_run
from .tasks import dispatch_validation_run

PROGRESS_PARTIAL = "llm_manager/_validation_progress.html"


def index(request):
    apis = LLMApi.objects.annotate(
        model_count=Count("models"), active_model_count=Count("models", filter=Q(models__is_active=True))
    ).order_by("-is_active", "name")
    return render(request, "llm_manager/index.html", {"apis": apis, "embedding_fallback": embedding_fallback()})


def api_detail(request, pk):
    api = get_object_or_404(LLMApi, pk=pk)
    runs = list(api.validation_runs.order_by("-created_at")[:5])
    context = {"api": api, "models": api.models.order_by("model_type", "name"), "runs": runs}
    if runs:
        context.update(progress_context(runs[0], _status_url(runs[0])))
    return render(request, "llm_manager/api_detail.html", context)


@staff_required
@require_POST
def api_validate(request, pk):
    api = get_object_or_404(LLMApi, pk=pk)
    with transaction.atomic():
        run, created = get_or_create_validation_run(api, request.user)
        if created:
            dispatch_validation_run(run)
    if created:
        messages.info(request, f"Validation of {api.name} queued.")
    else:
        messages.warning(request, f"A validation of {api.name} is already running; showing it.")
    return redirect("llm_manager:api_detail", pk=api.pk)


def validation_status(request, pk):
    return job_status_response(
        request,
        ValidationRun,
        pk,
        "llm_manager:validation_status",
        partial=PROGRESS_PARTIAL,
        reload_page_when_done=True,
    )


def _status_url(run: ValidationRun) -> str:
    return reverse("llm_manager:validation_status", args=[run.pk])
