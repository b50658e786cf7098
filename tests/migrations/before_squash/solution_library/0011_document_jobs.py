"""Each request to process a document becomes a DocumentJob; the document's delivery fields move onto it.

Every existing document gets one job that says what its page says: processing (so the sweeper
watches it, and a message queued before the upgrade finds it), failed with its message and code,
or completed. The jobs page's acknowledgements of documents are moved onto their jobs.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

BATCH = 1000
JOB_STATUS = {"processing": "processing", "failed": "failed"}  # ready documents: completed


def give_every_document_a_job(apps, schema_editor):
    Document = apps.get_model("solution_library", "Document")
    DocumentJob = apps.get_model("solution_library", "DocumentJob")
    JobAcknowledgement = apps.get_model("jobs", "JobAcknowledgement")
    jobs = [_job_of(DocumentJob, document) for document in Document.objects.defer("text").iterator(BATCH)]
    DocumentJob.objects.bulk_create(jobs, batch_size=BATCH)
    # bulk_create stamps the times with now: keep the document's, so the lists keep their order.
    for job in jobs:
        job.created_at, job.updated_at = job.document.created_at, job.document.updated_at
    DocumentJob.objects.bulk_update(jobs, ["created_at", "updated_at"], batch_size=BATCH)
    _move_acknowledgements(JobAcknowledgement, {job.document_id: job.pk for job in jobs})


def _job_of(DocumentJob, document):
    status = JOB_STATUS.get(document.review_status, "completed")
    return DocumentJob(
        document=document,
        status=status,
        started_by_id=document.uploaded_by_id,
        started_at=document.created_at,
        completed_at=None if status == "processing" else document.processed_at or document.updated_at,
        message=document.status_message,
        error_code=document.error_code,
        unfinished_deliveries=document.unfinished_deliveries,
        redispatch_count=document.redispatch_count,
    )


def _move_acknowledgements(JobAcknowledgement, job_of_document):
    """An acknowledgement named the document; it now names the document's job (recreated: ids may overlap)."""
    acknowledged = JobAcknowledgement.objects.filter(kind="document")
    moved = [
        JobAcknowledgement(
            kind="document", object_id=job_of_document[ack.object_id], acknowledged_by_id=ack.acknowledged_by_id
        )
        for ack in acknowledged
        if ack.object_id in job_of_document
    ]
    acknowledged.delete()
    JobAcknowledgement.objects.bulk_create(moved)


class Migration(migrations.Migration):
    dependencies = [
        ("llm_manager", "0007_local_minilm_default"),
        ("solution_library", "0010_chunk_word_counts"),
        ("jobs", "0001_toolkit_tables_from_spelunker"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="DocumentJob",
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
                    "document",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="jobs", to="solution_library.document"
                    ),
                ),
                (
                    "embedding_model",
                    models.ForeignKey(
                        blank=True,
                        help_text="The embedding model asked for; empty for the default one",
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="llm_manager.llmmodel",
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
                "verbose_name": "document processing job",
                "ordering": ["-created_at"],
                "abstract": False,
            },
        ),
        migrations.RunPython(give_every_document_a_job, migrations.RunPython.noop),
    ]
