"""Inverted lists (IVF): the approximate layout of a large index segment.

Exact scoring reads every embedding of a segment for every search: at a
million chunks that is 320 MB (a sparse offline query's rows) to 1.5 GB (a
dense query) of memory per search. A large segment is therefore stored
grouped: its embeddings are clustered around `lists` centroids (spherical
k-means on a sample), and the columns of one cluster are kept side by side.
A search scores the centroids, then only the columns of the PROBE_SHARE of
lists whose centroids are nearest the query, exactly. The nearest chunks sit
in the nearest lists, so recall against exact search stays high (measured by
bench/bench_search.py, guarded by tests/solution_library/test_inverted_lists.py)
while a search reads a small part of the segment: 2% of the lists for a dense
query, more for a sparse one, which reads fewer rows of each (nearest_ranges).

Why not faiss or usearch: usearch's HNSW took minutes to build a fraction of a
million vectors here; faiss's IVF scores every dimension of a probed vector,
while the offline model's hashed queries touch a fifth of them (cosine_scores
reads only those rows); and this layout is three more .npy files beside the
segment files every process already memory-maps, so the page cache keeps one
copy and incremental segments, deletions and merges work as before.
"""

import math
from dataclasses import dataclass

import numpy as np

# Lists = LISTS_PER_ROOT × √chunks: ~160 lists of ~630 at 100,000 chunks, 500 of 2,000 at a million.
# Long lists: a search reads each probed list's rows in one piece, and fewer, longer pieces of
# a large file are read much faster than many short ones (and cost fewer Python calls).
LISTS_PER_ROOT = 0.5
# k-means learns the centroids from this many sampled chunks per list, in this many rounds:
# the centroids only steer the search (it rescores exactly), so a sample is enough.
SAMPLE_PER_LIST = 25
KMEANS_ROUNDS = 6
# A dense query scores the lists of this share of the centroids nearest it (at least MIN_PROBES);
# a sparse one more (see nearest_ranges).
PROBE_SHARE = 0.02
MIN_PROBES = 8
# Columns per block when assigning columns to centroids (bounds the lists × block score matrix).
ASSIGN_BLOCK = 4096


@dataclass
class InvertedLists:
    """List l holds the segment's columns offsets[l]:offsets[l + 1]; centroids are lists × dimensions."""

    centroids: np.ndarray
    offsets: np.ndarray

    def nearest_ranges(self, query: np.ndarray, rows_read: float = 1.0) -> list[tuple[int, int]]:
        """The column ranges of the lists whose centroids are nearest the query, in file order.

        `rows_read` is the share of dimensions scoring reads for this query (a sparse query reads
        only its non-zero rows): such a query probes that many times more lists for the same cost.
        """
        count = len(self.centroids)
        share = min(1.0, PROBE_SHARE / rows_read)
        probes = min(count, max(MIN_PROBES, math.ceil(share * count)))
        nearest = np.sort(np.argpartition(self.centroids @ query, count - probes)[count - probes :])
        return adjacent_joined(self.offsets[nearest], self.offsets[nearest + 1])


def adjacent_joined(starts: np.ndarray, ends: np.ndarray) -> list[tuple[int, int]]:
    """Ranges in file order with each run of touching ranges made one (one read instead of several)."""
    ranges: list[tuple[int, int]] = []
    for start, end in zip(starts.tolist(), ends.tolist()):
        if end <= start:
            continue
        if ranges and ranges[-1][1] == start:
            ranges[-1] = (ranges[-1][0], end)
        else:
            ranges.append((start, end))
    return ranges


def group(columns: np.ndarray, seed: int = 0) -> tuple[np.ndarray, InvertedLists]:
    """Cluster the columns (dimensions × chunks): the column order that groups them by list, and the lists."""
    count = columns.shape[1]
    lists = max(1, min(count, round(LISTS_PER_ROOT * math.sqrt(count))))
    centroids = train_centroids(columns, lists, np.random.default_rng(seed))
    nearest = nearest_centroid(columns, centroids)
    order = np.argsort(nearest, kind="stable")  # stable: each list keeps the segment's (id) order
    offsets = np.concatenate([[0], np.cumsum(np.bincount(nearest, minlength=lists))]).astype(np.int64)
    return order, InvertedLists(centroids, offsets)


def train_centroids(columns: np.ndarray, lists: int, rng: np.random.Generator) -> np.ndarray:
    """Spherical k-means (cosine) on a sample of the columns: lists × dimensions, unit rows."""
    count = columns.shape[1]
    sample = np.sort(rng.choice(count, min(count, SAMPLE_PER_LIST * lists), replace=False))
    vectors = np.ascontiguousarray(columns[:, sample])  # dimensions × sample
    centroids = np.ascontiguousarray(vectors[:, rng.choice(vectors.shape[1], lists, replace=False)].T)
    for _ in range(KMEANS_ROUNDS):
        nearest = nearest_centroid(vectors, centroids)
        sizes = np.bincount(nearest, minlength=lists)
        filled = sizes > 0  # an empty cluster keeps its centroid
        starts = (np.cumsum(sizes) - sizes)[filled]
        sums = np.add.reduceat(vectors[:, np.argsort(nearest, kind="stable")], starts, axis=1).T
        centroids[filled] = sums / np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)
    return centroids


def nearest_centroid(columns: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    """For each column, the index of the centroid with the highest cosine."""
    nearest = np.empty(columns.shape[1], dtype=np.int64)
    for start in range(0, columns.shape[1], ASSIGN_BLOCK):
        block = np.asarray(columns[:, start : start + ASSIGN_BLOCK], dtype=np.float32)
        nearest[start : start + ASSIGN_BLOCK] = np.argmax(centroids @ block, axis=0)
    return nearest


def recall(exact: list[tuple[int, float]], found: list[tuple[int, float]], tolerance: float = 1e-5) -> float:
    """Share of the exact search's k results that `found` (k results) matches, counting a found chunk
    as right when it is at least as near as the exact k-th (as ann-benchmarks does): chunks with
    equal embeddings tie, and which of them wins a tie is no error."""
    if not exact:
        return 1.0
    kth = exact[-1][1] - tolerance
    return min(1.0, sum(score >= kth for _, score in found) / len(exact))
