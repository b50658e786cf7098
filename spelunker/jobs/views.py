"""Progress responses shared by every job page.

One endpoint per job answers three ways: JSON for scripts and tests, the
progress partial for htmx polling, and nothing else — the full page is the
app's own view, which includes the same partial.
"""
from django.http import JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache

PROGRESS_PARTIAL = "jobs/_progress.html"


def progress_context(job, poll_url: str, **extra) -> dict:
    from spelunker.services import flower_task_url

    return {"job": job, "poll_url": poll_url, "flower_url": flower_task_url(job.celery_task_id), **extra}


@never_cache
def job_progress_response(request, job, poll_url: str, partial: str = PROGRESS_PARTIAL, **extra):
    """JSON unless htmx asks for the partial (it polls while the job is active)."""
    if getattr(request, "htmx", False):
        return render(request, partial, progress_context(job, poll_url, **extra))
    return JsonResponse(job.status_payload())
