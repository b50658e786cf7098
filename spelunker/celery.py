"""The one Celery app. All configuration lives in Django settings (CELERY_*)."""

import os
import resource

from celery import Celery
from celery.signals import beat_init, setup_logging, task_prerun, worker_init, worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "spelunker.settings")

app = Celery("spelunker")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# Celery's Django fixup closes the database connection around every task unless told to reuse it:
# a new PostgreSQL connection per task cost more than a job task's own queries (make bench, "Task
# overhead"). It is reused here (closed every 1,000 tasks), and checked before each task uses it.
app.conf.CELERY_DB_REUSE_MAX = 1000


@task_prerun.connect
def check_database_connection(sender=None, **kwargs):
    """As Django does before each request: drop a connection that is broken or older than CONN_MAX_AGE.

    With CONN_HEALTH_CHECKS the next query tests the kept connection first, so a restarted database
    costs one reconnect, not a failed task. Eager tasks (tests) run inside the caller's transaction: left alone.
    """
    if getattr(getattr(sender, "request", None), "is_eager", False):
        return
    from django.db import close_old_connections

    close_old_connections()


@worker_init.connect
def import_the_llm_providers(**kwargs):
    """Import every LLM provider's module in the worker's main process, before the pool starts: the OpenAI client
    takes about a second to import, and imported at a batch job's first call it held Python's import lock while
    the job's other seven threads waited (a py-spy profile of bench/bench_rfp.py: about 1.3 s at every start)."""
    from llm_manager.providers import local, offline, openai_compat  # noqa: F401 (imported for their import)


@worker_process_init.connect
def limit_memory_of_the_pool_process(**kwargs):
    """The memory budget of each pool process: an allocation past it fails inside the task (a MemoryError, which
    fails the job with the reason) instead of growing until the machine swaps or the kernel kills a neighbour.

    RLIMIT_DATA counts the heap and private mappings, not the memory-mapped search index or the shared libraries,
    so the limit is what the process itself allocates. The process is then replaced after its task, as every
    process whose peak passed CELERY_WORKER_MAX_MEMORY_PER_CHILD is, and gives its memory back.
    """
    from django.conf import settings

    limit = settings.WORKER_MEMORY_LIMIT_MB * 1024 * 1024
    if limit:
        resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))


@setup_logging.connect
def use_django_logging(**kwargs):
    """Let Django's LOGGING (JSON lines with task context) configure workers too."""
    from logging.config import dictConfig

    from django.conf import settings

    dictConfig(settings.LOGGING)


@beat_init.connect
def validate_new_llm_apis(sender=None, **kwargs):
    """When Beat starts (exactly one runs): validate the LLM APIs nobody has validated yet (a fresh install's come
    from migrations, which dispatch nothing), instead of leaving them "Unknown" until the hourly run."""
    from llm_manager.tasks import validate_never_validated_apis

    validate_never_validated_apis()
