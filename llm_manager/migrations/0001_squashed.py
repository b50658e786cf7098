"""The LLM manager's tables, the offline baseline as a fresh install's default models, and the hourly
validation schedule (a django-celery-beat row, edited in the admin afterwards).

Squashed from 0001_initial … 0006_job_reliability_fields (nothing was released): a database made by
those is taken as up to date (`replaces`), and this runs on fresh databases only. The all-MiniLM-L6-v2
default follows in 0002_local_minilm_default, after the library's tables it looks at.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

OFFLINE_API_NAME = "Offline baseline"
OFFLINE_EMBED_MODEL = ("offline-embed-v1", "embedding", {"embedding_dimensions": 384})
OFFLINE_CHAT_MODEL = ("offline-extractive-chat-v1", "chat", {"context_window": 32768})
VALIDATION_TASK = "llm_manager.validate_all_llm_apis"
VALIDATION_NAME = "Validate all LLM APIs (hourly)"


def create_offline_baseline(apps, schema_editor):
    """So `migrate` followed by `make run` gives a working pipeline with no network and no model download.

    Existing defaults are left alone (idempotent).
    """
    LLMApi = apps.get_model("llm_manager", "LLMApi")
    LLMModel = apps.get_model("llm_manager", "LLMModel")
    api, _ = LLMApi.objects.get_or_create(
        name=OFFLINE_API_NAME,
        defaults={"kind": "offline", "base_url": "", "max_concurrent_requests": 4, "requests_per_minute": 6000},
    )
    for name, model_type, extra in (OFFLINE_EMBED_MODEL, OFFLINE_CHAT_MODEL):
        model, _ = LLMModel.objects.get_or_create(api=api, name=name, defaults={"model_type": model_type, **extra})
        if not LLMModel.objects.filter(model_type=model_type, is_system_default=True).exists():
            model.is_system_default = True
            model.save(update_fields=["is_system_default"])


def create_schedule(apps, schema_editor):
    """The hourly `validate_all_llm_apis` run. Idempotent: an existing row keeps its edits."""
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    every_hour, _ = IntervalSchedule.objects.get_or_create(every=1, period="hours")
    PeriodicTask.objects.get_or_create(
        name=VALIDATION_NAME,
        defaults={
            "task": VALIDATION_TASK,
            "interval": every_hour,
            "enabled": True,
            "description": "Checks every active LLM API, refreshes its model list and records its health.",
        },
    )


def remove_schedule(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(
        name=VALIDATION_NAME, task=VALIDATION_TASK
    ).delete()


class Migration(migrations.Migration):
    initial = True

    replaces = [
        ("llm_manager", "0001_initial"),
        ("llm_manager", "0002_limits_circuit_validation_runs"),
        ("llm_manager", "0003_offline_baseline"),
        ("llm_manager", "0004_hourly_validation_schedule"),
        ("llm_manager", "0005_local_embedding_kind"),
        ("llm_manager", "0006_job_reliability_fields"),
    ]

    dependencies = [
        ("django_celery_beat", "0019_alter_periodictasks_options"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="LLMApi",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=100, unique=True)),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("openai", "OpenAI-compatible HTTP (OpenAI, vLLM, Ollama, LM Studio, llama.cpp)"),
                            ("offline", "Built-in offline baseline (no network)"),
                            (
                                "local",
                                "Local embedding models from installed packages (in-process, e.g. all-MiniLM-L6-v2)",
                            ),
                        ],
                        default="openai",
                        max_length=20,
                    ),
                ),
                (
                    "base_url",
                    models.URLField(
                        blank=True, help_text="e.g. https://api.openai.com/v1 or http://localhost:11434/v1"
                    ),
                ),
                ("api_key", models.CharField(blank=True, max_length=500)),
                ("is_active", models.BooleanField(default=True)),
                ("timeout_seconds", models.FloatField(default=60)),
                ("max_concurrent_requests", models.PositiveIntegerField(default=8)),
                ("requests_per_minute", models.PositiveIntegerField(default=600)),
                ("last_validated_at", models.DateTimeField(blank=True, null=True)),
                (
                    "health_status",
                    models.CharField(
                        choices=[("unknown", "Unknown"), ("healthy", "Healthy"), ("unhealthy", "Unhealthy")],
                        default="unknown",
                        max_length=20,
                    ),
                ),
                ("last_error", models.TextField(blank=True)),
                ("consecutive_failures", models.PositiveIntegerField(default=0)),
                ("circuit_opened_at", models.DateTimeField(blank=True, null=True)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
            ],
            options={
                "verbose_name": "LLM API",
                "ordering": ["name"],
            },
        ),
        migrations.CreateModel(
            name="ValidationRun",
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
                    "trigger",
                    models.CharField(
                        choices=[("manual", "Manual"), ("schedule", "Schedule")], default="manual", max_length=20
                    ),
                ),
                ("models_created", models.PositiveIntegerField(default=0)),
                ("models_updated", models.PositiveIntegerField(default=0)),
                ("models_deactivated", models.PositiveIntegerField(default=0)),
                (
                    "api",
                    models.ForeignKey(
                        blank=True,
                        help_text="Empty: every active API",
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="validation_runs",
                        to="llm_manager.llmapi",
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
                "verbose_name": "validation run",
                "ordering": ["-created_at"],
                "abstract": False,
            },
        ),
        migrations.CreateModel(
            name="LLMModel",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=200)),
                (
                    "model_type",
                    models.CharField(
                        choices=[("chat", "Chat"), ("embedding", "Embedding")], default="chat", max_length=20
                    ),
                ),
                ("embedding_dimensions", models.PositiveIntegerField(blank=True, null=True)),
                ("context_window", models.PositiveIntegerField(blank=True, null=True)),
                ("is_active", models.BooleanField(default=True)),
                ("is_system_default", models.BooleanField(default=False)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
                (
                    "api",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="models", to="llm_manager.llmapi"
                    ),
                ),
            ],
            options={
                "verbose_name": "LLM model",
                "ordering": ["api__name", "name"],
                "constraints": [
                    models.UniqueConstraint(fields=("api", "name"), name="llm_model_unique_per_api"),
                    models.UniqueConstraint(
                        condition=models.Q(("is_system_default", True)),
                        fields=("model_type",),
                        name="one_default_model_per_type",
                    ),
                ],
            },
        ),
        migrations.CreateModel(
            name="RateWindow",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("window_start", models.DateTimeField()),
                ("count", models.PositiveIntegerField(default=0)),
                (
                    "api",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="rate_windows",
                        to="llm_manager.llmapi",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(fields=("api", "window_start"), name="one_rate_window_per_minute")
                ],
            },
        ),
        migrations.CreateModel(
            name="RequestSlot",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("number", models.PositiveIntegerField()),
                ("holder", models.CharField(blank=True, max_length=64)),
                ("lease_until", models.DateTimeField(db_index=True)),
                (
                    "api",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="request_slots",
                        to="llm_manager.llmapi",
                    ),
                ),
            ],
            options={
                "constraints": [models.UniqueConstraint(fields=("api", "number"), name="one_request_slot_per_number")],
            },
        ),
        migrations.RunPython(create_offline_baseline, migrations.RunPython.noop),
        migrations.RunPython(create_schedule, remove_schedule),
    ]
