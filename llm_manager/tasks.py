"""Validation tasks: thin wrappers around services.validate_apis_for_run / validate_api.

Retry policy. A person who clicks Validate wants the answer now, so a run with
a job row (page, admin action) reports a transient failure at once. Unattended
work retries: the job-less `validate_single_api(api_id)` retries itself with
exponential backoff and jitter on transient failures, and Beat's
`validate_all_llm_apis` hands every API that failed transiently to it (a batch
never retries as a whole). Business errors (bad key, wrong URL) never retry.
The API key never appears in arguments, logs or results: tasks get ids only.
"""

import logging

from celery import shared_task
from django.db import transaction

from jobs.backoff import backoff_seconds
from jobs.dispatch import dispatch_after_commit
from jobs.runner import retried_while_the_database_is_down, run_job

from . import services
from .exceptions import ValidationFailed
from .models import LLMApi, ValidationRun

logger = logging.getLogger(__name__)

MAX_RETRIES = 3
BACKOFF_BASE_SECONDS = 60
BACKOFF_MAX_SECONDS = 600


def validation_backoff(attempt: int, retry_after: float | None) -> float:
    """Seconds before validation retry `attempt` (0 for the first): full jitter under 60 s·2ⁿ, at most 600 s."""
    return backoff_seconds(attempt, base=BACKOFF_BASE_SECONDS, cap=BACKOFF_MAX_SECONDS, retry_after=retry_after)


def schedule_retry(outcome: services.ValidationOutcome) -> None:
    """Hand an API that failed transiently to the self-retrying job-less task."""
    countdown = validation_backoff(0, outcome.retry_after)
    validate_single_api.apply_async(kwargs={"api_id": outcome.api_id, "attempt": 1}, countdown=countdown)
    logger.info(
        "Validation of %s will be retried in %.0f s", outcome.api_name, countdown, extra={"api_id": outcome.api_id}
    )


@shared_task(
    bind=True, name="llm_manager.validate_single_api", max_retries=MAX_RETRIES, soft_time_limit=300, time_limit=360
)
def validate_single_api(self, api_id: int, job_id: int | None = None, attempt: int = 0) -> dict:
    """Validate one API: list its models, sync them, record its health.

    With job_id (page, admin action): progress and outcome go on that ValidationRun.
    Without: unattended; a transient failure retries with backoff and jitter.
    """
    if job_id is not None:
        return run_job(self, ValidationRun, job_id, lambda run: _validate_one_for_run(run, api_id))
    if not LLMApi.objects.filter(pk=api_id).exists():
        return {"success": False, "api_id": api_id, "error": f"LLM API {api_id} not found"}
    outcome = services.validate_api(api_id)
    tries = attempt + self.request.retries
    if outcome.transient and tries < MAX_RETRIES:
        raise self.retry(countdown=validation_backoff(tries, outcome.retry_after))
    return {"success": outcome.success, **services.summarise([outcome])}


def _validate_one_for_run(run: ValidationRun, api_id: int) -> dict:
    """A run about one API fails when that API fails, so its page says Failed with the reason."""
    figures = services.validate_apis_for_run(run, [api_id])
    if figures["failed"]:
        raise ValidationFailed(figures["details"][0]["error"])
    return figures


@shared_task(bind=True, name="llm_manager.validate_all_llm_apis", soft_time_limit=900, time_limit=960)
def validate_all_llm_apis(self, job_id: int | None = None) -> dict:
    """Beat: validate every active API and refresh its models; record it as a ValidationRun.

    The run row is keyed by this task's id, so a redelivered message continues
    the same row instead of creating a second one.
    """
    with retried_while_the_database_is_down(self, "the scheduled validation run"):
        if job_id is None:
            job_id = _schedule_run_for(self.request.id).pk
        api_ids = services.active_api_ids()
    return run_job(
        self, ValidationRun, job_id, lambda run: services.validate_apis_for_run(run, api_ids, schedule_retry)
    )


def _schedule_run_for(task_id: str | None) -> ValidationRun:
    if not task_id:  # called directly, outside a worker
        return ValidationRun.objects.create(trigger=ValidationRun.TRIGGER_SCHEDULE)
    run, _ = ValidationRun.objects.get_or_create(
        celery_task_id=task_id, defaults={"trigger": ValidationRun.TRIGGER_SCHEDULE}
    )
    return run


def queue_validation(api: LLMApi, user=None) -> bool:
    """Queue a validation of the API (sent after commit) unless one is active; True when one was queued."""
    with transaction.atomic():
        run, created = services.get_or_create_validation_run(api, user)
        if created:
            dispatch_validation_run(run)
    return created


def validate_never_validated_apis() -> list[str]:
    """At start (Beat's, spelunker/celery.py): validate the APIs nobody has validated yet, such as a fresh install's,
    so their page says Healthy or why not, not "Unknown" until the hourly run or a click on Validate now."""
    return [api.name for api in services.never_validated_apis() if queue_validation(api)]


def dispatch_validation_run(run: ValidationRun) -> None:
    """Queue a run's task after commit: one API, or every active API (a scheduled run)."""
    if run.api_id:
        dispatch_after_commit(run, validate_single_api, kwargs={"api_id": run.api_id, "job_id": run.pk})
    else:
        dispatch_after_commit(run, validate_all_llm_apis, kwargs={"job_id": run.pk})
