"""Point an LLMApi at the fake server, with its chat and embedding models as system defaults."""

from django.db import transaction

from llm_manager.models import LLMApi, LLMModel
from llm_manager.services import make_default


def register_fake_api(
    fake_llm,
    *,
    default: bool = True,
    max_concurrent: int = 8,
    name: str = "Fake OpenAI",
    api_key: str = "",
    timeout_seconds: float = 10,
    requests_per_minute: int = 0,
) -> LLMApi:
    """Create (or refresh) an API for `fake_llm` with one model per type of the fake's model list."""
    with transaction.atomic():
        api, _ = LLMApi.objects.update_or_create(
            name=name,
            defaults={
                "kind": LLMApi.KIND_OPENAI,
                "base_url": fake_llm.url,
                "api_key": api_key,
                "is_active": True,
                "timeout_seconds": timeout_seconds,
                "max_concurrent_requests": max_concurrent,
                "requests_per_minute": requests_per_minute,
            },
        )
        for served in fake_llm.config.models:
            model_type = served.get("type", "chat")
            model, _ = LLMModel.objects.update_or_create(
                api=api,
                name=served["id"],
                defaults={
                    "model_type": model_type,
                    "is_active": True,
                    "embedding_dimensions": served.get("embedding_dimensions"),
                    "context_window": served.get("context_window"),
                },
            )
            if default:
                make_default(model)
    return api
