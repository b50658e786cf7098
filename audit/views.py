"""The audit page: staff read every event; an RFP's owners read the events of their RFPs. Filters and CSV."""

from urllib.parse import urlencode

from django.contrib.auth import get_user_model
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import render
from django.utils import timezone

from teamwork.services.roles import owned_rfps

from . import services
from .models import AuditEvent
from .sentences import before_after, sentence

EVENTS_PER_PAGE = 100
FILTERS = ("rfp", "user", "action")


def _scope(user):
    """The events this user may read, and the RFPs they may filter by."""
    events = AuditEvent.objects.select_related("actor", "rfp")
    rfps = owned_rfps(user)
    if user.is_staff:
        return events, rfps
    return events.filter(rfp__in=rfps), rfps


def _filtered(request):
    events, rfps = _scope(request.user)
    chosen = {name: request.GET.get(name, "") for name in FILTERS}
    events = services.filtered(events, rfp_id=chosen["rfp"], actor_id=chosen["user"], action=chosen["action"])
    return events, rfps, chosen


def log(request):
    events, rfps, chosen = _filtered(request)
    page = Paginator(events, EVENTS_PER_PAGE).get_page(request.GET.get("page"))
    rows = [{"event": e, "sentence": sentence(e), "before_after": before_after(e)} for e in page]
    actors = get_user_model().objects.filter(pk__in=_scope(request.user)[0].values("actor_id")).order_by("username")
    query = urlencode({name: value for name, value in chosen.items() if value})
    return render(
        request,
        "audit/log.html",
        {
            "page": page,
            "rows": rows,
            "chosen": chosen,
            "query": query,
            "actions": AuditEvent.Action.choices,
            "rfps": rfps.order_by("name"),
            "actors": actors,
        },
    )


def export_csv(request):
    events, _, _ = _filtered(request)
    response = HttpResponse(services.events_csv(events), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="audit-{timezone.now():%Y%m%d-%H%M}.csv"'
    return response
