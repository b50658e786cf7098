"""LLM endpoints (APIs) and the models they serve."""

from django.db import models
from django.db.models import Q

from jobs.models import BaseJob


class LLMApi(models.Model):
    """An OpenAI-compatible endpoint, the built-in offline provider, or local models run in-process."""

    KIND_OPENAI = "openai"
    KIND_OFFLINE = "offline"
    KIND_LOCAL = "local"
    KIND_CHOICES = [
        (KIND_OPENAI, "OpenAI-compatible HTTP (OpenAI, vLLM, Ollama, LM Studio, llama.cpp)"),
        (KIND_OFFLINE, "Built-in offline baseline (no network)"),
        (KIND_LOCAL, "Local embedding models from installed packages (in-process, e.g. all-MiniLM-L6-v2)"),
    ]
    # Kinds that run in this process: no network, so no limits, circuit breaker or retries.
    IN_PROCESS_KINDS = (KIND_OFFLINE, KIND_LOCAL)

    HEALTH_UNKNOWN = "unknown"
    HEALTH_HEALTHY = "healthy"
    HEALTH_UNHEALTHY = "unhealthy"
    HEALTH_CHOICES = [(HEALTH_UNKNOWN, "Unknown"), (HEALTH_HEALTHY, "Healthy"), (HEALTH_UNHEALTHY, "Unhealthy")]

    name = models.CharField(max_length=100, unique=True)
    kind = models.CharField(max_length=20, choices=KIND_CHOICES, default=KIND_OPENAI)
    base_url = models.URLField(blank=True, help_text="e.g. https://api.openai.com/v1 or http://localhost:11434/v1")
    # Write-only: never rendered, logged, passed to tasks or returned in results.
    api_key = models.CharField(max_length=500, blank=True)
    is_active = models.BooleanField(default=True)
    timeout_seconds = models.FloatField(default=60)
    max_concurrent_requests = models.PositiveIntegerField(default=8)
    requests_per_minute = models.PositiveIntegerField(default=600)

    last_validated_at = models.DateTimeField(null=True, blank=True)
    health_status = models.CharField(max_length=20, choices=HEALTH_CHOICES, default=HEALTH_UNKNOWN)
    last_error = models.TextField(blank=True)
    consecutive_failures = models.PositiveIntegerField(default=0)
    # Set when the circuit breaker opens; calls fail fast until the cool-down has passed.
    circuit_opened_at = models.DateTimeField(null=True, blank=True)

    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        verbose_name = "LLM API"

    def __str__(self):
        return self.name

    @property
    def has_api_key(self) -> bool:
        return bool(self.api_key)


class LLMModel(models.Model):
    TYPE_CHAT = "chat"
    TYPE_EMBEDDING = "embedding"
    TYPE_CHOICES = [(TYPE_CHAT, "Chat"), (TYPE_EMBEDDING, "Embedding")]

    api = models.ForeignKey(LLMApi, on_delete=models.CASCADE, related_name="models")
    name = models.CharField(max_length=200)
    model_type = models.CharField(max_length=20, choices=TYPE_CHOICES, default=TYPE_CHAT)
    embedding_dimensions = models.PositiveIntegerField(null=True, blank=True)
    context_window = models.PositiveIntegerField(null=True, blank=True)
    is_active = models.BooleanField(default=True)
    is_system_default = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["api__name", "name"]
        verbose_name = "LLM model"
        constraints = [
            models.UniqueConstraint(fields=["api", "name"], name="llm_model_unique_per_api"),
            # At most one system default per type (one chat, one embedding).
            models.UniqueConstraint(
                fields=["model_type"], condition=Q(is_system_default=True), name="one_default_model_per_type"
            ),
        ]

    def __str__(self):
        return f"{self.name} ({self.api.name})"


class RequestSlot(models.Model):
    """One of an API's `max_concurrent_requests` slots, leased by whichever process is calling it.

    Shared by every worker through the database: a slot is taken under a row
    lock (SELECT … FOR UPDATE SKIP LOCKED on PostgreSQL; SQLite serialises writers). A lease expires, so a
    slot held by a killed process frees itself.
    """

    api = models.ForeignKey(LLMApi, on_delete=models.CASCADE, related_name="request_slots")
    number = models.PositiveIntegerField()
    holder = models.CharField(max_length=64, blank=True)
    lease_until = models.DateTimeField(db_index=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["api", "number"], name="one_request_slot_per_number")]


class RateWindow(models.Model):
    """Requests made to an API in one clock minute (a fixed-window rate limit shared by all workers)."""

    api = models.ForeignKey(LLMApi, on_delete=models.CASCADE, related_name="rate_windows")
    window_start = models.DateTimeField()
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["api", "window_start"], name="one_rate_window_per_minute")]


class ValidationRun(BaseJob):
    """One validation request: a single API (from the page or admin) or all of them (Beat)."""

    TRIGGER_MANUAL = "manual"
    TRIGGER_SCHEDULE = "schedule"
    TRIGGER_CHOICES = [(TRIGGER_MANUAL, "Manual"), (TRIGGER_SCHEDULE, "Schedule")]

    api = models.ForeignKey(
        LLMApi,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="validation_runs",
        help_text="Empty: every active API",
    )
    trigger = models.CharField(max_length=20, choices=TRIGGER_CHOICES, default=TRIGGER_MANUAL)
    models_created = models.PositiveIntegerField(default=0)
    models_updated = models.PositiveIntegerField(default=0)
    models_deactivated = models.PositiveIntegerField(default=0)

    class Meta(BaseJob.Meta):
        verbose_name = "validation run"

    def __str__(self):
        return f"Validation of {self.api or 'all APIs'} ({self.get_status_display()})"
