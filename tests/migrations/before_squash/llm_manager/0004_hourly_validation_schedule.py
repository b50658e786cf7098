"""The hourly `validate_all_llm_apis` schedule, as a django-celery-beat row.

Schedules live in the database (visible and editable in the admin under
Periodic tasks), never in code. Idempotent: an existing row keeps its edits.
"""

from django.db import migrations

TASK = "llm_manager.validate_all_llm_apis"
NAME = "Validate all LLM APIs (hourly)"


def create_schedule(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    every_hour, _ = IntervalSchedule.objects.get_or_create(every=1, period="hours")
    PeriodicTask.objects.get_or_create(
        name=NAME,
        defaults={
            "task": TASK,
            "interval": every_hour,
            "enabled": True,
            "description": "Checks every active LLM API, refreshes its model list and records its health.",
        },
    )


def remove_schedule(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=NAME, task=TASK).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("llm_manager", "0003_offline_baseline"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]
    operations = [migrations.RunPython(create_schedule, remove_schedule)]
