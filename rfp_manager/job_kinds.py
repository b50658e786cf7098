"""The job kinds of the RFP manager, for the jobs page and the sweeper (registered by apps.py)."""

from django.db.models import QuerySet
from django.urls import reverse

from jobs.kinds import JobKind

from .models import RFP
from .tasks import dispatch_batch_job, dispatch_import_analysis


def visible_rfp_jobs(rows: QuerySet, user) -> QuerySet:
    return rows.filter(rfp__in=RFP.objects.visible_to(user))


def visible_import_analyses(rows: QuerySet, user) -> QuerySet:
    return rows.filter(question_import__rfp__in=RFP.objects.visible_to(user))


def import_preview_url(job) -> str:
    return reverse("rfp_manager:import_preview", args=[job.question_import_id])


def rfp_job_retry_url(job) -> str:
    return reverse("rfp_manager:job_retry", args=[job.pk]) if not job.is_active and job.failed_items else ""


KINDS = (
    JobKind(
        "rfp_batch",
        "Responder / reviewer",
        "rfp_manager.RFPBatchJob",
        "rfp_manager:job",
        redispatch=dispatch_batch_job,
        visible=visible_rfp_jobs,
        retry=rfp_job_retry_url,
        related=("rfp",),
    ),
    JobKind(
        "question_import",
        "Questionnaire reading",
        "rfp_manager.QuestionImportJob",
        import_preview_url,
        redispatch=dispatch_import_analysis,
        visible=visible_import_analyses,
        related=("question_import__rfp",),
    ),
)
