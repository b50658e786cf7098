"""A draft's sentences ranked word by word: with the local encoder, its word vectors choose what a draft quotes.

A sentence's one vector blurs what it says into its topic: for "how is evidence
preserved?", the step after the evidence is kept is as close as the sentence
that says how it is kept. Matched word by word (llm.word_alignment), the
sentence that meets each thing the question names comes first.
"""

import pytest

from llm_manager import services as llm
from llm_manager.models import LLMApi, LLMModel
from rfp_manager.services import answering

pytestmark = pytest.mark.django_db

QUESTION = "How is forensic evidence preserved after a compromise?"
IMAGE = "A complete image of each disk is copied with dd and kept as evidence."
PASSAGES = [
    {
        "n": 1,
        "text": "Analysing a compromised system while it runs is best avoided, because its programs can no longer "
        f"be trusted. {IMAGE} The investigation then works on the copies only.",
    },
    {"n": 2, "text": "Incidents are reported to the security team."},
]


@pytest.fixture
def minilm_default():
    """all-MiniLM-L6-v2, served by a local API, as the default embedding model (a fresh install's)."""
    llm.make_default(LLMModel.objects.get(api__kind=LLMApi.KIND_LOCAL, name="all-MiniLM-L6-v2"))


def quoted() -> list[str]:
    return [c.text for c in answering.choose_evidence(QUESTION, PASSAGES)]


def test_the_local_default_model_chooses_the_sentences_word_by_word(minilm_default):
    by_words = answering.word_similarity()
    assert by_words is not None
    assert by_words([QUESTION], [IMAGE]) == llm.word_alignment([QUESTION], [IMAGE]).tolist()

    assert IMAGE in quoted()


def test_by_the_sentence_vectors_alone_the_next_step_is_quoted_instead(minilm_default):
    """What word_similarity changes: the same passages ranked by cosine and words (an embedding API's way)."""
    similarity = answering.embedding_similarity()
    chosen = [c.text for c in answering.choose(QUESTION, {p["n"]: p["text"] for p in PASSAGES}, similarity)]
    assert IMAGE not in chosen and chosen


def test_an_embedding_api_gives_no_word_vectors(llm_api, fake_llm):
    assert answering.word_similarity() is None
