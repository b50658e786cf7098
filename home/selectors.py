"""What the home page shows: where things stand, read in a fixed handful of queries.

Every query is bounded (an aggregate, or a short list ordered by an indexed
column), so the page costs the same number of queries with ten documents or a
hundred thousand: an aggregate over documents and a count of sources, a short
list of documents that are processing or failed, one query per kind of job
(jobs.kinds, documents aside), the LLM APIs and the default models, the latest worker check with its
probes, the count of the user's RFPs and the progress of the latest few. Job tables hold one row per run, so
filtering them by status stays cheap. No view logic here, and nothing is
written.
"""

from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.db.models import Count, Q, Sum
from django.urls import reverse
from django.utils import timezone

from jobs.kinds import JobRow, job_kinds, job_rows
from jobs.models import JobStatus, SystemCheck
from llm_manager.models import LLMApi, LLMModel
from rfp_manager.models import RFP
from solution_library.job_kinds import DOCUMENT_KIND
from solution_library.models import READY_STATUSES, Document, DocumentationSource, ReviewStatus

RECENT_HOURS = 24
JOBS_PER_KIND = 8
DOCUMENTS_LISTED = 8
RFPS_LISTED = 4
# A worker check older than this says little about the workers running now.
WORKER_CHECK_FRESH_MINUTES = 15


@dataclass
class WorkerStatus:
    """The latest worker check: which queues answered, and whether it is recent enough to trust."""

    check: SystemCheck | None
    queues: list[dict] = field(default_factory=list)  # {"queue", "worker", "latency_ms", "answered"}
    fresh: bool = False

    @property
    def silent_queues(self) -> list[str]:
        return [q["queue"] for q in self.queues if not q["answered"]]


def home_status(user) -> dict:
    """Everything the home page shows, for `user` (RFP jobs only of RFPs they may see)."""
    library = library_counts()
    jobs = recent_jobs(user)
    apis = list(LLMApi.objects.order_by("-is_active", "name"))
    default_types = set(
        LLMModel.objects.filter(is_system_default=True, is_active=True).values_list("model_type", flat=True)
    )
    workers = worker_status()
    rfp_count = RFP.objects.visible_to(user).count()
    rfps = list(RFP.objects.visible_to(user).with_progress().order_by("-updated_at")[:RFPS_LISTED])
    status = {
        "library": library,
        "documents_to_watch": documents_to_watch(),
        "jobs": jobs,
        "active_jobs": [j for j in jobs if j.is_active],
        "finished_jobs": [j for j in jobs if not j.is_active],
        "apis": apis,
        "workers": workers,
        "rfp_count": rfp_count,
        "rfps": rfps,
    }
    status["attention"] = attention_items(library, jobs, apis, workers)
    status["next_steps"] = next_steps(library, rfp_count, default_types, workers, user)
    return status


# --- library ------------------------------------------------------------------------------


def library_counts() -> dict:
    counts = Document.objects.aggregate(
        total=Count("id"),
        ready=Count("id", filter=Q(review_status__in=READY_STATUSES)),
        processing=Count("id", filter=Q(review_status=ReviewStatus.PROCESSING)),
        failed=Count("id", filter=Q(review_status=ReviewStatus.FAILED)),
        synced=Count("id", filter=Q(source__isnull=False)),
        passages=Sum("chunk_count"),
    )
    counts["passages"] = counts["passages"] or 0
    counts["sources"] = DocumentationSource.objects.count()
    return counts


def documents_to_watch() -> list[Document]:
    """The latest documents still processing or failed (review_status is indexed)."""
    watched = (ReviewStatus.PROCESSING, ReviewStatus.FAILED)
    return list(Document.objects.filter(review_status__in=watched).order_by("-updated_at")[:DOCUMENTS_LISTED])


# --- jobs of every kind ------------------------------------------------------------------------


def recent_jobs(user) -> list[JobRow]:
    """Running jobs and those updated in the last day, a few of each kind, running first.

    The rows of the jobs page (jobs.kinds); documents have their own list here."""
    since = timezone.now() - timedelta(hours=RECENT_HOURS)
    kinds = [kind.key for kind in job_kinds() if kind.key != DOCUMENT_KIND]
    rows = job_rows(user, kinds=kinds, limit=JOBS_PER_KIND, running_or_since=since)
    return sorted(rows, key=lambda r: not r.is_active)  # stable: newest first within each group


# --- workers ---------------------------------------------------------------------------------


def worker_status() -> WorkerStatus:
    """The latest worker check (System → Check the workers): one probe per queue."""
    check = SystemCheck.objects.prefetch_related("probes").order_by("-created_at").first()
    if check is None:
        return WorkerStatus(check=None)
    probes = {p.queue: p for p in check.probes.all()}
    queues = [
        {
            "queue": name,
            "answered": bool(probes.get(name) and probes[name].answered_at),
            "worker": probes[name].worker if name in probes else "",
            "latency_ms": probes[name].latency_ms if name in probes else None,
        }
        for name in settings.CELERY_QUEUE_NAMES
    ]
    fresh = timezone.now() - check.created_at < timedelta(minutes=WORKER_CHECK_FRESH_MINUTES)
    return WorkerStatus(check=check, queues=queues, fresh=fresh)


# --- what needs attention, and what to do next ------------------------------------------------


def attention_items(library: dict, jobs: list[JobRow], apis: list[LLMApi], workers: WorkerStatus) -> list[dict]:
    """{"text", "url"} for each thing someone should look at."""
    items = []
    if library["failed"]:
        items.append(
            {
                "text": f"{library['failed']} document(s) failed to process: open them for the reason and Retry.",
                "url": reverse("solution_library:index"),
            }
        )
    for job in jobs:
        if job.group == "needs_attention":
            why = "has made no progress for a while" if job.is_stale else "failed"
            items.append({"text": f"{job.kind.label} ({job.title}) {why}.", "url": job.url})
    for api in apis:
        if api.is_active and (api.health_status == LLMApi.HEALTH_UNHEALTHY or api.circuit_opened_at):
            items.append(
                {
                    "text": f"LLM API {api.name} is unhealthy: {api.last_error[:120] or 'validation failed'}.",
                    "url": reverse("llm_manager:api_detail", args=[api.pk]),
                }
            )
    if workers.check and workers.check.status in (JobStatus.COMPLETED, JobStatus.FAILED) and workers.silent_queues:
        items.append(
            {
                "text": f"No worker answered on queue(s) {', '.join(workers.silent_queues)} in the last check.",
                "url": reverse("system"),
            }
        )
    return items


def next_steps(library: dict, rfp_count: int, default_types: set[str], workers: WorkerStatus, user) -> list[dict]:
    """{"text", "url", "command"} for each empty or unknown part, in the order a newcomer meets them."""
    steps = []
    if not library["total"]:
        steps.append(
            {
                "text": "No documents yet: upload some to the library, or load the demo.",
                "url": reverse("solution_library:index"),
                "command": ".venv/bin/python manage.py load_demo",
            }
        )
    for model_type in (LLMModel.TYPE_EMBEDDING, LLMModel.TYPE_CHAT):
        if model_type not in default_types:
            steps.append(
                {
                    "text": f"No default {model_type} model: choose one in the admin (LLM models).",
                    "url": reverse("llm_manager:index"),
                    "command": "",
                }
            )
    if not rfp_count:
        steps.append(
            {
                "text": "No RFPs yet: create one and import its questions from a workbook.",
                "url": reverse("rfp_manager:create"),
                "command": "",
            }
        )
    if user.is_staff and not (workers.check and workers.fresh):
        steps.append(
            {
                "text": "Check that every queue has a live worker (takes a second).",
                "url": reverse("system"),
                "command": "",
            }
        )
    return steps
