"""The one Celery app. All configuration lives in Django settings (CELERY_*)."""
import os

from celery import Celery
from celery.signals import setup_logging

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "spelunker.settings")

app = Celery("spelunker")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@setup_logging.connect
def use_django_logging(**kwargs):
    """Let Django's LOGGING (JSON lines with task context) configure workers too."""
    from logging.config import dictConfig

    from django.conf import settings

    dictConfig(settings.LOGGING)


# Registers the worker_shutting_down receiver that stops running jobs at a safe point.
from spelunker.jobs import shutdown  # noqa: E402,F401
