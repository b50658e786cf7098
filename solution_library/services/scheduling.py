"""Sync jobs: create them (one active per source), run them with progress, find due sources."""

from collections.abc import Callable
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from jobs.models import ACTIVE_STATUSES, fail_stale_jobs

from ..models import DocumentationSource, SyncJob
from .sync import SyncResult, sync_documentation_source

# Longer than the sync task's hard time limit (35 min): such a job's worker is gone.
STALE_SYNC_MINUTES = 40

Dispatch = Callable[[SyncJob], None]


def create_sync_job(source: DocumentationSource, user, dispatch: Dispatch) -> SyncJob | None:
    """A pending job for `source`, dispatched after commit; None when one is already active.

    The partial unique constraint `one_active_sync_per_source` makes this
    guard hold even for two clicks at the same instant.
    """
    active = SyncJob.objects.filter(source=source, status__in=ACTIVE_STATUSES)
    # A job silent for longer than the task's hard time limit lost its worker
    # (or its message): free the source instead of blocking it for good.
    fail_stale_jobs(active, after_minutes=STALE_SYNC_MINUTES)
    if active.exists():
        return None
    try:
        with transaction.atomic():
            job = SyncJob.objects.create(source=source, started_by=user)
            dispatch(job)
    except IntegrityError:
        return None
    return job


def run_sync_job(job: SyncJob, user_id: int | None) -> dict:
    """The work of a sync job: progress written as absolute counts after every page."""

    def report(result: SyncResult) -> None:
        job.set_counts(
            documents_created=result.created,
            documents_updated=result.updated,
            documents_skipped=result.skipped,
            documents_failed=result.failed,
            documents_removed=result.removed,
            processed_items=result.processed,
            successful_items=result.processed - result.failed,
            failed_items=result.failed,
            total_items=max(result.total, result.processed),
        )

    result = sync_documentation_source(job.source_id, user_id, progress_callback=report)
    if result.errors:
        job.errors = result.errors[-500:]
        job.save(update_fields=["errors", "updated_at"])
    if not result.complete:
        job.message = "The page limit was reached: pages beyond it were not synced, and nothing was removed."
        job.save(update_fields=["message", "updated_at"])
    return {**result.counts(), "to_embed": result.to_embed}


def due_sources():
    """Active sources with a schedule whose last sync is older than their interval."""
    now = timezone.now()
    for source in DocumentationSource.objects.filter(is_active=True, sync_interval_hours__gt=0):
        if source.last_synced_at is None or source.last_synced_at <= now - timedelta(hours=source.sync_interval_hours):
            yield source


def create_due_sync_jobs(dispatch: Dispatch) -> tuple[list[int], int]:
    """Create a job per due source and hand each to `dispatch`; sources with an active job are skipped."""
    system_user = get_user_model().objects.filter(Q(is_superuser=True) | Q(is_staff=True)).order_by("pk").first()
    queued, skipped = [], 0
    for source in due_sources():
        job = create_sync_job(source, system_user, dispatch)
        if job is None:
            skipped += 1
        else:
            queued.append(job.pk)
    return queued, skipped
