"""The built-in offline provider: deterministic embeddings, cited extractive chat, JSON reviews."""

import json

import pytest

from llm_manager import services
from llm_manager.exceptions import NoDefaultModel
from llm_manager.models import LLMModel
from llm_manager.providers.offline import NO_PASSAGE_ANSWER, hashed_embedding

PASSAGES = (
    "[1] Customer data is encrypted at rest with AES-256. Keys are rotated every 90 days.\n"
    "[2] Our support desk answers tickets within four business hours.\n"
    "The desk is staffed in Europe and North America.\n"
    "\n"
)


def cosine(a, b):
    return sum(x * y for x, y in zip(a, b))


def ask(question, passages=PASSAGES, system="Answer from the passages."):
    return services.chat(
        [{"role": "system", "content": system}, {"role": "user", "content": passages + f"Question: {question}"}]
    )


@pytest.mark.django_db
def test_a_fresh_install_has_the_offline_baseline_as_chat_default_and_embedding_stand_in():
    """Embedding defaults to all-MiniLM-L6-v2 (test_local_default.py); the suite makes the baseline the default."""
    embed = LLMModel.objects.get(api__kind="offline", model_type=LLMModel.TYPE_EMBEDDING)
    chat = services.get_default_model(LLMModel.TYPE_CHAT)
    assert (embed.name, embed.embedding_dimensions, embed.api.kind) == ("offline-embed-v1", 384, "offline")
    assert chat.name == "offline-extractive-chat-v1"
    assert services.get_default_model(LLMModel.TYPE_EMBEDDING) == embed  # tests/conftest.py: offline_embedding_default


@pytest.mark.django_db
def test_no_default_model_is_a_clear_error():
    LLMModel.objects.filter(model_type="chat").update(is_system_default=False)
    with pytest.raises(NoDefaultModel, match="No default chat model"):
        services.chat([{"role": "user", "content": "hi"}])
    LLMModel.objects.filter(model_type="embedding").update(is_active=False)
    with pytest.raises(NoDefaultModel, match="inactive"):
        services.embed_texts(["x"])


@pytest.mark.django_db
def test_same_text_gives_same_normalised_vector():
    first, second, other = services.embed_texts(["Encryption at rest", "Encryption at rest", "Holiday schedule"])
    assert first == second
    assert first != other
    assert len(first) == 384
    assert abs(sum(x * x for x in first) - 1.0) < 1e-9


def test_query_is_closer_to_a_passage_sharing_its_key_terms():
    query = hashed_embedding("How is customer data encrypted?")
    related = hashed_embedding("All customer data is encrypted at rest using AES-256 encryption.")
    unrelated = hashed_embedding("The cafeteria serves lunch from noon until two o'clock.")
    assert cosine(query, related) > cosine(query, unrelated) + 0.2


@pytest.mark.django_db
def test_chat_quotes_the_matching_passage_with_its_citation():
    result = ask("How is customer data encrypted at rest?")
    assert "AES-256" in result.text
    assert "[1]" in result.text
    assert "[2]" not in result.text
    assert result.model == "offline-extractive-chat-v1"
    assert result.usage["total_tokens"] > 0


@pytest.mark.django_db
def test_passage_continues_on_following_lines():
    result = ask("Where is the support desk staffed?")
    assert "Europe and North America" in result.text
    assert "[2]" in result.text


@pytest.mark.django_db
def test_a_question_that_asks_several_things_is_answered_part_by_part():
    """Each sentence answers one part; none holds two of the whole question's subject words."""
    profile = (
        "[1] Kestrel Peak Software was founded in 2011 in Bristol.\n"
        "[2] The company employs 185 people, 70 of them in engineering.\n\n"
    )
    result = ask("Describe your company: when it was founded, and how many people it employs.", profile)
    assert "founded in 2011 in Bristol [1]" in result.text and "employs 185 people" in result.text


@pytest.mark.django_db
def test_chat_says_plainly_when_no_passage_matches():
    assert ask("What colour is the office carpet?").text == NO_PASSAGE_ANSWER


@pytest.mark.django_db
@pytest.mark.parametrize(
    "answer, verdict",
    [
        ("Customer data is encrypted at rest with AES-256 [1].", "approved"),
        ("We use quantum blockchain firewalls certified by NASA.", "rejected"),
    ],
)
def test_reviewer_mode_returns_only_json_with_reasons(answer, verdict):
    result = services.chat(
        [
            {"role": "system", "content": "You review answers. Return a JSON review."},
            {"role": "user", "content": PASSAGES + "Question: How is data protected?\nAnswer: " + answer},
        ]
    )
    review = json.loads(result.text)
    assert set(review) == {"verdict", "score", "reasons", "feedback"}
    assert review["reasons"] and review["feedback"] == " ".join(review["reasons"])
    assert review["verdict"] == verdict
    assert 0.0 <= review["score"] <= 1.0
