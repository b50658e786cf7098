"""The sweeper: find jobs of every kind whose worker vanished, and send them again or fail them.

A job is lost when it is "processing", nothing about it changed for
JOB_STALE_SECONDS (every job writes progress as it goes), no worker reports
its task as running or reserved, and it is not waiting in the outbox for the
broker. Redelivery covers a worker that dies with its message unacked; the
sweeper covers the rest (a message acked and then lost, a purged queue, a
broker that lost its data). Idempotent kinds are sent again up to
JOB_MAX_REDISPATCHES times; the others, and those out of attempts, are failed
with a reason a person understands and the code `worker_lost`.
"""

import logging
from datetime import timedelta

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from .dispatch import unsent_subject_ids
from .kinds import JobKind, job_kinds
from .models import ErrorCode, JobStatus

logger = logging.getLogger(__name__)

INSPECT_TIMEOUT_SECONDS = 2.0


def running_task_ids() -> set[str]:
    """Ids of the tasks some worker runs or holds right now (workers that do not answer count as gone)."""
    inspect = current_app.control.inspect(timeout=INSPECT_TIMEOUT_SECONDS)
    ids: set[str] = set()
    for listing in (inspect.active() or {}, inspect.reserved() or {}):
        for tasks in listing.values():
            ids.update(task["id"] for task in tasks)
    return ids


def sweep(live_task_ids: set[str] | None = None) -> dict:
    """One pass over every kind. Returns {"redispatched": [...], "failed": [...]} as "kind-pk" keys."""
    live = running_task_ids() if live_task_ids is None else live_task_ids
    cutoff = timezone.now() - timedelta(seconds=settings.JOB_STALE_SECONDS)
    outcome = {"redispatched": [], "failed": []}
    for kind in job_kinds():
        for row in _silent_rows(kind, cutoff):
            if row.celery_task_id in live:
                continue  # slow, not lost: a worker still holds it
            action = "redispatched" if _send_again(kind, row, cutoff) else "failed" if _fail(row, cutoff) else ""
            if action:
                outcome[action].append(f"{kind.key}-{row.pk}")
                logger.warning(
                    "Sweeper %s %s %s: its worker vanished",
                    action,
                    kind.key,
                    row.pk,
                    extra={"kind": kind.key, "job_id": row.pk},
                )
    return {"success": True, **outcome}


def _silent_rows(kind: JobKind, cutoff) -> list:
    rows = kind.model.objects.filter(updated_at__lt=cutoff, status=JobStatus.PROCESSING)
    return list(rows.exclude(pk__in=unsent_subject_ids(kind.model)))


def _send_again(kind: JobKind, row, cutoff) -> bool:
    if not kind.redispatch or row.redispatch_count >= settings.JOB_MAX_REDISPATCHES:
        return False
    attempt = row.redispatch_count + 1
    note = (
        f"Sent again (attempt {attempt} of {settings.JOB_MAX_REDISPATCHES}): the worker running it vanished "
        f"without a word for {_silence()}. Work already done is kept."
    )
    with transaction.atomic():
        # Only if it is still silent and processing: two sweeps never act on one job twice.
        still_lost = kind.model.objects.filter(pk=row.pk, updated_at__lt=cutoff, status=JobStatus.PROCESSING)
        if not still_lost.update(updated_at=timezone.now(), redispatch_count=F("redispatch_count") + 1, message=note):
            return False
        row.refresh_from_db()
        kind.redispatch(row)
    return True


def _fail(row, cutoff) -> bool:
    resent = f" It was already sent again {row.redispatch_count} times." if row.redispatch_count else ""
    message = (
        f"Stopped: no progress for {_silence()} and no worker is running it, so the worker was "
        f"lost (restarted or crashed).{resent} Start it again when the workers are up."
    )
    # finish, as the job's own task would: the job's on_finish carries the failure where it is shown.
    return row.finish(JobStatus.FAILED, message, ErrorCode.WORKER_LOST, silent_since=cutoff)


def _silence() -> str:
    """The staleness threshold in words: "15 minutes", or "30 seconds" when it is short."""
    seconds = settings.JOB_STALE_SECONDS
    return f"{round(seconds / 60)} minutes" if seconds >= 120 else f"{seconds} seconds"
