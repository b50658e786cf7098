"""The audit log, for staff."""
from django.core.paginator import Paginator
from django.shortcuts import render

from spelunker.permissions import staff_required

from .models import AuditEvent

EVENTS_PER_PAGE = 100


@staff_required
def log(request):
    events = AuditEvent.objects.select_related("actor", "rfp")
    action = request.GET.get("action", "")
    if action in AuditEvent.Action.values:
        events = events.filter(action=action)
    page = Paginator(events, EVENTS_PER_PAGE).get_page(request.GET.get("page"))
    return render(request, "audit/log.html", {"page": page, "action": action, "actions": AuditEvent.Action.choices})
