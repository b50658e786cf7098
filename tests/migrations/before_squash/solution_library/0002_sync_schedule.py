"""Seed the Beat schedule of the documentation-source sync (edited in the admin afterwards)."""

from django.db import migrations

TASK_NAME = "solution_library.sync_all_documentation_sources"
PERIODIC_TASK_NAME = "Sync due documentation sources"


def create_schedule(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    # Hourly check; each source's own sync_interval_hours decides whether it is due.
    every_hour, _ = IntervalSchedule.objects.get_or_create(every=1, period="hours")
    PeriodicTask.objects.get_or_create(
        name=PERIODIC_TASK_NAME,
        defaults={
            "task": TASK_NAME,
            "interval": every_hour,
            "enabled": True,
            "description": "Queues a sync of every active documentation source whose interval has passed.",
        },
    )


def remove_schedule(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=PERIODIC_TASK_NAME).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("solution_library", "0001_initial"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]
    operations = [migrations.RunPython(create_schedule, remove_schedule)]
