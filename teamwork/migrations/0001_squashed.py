"""Roles, assignments, comments and notifications, and the Beat schedule of the due-date reminders.

Squashed from 0001_roles_assignments_comments_notifications and 0002_due_reminders_schedule (nothing
was released): a database made by those is taken as up to date (`replaces`); this runs on fresh ones.

The reminders run every hour; the row expires just under its period, so a worker outage does not
replay as a burst. The task is idempotent (one reminder per assignment, kind and due date), so an
extra run sends nothing twice. An existing row keeps its edits (edited in the admin afterwards).
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

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
    initial = True

    replaces = [
        ("teamwork", "0001_roles_assignments_comments_notifications"),
        ("teamwork", "0002_due_reminders_schedule"),
    ]

    dependencies = [
        ("django_celery_beat", "0019_alter_periodictasks_options"),
        ("rfp_manager", "0001_squashed"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Comment",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("text", models.TextField()),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "author",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                ("mentions", models.ManyToManyField(blank=True, related_name="+", to=settings.AUTH_USER_MODEL)),
                (
                    "question",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="comments", to="rfp_manager.question"
                    ),
                ),
            ],
            options={
                "ordering": ["created_at", "pk"],
            },
        ),
        migrations.CreateModel(
            name="Assignment",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("due_date", models.DateField(blank=True, null=True)),
                ("assigned_at", models.DateTimeField()),
                (
                    "answered_at",
                    models.DateTimeField(blank=True, help_text="When the assignee saved an answer", null=True),
                ),
                (
                    "assigned_by",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "assignee",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="assignments",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "question",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="assignment",
                        to="rfp_manager.question",
                    ),
                ),
            ],
            options={
                "indexes": [
                    models.Index(fields=["assignee", "answered_at", "due_date"], name="assignment_open_by_user")
                ],
            },
        ),
        migrations.CreateModel(
            name="Membership",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "role",
                    models.CharField(
                        choices=[("viewer", "Viewer"), ("contributor", "Contributor"), ("owner", "Owner")],
                        max_length=20,
                    ),
                ),
                ("updated_at", models.DateTimeField(auto_now=True)),
                (
                    "added_by",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "rfp",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="memberships", to="rfp_manager.rfp"
                    ),
                ),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="rfp_memberships",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "constraints": [models.UniqueConstraint(fields=("rfp", "user"), name="one_role_per_rfp_and_user")],
            },
        ),
        migrations.CreateModel(
            name="Notification",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("assigned", "Assigned to you"),
                            ("due_soon", "Due soon"),
                            ("overdue", "Overdue"),
                            ("mentioned", "Mentioned"),
                        ],
                        max_length=20,
                    ),
                ),
                ("text", models.CharField(max_length=500)),
                ("url", models.CharField(blank=True, max_length=300)),
                ("dedupe_key", models.CharField(blank=True, max_length=200)),
                ("created_at", models.DateTimeField(auto_now_add=True, db_index=True)),
                ("read_at", models.DateTimeField(blank=True, null=True)),
                (
                    "email_status",
                    models.CharField(
                        choices=[
                            ("queued", "Queued"),
                            ("sent", "Sent"),
                            ("failed", "Failed"),
                            ("none", "No email address"),
                        ],
                        db_index=True,
                        default="queued",
                        max_length=10,
                    ),
                ),
                ("email_attempts", models.PositiveIntegerField(default=0)),
                ("email_error", models.TextField(blank=True)),
                ("email_sent_at", models.DateTimeField(blank=True, null=True)),
                (
                    "question",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="rfp_manager.question",
                    ),
                ),
                (
                    "recipient",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="notifications",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["-created_at", "-pk"],
                "indexes": [models.Index(fields=["recipient", "read_at"], name="notification_unread")],
                "constraints": [
                    models.UniqueConstraint(
                        condition=models.Q(("dedupe_key", ""), _negated=True),
                        fields=("recipient", "dedupe_key"),
                        name="notification_unique_dedupe_key",
                    )
                ],
            },
        ),
        migrations.RunPython(create_schedule, remove_schedule),
    ]
