"""Thin Celery wrappers around the library services."""

import logging
from typing import NoReturn

from celery import shared_task

from jobs.backoff import backoff_seconds
from jobs.dispatch import dispatch_after_commit
from jobs.models import ACTIVE_STATUSES, JobStatus
from jobs.runner import JobFailed, retried_while_the_database_is_down, run_job
from llm_manager.exceptions import TransientLLMError

from .locks import lock_holder, source_sync_lock
from .models import Document, DocumentJob, EmbedBatchJob, SyncJob
from .services import documents, scheduling

logger = logging.getLogger(__name__)

EMBED_MAX_RETRIES = 5
EMBED_BACKOFF_BASE_SECONDS = 10
EMBED_BACKOFF_MAX_SECONDS = 600


@shared_task(bind=True, name="solution_library.embed_document", soft_time_limit=600, time_limit=720)
def embed_document(self, document_id: int, embedding_model_id: int | None = None, job_id: int | None = None) -> dict:
    """Parse, chunk and embed one document as a DocumentJob; retried only while the LLM API is unavailable.

    `document_id` is checked against the job's document. A message without a job id (queued before
    document jobs existed, or sent with the document alone) runs the document's job: see _job_of_message.
    """
    if job_id is None:
        job_id = _job_of_message(self, document_id, embedding_model_id)
        if job_id is None:
            logger.error("Document %s not found", document_id, extra={"document_id": document_id})
            return {"success": False, "document_id": document_id, "error": f"document {document_id} not found"}
    return run_job(self, DocumentJob, job_id, lambda job: _process_document(self, job), {"document_id": document_id})


def _job_of_message(task, document_id: int, embedding_model_id: int | None) -> int | None:
    """The document's newest active job (the upgrade gave one to every document still processing), else a new one.

    A new job is run by this very message, so it needs no message of its own. None when the document is gone.
    """
    with retried_while_the_database_is_down(task, f"document {document_id}", document_id=document_id):
        active = DocumentJob.objects.filter(document_id=document_id, status__in=ACTIVE_STATUSES).order_by("-pk")
        job_id = active.values_list("pk", flat=True).first()
        if job_id is None and Document.objects.filter(pk=document_id).exists():
            job_id = DocumentJob.objects.create(
                document_id=document_id, embedding_model_id=embedding_model_id, status=JobStatus.PROCESSING
            ).pk
        return job_id


def _process_document(task, job: DocumentJob) -> dict:
    try:
        result = documents.process_document(job.document_id, job.embedding_model_id)
    except TransientLLMError as exc:
        _retry_or_fail(task, exc)
    if result.code:  # the document was marked failed: so is its job, with the same reason
        raise JobFailed(result.error, result.code)
    return result.as_dict()


def _retry_or_fail(task, exc: TransientLLMError) -> NoReturn:
    """Retry a transient embedding failure later (run_job lets Retry through); fail the job once retries run out."""
    if task.request.retries >= EMBED_MAX_RETRIES:
        raise JobFailed(f"The embedding service stayed unavailable: {exc}") from exc
    countdown = backoff_seconds(
        task.request.retries,
        base=EMBED_BACKOFF_BASE_SECONDS,
        cap=EMBED_BACKOFF_MAX_SECONDS,
        retry_after=exc.retry_after,
    )
    logger.warning("Embedding unavailable, retrying in %.0f s: %s", countdown, exc, extra={"task_id": task.request.id})
    # max_retries here too: Celery's default (3) would otherwise re-raise the error before ours is reached.
    raise task.retry(exc=exc, countdown=countdown, max_retries=EMBED_MAX_RETRIES) from exc


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
        # The id is all the job and its message need: no need to read the row.
        documents.create_document_job(Document(pk=document_id), dispatch=dispatch_document_job)
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


def dispatch_document_job(job: DocumentJob) -> None:
    """Queue the document job's task through the outbox: a broker outage delays it, never loses it.

    Also the sweeper's re-send of a job whose worker vanished (processing a document is idempotent).
    """
    kwargs = {"document_id": job.document_id, "embedding_model_id": job.embedding_model_id, "job_id": job.pk}
    dispatch_after_commit(job, embed_document, kwargs=kwargs)


def dispatch_embed_batch_job(job: EmbedBatchJob) -> None:
    dispatch_after_commit(job, embed_documents_batch, kwargs={"job_id": job.pk})
