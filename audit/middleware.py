"""Remember who is signed in for the audit receivers, and record the actions that save no row."""

from jobs.models import JobStatus
from rfp_manager.models import RFP, RFPBatchJob

from . import services
from .context import _current_user
from .models import AuditEvent

EXPORT_VIEWS = {"rfp_manager:export_xlsx", "rfp_manager:export_csv", "rfp_manager:export_workbook"}
CANCEL_VIEW = "rfp_manager:job_cancel"


class AuditMiddleware:
    """After AuthenticationMiddleware: the current user for receivers; exports and cancellations."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        token = _current_user.set(request.user if request.user.is_authenticated else None)
        try:
            response = self.get_response(request)
            match = request.resolver_match
            if match and match.view_name in EXPORT_VIEWS and response.status_code == 200:
                _record_export(match)
            elif match and match.view_name == CANCEL_VIEW and request.method == "POST":
                _record_cancel(match)
            return response
        finally:
            _current_user.reset(token)


def _record_export(match) -> None:
    rfp = RFP.objects.get(pk=match.kwargs["pk"])
    services.record(AuditEvent.Action.EXPORT, f"RFP {rfp.pk} {rfp.name}", rfp=rfp, format=match.url_name)


def _record_cancel(match) -> None:
    """Once per job, and only when the cancellation took effect (a finished job cannot be cancelled)."""
    job = RFPBatchJob.objects.filter(pk=match.kwargs["pk"], status=JobStatus.CANCELLED).select_related("rfp").first()
    if job and not AuditEvent.objects.filter(action=AuditEvent.Action.JOB_CANCELLED, detail__job_id=job.pk).exists():
        services.record(
            AuditEvent.Action.JOB_CANCELLED, f"{job.get_job_type_display()} job {job.pk}", rfp=job.rfp, job_id=job.pk
        )
