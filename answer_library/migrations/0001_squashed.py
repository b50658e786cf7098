"""The answer library's tables and the Beat schedule of its review queue (edited in the admin afterwards).

Squashed from 0001_initial … 0004_entry_as_answered (nothing was released): a database made by those
is taken as up to date (`replaces`), and this runs on fresh databases only.

The review queue is refreshed every six hours; the row expires just under its period, so a worker
outage does not replay as a burst. Idempotent: an existing row keeps its edits.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

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
    initial = True

    replaces = [
        ("answer_library", "0001_initial"),
        ("answer_library", "0002_review_queue_schedule"),
        ("answer_library", "0003_library_editor_permission"),
        ("answer_library", "0004_entry_as_answered"),
    ]

    dependencies = [
        ("django_celery_beat", "0019_alter_periodictasks_options"),
        ("llm_manager", "0001_squashed"),
        ("rfp_manager", "0001_squashed"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="CanonicalFact",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=200, unique=True)),
                ("pattern", models.CharField(help_text="e.g. password[^.]*?(\\d+)\\s*days", max_length=500)),
                ("value", models.CharField(help_text="The canonical value, e.g. 90", max_length=300)),
                ("is_active", models.BooleanField(default=True)),
            ],
            options={
                "ordering": ["name"],
            },
        ),
        migrations.CreateModel(
            name="Candidate",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("text", models.TextField()),
                (
                    "status",
                    models.CharField(
                        choices=[("open", "Open"), ("saved", "Saved to the library"), ("dismissed", "Dismissed")],
                        db_index=True,
                        default="open",
                        max_length=10,
                    ),
                ),
                ("updated_at", models.DateTimeField(auto_now=True)),
                (
                    "answer",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="library_candidate",
                        to="rfp_manager.answer",
                    ),
                ),
                (
                    "edited_by",
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
                "ordering": ["-updated_at"],
            },
        ),
        migrations.CreateModel(
            name="Entry",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("question", models.TextField()),
                (
                    "alternatives",
                    models.JSONField(blank=True, default=list, help_text="Other wordings of the same question"),
                ),
                ("answer_text", models.TextField()),
                (
                    "choice",
                    models.CharField(blank=True, choices=[("yes", "Yes"), ("no", "No"), ("na", "N/A")], max_length=3),
                ),
                ("sources", models.JSONField(blank=True, default=list)),
                ("tags", models.JSONField(blank=True, default=list)),
                ("review_by", models.DateField(blank=True, null=True)),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("active", "Current"),
                            ("needs_review", "Needs review"),
                            ("retired", "Retired"),
                            ("merged", "Merged into another entry"),
                        ],
                        db_index=True,
                        default="active",
                        max_length=20,
                    ),
                ),
                ("review_reasons", models.JSONField(blank=True, default=list)),
                (
                    "origin",
                    models.CharField(
                        choices=[
                            ("rfp", "Approved in an RFP"),
                            ("import", "Imported from an answered questionnaire"),
                            ("manual", "Written in the library"),
                        ],
                        default="manual",
                        max_length=10,
                    ),
                ),
                (
                    "origin_label",
                    models.CharField(blank=True, help_text="e.g. the RFP or the workbook and row", max_length=300),
                ),
                ("origin_key", models.CharField(blank=True, max_length=300)),
                ("version", models.PositiveIntegerField(default=1)),
                (
                    "approved_at",
                    models.DateTimeField(blank=True, help_text="When the current text was approved", null=True),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
                (
                    "merged_into",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="merged",
                        to="answer_library.entry",
                    ),
                ),
                (
                    "origin_answer",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="rfp_manager.answer",
                    ),
                ),
                (
                    "owner",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="library_entries",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "verbose_name_plural": "entries",
                "ordering": ["-updated_at", "-pk"],
                "permissions": [("edit_library", "Can approve, edit, retire and merge entries and decide conflicts")],
            },
        ),
        migrations.CreateModel(
            name="EntryPhrasing",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("wording", "A wording of the question"),
                            ("answered", "The question with its answer"),
                        ],
                        default="wording",
                        max_length=10,
                    ),
                ),
                ("text", models.TextField()),
                ("embedding", models.JSONField(default=list)),
                (
                    "embedding_model",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="llm_manager.llmmodel",
                    ),
                ),
                (
                    "entry",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="phrasing_rows",
                        to="answer_library.entry",
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="EntryVersion",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("number", models.PositiveIntegerField()),
                ("question", models.TextField()),
                ("alternatives", models.JSONField(blank=True, default=list)),
                ("answer_text", models.TextField()),
                (
                    "choice",
                    models.CharField(blank=True, choices=[("yes", "Yes"), ("no", "No"), ("na", "N/A")], max_length=3),
                ),
                ("sources", models.JSONField(blank=True, default=list)),
                ("note", models.CharField(blank=True, max_length=300)),
                ("at", models.DateTimeField(auto_now_add=True)),
                (
                    "changed_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "entry",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="versions", to="answer_library.entry"
                    ),
                ),
            ],
            options={
                "ordering": ["-number"],
            },
        ),
        migrations.CreateModel(
            name="Finding",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "kind",
                    models.CharField(
                        choices=[("duplicate", "Near-duplicate"), ("conflict", "Conflict")], max_length=10
                    ),
                ),
                ("similarity", models.FloatField()),
                ("detail", models.TextField(blank=True)),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("open", "Open"),
                            ("merged", "Merged"),
                            ("resolved", "Resolved"),
                            ("dismissed", "Not a problem"),
                        ],
                        db_index=True,
                        default="open",
                        max_length=10,
                    ),
                ),
                ("found_at", models.DateTimeField(auto_now=True)),
                (
                    "decided_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "first",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to="answer_library.entry"
                    ),
                ),
                (
                    "second",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to="answer_library.entry"
                    ),
                ),
            ],
            options={
                "ordering": ["status", "kind", "-similarity"],
            },
        ),
        migrations.CreateModel(
            name="LibraryImport",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("original_name", models.CharField(max_length=255)),
                ("kind", models.CharField(max_length=10)),
                ("file", models.FileField(upload_to="library_imports/%Y/%m/")),
                ("mapping", models.JSONField(blank=True, default=dict)),
                ("mapping_source", models.CharField(blank=True, max_length=10)),
                ("rows", models.JSONField(blank=True, default=list)),
                ("skipped", models.JSONField(blank=True, default=list, help_text="Rows left out, with the reason")),
                ("tags", models.JSONField(blank=True, default=list)),
                ("review_by", models.DateField(blank=True, null=True)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "created_by",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "owner",
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
                "ordering": ["-created_at"],
            },
        ),
        migrations.CreateModel(
            name="LibraryJob",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "celery_task_id",
                    models.CharField(
                        blank=True, db_index=True, help_text="Celery task ID for Flower monitoring", max_length=255
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
                    "job_type",
                    models.CharField(
                        choices=[("import", "Library import"), ("conflicts", "Duplicates and conflicts scan")],
                        max_length=20,
                    ),
                ),
                ("summary", models.JSONField(blank=True, default=dict)),
                (
                    "library_import",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="jobs",
                        to="answer_library.libraryimport",
                    ),
                ),
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
                "verbose_name": "library job",
                "ordering": ["-created_at"],
                "abstract": False,
            },
        ),
        migrations.AddConstraint(
            model_name="entry",
            constraint=models.UniqueConstraint(
                condition=models.Q(("origin_key", ""), _negated=True),
                fields=("origin_key",),
                name="entry_unique_origin_key",
            ),
        ),
        migrations.AddConstraint(
            model_name="entryversion",
            constraint=models.UniqueConstraint(fields=("entry", "number"), name="one_entry_version_per_number"),
        ),
        migrations.AddConstraint(
            model_name="finding",
            constraint=models.UniqueConstraint(fields=("first", "second"), name="one_finding_per_entry_pair"),
        ),
        migrations.AddConstraint(
            model_name="libraryjob",
            constraint=models.UniqueConstraint(
                condition=models.Q(("job_type", "import"), ("status__in", ("pending", "processing"))),
                fields=("library_import",),
                name="one_active_import_job_per_file",
            ),
        ),
        migrations.AddConstraint(
            model_name="libraryjob",
            constraint=models.UniqueConstraint(
                condition=models.Q(("job_type", "conflicts"), ("status__in", ("pending", "processing"))),
                fields=("job_type",),
                name="one_active_conflicts_scan",
            ),
        ),
        migrations.RunPython(create_schedule, remove_schedule),
    ]
