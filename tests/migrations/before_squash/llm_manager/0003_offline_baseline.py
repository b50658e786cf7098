"""A fresh install gets the built-in offline provider as its default models.

So `migrate` followed by `make run` gives a working pipeline with no network
and no model download. Existing defaults are left alone (idempotent).
"""

from django.db import migrations

API_NAME = "Offline baseline"
EMBED_MODEL = ("offline-embed-v1", "embedding", {"embedding_dimensions": 384})
CHAT_MODEL = ("offline-extractive-chat-v1", "chat", {"context_window": 32768})


def create_offline_baseline(apps, schema_editor):
    LLMApi = apps.get_model("llm_manager", "LLMApi")
    LLMModel = apps.get_model("llm_manager", "LLMModel")
    api, _ = LLMApi.objects.get_or_create(
        name=API_NAME,
        defaults={"kind": "offline", "base_url": "", "max_concurrent_requests": 4, "requests_per_minute": 6000},
    )
    for name, model_type, extra in (EMBED_MODEL, CHAT_MODEL):
        model, _ = LLMModel.objects.get_or_create(api=api, name=name, defaults={"model_type": model_type, **extra})
        if not LLMModel.objects.filter(model_type=model_type, is_system_default=True).exists():
            model.is_system_default = True
            model.save(update_fields=["is_system_default"])


class Migration(migrations.Migration):
    dependencies = [("llm_manager", "0002_limits_circuit_validation_runs")]
    operations = [migrations.RunPython(create_offline_baseline, migrations.RunPython.noop)]
