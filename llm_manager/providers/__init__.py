"""Providers behind one interface; `get_provider(api)` picks the one for an LLMApi."""

from .base import ChatResult, ModelInfo, Provider, TokenVectors


def get_provider(api) -> Provider:
    # Each provider is imported when first asked for: the OpenAI client takes a second to import, which a web
    # process whose models are offline or local never needs (a worker imports all three before its pool starts).
    if api.kind == "offline":
        from .offline import OfflineProvider

        return OfflineProvider(api)
    if api.kind == "local":
        from .local import LocalProvider

        return LocalProvider(api)
    from .openai_compat import OpenAICompatibleProvider

    return OpenAICompatibleProvider(api)


__all__ = ["ChatResult", "ModelInfo", "Provider", "TokenVectors", "get_provider"]
