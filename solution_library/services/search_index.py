"""The vector index: every chunk embedding of one model in an in-memory matrix.

Why not pgvector: it is not available here, and the library must run the same
on SQLite and PostgreSQL. Embeddings are stored as float32 bytes in
Chunk.embedding; each process keeps, per embedding model, a numpy matrix of
them (L2-normalised, so a dot product is the cosine). Before every search one
indexed row (`SearchIndexVersion`, a token) says whether chunks changed; if so only the
difference is loaded (new ids in, removed ids out), so the index stays current
without reloading 100,000 rows. Scoring is one matrix-vector product and an
argpartition: brute force and exact. The matrix is kept transposed (one row
per dimension), so that a sparse query — the offline provider's hashed
features touch a few dozen of 384 dimensions — reads only its non-zero rows;
a dense query (a neural embedding model) is one BLAS matrix-vector product.
Scoring is bound by memory bandwidth: 100k × 384 float32 is 150 MB per
dense query.
"""
import threading
import uuid
from dataclasses import dataclass, field

import numpy as np
from django.db import transaction
from ..models import Chunk, SearchIndexVersion

LOAD_BATCH = 5000
# A query with non-zeros in fewer than this share of dimensions is scored sparsely.
SPARSE_QUERY_SHARE = 0.25


def bump_version(model_id: int) -> None:
    """Tell every process that this model's chunks changed (call inside the writing transaction)."""
    SearchIndexVersion.objects.update_or_create(embedding_model_id=model_id, defaults={"version": uuid.uuid4().hex})


def current_version(model_id: int) -> str:
    version = SearchIndexVersion.objects.filter(embedding_model_id=model_id).values_list("version", flat=True).first()
    return version or ""


@dataclass
class VectorIndex:
    """Column j of `columns` (dimensions × chunks) is the embedding of chunk_ids[j]."""

    model_id: int
    version: str | None = None
    chunk_ids: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    document_ids: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    columns: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.chunk_ids)

    def top(self, query: np.ndarray, k: int, document_ids: list[int] | None = None) -> list[tuple[int, float]]:
        """(chunk_id, cosine) of the k best rows, best first."""
        if not len(self) or k <= 0:
            return []
        scores = self.scores(query.astype(np.float32))
        if document_ids is not None:
            scores = np.where(np.isin(self.document_ids, document_ids), scores, -np.inf)
        k = min(k, len(scores))
        best = np.argpartition(scores, len(scores) - k)[len(scores) - k :]
        best = best[np.argsort(-scores[best])]
        return [(int(self.chunk_ids[i]), float(scores[i])) for i in best if np.isfinite(scores[i])]

    def scores(self, query: np.ndarray) -> np.ndarray:
        """Cosine of the query with every chunk (vectors are L2-normalised)."""
        nonzero = np.flatnonzero(query)
        if len(nonzero) < SPARSE_QUERY_SHARE * len(query):
            return query[nonzero] @ self.columns[nonzero]
        return query @ self.columns

    def refresh(self) -> None:
        """Bring the matrix up to date with the database (cheap when nothing changed)."""
        version = current_version(self.model_id)
        if version == self.version and self.columns is not None:
            return
        rows = Chunk.objects.filter(embedding_model_id=self.model_id)
        if self.columns is None:
            self._append(rows.values_list("id", "document_id", "embedding").iterator(chunk_size=LOAD_BATCH))
        else:
            live = np.fromiter(rows.values_list("id", flat=True).iterator(chunk_size=20000), dtype=np.int64)
            self._drop_missing(live)
            new_ids = np.setdiff1d(live, self.chunk_ids, assume_unique=True).tolist()
            self._append(
                row
                for start in range(0, len(new_ids), LOAD_BATCH)
                for row in rows.filter(id__in=new_ids[start : start + LOAD_BATCH]).values_list(
                    "id", "document_id", "embedding"
                )
            )
        self.version = version

    def _drop_missing(self, live: np.ndarray) -> None:
        if self.columns is None:
            return
        keep = np.isin(self.chunk_ids, live)
        if not keep.all():
            self.chunk_ids, self.document_ids = self.chunk_ids[keep], self.document_ids[keep]
            self.columns = np.ascontiguousarray(self.columns[:, keep])

    def _append(self, rows) -> None:
        """Add (chunk id, document id, embedding bytes) rows to the matrix."""
        ids, docs, blobs = [], [], []
        for chunk_id, document_id, blob in rows:
            ids.append(chunk_id)
            docs.append(document_id)
            blobs.append(bytes(blob))
        if not ids:
            return
        new_columns = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(ids), -1).T
        parts = [] if self.columns is None else [self.columns]
        self.columns = np.ascontiguousarray(np.concatenate([*parts, new_columns], axis=1))
        self.chunk_ids = np.concatenate([self.chunk_ids, np.asarray(ids, dtype=np.int64)])
        self.document_ids = np.concatenate([self.document_ids, np.asarray(docs, dtype=np.int64)])


_indexes: dict[int, VectorIndex] = {}
_lock = threading.Lock()


def index_for(model_id: int) -> VectorIndex:
    """This process's current index of one embedding model.

    Inside a transaction the rows seen may still be rolled back — and a
    rolled-back id can be handed out again (SQLite) — so such a read builds a
    private index instead of updating the shared one, which therefore only ever
    holds committed rows and can be refreshed by id difference.
    """
    if transaction.get_connection().in_atomic_block:
        index = VectorIndex(model_id)
        index.refresh()
        return index
    with _lock:
        index = _indexes.setdefault(model_id, VectorIndex(model_id))
        index.refresh()
        return index
