"""Thin Celery wrappers around the library services."""

import logging

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings

from jobs.backoff import backoff_seconds
from jobs.dispatch import dispatch_after_commit
from jobs.models import ErrorCode, JobStatus
from jobs.runner import run_job
from llm_manager.exceptions import TransientLLMError

from .locks import lock_holder, source_sync_lock
from .models import Document, EmbedBatchJob, SyncJob
from .services import documents, scheduling

logger = logging.getLogger(__name__)

EMBED_MAX_RETRIES = 5
EMBED_BACKOFF_BASE_SECONDS = 10
EMBED_BACKOFF_MAX_SECONDS = 600


@shared_task(bind=True, name="solution_library.embed_document", soft_time_limit=600, time_limit=720)
def embed_document(self, document_id: int, embedding_model_id: int | None = None) -> dict:
    """Parse, chunk and embed one document; retried only while the LLM API is unavailable.

    A document whose deliveries keep killing the worker (a parser out of
    memory) is failed as poison after JOB_MAX_UNFINISHED_DELIVERIES of them.
    """
    deliveries = documents.begin_delivery(document_id)
    try:
        if deliveries > settings.JOB_MAX_UNFINISHED_DELIVERIES:
            documents.fail_poison_document(document_id, deliveries - 1)
            return {"success": False, "document_id": document_id, "error": "poison message"}
        return _embed_document(self, document_id, embedding_model_id)
    finally:
        documents.end_delivery(document_id)


def _embed_document(self, document_id: int, embedding_model_id: int | None) -> dict:
    context = {"document_id": document_id, "task_id": self.request.id}
    try:
        result = documents.process_document(document_id, embedding_model_id)
    except TransientLLMError as exc:
        if self.request.retries >= EMBED_MAX_RETRIES:
            documents.mark_failed(document_id, f"The embedding service stayed unavailable: {exc}")
            return {"success": False, "document_id": document_id, "error": str(exc)}
        logger.warning("Embedding unavailable, retrying: %s", exc, extra=context)
        countdown = backoff_seconds(
            self.request.retries,
            base=EMBED_BACKOFF_BASE_SECONDS,
            cap=EMBED_BACKOFF_MAX_SECONDS,
            retry_after=exc.retry_after,
        )
        raise self.retry(exc=exc, countdown=countdown) from exc
    except SoftTimeLimitExceeded:
        documents.mark_failed(
            document_id, "Processing took longer than the time limit (600 s).", code=ErrorCode.TIME_LIMIT
        )
        return {"success": False, "document_id": document_id, "error": "time limit exceeded"}
    except Exception as exc:  # a bug or a corrupt row: say so on the document, never leave it "processing"
        reason = f"Unexpected error while processing: {type(exc).__name__}: {exc}"
        logger.error(reason, extra=context, exc_info=True)
        documents.mark_failed(document_id, reason)
        return {"success": False, "document_id": document_id, "error": reason}
    logger.info("Embedded document %s: %s", document_id, result.as_dict(), extra=context)
    return result.as_dict()


@shared_task(bind=True, name="solution_library.embed_documents_batch", soft_time_limit=3600, time_limit=3900)
def embed_documents_batch(self, job_id: int) -> dict:
    """Re-embed the documents of an EmbedBatchJob, one by one, with progress."""
    return run_job(self, EmbedBatchJob, job_id, documents.run_embed_batch)


@shared_task(bind=True, name="solution_library.sync_documentation_source", soft_time_limit=1800, time_limit=2100)
def sync_documentation_source(self, source_id: int, user_id: int | None, job_id: int) -> dict:
    """Sync one source under its one-at-a-time lock, reporting progress on the SyncJob."""
    owner = f"{job_id}:{self.request.id}"
    with source_sync_lock(source_id, owner) as acquired:
        if not acquired:
            return _refuse_concurrent_sync(source_id, job_id)
        result = run_job(self, SyncJob, job_id, lambda job: scheduling.run_sync_job(job, user_id))
    for document_id in result.pop("to_embed", []):
        dispatch_embedding(Document(pk=document_id))  # the id is all the message carries: no need to read the row
    return result


def _refuse_concurrent_sync(source_id: int, job_id: int) -> dict:
    holder = lock_holder(source_id)
    message = "Another sync of this source is already running."
    logger.info(message, extra={"source_id": source_id, "job_id": job_id, "holder": holder})
    if holder and not holder.startswith(f"{job_id}:"):
        # A different job: this one will not run, say so on its row.
        job = SyncJob.objects.filter(pk=job_id).first()
        if job:
            job.finish(JobStatus.FAILED, message)
    return {"success": False, "job_id": job_id, "skipped": True, "error": message}


@shared_task(bind=True, name="solution_library.sync_all_documentation_sources", soft_time_limit=120, time_limit=180)
def sync_all_documentation_sources(self) -> dict:
    """Beat: queue a sync of every due source that has no active job."""
    queued, skipped = scheduling.create_due_sync_jobs(dispatch=dispatch_sync_job)
    logger.info("Queued %s source syncs, skipped %s", len(queued), skipped, extra={"task_id": self.request.id})
    return {"success": True, "queued": len(queued), "skipped": skipped, "job_ids": queued}


def dispatch_sync_job(job: SyncJob, countdown: float = 0) -> None:
    """Queue the sync job's task after commit; `countdown` delays its start (a site not serving yet)."""
    kwargs = {"source_id": job.source_id, "user_id": job.started_by_id, "job_id": job.pk}
    options = {"countdown": countdown} if countdown else {}
    dispatch_after_commit(job, sync_documentation_source, kwargs=kwargs, **options)


def dispatch_embedding(document: Document) -> None:
    """Queue the document's embedding through the outbox: a broker outage delays it, never loses it.

    Also the sweeper's re-send of a document whose worker vanished (processing is idempotent).
    """
    dispatch_after_commit(document, embed_document, kwargs={"document_id": document.pk})


def dispatch_embed_batch_job(job: EmbedBatchJob) -> None:
    dispatch_after_commit(job, embed_documents_batch, kwargs={"job_id": job.pk})
