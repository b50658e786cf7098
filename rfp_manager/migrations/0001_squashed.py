"""The RFP manager's tables.

Squashed from 0001_initial … 0012_question_import_analysis_job with their parallel 0006–0009 branches
and merges (nothing was released): a database made by those is taken as up to date (`replaces`), and
this runs on fresh databases only, so the old data migrations (question statuses, reviewed and
approved texts) had nothing to do here and are gone.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    replaces = [
        ("rfp_manager", "0001_initial"),
        ("rfp_manager", "0002_questionnaire_mapping_and_answer_cells"),
        ("rfp_manager", "0003_answer_expert_flag_and_evidence"),
        ("rfp_manager", "0004_job_reliability_fields"),
        ("rfp_manager", "0005_answer_library_origin"),
        ("rfp_manager", "0006_answer_choice_partly"),
        ("rfp_manager", "0006_answer_reviewed_text"),
        ("rfp_manager", "0006_question_import_docx_pdf_kinds"),
        ("rfp_manager", "0006_question_status_and_approval"),
        ("rfp_manager", "0007_merge_20261125_1006"),
        ("rfp_manager", "0007_merge_20261125_1013"),
        ("rfp_manager", "0007_merge_answer_choice_partly_and_docx_pdf_kinds"),
        ("rfp_manager", "0008_merge_20261125_1019"),
        ("rfp_manager", "0008_merge_question_status_and_docx_pdf_kinds"),
        ("rfp_manager", "0009_merge_reviewed_text_and_docx_pdf_kinds"),
        ("rfp_manager", "0010_library_entry_by_id"),
        ("rfp_manager", "0011_answer_approved_text"),
        ("rfp_manager", "0012_question_import_analysis_job"),
    ]

    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="ImportFormat",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("fingerprint", models.CharField(max_length=64, unique=True)),
                ("mapping", models.JSONField()),
                (
                    "example_name",
                    models.CharField(blank=True, help_text="The file it was confirmed on", max_length=255),
                ),
                ("updated_at", models.DateTimeField(auto_now=True)),
                (
                    "saved_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="RFP",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=200)),
                ("client", models.CharField(blank=True, max_length=200)),
                ("due_date", models.DateField(blank=True, null=True)),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("draft", "Draft"),
                            ("in_progress", "In progress"),
                            ("approved", "All approved"),
                            ("submitted", "Submitted"),
                            ("archived", "Archived"),
                        ],
                        default="draft",
                        max_length=20,
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
                (
                    "owner",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT, related_name="rfps", to=settings.AUTH_USER_MODEL
                    ),
                ),
                ("shared_with", models.ManyToManyField(blank=True, related_name="rfps", to="auth.group")),
            ],
            options={
                "verbose_name": "RFP",
                "ordering": ["-created_at"],
            },
        ),
        migrations.CreateModel(
            name="QuestionImport",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("xlsx", "Excel workbook"),
                            ("csv", "CSV"),
                            ("text", "Pasted text"),
                            ("docx", "Word document"),
                            ("pdf", "PDF"),
                        ],
                        max_length=10,
                    ),
                ),
                ("original_name", models.CharField(blank=True, max_length=255)),
                ("file", models.FileField(blank=True, upload_to="rfp_imports/%Y/%m/")),
                (
                    "mapping",
                    models.JSONField(
                        blank=True, default=dict, help_text="Per sheet: include, header row, column roles"
                    ),
                ),
                (
                    "mapping_source",
                    models.CharField(
                        blank=True,
                        choices=[
                            ("proposed", "Proposed by the analysis"),
                            ("saved", "Saved from an earlier file of the same format"),
                            ("edited", "Corrected by hand"),
                        ],
                        max_length=10,
                    ),
                ),
                (
                    "fingerprint",
                    models.CharField(blank=True, help_text="Sheet names and header labels, hashed", max_length=64),
                ),
                (
                    "lost_features",
                    models.JSONField(blank=True, default=list, help_text="What a copy saved by openpyxl will not keep"),
                ),
                (
                    "rows",
                    models.JSONField(
                        default=list, help_text="Good rows: sheet, row, section, number, text, key, cells"
                    ),
                ),
                ("bad_rows", models.JSONField(default=list, help_text="Rows left out: sheet, row, reason, text")),
                ("applied_at", models.DateTimeField(blank=True, null=True)),
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
                    "rfp",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="imports", to="rfp_manager.rfp"
                    ),
                ),
            ],
            options={
                "ordering": ["-created_at"],
            },
        ),
        migrations.CreateModel(
            name="Question",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("section", models.CharField(blank=True, max_length=255)),
                ("number", models.CharField(blank=True, max_length=50)),
                ("text", models.TextField()),
                ("order", models.PositiveIntegerField(default=0)),
                ("import_key", models.CharField(max_length=300)),
                (
                    "source_row",
                    models.PositiveIntegerField(
                        blank=True, help_text="Row in the source workbook (1-based)", null=True
                    ),
                ),
                ("sheet", models.CharField(blank=True, help_text="Sheet of the source workbook", max_length=100)),
                (
                    "answer_cells",
                    models.JSONField(
                        blank=True, default=dict, help_text='Where its answer goes: {"choice": "F18", "text": "I18"}'
                    ),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("unanswered", "Unanswered"),
                            ("drafted", "Drafted"),
                            ("in_review", "In review"),
                            ("approved", "Approved"),
                            ("needs_expert", "Needs an expert"),
                        ],
                        default="unanswered",
                        max_length=20,
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "source_import",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="rfp_manager.questionimport",
                    ),
                ),
                (
                    "rfp",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="questions", to="rfp_manager.rfp"
                    ),
                ),
            ],
            options={
                "ordering": ["rfp", "order", "pk"],
            },
        ),
        migrations.CreateModel(
            name="InformationDocument",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("title", models.CharField(max_length=255)),
                ("file", models.FileField(upload_to="rfp_documents/%Y/%m/")),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("uploaded", "Uploaded"),
                            ("summarizing", "Summarizing"),
                            ("summarized", "Summarized"),
                            ("failed", "Failed"),
                        ],
                        default="uploaded",
                        max_length=20,
                    ),
                ),
                ("summary", models.TextField(blank=True)),
                ("summary_error", models.TextField(blank=True)),
                ("summarized_at", models.DateTimeField(blank=True, null=True)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "uploaded_by",
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
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="information_documents",
                        to="rfp_manager.rfp",
                    ),
                ),
            ],
            options={
                "ordering": ["created_at"],
            },
        ),
        migrations.CreateModel(
            name="RFPBatchJob",
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
                    models.CharField(choices=[("responder", "Responder"), ("reviewer", "Reviewer")], max_length=20),
                ),
                ("question_ids", models.JSONField(default=list)),
                (
                    "review_when_done",
                    models.BooleanField(
                        default=False, help_text="Start a reviewer job when this responder job completes"
                    ),
                ),
                (
                    "chained_from",
                    models.ForeignKey(
                        blank=True,
                        help_text="The responder job whose completion started this reviewer",
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="chained_jobs",
                        to="rfp_manager.rfpbatchjob",
                    ),
                ),
                (
                    "retry_of",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="retries",
                        to="rfp_manager.rfpbatchjob",
                    ),
                ),
                (
                    "rfp",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="batch_jobs", to="rfp_manager.rfp"
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
                "verbose_name": "RFP batch job",
                "ordering": ["-created_at"],
                "abstract": False,
            },
        ),
        migrations.CreateModel(
            name="JobQuestionResult",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "outcome",
                    models.CharField(choices=[("succeeded", "Succeeded"), ("failed", "Failed")], max_length=20),
                ),
                ("error", models.TextField(blank=True)),
                ("finished_at", models.DateTimeField(auto_now=True)),
                (
                    "question",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to="rfp_manager.question"
                    ),
                ),
                (
                    "job",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="results",
                        to="rfp_manager.rfpbatchjob",
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="Answer",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("draft_text", models.TextField(blank=True)),
                ("citations", models.JSONField(blank=True, default=list)),
                ("confidence", models.FloatField(blank=True, db_index=True, null=True)),
                ("evidence", models.FloatField(blank=True, null=True)),
                ("needs_expert", models.BooleanField(db_index=True, default=False)),
                ("library_entry_id", models.BigIntegerField(blank=True, db_index=True, null=True)),
                ("library_score", models.FloatField(blank=True, null=True)),
                ("generated_at", models.DateTimeField(blank=True, null=True)),
                (
                    "review_verdict",
                    models.CharField(
                        blank=True,
                        choices=[
                            ("approved", "Supported"),
                            ("needs_revision", "Needs revision"),
                            ("rejected", "Rejected"),
                        ],
                        max_length=20,
                    ),
                ),
                ("review_feedback", models.TextField(blank=True)),
                ("review_score", models.FloatField(blank=True, null=True)),
                ("reviewed_at", models.DateTimeField(blank=True, null=True)),
                ("reviewed_text", models.TextField(blank=True)),
                (
                    "choice",
                    models.CharField(
                        blank=True,
                        choices=[("yes", "Yes"), ("no", "No"), ("partly", "Partly"), ("na", "N/A")],
                        max_length=6,
                    ),
                ),
                (
                    "choice_needs_review",
                    models.BooleanField(default=False, help_text="The proposal was a guess: a person should check it"),
                ),
                ("final_text", models.TextField(blank=True, help_text="A person's edited answer; wins over the draft")),
                ("edited_at", models.DateTimeField(blank=True, null=True)),
                ("approved_at", models.DateTimeField(blank=True, null=True)),
                ("approved_text", models.TextField(blank=True, help_text="The text the person approved")),
                (
                    "approved_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
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
                (
                    "question",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE, related_name="answer", to="rfp_manager.question"
                    ),
                ),
                (
                    "responder_job",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="rfp_manager.rfpbatchjob",
                    ),
                ),
                (
                    "reviewer_job",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="rfp_manager.rfpbatchjob",
                    ),
                ),
            ],
            options={
                "ordering": ["question__order"],
            },
        ),
        migrations.CreateModel(
            name="QuestionImportJob",
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
                    "question_import",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="analysis_jobs",
                        to="rfp_manager.questionimport",
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
                "verbose_name": "questionnaire analysis job",
                "ordering": ["-created_at"],
                "abstract": False,
                "constraints": [
                    models.UniqueConstraint(
                        condition=models.Q(("status__in", ("pending", "processing"))),
                        fields=("question_import",),
                        name="one_active_analysis_per_question_import",
                    )
                ],
            },
        ),
        migrations.AddIndex(
            model_name="question",
            index=models.Index(fields=["rfp", "status"], name="rfp_question_status"),
        ),
        migrations.AddConstraint(
            model_name="question",
            constraint=models.UniqueConstraint(fields=("rfp", "import_key"), name="rfp_question_unique_key"),
        ),
        migrations.AddConstraint(
            model_name="rfpbatchjob",
            constraint=models.UniqueConstraint(
                condition=models.Q(("status__in", ("pending", "processing"))),
                fields=("rfp", "job_type"),
                name="one_active_batch_job_per_rfp_and_type",
            ),
        ),
        migrations.AddConstraint(
            model_name="jobquestionresult",
            constraint=models.UniqueConstraint(fields=("job", "question"), name="one_result_per_job_question"),
        ),
    ]
