"""The "library may answer now" notice, and the Beat schedule that sends it every 15 minutes.

The row expires just under its period, so a worker outage does not replay as a burst. The task is idempotent
(one notice per RFP and newest stale draft), so an extra run sends nothing twice. An existing row keeps its edits.
"""

from django.db import migrations, models

NAME = "Tell owners the library may answer their no-support drafts"
TASK = "teamwork.tell_owners_the_library_grew"
MINUTES = 15


def create_schedule(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    interval, _ = IntervalSchedule.objects.get_or_create(every=MINUTES, period="minutes")
    PeriodicTask.objects.get_or_create(
        name=NAME,
        defaults={
            "task": TASK,
            "interval": interval,
            "enabled": True,
            "expire_seconds": MINUTES * 60 - 30,
            "description": "Tells each open RFP's owner when its “no supporting content” drafts were made before a "
            "library document became ready, so a redraft may answer them (in the app and by email).",
        },
    )


def remove_schedule(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=NAME, task=TASK).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("django_celery_beat", "0019_alter_periodictasks_options"),
        ("teamwork", "0001_squashed"),
    ]

    operations = [
        migrations.AlterField(
            model_name="notification",
            name="kind",
            field=models.CharField(
                choices=[
                    ("assigned", "Assigned to you"),
                    ("due_soon", "Due soon"),
                    ("overdue", "Overdue"),
                    ("mentioned", "Mentioned"),
                    ("library_grew", "The library may answer now"),
                ],
                max_length=20,
            ),
        ),
        migrations.RunPython(create_schedule, remove_schedule),
    ]
