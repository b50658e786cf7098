"""The small interface every LLM provider implements.

Providers are thin: one network (or local) operation per method, errors
translated into `llm_manager.exceptions`. Batching, normalisation, limits and
the circuit breaker live in `llm_manager.services` and `llm_manager.guard`, so
they are the same for every provider.
"""

from abc import ABC, abstractmethod
from dataclasses import dataclass, field


@dataclass(frozen=True)
class ModelInfo:
    """One model as an API lists it (what validation syncs into LLMModel)."""

    name: str
    model_type: str  # "chat" or "embedding"
    context_window: int | None = None
    embedding_dimensions: int | None = None


@dataclass(frozen=True)
class TokenVectors:
    """A text's word pieces, in order, and the encoder's L2-normalised contextual vector of each (rows)."""

    pieces: tuple[str, ...]
    vectors: object  # numpy float32 [pieces, dimensions]


@dataclass
class ChatResult:
    text: str
    model: str
    usage: dict = field(default_factory=dict)


class Provider(ABC):
    """One LLMApi's way of listing models, embedding texts and chatting."""

    gives_word_vectors = False  # token_vectors gives each word piece's vector (an API gives one per text)

    def __init__(self, api):
        self.api = api

    @abstractmethod
    def list_models(self) -> list[ModelInfo]:
        """The models the API serves right now."""

    @abstractmethod
    def embed(self, model_name: str, texts: list[str], dimensions: int | None = None) -> list[list[float]]:
        """One batch of vectors, in the order of `texts` (not necessarily normalised)."""

    def token_vectors(self, model_name: str, texts: list[str]) -> list[TokenVectors] | None:
        """Each text's word pieces and their vectors; None from an API that gives only a vector per text."""
        return None

    @abstractmethod
    def chat(self, model_name: str, messages: list[dict], *, temperature: float, max_tokens: int | None) -> ChatResult:
        """One chat completion."""


def guess_model_type(name: str) -> str:
    """/v1/models does not say what a model does; embedding models say it in their names."""
    lowered = name.lower()
    markers = ("embed", "bge-", "e5-", "minilm", "gte-", "nomic-embed", "mxbai")
    return "embedding" if any(m in lowered for m in markers) else "chat"
