"""The project's Celery app plus the benchmark-only tasks: `celery -A bench.benchapp worker` (make bench)."""

from bench import tasks  # noqa: F401,E402  (registers bench.noop, bench.tracked, bench.progress)
from spelunker.celery import app  # noqa: F401  (celery -A finds it here)
