"""llm_manager under real workers, RabbitMQ, Beat and PostgreSQL; the fake LLM server is the only fake.

Tests that start their own workers use private queues, so the session worker
(serving default/embedding/batch) cannot take their messages.
"""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from django_celery_beat.models import IntervalSchedule, PeriodicTask
from kombu import Queue

from llm_manager.models import LLMApi, LLMModel, RateWindow, ValidationRun
from llm_manager.tasks import validate_single_api
from llm_manager.testing.fixtures import register_fake_api
from spelunker.celery import app
from tests.llm_manager.conftest import run_data_migration
from tests.workers import Beat, wait_for

pytestmark = [pytest.mark.integration]


def purge(name: str) -> None:
    """Declare a private test queue as a worker would (durable, not auto-deleted) and empty it."""
    with app.connection_for_write() as conn:
        queue = Queue(name, routing_key=name, durable=True).bind(conn.default_channel)
        queue.declare()
        queue.purge()


def finished_model_requests(fake_llm) -> int:
    return sum(1 for r in fake_llm.requests_to("/v1/models") if r["status"] is not None)


def validations_done_by(worker) -> int:
    lines = worker.log_path.read_text(errors="replace").splitlines()
    return sum(1 for line in lines if "validate_single_api[" in line and "succeeded in" in line)


def test_concurrency_limit_holds_across_two_worker_processes(make_worker, fake_llm):
    api = register_fake_api(fake_llm, max_concurrent=2)
    fake_llm.configure(latency_ms=400)
    purge("llm_limits")
    workers = [make_worker(queues="llm_limits", concurrency=4) for _ in range(2)]
    for _ in range(16):
        validate_single_api.apply_async(kwargs={"api_id": api.pk}, queue="llm_limits")

    wait_for(lambda: finished_model_requests(fake_llm) == 16, timeout=90, message="16 validations to reach the API")
    assert fake_llm.max_in_flight == 2  # eight task slots wanted in; never more than two requests at once
    assert all(validations_done_by(w) for w in workers), "both worker processes took part"


def test_rate_limit_holds_across_two_worker_processes(make_worker, fake_llm):
    api = register_fake_api(fake_llm, requests_per_minute=5)
    purge("llm_rate")
    for _ in range(2):
        make_worker(queues="llm_rate", concurrency=4)
    for _ in range(8):
        validate_single_api.apply_async(kwargs={"api_id": api.pk}, queue="llm_rate")

    # Five requests fit in this minute; the other three wait for the next one (up to a minute).
    wait_for(lambda: finished_model_requests(fake_llm) == 8, timeout=150, message="8 validations to reach the API")
    windows = list(RateWindow.objects.filter(api=api).values_list("count", flat=True))
    assert sum(windows) == len(fake_llm.requests) == 8
    assert max(windows) <= 5 and len(windows) >= 2


def test_killed_worker_mid_validation_is_finished_by_another_via_redelivery(make_worker, fake_llm):
    api = register_fake_api(fake_llm, max_concurrent=2, timeout_seconds=30)
    LLMModel.objects.filter(api=api).delete()
    run = ValidationRun.objects.create(api=api, total_items=1)
    fake_llm.configure(latency_ms=5000)
    purge("llm_kill")
    first = make_worker(queues="llm_kill", concurrency=1)
    validate_single_api.apply_async(kwargs={"api_id": api.pk, "job_id": run.pk}, queue="llm_kill")
    wait_for(lambda: fake_llm.requests_to("/v1/models"), timeout=30, message="the first worker to call the API")
    first.kill()  # SIGKILL mid-call: the message was not acknowledged

    fake_llm.configure(latency_ms=0)
    make_worker(queues="llm_kill", concurrency=1)
    wait_for(
        lambda: ValidationRun.objects.get(pk=run.pk).status == "completed",
        timeout=60,
        message="the redelivered validation to complete",
    )
    run.refresh_from_db()
    assert (run.processed_items, run.successful_items, run.failed_items, run.models_created) == (1, 1, 0, 2)
    assert sorted(LLMModel.objects.filter(api=api).values_list("name", flat=True)) == ["fake-chat", "fake-embed"]
    assert len(fake_llm.requests_to("/v1/models")) == 2


def test_validate_button_runs_on_a_worker_and_the_page_shows_the_result(live_worker, staff_client, fake_llm):
    api = register_fake_api(fake_llm)
    LLMModel.objects.filter(api=api).delete()
    staff_client.post(reverse("llm_manager:api_validate", args=[api.pk]))
    run = ValidationRun.objects.get(api=api)
    wait_for(lambda: ValidationRun.objects.get(pk=run.pk).status == "completed", timeout=30, message="validation")
    status = staff_client.get(reverse("llm_manager:validation_status", args=[run.pk])).json()
    assert status["status"] == "completed" and status["succeeded"] == 1 and status["celery_task_id"]
    page = staff_client.get(reverse("llm_manager:api_detail", args=[api.pk])).content.decode()
    assert "2 new, 0 updated" in page and "fake-chat" in page and "badge-healthy" in page


@pytest.fixture
def beat_process(transactional_db):
    """Starts a real `celery beat` with the DatabaseScheduler, on the test database, when called."""
    started = []
    yield lambda: started.append(Beat().start())
    for beat in started:
        beat.stop()


def recreate_migrated_schedule() -> PeriodicTask:
    """Transactional tests start from empty tables: run the data migration's function again."""
    run_data_migration("0001_squashed", "create_schedule")
    return PeriodicTask.objects.get(task="llm_manager.validate_all_llm_apis")


def test_beat_runs_the_migrated_schedule_through_a_worker(live_worker, beat_process, fake_llm):
    api = register_fake_api(fake_llm)
    LLMModel.objects.filter(api=api).delete()
    schedule = recreate_migrated_schedule()
    schedule.interval, _ = IntervalSchedule.objects.get_or_create(every=2, period=IntervalSchedule.SECONDS)
    schedule.last_run_at = timezone.now() - timedelta(hours=2)
    schedule.save()

    beat_process()
    wait_for(
        lambda: ValidationRun.objects.filter(trigger="schedule", status="completed").exists(),
        timeout=60,
        message="Beat to run validate_all_llm_apis on the worker",
    )
    api.refresh_from_db()
    assert api.health_status == LLMApi.HEALTH_HEALTHY and api.last_validated_at
    assert sorted(LLMModel.objects.filter(api=api).values_list("name", flat=True)) == ["fake-chat", "fake-embed"]
    run = ValidationRun.objects.filter(trigger="schedule", status="completed").first()
    assert run.celery_task_id and run.successful_items == run.total_items == 1  # tables start empty: only the fake API
