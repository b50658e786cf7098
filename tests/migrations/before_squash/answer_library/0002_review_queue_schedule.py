"""Seed the Beat schedule of the answer library's review queue (edited in the admin afterwards).

Every six hours; it expires just under its period, so a worker outage does not
replay as a burst. Idempotent: an existing row keeps its edits.
"""

from django.db import migrations

NAME = "Refresh the answer library's review queue"
TASK = "answer_library.refresh_review_queue"


def create_schedule(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    interval, _ = IntervalSchedule.objects.get_or_create(every=6, period="hours")
    PeriodicTask.objects.get_or_create(
        name=NAME,
        defaults={
            "task": TASK,
            "interval": interval,
            "enabled": True,
            "expire_seconds": 6 * 3600 - 60,
            "description": "Marks entries past their review date or whose cited document changed or was "
            "removed since approval; they show in the library's review queue.",
        },
    )


def remove_schedule(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=NAME, task=TASK).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("answer_library", "0001_initial"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]
    operations = [migrations.RunPython(create_schedule, remove_schedule)]
