"""Providers behind one interface; `get_provider(api)` picks the one for an LLMApi."""

from .base import ChatResult, ModelInfo, Provider, TokenVectors


def get_provider(api) -> Provider:
    from .local import LocalProvider
    from .offline import OfflineProvider
    from .openai_compat import OpenAICompatibleProvider

    if api.kind == "offline":
        return OfflineProvider(api)
    if api.kind == "local":
        return LocalProvider(api)
    return OpenAICompatibleProvider(api)


__all__ = ["ChatResult", "ModelInfo", "Provider", "TokenVectors", "get_provider"]
