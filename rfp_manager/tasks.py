"""Thin Celery wrappers: load the row, call a service, return the result dict.

Batch jobs: the view writes the job row, the task is dispatched after commit,
the task writes its own id (run_job), there is no autoretry (per-question
errors are recorded and the batch goes on), and a soft time limit fails the
job with a clear message (run_job).
"""

import logging

from celery import shared_task
from django.conf import settings
from django.db import transaction

from jobs.backoff import backoff_seconds
from jobs.dispatch import dispatch_after_commit
from jobs.models import ErrorCode, JobStatus
from jobs.runner import JobFailed, run_job
from llm_manager.exceptions import LLMError, TransientLLMError
from questionnaires.row_walk import QuestionImportError

from .models import InformationDocument, QuestionImportJob, RFPBatchJob
from .services import batch, documents, importing

logger = logging.getLogger(__name__)

HARD_LIMIT_MARGIN = 10 * 60
BATCH_SOFT_LIMIT = settings.RFP_BATCH_SOFT_TIME_LIMIT
BATCH_HARD_LIMIT = BATCH_SOFT_LIMIT + HARD_LIMIT_MARGIN
SUMMARY_BACKOFF_BASE_SECONDS = 30
SUMMARY_BACKOFF_MAX_SECONDS = 600
SUMMARY_FAILED = "The summary could not be written (the log says why). Press Summarize to try again."


def _run_batch_task(task, rfp_id: int, job_id: int, job_type: str, work) -> dict:
    return run_job(task, RFPBatchJob, job_id, work, matches={"rfp_id": rfp_id, "job_type": job_type})


@shared_task(
    bind=True,
    name="rfp_manager.batch_generate_responder_answers",
    soft_time_limit=BATCH_SOFT_LIMIT,
    time_limit=BATCH_HARD_LIMIT,
)
def batch_generate_responder_answers(self, rfp_id: int, user_id: int | None, job_id: int) -> dict:
    """Draft an answer to each of the job's questions; chain the reviewer when asked to.

    user_id is carried for the log and Flower only; the job row's started_by says who started it.
    """
    result = _run_batch_task(self, rfp_id, job_id, RFPBatchJob.JOB_TYPE_RESPONDER, batch.run_responder_job)
    if result.get("status") == JobStatus.COMPLETED:
        with transaction.atomic():
            reviewer = batch.create_chained_reviewer(RFPBatchJob.objects.get(pk=job_id))
            if reviewer:
                dispatch_batch_job(reviewer)
    return result


@shared_task(
    bind=True,
    name="rfp_manager.batch_generate_reviewer_answers",
    soft_time_limit=BATCH_SOFT_LIMIT,
    time_limit=BATCH_HARD_LIMIT,
)
def batch_generate_reviewer_answers(self, rfp_id: int, user_id: int | None, job_id: int) -> dict:
    """Judge each of the job's answers against its sources: verdict, feedback, score."""
    return _run_batch_task(self, rfp_id, job_id, RFPBatchJob.JOB_TYPE_REVIEWER, batch.run_reviewer_job)


IMPORT_SOFT_LIMIT = settings.QUESTION_IMPORT_SOFT_TIME_LIMIT
IMPORT_HARD_LIMIT_MARGIN = 30


@shared_task(
    bind=True,
    name="rfp_manager.analyse_question_import",
    soft_time_limit=IMPORT_SOFT_LIMIT,
    time_limit=IMPORT_SOFT_LIMIT + IMPORT_HARD_LIMIT_MARGIN,
)
def analyse_question_import(self, job_id: int) -> dict:
    """Read an uploaded questionnaire too large for the request: the preview opens when this completes."""
    return run_job(self, QuestionImportJob, job_id, _analyse)


def _analyse(job: QuestionImportJob) -> dict:
    try:
        return importing.run_analysis_job(job)
    except QuestionImportError as exc:  # the file is refused or unreadable: the message says what to do
        raise JobFailed(str(exc), ErrorCode.FILE_REFUSED) from exc


def dispatch_import_analysis(job: QuestionImportJob) -> None:
    """Queue the analysis after commit (on the default queue); also the sweeper's re-send: reading is idempotent."""
    soft = settings.QUESTION_IMPORT_SOFT_TIME_LIMIT
    dispatch_after_commit(
        job,
        analyse_question_import,
        kwargs={"job_id": job.pk},
        soft_time_limit=soft,
        time_limit=soft + IMPORT_HARD_LIMIT_MARGIN,
    )


BATCH_TASKS = {
    RFPBatchJob.JOB_TYPE_RESPONDER: batch_generate_responder_answers,
    RFPBatchJob.JOB_TYPE_REVIEWER: batch_generate_reviewer_answers,
}


def dispatch_batch_job(job: RFPBatchJob) -> None:
    """Queue the job's task once the row is committed (the worker must be able to read it)."""
    task = BATCH_TASKS[job.job_type]
    args = (job.rfp_id, job.started_by_id, job.pk)
    # The sender's limits travel in the message and win over the worker's; read the setting now.
    soft = settings.RFP_BATCH_SOFT_TIME_LIMIT
    dispatch_after_commit(job, task, args=args, soft_time_limit=soft, time_limit=soft + HARD_LIMIT_MARGIN)
    logger.info("Queued %s job %s", job.job_type, job.pk, extra={"job_id": job.pk, "rfp_id": job.rfp_id})


@shared_task(
    bind=True,
    name="rfp_manager.summarize_information_document",
    max_retries=3,
    soft_time_limit=300,
    time_limit=360,
)
def summarize_information_document(self, document_id: int) -> dict:
    """Summarize one of an RFP's own documents; transient LLM errors are retried, never sooner than Retry-After."""
    context = {"document_id": document_id, "task_id": self.request.id}
    document = InformationDocument.objects.filter(pk=document_id).first()
    if document is None:
        return {"success": False, "document_id": document_id, "error": f"document {document_id} not found"}
    documents.mark_summarizing(document)
    try:
        summary = documents.summarize_document(document)
    except TransientLLMError as exc:
        if self.request.retries >= self.max_retries:
            documents.record_summary_failure(document, str(exc))
            raise
        countdown = backoff_seconds(
            self.request.retries,
            base=SUMMARY_BACKOFF_BASE_SECONDS,
            cap=SUMMARY_BACKOFF_MAX_SECONDS,
            retry_after=exc.retry_after,
        )
        logger.warning(
            "Summary of document %s: LLM unavailable, retrying in %.0f s: %s",
            document_id,
            countdown,
            exc,
            extra=context,
        )
        raise self.retry(exc=exc, countdown=countdown) from exc
    except Exception as exc:  # business errors are not retried: record them on the row
        logger.error("Summary of document %s failed: %s", document_id, exc, extra=context, exc_info=True)
        # The file's refusal and an LLM's error are written for people; anything else is only in the log.
        plain = isinstance(exc, (documents.DocumentTextError, LLMError))
        documents.record_summary_failure(document, str(exc) if plain else SUMMARY_FAILED)
        return {"success": False, "document_id": document_id, "error": str(exc)}
    logger.info("Summarized document %s", document_id, extra=context)
    return {"success": True, "document_id": document_id, "summary_chars": len(summary)}


def dispatch_summary(document: InformationDocument) -> None:
    """Queue the summary after commit through the outbox: with the broker down it waits and is sent later."""
    dispatch_after_commit(document, summarize_information_document, args=[document.pk])
