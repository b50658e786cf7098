"""The Beat schedules of the job toolkit, as django-celery-beat rows (editable in the admin).

- the outbox publisher every 5 s: a job started while the broker was down is
  sent within seconds of its return;
- the sweeper every minute: jobs whose worker vanished are sent again or failed.

Each expires just under its period, so a worker outage does not replay as a
burst of stale runs. Idempotent: an existing row keeps its edits.
"""

from django.db import migrations

SCHEDULES = [
    # name, task, every, period, expire_seconds, description
    (
        "Send queued task messages (outbox)",
        "spelunker.publish_outbox",
        5,
        "seconds",
        4,
        "Publishes the task messages the broker refused (it was down); the jobs wait as pending meanwhile.",
    ),
    (
        "Sweep lost jobs",
        "spelunker.sweep_lost_jobs",
        1,
        "minutes",
        55,
        "Sends again, or fails with a reason, the jobs and documents whose worker vanished.",
    ),
]


def create_schedules(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    for name, task, every, period, expire_seconds, description in SCHEDULES:
        interval, _ = IntervalSchedule.objects.get_or_create(every=every, period=period)
        PeriodicTask.objects.get_or_create(
            name=name,
            defaults={
                "task": task,
                "interval": interval,
                "enabled": True,
                "expire_seconds": expire_seconds,
                "description": description,
            },
        )


def remove_schedules(apps, schema_editor):
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    for name, task, *_ in SCHEDULES:
        PeriodicTask.objects.filter(name=name, task=task).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("spelunker", "0002_outbox_and_job_reliability_fields"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]
    operations = [migrations.RunPython(create_schedules, remove_schedules)]
