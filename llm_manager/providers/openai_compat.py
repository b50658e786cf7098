"""OpenAI-compatible HTTP APIs (OpenAI, vLLM, Ollama, LM Studio, llama.cpp server).

Uses the official `openai` client with an explicit timeout and `max_retries=0`:
retrying is our policy (tasks retry transient errors with backoff and jitter),
not the client's. Every client error is translated into one of our exceptions
with a message that names the API and says what is wrong — and never contains
the API key, even if a server echoed it.
"""

import email.utils
import functools
import json
import time

import httpx2
import openai

from ..exceptions import LLMError, TransientLLMError
from .base import ChatResult, ModelInfo, Provider, guess_model_type

# Servers that need no key (Ollama, vLLM without --api-key) still need a non-empty value in the client.
PLACEHOLDER_KEY = "no-key"
CONNECT_TIMEOUT_CAP = 10.0


class OpenAICompatibleProvider(Provider):
    def _client(self) -> openai.OpenAI:
        return _client_for(self.api.base_url, self.api.api_key or PLACEHOLDER_KEY, float(self.api.timeout_seconds))

    def list_models(self) -> list[ModelInfo]:
        with self._translated_errors(model_name=None):
            listed = list(self._client().models.list())
        return [_model_info(item) for item in listed]

    def embed(self, model_name: str, texts: list[str], dimensions: int | None = None) -> list[list[float]]:
        with self._translated_errors(model_name):
            # The response's JSON as it is: the SDK's typed objects are built one per number of every vector,
            # which cost more CPU than the rest of the request (the client keeps its checks and errors).
            body = (
                self._client().embeddings.with_raw_response.create(model=model_name, input=texts).http_response.json()
            )
        try:
            ordered = sorted(body["data"], key=lambda item: item["index"])
            vectors = [list(item["embedding"]) for item in ordered]
        except (KeyError, TypeError):
            raise TransientLLMError(f"{self.api.name} sent an embeddings response without its vectors") from None
        if len(vectors) != len(texts):
            raise TransientLLMError(f"{self.api.name} returned {len(vectors)} vectors for {len(texts)} texts")
        return vectors

    def chat(self, model_name: str, messages: list[dict], *, temperature: float, max_tokens: int | None) -> ChatResult:
        options = {"model": model_name, "messages": messages, "temperature": temperature}
        if max_tokens:
            options["max_tokens"] = max_tokens
        with self._translated_errors(model_name):
            response = self._client().chat.completions.create(**options)
        if not response.choices:
            raise TransientLLMError(f"{self.api.name} returned no choices for model {model_name}")
        usage = response.usage.model_dump() if response.usage else {}
        return ChatResult(
            text=response.choices[0].message.content or "", model=response.model or model_name, usage=usage
        )

    def _translated_errors(self, model_name: str | None):
        return _ErrorTranslator(self.api, model_name)


@functools.lru_cache(maxsize=32)
def _client_for(base_url: str, api_key: str, timeout_seconds: float) -> openai.OpenAI:
    """One client per API setting per process, so its connection pool is reused (keep-alive).

    Editing the API's URL, key or timeout gives a new cache key, hence a new client.
    """
    timeout = httpx2.Timeout(timeout_seconds, connect=min(timeout_seconds, CONNECT_TIMEOUT_CAP))
    return openai.OpenAI(base_url=base_url, api_key=api_key, timeout=timeout, max_retries=0)


class _ErrorTranslator:
    """Context manager: openai/httpx/JSON errors in, LLMError/TransientLLMError out."""

    def __init__(self, api, model_name: str | None):
        self.api = api
        self.model_name = model_name

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc is None or isinstance(exc, LLMError):
            return False
        translated = translate_error(exc, self.api, self.model_name)
        if translated is None:
            return False
        raise translated from None  # drop the chain: the original may carry request headers


def translate_error(exc: BaseException, api, model_name: str | None) -> LLMError | None:
    """Map a client error to our exceptions; None for errors that are bugs, not API failures."""
    name = api.name
    if isinstance(exc, openai.APITimeoutError):
        return TransientLLMError(f"{name} did not answer within {api.timeout_seconds:g} s")
    if isinstance(exc, openai.APIConnectionError):
        return TransientLLMError(f"Cannot connect to {name} at {api.base_url}")
    if isinstance(exc, openai.APIStatusError):
        return _status_error(exc, api, model_name)
    if isinstance(exc, (openai.APIResponseValidationError, json.JSONDecodeError, ValueError)):
        # A garbled body is a glitch of the moment (proxy, overloaded server); retrying a read is safe.
        return TransientLLMError(f"{name} sent a response that is not valid JSON")
    return None


def _status_error(exc: "openai.APIStatusError", api, model_name: str | None) -> LLMError:
    name, status = api.name, exc.status_code
    if status == 429:
        return TransientLLMError(f"{name} is rate limiting requests (HTTP 429)", retry_after=retry_after_seconds(exc))
    if status >= 500:
        return TransientLLMError(f"{name} had a server error (HTTP {status})", retry_after=retry_after_seconds(exc))
    if status == 401:
        return LLMError(f"API key rejected by {name} (HTTP 401)")
    if status == 403:
        return LLMError(f"{name} refused access (HTTP 403): the API key lacks permission")
    if status == 404:
        if model_name:
            return LLMError(f"Model {model_name} not served by {name} (HTTP 404)")
        return LLMError(f"{name} has no OpenAI-compatible API at {api.base_url} (HTTP 404): check the base URL")
    if status == 408:
        return TransientLLMError(f"{name} timed out the request (HTTP 408)")
    detail = scrub(_server_message(exc), api.api_key)
    return LLMError(f"{name} rejected the request (HTTP {status}){': ' + detail if detail else ''}")


def _server_message(exc: "openai.APIStatusError") -> str:
    body = exc.body
    if isinstance(body, dict):
        error = body.get("error", body)
        message = error.get("message") if isinstance(error, dict) else str(error)
        return str(message or "")[:300]
    return ""


def retry_after_seconds(exc: "openai.APIStatusError") -> float | None:
    """`Retry-After` as seconds (it may be a number or an HTTP date)."""
    value = exc.response.headers.get("retry-after") if exc.response is not None else None
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value)
        return max(0.0, parsed.timestamp() - time.time()) if parsed else None


def scrub(text: str, secret: str) -> str:
    """Belt and braces: never let a server's echo of the key reach a message."""
    return text.replace(secret, "***") if secret else text


def _model_info(item) -> ModelInfo:
    """vLLM says max_model_len, others context_length; our fake server also says type and dimensions."""
    extra = getattr(item, "model_extra", None) or {}
    context = extra.get("context_window") or extra.get("max_model_len") or extra.get("context_length")
    model_type = extra.get("type") if extra.get("type") in ("chat", "embedding") else guess_model_type(item.id)
    dimensions = extra.get("embedding_dimensions") or extra.get("dimensions")
    return ModelInfo(
        name=item.id,
        model_type=model_type,
        context_window=int(context) if context else None,
        embedding_dimensions=int(dimensions) if dimensions else None,
    )
