"""The vector index: every chunk embedding of one model, in files that all processes of a machine share.

Why files: each web and worker process used to hold its own matrix (150 MB per
100,000 chunks), eight processes at a million chunks would need 12 GB. Now the
matrix lives in .npy files under SEARCH_INDEX_DIR, memory-mapped read-only by
every process, so the operating system keeps one copy in its page cache.
Why not pgvector: it is not available here, and the library must run the same
on SQLite and PostgreSQL.

Layout, per embedding model and database (`model-<id>-<lineage>/`): `manifest.json` names the
segments and the deleted-ids file of one index generation, and the database's
SearchIndexVersion token it reflects. A segment is three files: chunk ids
(sorted), their document ids, and the embeddings transposed (dimensions ×
chunks, so a sparse query reads only its non-zero rows). Files are never
changed once written: a change writes new files and then replaces the manifest
by rename, so a reader sees the old generation or the new one, never half.

Before every search one indexed row (the token) says whether chunks changed.
When it differs from the token this process has open, the process reads the
manifest; when the manifest is also behind, the first process to get the
model's file lock brings it up to date from the database — only the difference
(new ids in a new segment, removed ids added to the deleted list), so the
first search after a change costs the change, not the library — and the others
wait on the lock and then open what it wrote. Chunk ids are never reused and a
chunk's embedding never changes in place (a re-embed deletes and inserts), so
id sets are all a refresh has to compare.

Scoring is exact (brute force: one matrix-vector product per segment, then a
sort of the scores above a sampled bar) for segments under settings.SEARCH_INDEX_APPROXIMATE_FROM chunks,
so a small library's results are exact. A segment at least that large is
written grouped in inverted lists (inverted_lists.py), and a search scores only
the lists nearest the query: approximate, with the recall bench/bench_search.py
reports. Segments from later changes are small, so they are exact, and the
first search after a change costs the change; merges and rewrites past the
threshold group again. Cosine is a dot product (embeddings are L2-normalised).
"""

import fcntl
import json
import mmap
import os
import threading
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
from django.conf import settings
from django.db import connection, transaction

from ..models import SearchIndexVersion
from .inverted_lists import InvertedLists, group

FETCH_BATCH = 5000
# A query with non-zeros in fewer than this share of dimensions is scored sparsely.
SPARSE_QUERY_SHARE = 0.25
# Sparse scoring gathers a query's rows block by block, so the gathered block stays in
# the CPU cache (one gather of every column would write and re-read it from memory).
SPARSE_BLOCK = 2048
# Small segments from successive changes are merged past this many; the whole index is
# rewritten when this share of its chunks has been deleted.
MAX_SEGMENTS = 8
MAX_DELETED_SHARE = 0.2
# Files no manifest names any more are removed after this long (a reader may be opening them).
GARBAGE_AGE_SECONDS = 600
# A search with a document filter that leaves at most this many chunks of a grouped segment
# scores them all (exactly) rather than the nearest lists, where few of them may be.
FILTERED_EXACT_LIMIT = 50_000
# The k best scores are found among those at or above the SAMPLE_RANK-th (+ k / SAMPLE_STEP) best of every
# SAMPLE_STEP-th score (best_positions): a bar that lets a few hundred of 100,000 scores through.
SAMPLE_STEP = 64
SAMPLE_RANK = 4


def bump_version(model_id: int) -> None:
    """Tell every process that this model's chunks changed (call inside the writing transaction).

    The token is "<lineage>:<change>". The lineage is drawn once, when the row is
    first made, and kept by every later change: index files of another lineage
    (a recreated or flushed database, whose chunk ids start again at 1) are
    rebuilt whole, never refreshed by id difference.
    """
    previous = current_version(model_id)
    kept = lineage(previous) if ":" in previous else uuid.uuid4().hex[:15]
    SearchIndexVersion.objects.update_or_create(
        embedding_model_id=model_id, defaults={"version": f"{kept}:{uuid.uuid4().hex[:16]}"}
    )


def lineage(version: str | None) -> str:
    return (version or "").split(":")[0]


def current_version(model_id: int) -> str:
    with connection.cursor() as cursor:  # plain SQL: it runs before every search
        cursor.execute(
            "SELECT version FROM solution_library_searchindexversion WHERE embedding_model_id = %s", [model_id]
        )
        row = cursor.fetchone()
    return row[0] if row else ""


@dataclass
class Segment:
    """Column j of `columns` (dimensions × chunks) is the embedding of chunk ids[j]; `alive` masks deleted ones.

    An exact segment holds its chunks in id order. A grouped one holds them list by
    list (`lists`), with `by_id` the positions in id order.
    """

    name: str
    ids: np.ndarray
    document_ids: np.ndarray
    columns: np.ndarray
    alive: np.ndarray | None = None  # None: every chunk of the segment is live
    lists: InvertedLists | None = None
    by_id: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.ids)

    def entry(self) -> dict:
        """What the manifest says of this segment."""
        return {"name": self.name, "count": len(self), "grouped": self.lists is not None}

    def live_ids(self) -> np.ndarray:
        return self.ids if self.alive is None else self.ids[self.alive]

    def holds(self, chunk_ids: np.ndarray) -> np.ndarray:
        """For each of chunk_ids: is it a live chunk of this segment?"""
        if not len(self.ids):
            return np.zeros(len(chunk_ids), dtype=bool)
        at = np.minimum(np.searchsorted(self.ids, chunk_ids, sorter=self.by_id), len(self.ids) - 1)
        if self.by_id is not None:
            at = self.by_id[at]
        found = self.ids[at] == chunk_ids
        return found if self.alive is None else found & self.alive[at]

    def candidates(self, query: np.ndarray, document_ids) -> tuple[np.ndarray, np.ndarray]:
        """(chunk ids, cosines) this segment offers: all its chunks, or a grouped one's in the nearest lists.

        Deleted chunks and those outside `document_ids` score -inf.
        """
        if self.lists is None:
            return self.ids, self._masked(slice(None), cosine_scores(self.columns, query), document_ids)
        positions = None
        if document_ids is not None:
            positions = np.flatnonzero(np.isin(self.document_ids, document_ids))
        if positions is not None and len(positions) <= FILTERED_EXACT_LIMIT:
            scores = cosine_scores(self.columns, query, positions)
        else:
            rows = rows_read(query)
            ranges = self.lists.nearest_ranges(query, len(rows) / len(query))
            positions = np.concatenate([np.arange(start, end) for start, end in ranges])
            scores = list_scores(self.columns, query, rows, ranges)
        return self.ids[positions], self._masked(positions, scores, document_ids)

    def _masked(self, positions, scores: np.ndarray, document_ids) -> np.ndarray:
        if self.alive is not None:
            scores[~self.alive[positions]] = -np.inf
        if document_ids is not None:
            scores[~np.isin(self.document_ids[positions], document_ids)] = -np.inf
        return scores


@dataclass
class VectorIndex:
    """One generation of one model's index: its segments, read-only."""

    model_id: int
    version: str | None = None
    segments: list[Segment] = field(default_factory=list)
    deleted: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def __len__(self) -> int:
        return sum(len(s) if s.alive is None else int(s.alive.sum()) for s in self.segments)

    @property
    def dimensions(self) -> int:
        return next((s.columns.shape[0] for s in self.segments if len(s)), 0)

    def top(self, query: np.ndarray, k: int, document_ids: list[int] | None = None) -> list[tuple[int, float]]:
        """(chunk_id, cosine) of the k best live chunks, best first."""
        segments = [s for s in self.segments if len(s)]
        if not segments or k <= 0:
            return []
        query = np.asarray(query, dtype=np.float32)
        found = [s.candidates(query, document_ids) for s in segments]
        ids = np.concatenate([ids for ids, _ in found]) if len(found) > 1 else found[0][0]
        scores = np.concatenate([scores for _, scores in found]) if len(found) > 1 else found[0][1]
        best = best_positions(scores, ids, k)
        return [(int(ids[i]), float(scores[i])) for i in best if np.isfinite(scores[i])]

    def holds(self, chunk_ids: list[int]) -> set[int]:
        """Those of chunk_ids that are live chunks of this index (filters another model's lexical hits)."""
        wanted = np.asarray(chunk_ids, dtype=np.int64)
        found = np.zeros(len(wanted), dtype=bool)
        for segment in self.segments:
            found |= segment.holds(wanted)
        return set(wanted[found].tolist())

    def live_ids(self) -> np.ndarray:
        parts = [s.live_ids() for s in self.segments]
        return np.sort(np.concatenate(parts)) if parts else np.zeros(0, dtype=np.int64)


def best_positions(scores: np.ndarray, ids: np.ndarray, k: int) -> np.ndarray:
    """The positions of the k highest finite scores, best first; equal scores: lower chunk id first, in any layout.

    Exact. Sorting only the scores at or above a bar at most the k-th highest gives the same k as sorting them all.
    """
    candidates = _at_or_above(scores, _bar(scores, k))
    return candidates[np.lexsort((ids[candidates], -scores[candidates]))[:k]]


def _bar(scores: np.ndarray, k: int) -> float:
    """A score at most the k-th highest, and close to it.

    Read from every SAMPLE_STEP-th score first: each sampled score stands for about SAMPLE_STEP others, so a few
    hundred scores pass the sample's SAMPLE_RANK-th highest, where a full partition of 100,000 scores took about
    1 ms of a 7 ms search. When fewer than k pass it (a sample unlike the whole), the full partition decides.
    """
    k = min(k, len(scores))
    sample = scores[::SAMPLE_STEP]
    rank = k // SAMPLE_STEP + SAMPLE_RANK
    if len(sample) > rank:
        bar = np.partition(sample, len(sample) - rank)[len(sample) - rank]
        if np.count_nonzero(scores >= bar) >= k:
            return float(bar)
    return float(np.partition(scores, len(scores) - k)[len(scores) - k]) if k else np.inf


def _at_or_above(scores: np.ndarray, bar: float) -> np.ndarray:
    """The positions of the finite scores at or above `bar` (a deleted or filtered-out chunk scores -inf)."""
    return np.flatnonzero(scores >= bar) if np.isfinite(bar) else np.flatnonzero(np.isfinite(scores))


def rows_read(query: np.ndarray) -> np.ndarray:
    """The rows (dimensions) scoring reads: a sparse query's (the offline model's hashed features)
    non-zero ones, a dense query's all."""
    rows = np.flatnonzero(query)
    return rows if len(rows) < SPARSE_QUERY_SHARE * len(query) else np.arange(len(query))


def cosine_scores(columns: np.ndarray, query: np.ndarray, positions: np.ndarray | None = None) -> np.ndarray:
    """query · every column (or the columns at `positions`), reading only rows_read(query)."""
    rows = rows_read(query)
    if len(rows) == len(query) and positions is None:
        return query @ columns
    weights, count = query[rows], columns.shape[1] if positions is None else len(positions)
    scores = np.empty(count, dtype=np.float32)
    for start in range(0, count, SPARSE_BLOCK):
        block = (
            columns[rows, start : start + SPARSE_BLOCK]
            if positions is None
            else (columns[np.ix_(rows, positions[start : start + SPARSE_BLOCK])])
        )
        np.matmul(weights, block, out=scores[start : start + SPARSE_BLOCK])
    return scores


def list_scores(columns: np.ndarray, query: np.ndarray, rows: np.ndarray, ranges: list[tuple[int, int]]) -> np.ndarray:
    """query · the columns of each range (a list's columns are contiguous), reading only `rows`.

    One small product per list, with the query's rows picked once: a search probes hundreds of lists.
    """
    if len(rows) == len(query):
        return np.concatenate([query @ columns[:, start:end] for start, end in ranges])
    weights = query[rows]
    return np.concatenate([weights @ columns[rows, start:end] for start, end in ranges])


# --- reading the database ----------------------------------------------------------------------
def _live_chunk_ids(model_id: int) -> np.ndarray:
    with connection.cursor() as cursor:
        cursor.execute("SELECT id FROM solution_library_chunk WHERE embedding_model_id = %s", [model_id])
        ids = np.fromiter((row[0] for row in cursor.fetchall()), dtype=np.int64)
    return np.sort(ids)


def _chunk_rows(ids: np.ndarray):
    """(id, document id, embedding bytes) of these chunks that still exist, in id order."""
    for start in range(0, len(ids), FETCH_BATCH):
        batch = ids[start : start + FETCH_BATCH].tolist()
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT id, document_id, embedding FROM solution_library_chunk "
                f"WHERE id IN ({', '.join('%s' for _ in batch)}) ORDER BY id",
                batch,
            )
            yield from cursor.fetchall()


# --- building segments ------------------------------------------------------------------------
def _segment_from_rows(rows, dimensions: int | None, out=None) -> Segment | None:
    """A segment of (id, document id, embedding bytes) rows; written to `out` (a SegmentFiles) when given."""
    ids, documents, columns, filled = [], [], None, 0
    for chunk_id, document_id, blob in rows:
        vector = np.frombuffer(bytes(blob), dtype=np.float32)
        if columns is None:
            dimensions = dimensions or len(vector)
            columns = out.columns(dimensions) if out else []
        if len(vector) != dimensions:
            continue  # a chunk of another dimension (a misconfigured model) cannot be scored with the rest
        if out:
            out.put(filled, vector)
        else:
            columns.append(vector)
        ids.append(chunk_id)
        documents.append(document_id)
        filled += 1
    if not ids:
        return None
    ids, documents = np.asarray(ids, dtype=np.int64), np.asarray(documents, dtype=np.int64)
    if out:
        return out.finish(ids, documents, filled)
    return Segment("memory", ids, documents, np.ascontiguousarray(np.stack(columns).T))


def build_in_memory(model_id: int) -> VectorIndex:
    """A private index read straight from the database (inside a transaction, whose rows may roll back)."""
    version = current_version(model_id)
    segment = _segment_from_rows(_chunk_rows(_live_chunk_ids(model_id)), None)
    return VectorIndex(model_id, version, [segment] if segment else [])


# --- the shared files ------------------------------------------------------------------------
def index_root() -> Path:
    return Path(settings.SEARCH_INDEX_DIR)


class SegmentFiles:
    """Writes one new segment: the embeddings straight into a memory-mapped file, then the id files."""

    def __init__(self, folder: Path, capacity: int):
        self.folder, self.capacity = folder, capacity
        self.name = f"seg-{uuid.uuid4().hex[:12]}"
        self._columns = None

    def columns(self, dimensions: int):
        path = self.folder / f"{self.name}.vectors.npy"
        self._columns = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(dimensions, self.capacity))
        return self._columns

    def put(self, column: int, vector: np.ndarray) -> None:
        self._columns[:, column] = vector

    def put_block(self, start: int, block: np.ndarray) -> None:
        self._columns[:, start : start + block.shape[1]] = block

    def put_row(self, row: int, values: np.ndarray) -> None:
        self._columns[row, : len(values)] = values

    def finish(
        self, ids: np.ndarray, documents: np.ndarray, filled: int, lists: InvertedLists | None = None
    ) -> Segment:
        """Close the written segment; a grouped one (chunks list by list) also writes its lists."""
        self._columns.flush()
        del self._columns
        self._save("ids", ids)
        self._save("documents", documents)
        if lists is not None:
            self._save("centroids", lists.centroids)
            self._save("offsets", lists.offsets)
            self._save("by_id", np.argsort(ids, kind="stable"))
        entry = {"name": self.name, "count": int(filled), "grouped": lists is not None}
        return open_segment(self.folder, entry)

    def _save(self, part: str, array: np.ndarray) -> None:
        np.save(self.folder / f"{self.name}.{part}.npy", array)


def open_segment(
    folder: Path, entry: dict, deleted: np.ndarray | None = None, mapped: Segment | None = None
) -> Segment:
    """One segment of a generation, its deleted chunks masked; `mapped`: the same segment already
    mapped by this process (files never change, so a new generation maps only its new segments)."""
    segment = mapped or _map_segment(folder, entry)
    alive = None
    if deleted is not None and len(deleted):
        mask = ~np.isin(segment.ids, deleted, assume_unique=True)
        alive = None if mask.all() else mask
    return replace(segment, alive=alive)


def _map_segment(folder: Path, entry: dict) -> Segment:
    name, count = entry["name"], entry["count"]

    def mapped(part: str) -> np.ndarray:
        return map_npy(folder / f"{name}.{part}.npy")

    ids, documents, columns = mapped("ids"), mapped("documents"), mapped("vectors")[:, :count]
    if not entry.get("grouped"):
        return Segment(name, ids, documents, columns)
    lists = InvertedLists(mapped("centroids"), mapped("offsets"))
    return Segment(name, ids, documents, columns, lists=lists, by_id=mapped("by_id"))


def map_npy(path: Path) -> np.ndarray:
    """A read-only, shared memory map of an .npy file, its page table filled at once (MAP_POPULATE).

    Without it every page a search touches first costs this process a page fault: a grouped
    segment's search touches thousands of scattered pages, and a new process paid tens of
    milliseconds a search for its first hundreds of searches. A plain ndarray, not np.memmap,
    whose Python-level __getitem__ cost a millisecond a search.
    """
    with open(path, "rb") as handle:
        major, _ = np.lib.format.read_magic(handle)
        header = np.lib.format.read_array_header_1_0 if major == 1 else np.lib.format.read_array_header_2_0
        shape, fortran_order, dtype = header(handle)
        offset = handle.tell()
        mapping = mmap.mmap(handle.fileno(), 0, flags=mmap.MAP_SHARED | mmap.MAP_POPULATE, prot=mmap.PROT_READ)
    count = int(np.prod(shape))
    array = np.frombuffer(mapping, dtype=dtype, count=count, offset=offset)
    return array.reshape(shape, order="F" if fortran_order else "C")


def remove_segment_files(folder: Path, name: str) -> None:
    for path in folder.glob(f"{name}.*"):
        path.unlink(missing_ok=True)


class SharedIndexFolder:
    """One model's folder of index files: read its current generation, or write the next one.

    The folder is named by the model and the database's lineage (see bump_version), so two
    databases on one machine (the development and the test database) never share files.
    """

    def __init__(self, model_id: int, version: str):
        self.model_id = model_id
        self.folder = index_root() / f"model-{model_id}-{lineage(version)}"

    def manifest(self) -> dict | None:
        try:
            return json.loads((self.folder / "manifest.json").read_text())
        except (FileNotFoundError, ValueError):
            return None

    def open(self, manifest: dict, mapped: list[Segment] = ()) -> VectorIndex:
        deleted = np.zeros(0, dtype=np.int64)
        if manifest.get("deleted"):
            deleted = np.load(self.folder / manifest["deleted"])
        already = {segment.name: segment for segment in mapped}
        segments = [
            open_segment(self.folder, entry, deleted, already.get(entry["name"])) for entry in manifest["segments"]
        ]
        return VectorIndex(self.model_id, manifest["version"], segments, deleted)

    @contextmanager
    def locked(self):
        """The model's write lock (one writer per machine; readers never take it)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        with open(self.folder / "lock", "w") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def update(self, current: VectorIndex | None) -> VectorIndex:
        """Bring the files up to the database's state; returns the new generation, opened."""
        version = current_version(self.model_id)  # read first: the files may be newer than it, never older
        live = _live_chunk_ids(self.model_id)
        if current is not None and current.segments and lineage(current.version) == lineage(version):
            indexed = current.live_ids()
            added = np.setdiff1d(live, indexed, assume_unique=True)
            # An id the files hold as deleted that is live again means a restored database: rebuild.
            if not np.isin(added, current.deleted).any():
                removed = np.setdiff1d(indexed, live, assume_unique=True)
                deleted = np.union1d(current.deleted, removed)
                segments = [*current.segments, *self._new_segments(added, current.dimensions)]
                return self._publish(version, *self._compact(segments, deleted))
        return self._publish(version, self._new_segments(live, None), np.zeros(0, dtype=np.int64))

    def _new_segments(self, ids: np.ndarray, dimensions: int | None) -> list[Segment]:
        if not len(ids):
            return []
        segment = _segment_from_rows(_chunk_rows(ids), dimensions, SegmentFiles(self.folder, len(ids)))
        return [self._grouped_if_large(segment)] if segment else []

    def _grouped_if_large(self, segment: Segment) -> Segment:
        """A new segment of at least SEARCH_INDEX_APPROXIMATE_FROM chunks, rewritten list by list
        (see inverted_lists.py); a smaller one as it is (exact)."""
        if segment.lists is not None or len(segment) < settings.SEARCH_INDEX_APPROXIMATE_FROM:
            return segment
        order, lists = group(segment.columns)
        out = SegmentFiles(self.folder, len(segment))
        out.columns(segment.columns.shape[0])
        for row in range(segment.columns.shape[0]):  # a row at a time: the segment need not fit in memory
            out.put_row(row, segment.columns[row][order])
        grouped = out.finish(segment.ids[order], segment.document_ids[order], len(segment), lists)
        remove_segment_files(self.folder, segment.name)  # never published
        return grouped

    def _compact(self, segments: list[Segment], deleted: np.ndarray) -> tuple[list[Segment], np.ndarray]:
        """Merge the small segments past MAX_SEGMENTS; rewrite all when many chunks are deleted."""
        total = sum(len(s) for s in segments)
        if total and len(deleted) > MAX_DELETED_SHARE * total:
            return [self._merge(segments, deleted)], np.zeros(0, dtype=np.int64)
        if len(segments) > MAX_SEGMENTS:
            base, tail = segments[0], segments[1:]
            return [base, self._merge(tail, deleted)], deleted[np.isin(deleted, base.ids)]
        return segments, deleted

    def _merge(self, segments: list[Segment], deleted: np.ndarray) -> Segment:
        """One segment of the chunks of `segments` not in `deleted` (copied from their files, not the database)."""
        alive = [~np.isin(s.ids, deleted) for s in segments]
        count = int(sum(mask.sum() for mask in alive))
        order = np.argsort(np.concatenate([s.ids[mask] for s, mask in zip(segments, alive)]), kind="stable")
        ids = np.concatenate([s.ids[mask] for s, mask in zip(segments, alive)])[order]
        documents = np.concatenate([s.document_ids[mask] for s, mask in zip(segments, alive)])[order]
        out = SegmentFiles(self.folder, max(count, 1))
        out.columns(segments[0].columns.shape[0])
        start = 0
        for segment, mask in zip(segments, alive):  # segments hold ascending, disjoint id ranges in practice
            block = segment.columns[:, mask]
            out.put_block(start, block)
            start += block.shape[1]
        if not np.array_equal(order, np.arange(count)):  # not in id order after all: reorder the written copy
            out._columns[:, :count] = out._columns[:, order]
        return self._grouped_if_large(out.finish(ids, documents, count))

    def _publish(self, version: str, segments: list[Segment], deleted: np.ndarray) -> VectorIndex:
        deleted_name = ""
        if len(deleted):
            deleted_name = f"deleted-{uuid.uuid4().hex[:12]}.npy"
            np.save(self.folder / deleted_name, deleted)
        manifest = {
            "version": version,
            "written_by": os.getpid(),  # which process brought the files up to date (tests, diagnostics)
            "segments": [s.entry() for s in segments],
            "deleted": deleted_name,
        }
        temporary = self.folder / f"manifest.{uuid.uuid4().hex[:8]}.tmp"
        temporary.write_text(json.dumps(manifest))
        os.replace(temporary, self.folder / "manifest.json")
        self._collect_garbage(manifest)
        return self.open(manifest, segments)

    def _collect_garbage(self, manifest: dict) -> None:
        keep = {entry["name"] for entry in manifest["segments"]} | {manifest["deleted"], "manifest.json", "lock"}
        cutoff = time.time() - GARBAGE_AGE_SECONDS
        for path in self.folder.iterdir():
            stem = path.name.split(".")[0]
            if path.name not in keep and stem not in keep and path.stat().st_mtime < cutoff:
                path.unlink(missing_ok=True)


# --- this process's view ---------------------------------------------------------------------
_indexes: dict[int, VectorIndex] = {}
_lock = threading.Lock()


def index_for(model_id: int, version: str | None = None) -> VectorIndex:
    """The current index of one embedding model, from the shared files (updating them if behind).

    `version` is the model's SearchIndexVersion token when the caller has just
    read it. Inside a transaction the rows seen may still be rolled back — and a
    rolled-back id can be handed out again (SQLite) — so such a read builds a
    private index instead of touching the shared files, which therefore only
    ever hold committed rows and can be refreshed by id difference.
    """
    if transaction.get_connection().in_atomic_block:
        return build_in_memory(model_id)
    version = current_version(model_id) if version is None else version
    if not version:  # no chunk of this model was ever stored through bump_version: nothing to share
        return build_in_memory(model_id)
    index = _indexes.get(model_id)
    if index is not None and index.version == version:
        return index
    with _lock:
        index = _indexes[model_id] = _open_current(model_id, version)
        return index


def _open_current(model_id: int, version: str) -> VectorIndex:
    shared = SharedIndexFolder(model_id, version)
    previous = _indexes.get(model_id)
    mapped = previous.segments if previous is not None else []
    manifest = shared.manifest()
    if manifest is not None and manifest["version"] == version:
        try:
            return shared.open(manifest, mapped)
        except FileNotFoundError:
            pass  # a writer replaced this generation and removed its files meanwhile: read under the lock
    with shared.locked():
        manifest = shared.manifest()  # another process may have brought it up to date meanwhile
        if manifest is not None and manifest["version"] == version:
            return shared.open(manifest, mapped)
        return shared.update(shared.open(manifest, mapped) if manifest else None)
