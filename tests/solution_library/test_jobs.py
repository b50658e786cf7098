"""The batch embedding job and the scheduled sync, run by the real worker."""

import importlib
from datetime import timedelta

import pytest
from django.apps import apps
from django.utils import timezone
from django_celery_beat.models import PeriodicTask

from jobs.models import JobStatus
from solution_library.models import DocumentationSource, EmbedBatchJob, SyncJob
from solution_library.services.scheduling import STALE_SYNC_MINUTES, create_sync_job
from solution_library.tasks import embed_documents_batch, sync_all_documentation_sources
from solution_library.testing import add_library_document

pytestmark = pytest.mark.integration


def test_embed_batch_job_reports_progress_and_is_idempotent(live_worker, offline_embedding, staff_user):
    docs = [add_library_document(f"Doc {i}", f"Document number {i} is about topic {i}.") for i in range(3)]
    job = EmbedBatchJob.objects.create(document_ids=[d.pk for d in docs] + [999999], total_items=4)

    first = embed_documents_batch.delay(job_id=job.pk).get(timeout=60)
    job.refresh_from_db()
    assert first["success"] is True and (first["succeeded"], first["failed"]) == (3, 1)
    assert (job.status, job.processed_items, job.successful_items, job.failed_items) == ("completed", 4, 3, 1)
    assert job.errors[0]["item"] == 999999 and "not found" in job.errors[0]["error"]

    again = embed_documents_batch.delay(job_id=job.pk).get(timeout=60)
    assert again["skipped"] is True  # a finished job is never run twice
    job.refresh_from_db()
    assert (job.processed_items, job.successful_items, job.failed_items) == (4, 3, 1)


def test_scheduled_sync_skips_sources_with_an_active_job(live_worker, staff_user):
    busy = DocumentationSource.objects.create(name="busy", start_url="http://127.0.0.1:9/", allowed_host="127.0.0.1:9")
    idle = DocumentationSource.objects.create(name="idle", start_url="http://127.0.0.1:9/", allowed_host="127.0.0.1:9")
    DocumentationSource.objects.create(
        name="manual", start_url="http://127.0.0.1:9/", allowed_host="x", sync_interval_hours=0
    )
    SyncJob.objects.create(source=busy, status=JobStatus.PROCESSING)

    result = sync_all_documentation_sources.delay().get(timeout=30)

    assert (result["queued"], result["skipped"]) == (1, 1)
    job = SyncJob.objects.get(pk=result["job_ids"][0])
    assert job.source == idle
    # Port 9 refuses connections: the job fails with a clear message, never hangs.
    from tests.workers import wait_for

    wait_for(lambda: not SyncJob.objects.get(pk=job.pk).is_active, 30, message="the queued sync to finish")
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED and "could not be read" in job.message


@pytest.mark.django_db
def test_a_sync_job_whose_worker_was_lost_no_longer_blocks_its_source(staff_user, django_capture_on_commit_callbacks):
    source = DocumentationSource.objects.create(
        name="docs", start_url="http://127.0.0.1:9/", allowed_host="127.0.0.1:9"
    )
    lost = SyncJob.objects.create(source=source, status=JobStatus.PROCESSING)
    SyncJob.objects.filter(pk=lost.pk).update(updated_at=timezone.now() - timedelta(minutes=STALE_SYNC_MINUTES + 1))
    sent = []

    with django_capture_on_commit_callbacks(execute=True):
        job = create_sync_job(source, staff_user, dispatch=sent.append)

    lost.refresh_from_db()
    assert lost.status == JobStatus.FAILED and "worker running it was lost" in lost.message
    assert job is not None and sent == [job]


@pytest.mark.django_db
def test_a_live_sync_job_still_blocks_a_second_one(staff_user):
    source = DocumentationSource.objects.create(
        name="docs", start_url="http://127.0.0.1:9/", allowed_host="127.0.0.1:9"
    )
    SyncJob.objects.create(source=source, status=JobStatus.PROCESSING)
    assert create_sync_job(source, staff_user, dispatch=lambda job: None) is None


def test_data_migration_seeds_the_beat_schedule(db):
    migration = importlib.import_module("solution_library.migrations.0001_squashed")
    PeriodicTask.objects.filter(name=migration.PERIODIC_TASK_NAME).delete()
    migration.create_schedule(apps, None)
    task = PeriodicTask.objects.get(name=migration.PERIODIC_TASK_NAME)
    assert task.task == "solution_library.sync_all_documentation_sources" and task.enabled
    assert (task.interval.every, task.interval.period) == (1, "hours")
