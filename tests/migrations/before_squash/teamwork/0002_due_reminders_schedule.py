"""Seed the Beat schedule of the due-date reminders (edited in the admin afterwards).

Every hour; it expires just under its period, so a worker outage does not
replay as a burst. The task is idempotent (one reminder per assignment, kind
and due date), so an extra run sends nothing twice. An existing row keeps its edits.
"""

from django.db import migrations

NAME = "Remind assignees of due and overdue questions"
TASK = "teamwork.send_due_reminders"


def create_schedule(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    interval, _ = IntervalSchedule.objects.get_or_create(every=1, period="hours")
    PeriodicTask.objects.get_or_create(
        name=NAME,
        defaults={
            "task": TASK,
            "interval": interval,
            "enabled": True,
            "expire_seconds": 3600 - 60,
            "description": "Reminds each assignee of an open question due within ASSIGNMENT_REMIND_DAYS, "
            "and tells assignee and assigner when it is overdue (in the app and by email).",
        },
    )


def remove_schedule(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=NAME, task=TASK).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("teamwork", "0001_roles_assignments_comments_notifications"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]
    operations = [migrations.RunPython(create_schedule, remove_schedule)]
