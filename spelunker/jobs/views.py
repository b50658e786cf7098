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
def job_progress_response(
    request, job, poll_url: str, partial: str = PROGRESS_PARTIAL, *, reload_page_when_done: bool = False, **extra
):
    """JSON unless htmx asks for the partial (it polls while the job is active).

    `reload_page_when_done`: the job changes more of the page than its progress
    block (health, lists, buttons), so the poll that sees it finish reloads the
    page once; the reloaded page shows a finished job and polls no more.
    """
    if getattr(request, "htmx", False):
        response = render(request, partial, progress_context(job, poll_url, **extra))
        if reload_page_when_done and not job.is_active:
            response["HX-Refresh"] = "true"
        return response
    return JsonResponse(job.status_payload())
