"""The audit trail's tables.

Squashed from 0001_initial and 0002_more_actions_and_filter_indexes (nothing was released): a database
made by those is taken as up to date (`replaces`); this runs on fresh databases only.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    replaces = [
        ("audit", "0001_initial"),
        ("audit", "0002_more_actions_and_filter_indexes"),
    ]

    dependencies = [
        ("rfp_manager", "0001_squashed"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="AnswerRevision",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("at", models.DateTimeField(auto_now_add=True)),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("drafted", "Drafted"),
                            ("edited", "Edited"),
                            ("approved", "Approved"),
                            ("reviewed", "Reviewed"),
                        ],
                        max_length=20,
                    ),
                ),
                ("previous_text", models.TextField(blank=True)),
                ("text", models.TextField(blank=True)),
                (
                    "actor",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "answer",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="revisions", to="rfp_manager.answer"
                    ),
                ),
            ],
            options={
                "ordering": ["-at", "-pk"],
            },
        ),
        migrations.CreateModel(
            name="AuditEvent",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("at", models.DateTimeField(auto_now_add=True, db_index=True)),
                (
                    "action",
                    models.CharField(
                        choices=[
                            ("export", "Exported answers"),
                            ("job_started", "Started a job"),
                            ("job_cancelled", "Cancelled a job"),
                            ("llm_api_changed", "Changed an LLM API"),
                            ("llm_api_deleted", "Deleted an LLM API"),
                            ("sharing_changed", "Changed who an RFP is shared with"),
                            ("answer_edited", "Edited an answer"),
                            ("answer_approved", "Approved an answer"),
                            ("answer_reviewed", "Reviewed an answer"),
                            ("assigned", "Assigned questions"),
                            ("commented", "Commented"),
                            ("questions_imported", "Imported questions"),
                            ("document_uploaded", "Uploaded a document"),
                            ("library_changed", "Changed the answer library"),
                            ("library_import", "Imported into the answer library"),
                            ("role_changed", "Changed a role"),
                        ],
                        max_length=30,
                    ),
                ),
                (
                    "target",
                    models.CharField(help_text="What it was done to, e.g. “RFP 12 Acme tender”", max_length=300),
                ),
                ("detail", models.JSONField(blank=True, default=dict)),
                (
                    "actor",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "rfp",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="rfp_manager.rfp",
                    ),
                ),
            ],
            options={
                "ordering": ["-at", "-pk"],
                "indexes": [
                    models.Index(fields=["rfp", "-at"], name="audit_event_by_rfp"),
                    models.Index(fields=["actor", "-at"], name="audit_event_by_actor"),
                ],
            },
        ),
    ]
