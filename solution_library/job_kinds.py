"""The job kinds of the library, for the jobs page and the sweeper (registered by apps.py)."""

from django.db.models import Exists, OuterRef
from django.urls import reverse

from jobs.kinds import JobKind

from .models import DocumentJob
from .tasks import dispatch_document_job, dispatch_embed_batch_job, dispatch_sync_job

DOCUMENT_KIND = "document"


def document_url(job: DocumentJob) -> str:
    return reverse("solution_library:document", args=[job.document_id])


def document_retry_url(job: DocumentJob) -> str:
    """Only for a job that failed or was cancelled; the document's page offers "process again" for the rest."""
    if not job.ended_unfinished or not job.document.can_retry:
        return ""
    return reverse("solution_library:document_retry", args=[job.document_id])


def newest_job_of_each_document(jobs, user):
    """A document is listed once, as its page shows it: by its newest job (an earlier failure was retried).

    "No newer job of the same document" reads only the listed jobs' documents through the document index, where
    grouping every document job by document would read the whole table on every load of the jobs page.
    """
    newer = DocumentJob.objects.filter(document=OuterRef("document"), pk__gt=OuterRef("pk"))
    return jobs.filter(~Exists(newer)).defer("document__text")


def sync_retry_url(job) -> str:
    return reverse("solution_library:source_sync", args=[job.source_id]) if job.ended_unfinished else ""


KINDS = (
    JobKind(
        DOCUMENT_KIND,
        "Document",
        "solution_library.DocumentJob",
        document_url,
        redispatch=dispatch_document_job,
        visible=newest_job_of_each_document,
        retry=document_retry_url,
        related=("document",),
    ),
    JobKind(
        "embed_batch",
        "Embedding batch",
        "solution_library.EmbedBatchJob",
        "solution_library:embed_job",
        redispatch=dispatch_embed_batch_job,
        staff_only=True,
    ),
    JobKind(
        "sync",
        "Documentation sync",
        "solution_library.SyncJob",
        "solution_library:sync_job",
        redispatch=dispatch_sync_job,
        staff_only=True,
        retry=sync_retry_url,
        related=("source",),
    ),
)
