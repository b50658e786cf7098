"""Every kind of job Spelunker runs, registered by the app that owns it: what the sweeper watches and what
the jobs page shows.

A kind says where its rows live, who may see them, where its own page is,
how it is sent again when its worker vanished (only idempotent work is), and
where a person retries it. Every kind's rows are BaseJob rows, documents'
processing included.

Each app registers its kinds from its AppConfig.ready() (`register`), so this
toolkit names no domain app. `job_rows(user, …)` is the selector pages use
(the jobs page, the home page): plain `JobRow`s, newest first, whatever the kind.
"""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from django.apps import apps
from django.db.models import Q, QuerySet
from django.urls import reverse

from .models import ACTIVE_STATUSES, JobAcknowledgement, JobStatus
from .services import flower_task_url


@dataclass(frozen=True)
class JobKind:
    key: str
    label: str
    model_label: str  # "app_label.Model"
    detail_url: str | Callable  # URL name of the job's own page, taking the row's pk, or f(row) → URL
    redispatch: Callable | None = None  # f(row) that queues the work again; None = not idempotent, fail it when lost
    staff_only: bool = False
    visible: Callable | None = None  # f(queryset, user) narrowing what a user may see
    retry: Callable | None = None  # f(row) → URL to POST to retry it ("" when it cannot be retried now)
    related: tuple[str, ...] = ()  # foreign keys the row's title reads: joined, not fetched row by row

    @property
    def model(self):
        return apps.get_model(self.model_label)

    def visible_to(self, user) -> QuerySet:
        rows = self.model.objects.select_related(*self.related)
        if self.staff_only and not user.is_staff:
            return rows.none()
        return self.visible(rows, user) if self.visible else rows

    def url(self, row) -> str:
        if callable(self.detail_url):
            return self.detail_url(row)
        return reverse(self.detail_url, args=[row.pk])

    def retry_url(self, row) -> str:
        return self.retry(row) if self.retry else ""


_KINDS: dict[str, JobKind] = {}


def register(*kinds: JobKind) -> None:
    """Add an app's job kinds (from its AppConfig.ready()); registering the same kind again changes nothing."""
    for kind in kinds:
        if _KINDS.setdefault(kind.key, kind) != kind:
            raise ValueError(f"Two job kinds are registered as {kind.key!r}")


def job_kinds() -> list[JobKind]:
    """Every registered kind, in the order the apps registered them (INSTALLED_APPS order)."""
    return list(_KINDS.values())


def get_kind(key: str) -> JobKind | None:
    return _KINDS.get(key)


def job_models() -> list:
    """The BaseJob tables of every kind."""
    return [kind.model for kind in job_kinds()]


# --- one row of any kind --------------------------------------------------------


@dataclass
class JobRow:
    """What a list of jobs shows of one job, whatever its kind."""

    kind: JobKind
    pk: int
    title: str
    status: str
    processed: int
    total: int
    message: str
    error_code: str
    updated_at: datetime
    task_id: str
    url: str
    retry_url: str
    is_stale: bool

    @property
    def key(self) -> str:
        return f"{self.kind.key}-{self.pk}"

    @property
    def is_active(self) -> bool:
        return self.status in ACTIVE_STATUSES

    @property
    def status_display(self) -> str:
        return JobStatus(self.status).label

    @property
    def progress(self) -> int:
        if not self.total:
            return 100 if self.status == JobStatus.COMPLETED else 0
        return min(100, self.processed * 100 // self.total)

    @property
    def group(self) -> str:
        """needs_attention (failed, or active but silent), running, or finished."""
        if self.status == JobStatus.FAILED or self.is_stale:
            return "needs_attention"
        return "running" if self.is_active else "finished"

    @property
    def flower_url(self) -> str:
        return flower_task_url(self.task_id)


def _job_row(kind: JobKind, job) -> JobRow:
    return JobRow(
        kind=kind,
        pk=job.pk,
        title=str(job),
        status=job.status,
        processed=job.processed_items,
        total=job.total_items,
        message=job.message,
        error_code=job.error_code,
        updated_at=job.updated_at,
        task_id=job.celery_task_id,
        url=kind.url(job),
        retry_url=kind.retry_url(job),
        is_stale=job.is_stale(),
    )


# --- the selector ---------------------------------------------------------------

STATUS_FILTERS: dict[str, dict] = {
    "active": {"status__in": ACTIVE_STATUSES},
    "failed": {"status": JobStatus.FAILED},
    "completed": {"status": JobStatus.COMPLETED},
    "cancelled": {"status": JobStatus.CANCELLED},
}


def job_rows(
    user,
    kinds: list[str] | None = None,
    status: str = "",
    limit: int = 50,
    include_acknowledged: bool = False,
    running_or_since: datetime | None = None,
) -> list[JobRow]:
    """The newest `limit` jobs of each chosen kind the user may see, newest first across kinds.

    `running_or_since` keeps only the jobs still running and those updated since then."""
    rows: list[JobRow] = []
    for kind in job_kinds():
        if kinds and kind.key not in kinds:
            continue
        objects = kind.visible_to(user)
        if status in STATUS_FILTERS:
            objects = objects.filter(**STATUS_FILTERS[status])
        if running_or_since:
            objects = objects.filter(Q(**STATUS_FILTERS["active"]) | Q(updated_at__gte=running_or_since))
        if not include_acknowledged:
            acknowledged = JobAcknowledgement.objects.filter(kind=kind.key).values("object_id")
            objects = objects.exclude(pk__in=acknowledged)
        rows += [_job_row(kind, job) for job in objects.order_by("-updated_at")[:limit]]
    return sorted(rows, key=lambda row: row.updated_at, reverse=True)


def grouped(rows: list[JobRow]) -> dict[str, list[JobRow]]:
    groups: dict[str, list[JobRow]] = {"needs_attention": [], "running": [], "finished": []}
    for row in rows:
        groups[row.group].append(row)
    return groups


def acknowledge(kind_key: str, pk: int, user) -> None:
    """Hide a job a person dealt with from the lists (idempotent)."""
    JobAcknowledgement.objects.get_or_create(kind=kind_key, object_id=pk, defaults={"acknowledged_by": user})
