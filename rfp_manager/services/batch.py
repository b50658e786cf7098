"""Responder and reviewer batch jobs: their scope, their guard, and the engine that runs them.

The engine answers several questions at once (bounded by the chat API's
concurrency limit), records one JobQuestionResult per question, and derives
the job's counters from those rows, so they are exact and a re-delivered job
can resume where the first delivery stopped. No Celery here: the task calls
`run_responder_job` / `run_reviewer_job` and `jobs.runner.run_job`
handles the job's start, finish and time limit.
"""

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from datetime import datetime
from functools import partial

from django.db import IntegrityError, connection, transaction
from django.db.models import Count, Max, Q
from django.utils import timezone

from jobs.models import ACTIVE_STATUSES, MAX_RECORDED_ERRORS, JobStatus
from jobs.runner import StopRequested
from llm_manager import services as llm
from llm_manager.providers.offline import NO_PASSAGE_ANSWER
from solution_library.models import Document

from ..models import RFP, Answer, JobQuestionResult, Question, RFPBatchJob
from ..reuse import approved_answers
from .answering import generate_answer, review_answer

logger = logging.getLogger(__name__)

CANCEL_CHECK_SECONDS = 0.5
PROGRESS_WRITE_SECONDS = 0.3


class JobNotStarted(Exception):
    """Why a job could not be created (already running, nothing to do…): shown to the user."""


class JobAlreadyRunning(JobNotStarted):
    pass


# --- scope and creation --------------------------------------------------------


def answered_question_ids(rfp: RFP, within: list[int] | None = None) -> list[int]:
    answers = Answer.objects.filter(question__rfp=rfp).exclude(draft_text="", final_text="")
    if within is not None:
        answers = answers.filter(question_id__in=within)
    return list(answers.order_by("question__order", "question_id").values_list("question_id", flat=True))


def default_scope(rfp: RFP, job_type: str) -> list[int]:
    """Responder: every question. Reviewer: every question that has an answer to judge."""
    if job_type == RFPBatchJob.JOB_TYPE_RESPONDER:
        return list(rfp.questions.order_by("order", "pk").values_list("pk", flat=True))
    return answered_question_ids(rfp)


@dataclass(frozen=True)
class LibraryGrowth:
    """Questions drafted "no supporting content" before library documents became ready: a redraft may answer them."""

    question_ids: list[int]
    documents: int  # the documents that became ready since the oldest of those drafts


def drafted_before_library_grew(rfp: RFP) -> LibraryGrowth | None:
    """The responder's "no supporting content" drafts of this RFP made before the library's newest document was
    ready, that no person has edited or approved since; None when there are none.

    Answering while documents are still processing, or before the team adds the document a question needs, leaves
    these drafts behind: nothing else tells the team that the library may now answer them.
    """
    newest = _newest_ready_document()
    if newest is None:
        return None
    stale = list(
        _untouched_no_support_drafts(before=newest)
        .filter(question__rfp=rfp)
        .order_by("question__order", "question_id")
        .values_list("question_id", "generated_at")
    )
    if not stale:
        return None
    oldest = min(generated_at for _, generated_at in stale)
    documents = Document.objects.ready().filter(processed_at__gt=oldest).count()
    return LibraryGrowth([question_id for question_id, _ in stale], documents)


@dataclass(frozen=True)
class StaleDrafts:
    """One open RFP's "no supporting content" drafts made before the library's newest document was ready."""

    rfp: RFP
    count: int
    newest: datetime  # the latest of those drafts: a redraft, or a new one, makes a later one


def rfps_drafted_before_library_grew() -> list[StaleDrafts]:
    """Every RFP still being answered (not submitted or archived) that `drafted_before_library_grew` would offer a
    redraft, with its owner: what the periodic notice to owners reads, in three queries whatever the number of RFPs
    (the newest ready document, the drafts counted per RFP, those RFPs)."""
    newest = _newest_ready_document()
    if newest is None:
        return []
    per_rfp = (
        _untouched_no_support_drafts(before=newest)
        .exclude(question__rfp__status__in=RFP.MANUAL_STATUSES)
        .values("question__rfp")
        .annotate(count=Count("pk"), newest=Max("generated_at"))
    )
    counts = {row["question__rfp"]: row for row in per_rfp}
    rfps = RFP.objects.filter(pk__in=counts).select_related("owner").order_by("pk")
    return [StaleDrafts(rfp, counts[rfp.pk]["count"], counts[rfp.pk]["newest"]) for rfp in rfps]


def _newest_ready_document() -> datetime | None:
    return Document.objects.ready().aggregate(newest=Max("processed_at"))["newest"]


def _untouched_no_support_drafts(before: datetime):
    """The responder's "no supporting content" drafts made before `before` that no person has edited or approved."""
    return Answer.objects.filter(draft_text=NO_PASSAGE_ANSWER, final_text="", approved_at=None, generated_at__lt=before)


def reviewer_blocker(rfp: RFP) -> str:
    """Why a reviewer cannot start now ("" when it can): it needs a completed responder job."""
    responders = rfp.batch_jobs.filter(job_type=RFPBatchJob.JOB_TYPE_RESPONDER)
    statuses = set(responders.order_by().values_list("status", flat=True).distinct())  # one query for both
    if statuses & set(ACTIVE_STATUSES):
        return "A responder job is still running: tick “review when done”, or start the reviewer after it completes."
    if JobStatus.COMPLETED not in statuses:
        return "Run a responder job first: the reviewer judges its answers."
    return ""


def create_batch_job(
    rfp: RFP,
    job_type: str,
    user,
    *,
    question_ids: list[int] | None = None,
    review_when_done: bool = False,
    retry_of: RFPBatchJob | None = None,
    chained_from: RFPBatchJob | None = None,
) -> RFPBatchJob:
    """Write the job row before its task is queued (the task reads it). The database refuses a second active job."""
    if question_ids is None:
        question_ids = default_scope(rfp, job_type)
    if not question_ids:
        raise JobNotStarted(
            "There are no questions to answer."
            if job_type == RFPBatchJob.JOB_TYPE_RESPONDER
            else "There are no answers to review."
        )
    try:
        with transaction.atomic():  # a savepoint: the IntegrityError must not poison the caller's transaction
            return RFPBatchJob.objects.create(
                rfp=rfp,
                job_type=job_type,
                started_by=user,
                question_ids=question_ids,
                total_items=len(question_ids),
                review_when_done=review_when_done,
                retry_of=retry_of,
                chained_from=chained_from,
            )
    except IntegrityError:
        raise JobAlreadyRunning(f"A {job_type} job is already running for this RFP.") from None


def failed_question_ids(job: RFPBatchJob) -> list[int]:
    failed = job.results.filter(outcome=JobQuestionResult.Outcome.FAILED)
    return list(failed.order_by("question__order", "question_id").values_list("question_id", flat=True))


def create_retry_job(job: RFPBatchJob, user) -> RFPBatchJob:
    """A new job of the same type over only the questions this one failed."""
    if job.is_active:
        raise JobNotStarted("Wait until the job has finished before retrying its failures.")
    ids = failed_question_ids(job)
    if not ids:
        raise JobNotStarted("This job has no failed questions to retry.")
    return create_batch_job(job.rfp, job.job_type, user, question_ids=ids, retry_of=job)


def create_chained_reviewer(job: RFPBatchJob) -> RFPBatchJob | None:
    """After a responder job with "review when done" completes: its reviewer, created once."""
    if not (
        job.job_type == RFPBatchJob.JOB_TYPE_RESPONDER and job.review_when_done and job.status == JobStatus.COMPLETED
    ):
        return None
    if job.chained_jobs.exists():  # a re-delivered responder must not chain twice
        return None
    ids = answered_question_ids(job.rfp, within=job.question_ids)
    try:
        return create_batch_job(
            job.rfp, RFPBatchJob.JOB_TYPE_REVIEWER, job.started_by, question_ids=ids, chained_from=job
        )
    except JobNotStarted as exc:
        logger.warning("No reviewer chained after job %s: %s", job.pk, exc, extra={"job_id": job.pk})
        return None


# --- progress ------------------------------------------------------------------


def refresh_progress(job: RFPBatchJob) -> None:
    """Counters and errors as absolute values recomputed from the result rows (exact, idempotent)."""
    failed = Q(outcome=JobQuestionResult.Outcome.FAILED)
    counts = job.results.aggregate(
        processed=Count("id"),
        succeeded=Count("id", filter=Q(outcome=JobQuestionResult.Outcome.SUCCEEDED)),
        failed=Count("id", filter=failed),
    )
    errors = [
        {"item": r.question.label, "question_id": r.question_id, "error": r.error, "at": r.finished_at.isoformat()}
        for r in job.results.filter(failed).select_related("question").order_by("question__order")[:MAX_RECORDED_ERRORS]
    ]
    job.set_counts(
        processed_items=counts["processed"],
        successful_items=counts["succeeded"],
        failed_items=counts["failed"],
        errors=errors,
    )


# --- the engine ----------------------------------------------------------------


def _record(job: RFPBatchJob, question: Question, outcome: str, error: str = "") -> None:
    """One upsert (INSERT … ON CONFLICT UPDATE): a re-run overwrites its own row, never adds one."""
    JobQuestionResult.objects.bulk_create(
        [
            JobQuestionResult(
                job=job, question=question, outcome=outcome, error=error[:2000], finished_at=timezone.now()
            )
        ],
        update_conflicts=True,
        unique_fields=["job", "question"],
        update_fields=["outcome", "error", "finished_at"],
    )


def _process_one(job: RFPBatchJob, question: Question, process: Callable[[Question], object]) -> None:
    """Run in a pool thread: one question, its outcome recorded whatever happens."""
    context = {"job_id": job.pk, "question_id": question.pk}
    try:
        process(question)
        _record(job, question, JobQuestionResult.Outcome.SUCCEEDED)
    except Exception as exc:  # one question's failure is recorded; the batch goes on
        logger.warning("Question %s failed: %s", question.pk, exc, extra=context)
        _record(job, question, JobQuestionResult.Outcome.FAILED, f"{type(exc).__name__}: {exc}")


def _close_pool_connections(pool: ThreadPoolExecutor, workers: int) -> None:
    """Close the database connection each pool thread opened (Django keeps one per thread).

    Threads keep their connection across questions (no reconnect per
    question); at the end a barrier makes each of the `workers` threads run
    exactly one close.
    """
    barrier = threading.Barrier(workers)

    def close() -> None:
        try:
            barrier.wait(timeout=10)
        except threading.BrokenBarrierError:
            pass
        connection.close()

    for future in [pool.submit(close) for _ in range(workers)]:
        future.result()


def questions_to_do(job: RFPBatchJob) -> list[Question]:
    """The job's questions minus those it already did (a re-delivered job resumes), each with its RFP (the
    question's reading names the client: answering.reading), read in the same query."""
    done = job.results.filter(outcome=JobQuestionResult.Outcome.SUCCEEDED).values_list("question_id", flat=True)
    rows = Question.objects.filter(rfp=job.rfp, pk__in=job.question_ids).exclude(pk__in=done).select_related("rfp")
    return list(rows.order_by("order", "pk"))


def run_batch(job: RFPBatchJob, process: Callable[[Question], object], concurrency: int) -> dict:
    """Process the job's questions, `concurrency` at a time, until done, cancelled or its worker stops.

    Only `concurrency` questions are ever submitted, so a cancellation or a
    worker shutdown stops new work at once; the in-flight ones finish and are
    kept. After a shutdown request it raises StopRequested once the counts are
    written: the task requeues the job, and the next worker resumes it.
    """
    existing = Question.objects.filter(rfp=job.rfp, pk__in=job.question_ids).count()
    if existing != job.total_items:  # questions deleted since the job was created
        job.set_counts(total_items=existing)
    todo = iter(questions_to_do(job))
    stop = ""
    last_cancel_check = last_progress = time.monotonic()
    try:
        with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix=f"rfp-job-{job.pk}") as pool:
            in_flight = set()
            while True:
                while not stop and len(in_flight) < concurrency and (question := next(todo, None)):
                    in_flight.add(pool.submit(_process_one, job, question, process))
                if not in_flight:
                    break
                _, in_flight = wait(in_flight, timeout=CANCEL_CHECK_SECONDS, return_when=FIRST_COMPLETED)
                now = time.monotonic()
                if now - last_progress >= PROGRESS_WRITE_SECONDS:
                    refresh_progress(job)
                    last_progress = now
                if not stop and now - last_cancel_check >= CANCEL_CHECK_SECONDS:
                    stop = job.stop_reason()
                    last_cancel_check = now
            _close_pool_connections(pool, concurrency)
    finally:
        refresh_progress(job)  # also after a soft time limit: the counts stay true
    if stop == "shutdown":
        raise StopRequested(f"job {job.pk} stopped after {job.processed_items} of {job.total_items} questions")
    return {
        "total": job.total_items,
        "succeeded": job.successful_items,
        "failed": job.failed_items,
        "cancelled": stop == "cancelled",
    }


def _chat_model_and_concurrency():
    model = llm.get_default_model("chat")  # NoDefaultModel fails the job with a clear message
    return model, max(1, llm.concurrency_limit(model))


def _default_embedding_model():
    """Read once per job, not twice per question; None lets each question read it and fail with the reason."""
    try:
        return llm.get_default_model("embedding")
    except llm.NoDefaultModel:
        return None


def run_responder_job(job: RFPBatchJob) -> dict:
    model, concurrency = _chat_model_and_concurrency()
    embedding_model = _default_embedding_model()
    library = approved_answers().snapshot(embedding_model)
    answer = partial(
        generate_answer,
        model=model,
        rfp_context=job.rfp.context_summary(),
        job=job,
        embedding_model=embedding_model,
        library=library,
    )
    return run_batch(job, answer, concurrency)


def run_reviewer_job(job: RFPBatchJob) -> dict:
    model, concurrency = _chat_model_and_concurrency()
    return run_batch(job, partial(review_answer, model=model, job=job), concurrency)
