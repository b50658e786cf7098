from pathlib import Path

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_not_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse, reverse_lazy
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_POST

from spelunker.jobs.views import job_status_response, progress_context
from spelunker.permissions import staff_required

from .models import SystemCheck
from .selectors import home_status
from .services import start_system_check


FAVICON = Path(settings.BASE_DIR) / "static" / "favicon.ico"


@login_not_required
@cache_control(max_age=86400, public=True)
def favicon(request):
    """Browsers ask for /favicon.ico whatever the page links to: answer with the icon, not a 404 or the login page."""
    return HttpResponse(FAVICON.read_bytes(), content_type="image/x-icon")


def home(request):
    """Where things stand; htmx re-fetches only the status block while work is running."""
    template = "_home_status.html" if request.htmx else "home.html"
    return render(request, template, home_status(request.user))


@staff_required
def system(request):
    checks = SystemCheck.objects.prefetch_related("probes")[:10]
    return render(request, "system/system.html", {"checks": checks})


@staff_required
@require_POST
def system_check_start(request):
    check = start_system_check(request.user)
    messages.info(request, "System check queued: one probe sent to each queue.")
    return redirect("system_check", pk=check.pk)


@staff_required
def system_check(request, pk):
    check = get_object_or_404(SystemCheck, pk=pk)
    poll_url = reverse("system_check_status", args=[check.pk])
    return render(request, "system/check.html", progress_context(check, poll_url))


@staff_required
def system_check_status(request, pk):
    return job_status_response(request, SystemCheck, pk, lambda: get_object_or_404(SystemCheck, pk=pk),
                               reverse_lazy("system_check_status", args=[pk]), partial="system/_check_progress.html")
