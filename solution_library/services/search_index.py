"""The vector index: every chunk embedding of one model in an in-memory matrix.

Why not pgvector: it is not available here, and the library must run the same
on SQLite and PostgreSQL. Embeddings are stored as float32 bytes in
Chunk.embedding; each process keeps, per embedding model, a numpy matrix of
them (L2-normalised, so a dot product is the cosine). Before every search one
indexed row (`SearchIndexVersion`, a token) says whether chunks changed; if so only the
difference is loaded (new ids in, removed ids out), so the index stays current
without reloading 100,000 rows. Scoring is one matrix-vector product and an
argpartition: brute force, exact, a few milliseconds at 100k × 384.
"""
import threading
import uuid
from dataclasses import dataclass, field

import numpy as np
from ..models import Chunk, SearchIndexVersion

LOAD_BATCH = 5000


def bump_version(model_id: int) -> None:
    """Tell every process that this model's chunks changed (call inside the writing transaction)."""
    SearchIndexVersion.objects.update_or_create(embedding_model_id=model_id, defaults={"version": uuid.uuid4().hex})


def current_version(model_id: int) -> str:
    version = SearchIndexVersion.objects.filter(embedding_model_id=model_id).values_list("version", flat=True).first()
    return version or ""


@dataclass
class VectorIndex:
    """Rows of `matrix` are the embeddings of `chunk_ids` (same order)."""

    model_id: int
    version: str | None = None
    chunk_ids: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    document_ids: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    matrix: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.chunk_ids)

    def top(self, query: np.ndarray, k: int, document_ids: list[int] | None = None) -> list[tuple[int, float]]:
        """(chunk_id, cosine) of the k best rows, best first."""
        if not len(self) or k <= 0:
            return []
        scores = self.matrix @ query.astype(np.float32)
        if document_ids is not None:
            scores = np.where(np.isin(self.document_ids, document_ids), scores, -np.inf)
        k = min(k, len(scores))
        best = np.argpartition(-scores, k - 1)[:k]
        best = best[np.argsort(-scores[best])]
        return [(int(self.chunk_ids[i]), float(scores[i])) for i in best if np.isfinite(scores[i])]

    def refresh(self) -> None:
        """Bring the matrix up to date with the database (cheap when nothing changed)."""
        version = current_version(self.model_id)
        if version == self.version and self.matrix is not None:
            return
        live = np.fromiter(
            Chunk.objects.filter(embedding_model_id=self.model_id).values_list("id", flat=True).iterator(chunk_size=20000),
            dtype=np.int64,
        )
        self._drop_missing(live)
        self._load(np.setdiff1d(live, self.chunk_ids, assume_unique=True))
        self.version = version

    def _drop_missing(self, live: np.ndarray) -> None:
        if self.matrix is None:
            return
        keep = np.isin(self.chunk_ids, live)
        if not keep.all():
            self.chunk_ids, self.document_ids, self.matrix = self.chunk_ids[keep], self.document_ids[keep], self.matrix[keep]

    def _load(self, new_ids: np.ndarray) -> None:
        ids, docs, blobs = [], [], []
        for start in range(0, len(new_ids), LOAD_BATCH):
            batch = new_ids[start : start + LOAD_BATCH].tolist()
            for chunk_id, document_id, blob in Chunk.objects.filter(id__in=batch).values_list(
                "id", "document_id", "embedding"
            ):
                ids.append(chunk_id)
                docs.append(document_id)
                blobs.append(bytes(blob))
        if not ids:
            return
        vectors = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(ids), -1)
        parts = [] if self.matrix is None else [self.matrix]
        self.matrix = np.concatenate([*parts, vectors])
        self.chunk_ids = np.concatenate([self.chunk_ids, np.asarray(ids, dtype=np.int64)])
        self.document_ids = np.concatenate([self.document_ids, np.asarray(docs, dtype=np.int64)])


_indexes: dict[int, VectorIndex] = {}
_lock = threading.Lock()


def index_for(model_id: int) -> VectorIndex:
    """This process's current index of one embedding model."""
    with _lock:
        index = _indexes.setdefault(model_id, VectorIndex(model_id))
        index.refresh()
        return index
