import pytest

from llm_manager.models import LLMApi, LLMModel


@pytest.fixture
def offline_embedding(db):
    """The offline embedding model as system default (transactional tests flush the migration's rows)."""
    api, _ = LLMApi.objects.get_or_create(
        name="Offline baseline", defaults={"kind": LLMApi.KIND_OFFLINE, "max_concurrent_requests": 4}
    )
    model, _ = LLMModel.objects.get_or_create(
        api=api,
        name="offline-embed-v1",
        defaults={"model_type": LLMModel.TYPE_EMBEDDING, "embedding_dimensions": 384, "is_system_default": True},
    )
    LLMModel.objects.get_or_create(
        api=api,
        name="offline-extractive-chat-v1",
        defaults={"model_type": LLMModel.TYPE_CHAT, "is_system_default": True},
    )
    return model
