"""The job toolkit's tables move here from the `spelunker` app, data and all.

The tables keep their names (Meta.db_table), so the database is not touched:
the models are created in this app's state only, and `spelunker` 0004 drops
them from its own. The content types (permissions, admin history) and the
outbox rows about a worker check follow the models to their new label.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

MOVED_MODELS = ("outboxmessage", "jobacknowledgement", "systemcheck", "queueprobe")


def relabel(apps, old: str, new: str) -> None:
    ContentType = apps.get_model("contenttypes", "ContentType")
    for model in MOVED_MODELS:
        if not ContentType.objects.filter(app_label=new, model=model).exists():
            ContentType.objects.filter(app_label=old, model=model).update(app_label=new)
    OutboxMessage = apps.get_model(new, "OutboxMessage")
    OutboxMessage.objects.filter(subject_model=f"{old}.systemcheck").update(subject_model=f"{new}.systemcheck")


def to_jobs(apps, schema_editor):
    relabel(apps, "spelunker", "jobs")


def to_spelunker(apps, schema_editor):
    relabel(apps, "jobs", "spelunker")


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("spelunker", "0003_outbox_and_sweeper_schedules"),
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="OutboxMessage",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("task_name", models.CharField(max_length=200)),
                        ("args", models.JSONField(blank=True, default=list)),
                        ("kwargs", models.JSONField(blank=True, default=dict)),
                        (
                            "options",
                            models.JSONField(
                                blank=True, default=dict, help_text="apply_async options: queue, time limits, expires"
                            ),
                        ),
                        ("task_id", models.CharField(max_length=255, unique=True)),
                        ("subject_model", models.CharField(max_length=100)),
                        ("subject_id", models.PositiveBigIntegerField()),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        ("sent_at", models.DateTimeField(blank=True, db_index=True, null=True)),
                        ("attempts", models.PositiveIntegerField(default=0)),
                        ("last_error", models.TextField(blank=True)),
                    ],
                    options={
                        "db_table": "spelunker_outboxmessage",
                        "ordering": ["pk"],
                        "indexes": [models.Index(fields=["subject_model", "subject_id"], name="outbox_subject_idx")],
                    },
                ),
                migrations.CreateModel(
                    name="SystemCheck",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        (
                            "celery_task_id",
                            models.CharField(
                                blank=True,
                                db_index=True,
                                help_text="Celery task ID for Flower monitoring",
                                max_length=255,
                            ),
                        ),
                        (
                            "status",
                            models.CharField(
                                choices=[
                                    ("pending", "Pending"),
                                    ("processing", "Processing"),
                                    ("completed", "Completed"),
                                    ("failed", "Failed"),
                                    ("cancelled", "Cancelled"),
                                ],
                                default="pending",
                                max_length=20,
                            ),
                        ),
                        ("started_at", models.DateTimeField(blank=True, null=True)),
                        ("completed_at", models.DateTimeField(blank=True, null=True)),
                        ("created_at", models.DateTimeField(auto_now_add=True, db_index=True)),
                        ("updated_at", models.DateTimeField(auto_now=True)),
                        ("message", models.TextField(blank=True, help_text="Why the job failed, or a short summary")),
                        ("errors", models.JSONField(blank=True, default=list)),
                        ("error_code", models.CharField(blank=True, max_length=40)),
                        ("unfinished_deliveries", models.PositiveSmallIntegerField(default=0)),
                        ("progress_at_delivery", models.PositiveIntegerField(default=0)),
                        ("redispatch_count", models.PositiveSmallIntegerField(default=0)),
                        ("stop_requested", models.BooleanField(default=False)),
                        ("total_items", models.PositiveIntegerField(default=0)),
                        ("processed_items", models.PositiveIntegerField(default=0)),
                        ("successful_items", models.PositiveIntegerField(default=0)),
                        ("failed_items", models.PositiveIntegerField(default=0)),
                        (
                            "started_by",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "system check",
                        "db_table": "spelunker_systemcheck",
                        "ordering": ["-created_at"],
                        "abstract": False,
                    },
                ),
                migrations.CreateModel(
                    name="JobAcknowledgement",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("kind", models.CharField(max_length=40)),
                        ("object_id", models.PositiveBigIntegerField()),
                        ("acknowledged_at", models.DateTimeField(auto_now_add=True)),
                        (
                            "acknowledged_by",
                            models.ForeignKey(
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "spelunker_jobacknowledgement",
                        "constraints": [
                            models.UniqueConstraint(fields=("kind", "object_id"), name="one_acknowledgement_per_job")
                        ],
                    },
                ),
                migrations.CreateModel(
                    name="QueueProbe",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("queue", models.CharField(max_length=50)),
                        ("celery_task_id", models.CharField(blank=True, max_length=255)),
                        ("worker", models.CharField(blank=True, max_length=255)),
                        ("latency_ms", models.FloatField(blank=True, null=True)),
                        ("answered_at", models.DateTimeField(blank=True, null=True)),
                        (
                            "check_run",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="probes",
                                to="jobs.systemcheck",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "spelunker_queueprobe",
                        "ordering": ["queue"],
                        "constraints": [
                            models.UniqueConstraint(fields=("check_run", "queue"), name="one_probe_per_queue")
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(to_jobs, to_spelunker),
    ]
