"""The k best scores of an exact segment, found among those above a sampled bar: always the same k as a full sort.

Speed is measured in bench/ (search at 100,000 chunks); these tests hold the results to a full sort's.
"""

import numpy as np
import pytest

from solution_library.services.search_index import SAMPLE_STEP, Segment, VectorIndex, best_positions


def sorted_in_full(scores: np.ndarray, ids: np.ndarray, k: int) -> list[int]:
    """The k best finite scores' positions by a sort of every score: best first, lower chunk id first among equals."""
    order = np.lexsort((ids, -scores))
    return [int(i) for i in order if np.isfinite(scores[i])][:k]


def scores_of(kind: str, count: int, rng) -> np.ndarray:
    if kind == "random":
        return rng.standard_normal(count).astype(np.float32)
    if kind == "ascending":  # the best scores all past the last sampled position
        return np.arange(count, dtype=np.float32)
    if kind == "one cluster":  # a document's chunks side by side, the only ones near the query, between samples
        scores = np.zeros(count, dtype=np.float32)
        cluster = scores[SAMPLE_STEP + 1 : SAMPLE_STEP + 1 + 40]
        cluster[:] = np.linspace(0.9, 0.5, len(cluster))
        return scores
    if kind == "peaks where sampled":  # the sample's best stand for nobody else: the full partition decides
        scores = rng.random(count).astype(np.float32)
        scores[::SAMPLE_STEP] += 10
        return scores
    if kind == "rounded":  # many equal scores, across the k-th
        return np.round(rng.standard_normal(count), 1).astype(np.float32)
    if kind == "mostly filtered out":  # a document filter: all but a few score -inf
        scores = np.full(count, -np.inf, dtype=np.float32)
        kept = rng.choice(count, min(30, count // 2), replace=False)
        scores[kept] = rng.standard_normal(len(kept))
        return scores
    raise ValueError(kind)


@pytest.mark.parametrize(
    "kind", ["random", "ascending", "one cluster", "peaks where sampled", "rounded", "mostly filtered out"]
)
@pytest.mark.parametrize("count", [7, 1000, 100_000])
@pytest.mark.parametrize("k", [1, 50, 200])
def test_the_k_best_are_those_of_a_full_sort(kind, count, k):
    rng = np.random.default_rng(count + k)
    scores = scores_of(kind, count, rng)
    ids = rng.permutation(count).astype(np.int64) + 1  # chunk ids in no order: a grouped segment's layout

    assert best_positions(scores, ids, k).tolist() == sorted_in_full(scores, ids, k)


def test_equal_scores_across_the_kth_keep_the_lower_chunk_ids():
    scores = np.array([0.9] + [0.5] * 500 + [0.1] * 500, dtype=np.float32)
    ids = np.arange(1001, 0, -1, dtype=np.int64)  # the later a position, the lower its id

    best = best_positions(scores, ids, 3)

    assert ids[best].tolist() == [1001, 501, 502]


def test_an_index_ranks_every_live_chunk_as_a_full_sort_would():
    rng = np.random.default_rng(3)
    count, dimensions = 20_000, 16
    columns = rng.standard_normal((dimensions, count)).astype(np.float32)
    columns /= np.linalg.norm(columns, axis=0)
    alive = rng.random(count) > 0.3
    ids = np.arange(1, count + 1, dtype=np.int64)
    index = VectorIndex(1, "v", [Segment("s", ids, ids // 100, columns, alive=alive)])
    query = columns[:, 5]

    found = index.top(query, 50)

    scores = np.where(alive, query @ columns, -np.inf)
    assert [chunk for chunk, _ in found] == [int(ids[i]) for i in sorted_in_full(scores, ids, 50)]
    assert found[0][0] == 6 if alive[5] else found[0][0] != 6
