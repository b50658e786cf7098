"""The job kinds of the library, for the jobs page and the sweeper (registered by apps.py)."""

from django.urls import reverse

from jobs.kinds import JobKind

from .tasks import dispatch_embed_batch_job, dispatch_embedding, dispatch_sync_job


def document_retry_url(document) -> str:
    return reverse("solution_library:document_retry", args=[document.pk]) if document.can_retry else ""


def sync_retry_url(job) -> str:
    return reverse("solution_library:source_sync", args=[job.source_id]) if not job.is_active else ""


KINDS = (
    JobKind(
        "document",
        "Document",
        "solution_library.Document",
        "solution_library:document",
        redispatch=dispatch_embedding,
        retry=document_retry_url,
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
