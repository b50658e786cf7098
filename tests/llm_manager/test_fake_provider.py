"""The OpenAI-compatible provider against the fake server: calls, model sync, every fault kind."""

import json
import socket
from urllib.parse import urlsplit

import httpx
import pytest

from llm_manager import services
from llm_manager.exceptions import LLMError, TransientLLMError
from llm_manager.models import LLMApi, LLMModel
from llm_manager.testing.fixtures import register_fake_api

pytestmark = pytest.mark.django_db

SECRET = "sk-test-SECRET-do-not-leak-4242"


@pytest.fixture
def fake_api(fake_llm):
    return register_fake_api(fake_llm, api_key=SECRET, timeout_seconds=2)


def test_embed_and_chat_through_http(fake_llm, fake_api):
    vectors = services.embed_texts(["alpha beta", "alpha beta", "gamma"])
    assert vectors[0] == vectors[1] != vectors[2]
    assert len(vectors[0]) == 384
    result = services.chat(
        [
            {
                "role": "user",
                "content": "[1] The sky over the harbour is blue on clear summer days."
                "\nQuestion: What colour is the sky on summer days?",
            }
        ]
    )
    assert result.text == "The sky over the harbour is blue on clear summer days [1]."
    assert result.model == "fake-chat"
    assert [r["path"] for r in fake_llm.requests] == ["/v1/embeddings", "/v1/chat/completions"]
    # The log keeps a chat request's last message: the fault suite counts calls per question from it.
    assert fake_llm.requests_to("/v1/chat/completions")[0]["prompt"].endswith(
        "Question: What colour is the sky on summer days?"
    )


def test_embeddings_are_sent_in_batches(fake_llm, fake_api):
    services.embed_texts([f"text {i}" for i in range(services.EMBED_BATCH_SIZE * 2 + 1)])
    assert len(fake_llm.requests_to("/v1/embeddings")) == 3


def test_model_sync_creates_updates_and_deactivates(fake_llm, fake_api):
    LLMModel.objects.filter(api=fake_api).delete()
    fake_llm.configure(
        models=[
            {"id": "chat-a", "type": "chat", "context_window": 4096},
            {"id": "text-embed-b", "embedding_dimensions": 256},
            {"id": "chat-c"},
        ]
    )
    first = services.validate_api(fake_api.pk)
    assert first.success and (first.sync.created, first.sync.updated, first.sync.deactivated) == (3, 0, 0)
    assert LLMModel.objects.get(api=fake_api, name="text-embed-b").model_type == "embedding"  # guessed from its name

    again = services.validate_api(fake_api.pk)
    assert (again.sync.created, again.sync.updated, again.sync.deactivated) == (0, 0, 0)  # idempotent

    fake_llm.configure(models=[{"id": "chat-a", "type": "chat", "context_window": 8192}, {"id": "text-embed-b"}])
    changed = services.validate_api(fake_api.pk)
    assert (changed.sync.created, changed.sync.updated, changed.sync.deactivated) == (0, 1, 1)
    assert LLMModel.objects.get(api=fake_api, name="chat-a").context_window == 8192
    assert not LLMModel.objects.get(api=fake_api, name="chat-c").is_active

    fake_llm.configure(models=[{"id": "chat-c"}])
    back = services.validate_api(fake_api.pk)
    assert LLMModel.objects.get(api=fake_api, name="chat-c").is_active and back.sync.updated == 1
    fake_api.refresh_from_db()
    assert fake_api.health_status == LLMApi.HEALTH_HEALTHY and fake_api.last_validated_at


@pytest.mark.parametrize(
    "fault, transient, message",
    [
        ("500", True, "server error (HTTP 500)"),
        ("429", True, "rate limiting"),
        ("timeout", True, "did not answer within"),
        ("malformed", True, "not valid JSON"),
        ("401", False, "API key rejected by Fake OpenAI"),
    ],
)
def test_each_fault_maps_to_retry_or_not(fake_llm, fake_api, fault, transient, message):
    fake_llm.configure(fault=fault, hang_seconds=3)
    LLMApi.objects.filter(pk=fake_api.pk).update(timeout_seconds=0.5)
    with pytest.raises(LLMError) as caught:
        services.chat([{"role": "user", "content": "hello"}])
    assert isinstance(caught.value, TransientLLMError) is transient
    assert message in str(caught.value)
    assert SECRET not in str(caught.value)
    outcome = services.validate_api(fake_api.pk)
    assert not outcome.success and outcome.transient is transient


def test_429_carries_retry_after(fake_llm, fake_api):
    fake_llm.configure(fault="429", retry_after=7)
    with pytest.raises(TransientLLMError) as caught:
        services.embed_texts(["x"])
    assert caught.value.retry_after == 7


def test_unknown_model_is_a_business_error_naming_model_and_api(fake_llm, fake_api):
    fake_llm.configure(models=[{"id": "fake-embed", "type": "embedding"}])  # chat model gone
    with pytest.raises(LLMError) as caught:
        services.chat([{"role": "user", "content": "hello"}])
    assert not isinstance(caught.value, TransientLLMError)
    assert str(caught.value) == "Model fake-chat not served by Fake OpenAI (HTTP 404)"


def test_wrong_base_url_is_explained(fake_llm, fake_api):
    LLMApi.objects.filter(pk=fake_api.pk).update(base_url=fake_llm.url.removesuffix("/v1") + "/nope")
    outcome = services.validate_api(fake_api.pk)
    assert not outcome.success and not outcome.transient
    assert "check the base URL" in outcome.error


def test_unreachable_api_is_transient(fake_api):
    LLMApi.objects.filter(pk=fake_api.pk).update(base_url="http://127.0.0.1:9/v1")
    outcome = services.validate_api(fake_api.pk)
    assert outcome.transient and "Cannot connect to Fake OpenAI" in outcome.error


@pytest.mark.parametrize("fault, message", [("malformed", "not valid JSON"), ("500", "server error (HTTP 500)")])
def test_embedding_faults_are_transient(fake_llm, fake_api, fault, message):
    fake_llm.configure(fault=fault)
    with pytest.raises(TransientLLMError, match=message.replace("(", r"\(").replace(")", r"\)")):
        services.embed_texts(["hello"])


def test_a_request_sent_by_a_client_that_then_dies_is_in_the_log_once_the_fake_has_read_everything(fake_llm):
    """The fault suite divides the log at a worker's death: what the dead worker sent must be in it by then."""
    address = urlsplit(fake_llm.url)
    body = json.dumps({"model": "fake-chat", "messages": [{"role": "user", "content": "Question: sent, then died"}]})
    with httpx.Client() as alive:  # a client that stays connected between requests must not hold the wait up
        alive.get(f"{fake_llm.url}/models")
        with socket.create_connection((address.hostname, address.port)) as dying:
            dying.sendall(
                f"POST /v1/chat/completions HTTP/1.1\r\nHost: fake\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n{body}".encode()
            )
        fake_llm.wait_until_read(timeout=5)
        assert [r["prompt"] for r in fake_llm.requests_to("/v1/chat/completions")] == ["Question: sent, then died"]
