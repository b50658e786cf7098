"""Validation tasks run in-process (eagerly): result dicts, retry policy, idempotency.

The same tasks under real workers, Beat and a killed worker are in test_workers.py.
"""

import pytest
from django_celery_beat.models import PeriodicTask

from llm_manager.models import LLMApi, LLMModel, ValidationRun
from llm_manager.tasks import MAX_RETRIES, validate_all_llm_apis, validate_single_api
from llm_manager.testing.fixtures import register_fake_api

pytestmark = pytest.mark.django_db


def test_hourly_schedule_exists_after_migrate():
    task = PeriodicTask.objects.get(task="llm_manager.validate_all_llm_apis")
    assert task.enabled
    assert (task.interval.every, task.interval.period) == (1, "hours")


def test_validate_all_returns_the_seed_counts_and_records_a_run(fake_llm):
    LLMModel.objects.filter(api=register_fake_api(fake_llm)).delete()
    LLMApi.objects.create(name="Broken key", base_url=fake_llm.url, api_key="wrong")
    fake_llm.configure(api_key="right-key")
    LLMApi.objects.filter(name="Fake OpenAI").update(api_key="right-key")

    result = validate_all_llm_apis.apply().get()
    assert result["success"] is True
    # + the offline baseline and the local models (all-MiniLM-L6-v2), which migrations register
    assert (result["tested"], result["successful"], result["failed"]) == (4, 3, 1)
    assert result["models_created"] == 2  # the fake's two models; the offline and local ones exist already
    broken = next(d for d in result["details"] if d["api"] == "Broken key")
    assert broken == {
        "api_id": broken["api_id"],
        "api": "Broken key",
        "success": False,
        "error": "API key rejected by Broken key (HTTP 401)",
        "transient": False,
    }
    run = ValidationRun.objects.get(pk=result["job_id"])
    assert (run.status, run.trigger, run.successful_items, run.failed_items) == ("completed", "schedule", 3, 1)
    assert LLMApi.objects.get(name="Broken key").health_status == LLMApi.HEALTH_UNHEALTHY


def test_validate_all_twice_gives_the_same_rows(fake_llm):
    register_fake_api(fake_llm)
    validate_all_llm_apis.apply().get()
    rows = sorted(LLMModel.objects.values_list("api__name", "name", "model_type", "is_active", "context_window"))
    second = validate_all_llm_apis.apply().get()
    assert (second["models_created"], second["models_updated"], second["models_deactivated"]) == (0, 0, 0)
    assert (
        sorted(LLMModel.objects.values_list("api__name", "name", "model_type", "is_active", "context_window")) == rows
    )


def test_single_api_with_a_job_records_progress_on_it(fake_llm, staff_user):
    api = register_fake_api(fake_llm)
    run = ValidationRun.objects.create(api=api, started_by=staff_user)
    result = validate_single_api.apply(kwargs={"api_id": api.pk, "job_id": run.pk}, task_id="task-1").get()
    run.refresh_from_db()
    assert result["success"] and result["tested"] == 1
    assert (run.status, run.processed_items, run.celery_task_id) == ("completed", 1, "task-1")
    # A redelivered message finds the run finished and does nothing.
    again = validate_single_api.apply(kwargs={"api_id": api.pk, "job_id": run.pk}).get()
    assert again["skipped"] and len(fake_llm.requests) == 1


@pytest.mark.parametrize(
    "fault, calls",
    [
        ("500", 1 + MAX_RETRIES),
        ("429", 1 + MAX_RETRIES),
        ("timeout", 1 + MAX_RETRIES),
        ("malformed", 1 + MAX_RETRIES),
        ("401", 1),
    ],
)
def test_unattended_validation_retries_transient_failures_only(fake_llm, fault, calls):
    api = register_fake_api(fake_llm, timeout_seconds=0.5)
    fake_llm.configure(fault=fault, hang_seconds=2, retry_after=0)
    result = validate_single_api.apply(kwargs={"api_id": api.pk}).get(propagate=False)
    assert len(fake_llm.requests_to("/v1/models")) == calls
    if calls == 1:
        assert result["success"] is False and result["details"][0]["transient"] is False


def test_missing_api_is_reported_not_retried():
    result = validate_single_api.apply(kwargs={"api_id": 999999}).get()
    assert result == {"success": False, "api_id": 999999, "error": "LLM API 999999 not found"}


def test_single_api_run_fails_with_the_reason_and_is_not_retried(fake_llm):
    api = register_fake_api(fake_llm)
    fake_llm.configure(fault="500")
    run = ValidationRun.objects.create(api=api)
    result = validate_single_api.apply(kwargs={"api_id": api.pk, "job_id": run.pk}).get()
    run.refresh_from_db()
    assert result["success"] is False and run.status == "failed"
    assert run.message == "ValidationFailed: Fake OpenAI had a server error (HTTP 500)"
    assert run.failed_items == 1 and len(fake_llm.requests) == 1  # a person is watching: no hidden retries
