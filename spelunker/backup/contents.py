"""What a backup holds: every table of the installation except those listed here with the reason.

A new model is exported unless it is added here, so forgetting a table loses nothing.
Chunks go with their embeddings: answers and library entries cite chunks by id, so re-deriving
them would cut those links, and re-embedding a large library costs hours of CPU the restore need not spend.
"""

from django.apps import apps
from django.db import connection, models
from django.db.migrations.loader import MigrationLoader

SKIPPED = {
    "contenttypes.contenttype": "made by migrate; rows refer to content types by natural key",
    "auth.permission": "made by migrate; users and groups refer to permissions by natural key",
    "sessions.session": "sign-ins of the old machine: everyone signs in again",
    "axes.accessattempt": "login throttling of the old machine",
    "axes.accessfailurelog": "login throttling of the old machine",
    "axes.accessattemptexpiration": "login throttling of the old machine",
    "axes.accesslog": "login throttling of the old machine",
    "django_celery_beat.solarschedule": "schedules are seeded by migrate (edits to them are not kept)",
    "django_celery_beat.intervalschedule": "schedules are seeded by migrate (edits to them are not kept)",
    "django_celery_beat.clockedschedule": "schedules are seeded by migrate (edits to them are not kept)",
    "django_celery_beat.crontabschedule": "schedules are seeded by migrate (edits to them are not kept)",
    "django_celery_beat.periodictasks": "schedules are seeded by migrate (edits to them are not kept)",
    "django_celery_beat.periodictask": "schedules are seeded by migrate (edits to them are not kept)",
    "jobs.outboxmessage": "broker messages in flight: the sweeper re-sends or fails a job whose worker vanished",
    "jobs.systemcheck": "worker checks of the old machine's workers",
    "jobs.queueprobe": "worker checks of the old machine's workers",
    "llm_manager.requestslot": "leases of LLM calls in flight",
    "llm_manager.ratewindow": "request counts of the current minute",
    "solution_library.searchindexversion": "a per-machine index token: the import draws a new one, so every "
    "machine rebuilds its index from the chunks",
    "solution_library.chunkwordcount": "kept by PostgreSQL's triggers from the chunks as they load",
}

# Matched by natural key on import (a fresh install's admin of the same name takes the backup's fields);
# every other exported table is emptied first, so the backup's rows keep their ids.
MERGED_BY_NATURAL_KEY = ("auth.group", "auth.user")

# What a fresh install can already hold (migrate's seeds, make run's admin, its first validations):
# the import refuses a database with rows in any other exported table.
MADE_BY_A_FRESH_INSTALL = frozenset(
    {
        "auth.group",
        "auth.user",
        "admin.logentry",
        "llm_manager.llmapi",
        "llm_manager.llmmodel",
        "llm_manager.validationrun",
    }
)


def label(model) -> str:
    return model._meta.label_lower


def exported_models() -> list[type[models.Model]]:
    """Every installed model not SKIPPED; groups and users first, as rows refer to them by natural key."""
    first = [apps.get_model(name) for name in MERGED_BY_NATURAL_KEY]
    rest = [m for m in apps.get_models() if label(m) not in SKIPPED and m not in first and not m._meta.proxy]
    return first + rest


def file_fields(model) -> list[models.FileField]:
    return [field for field in model._meta.concrete_fields if isinstance(field, models.FileField)]


def field_storage(field_label: str):
    """The storage of a file field named "app.model.field"."""
    app_label, model_name, field_name = field_label.split(".")
    return apps.get_model(app_label, model_name)._meta.get_field(field_name).storage


def applied_migrations() -> list[str]:
    """The schema the rows fit: the migrations of this code applied to this database, as "app.name".

    Read through the migration graph, as `migrate` reads it: a squashed migration counts once however it
    was reached (its parts on an old database, itself on a new one), and rows of deleted migrations not at all.
    """
    loader = MigrationLoader(connection)
    return sorted(f"{app}.{name}" for app, name in loader.applied_migrations if (app, name) in loader.graph.nodes)
