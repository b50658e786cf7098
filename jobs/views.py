"""Progress responses shared by every job page, the jobs page listing every job of every kind, the worker check.

One endpoint per job answers three ways: JSON for scripts and tests, the
progress partial for htmx polling, and nothing else — the full page is the
app's own view, which includes the same partial.
"""

from django.contrib import messages
from django.db import transaction
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse, reverse_lazy
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from core.permissions import staff_required

from .kinds import STATUS_FILTERS, acknowledge, get_kind, grouped, job_kinds, job_rows
from .live_status import status_json
from .models import SystemCheck
from .services import create_system_check, flower_task_url
from .tasks import dispatch_system_check

PROGRESS_PARTIAL = "jobs/_progress.html"


def progress_context(job, poll_url: str, **extra) -> dict:
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


def polled_by_htmx(request) -> bool:
    """htmx sent the request (HX-Request: true), read from the one header.

    Not `request.htmx`: that builds `request.headers` from the whole WSGI
    environ, which was the largest part of what a status poll added to any
    signed-in request (profiled under make bench's live-progress load).
    """
    return request.META.get("HTTP_HX_REQUEST") == "true"


@never_cache
def job_status_response(request, model, pk: int, url_name: str, *, load=None, partial: str = PROGRESS_PARTIAL, **extra):
    """A job's status endpoint (the URL named `url_name`, polled with the job's pk): the htmx partial from the row;
    JSON through the half-poll cache (jobs.live_status).

    `load()` checks the user's access and returns the job (raising 404 or 403): on every htmx poll, and on a JSON
    poll whenever the cache has no fresh answer for this job and user. Without it, any job of `model` with that pk.
    """
    load = load or (lambda: get_object_or_404(model, pk=pk))
    poll_url = reverse_lazy(url_name, args=[pk])
    if polled_by_htmx(request):
        return job_progress_response(request, load(), poll_url, partial, **extra)
    return status_json(request, model, pk, load)


# --- the jobs page -------------------------------------------------------------------

GROUP_TITLES = {"needs_attention": "Needs attention", "running": "Running", "finished": "Finished"}


@never_cache
def jobs_index(request):
    """Every job the user may see, grouped; filtered by ?kind= and ?status=; htmx polls the list while any runs."""
    kind = request.GET.get("kind", "")
    status = request.GET.get("status", "")
    rows = job_rows(
        request.user, kinds=[kind] if get_kind(kind) else None, status=status if status in STATUS_FILTERS else ""
    )
    groups = grouped(rows)
    context = {
        "groups": [(key, GROUP_TITLES[key], groups[key]) for key in GROUP_TITLES],
        "any_active": any(row.is_active for row in rows),
        "kinds": [k for k in job_kinds() if not k.staff_only or request.user.is_staff],
        "statuses": list(STATUS_FILTERS),
        "kind": kind,
        "status": status,
        "list_url": request.get_full_path(),
    }
    template = "jobs/_list.html" if getattr(request, "htmx", False) else "jobs/index.html"
    return render(request, template, context)


@require_POST
def acknowledge_job(request, kind, pk):
    """Hide a job someone dealt with; only a job the user may see."""
    job_kind = get_kind(kind)
    if job_kind is None or not job_kind.visible_to(request.user).filter(pk=pk).exists():
        raise Http404("No such job")
    acknowledge(kind, pk, request.user)
    back = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}):
        back = reverse("jobs:index")
    return redirect(back)


# --- the worker check ----------------------------------------------------------------


@staff_required
def system(request):
    checks = SystemCheck.objects.prefetch_related("probes")[:10]
    return render(request, "system/system.html", {"checks": checks})


@staff_required
@require_POST
def system_check_start(request):
    with transaction.atomic():
        check = create_system_check(request.user)
        dispatch_system_check(check)
    messages.info(request, "System check queued: one probe sent to each queue.")
    return redirect("system_check", pk=check.pk)


@staff_required
def system_check(request, pk):
    check = get_object_or_404(SystemCheck, pk=pk)
    poll_url = reverse("system_check_status", args=[check.pk])
    return render(request, "system/check.html", progress_context(check, poll_url))


@staff_required
def system_check_status(request, pk):
    return job_status_response(
        request,
        SystemCheck,
        pk,
        "system_check_status",
        partial="system/_check_progress.html",
    )
