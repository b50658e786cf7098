"""Search latency over a large library: p50 and p99 of search_passages().

    set -a; source .run/<dir>/env; set +a
    .venv/bin/python bench/bench_search.py [--chunks 100000] [--queries 300]

Fills the library with `--chunks` passages of about 1,000 characters made of
real sentences from the evaluation set's manuals (so the full-text index sees
a real vocabulary: common words in many passages, rare ones in few): each
document covers a stretch of one manual, mostly in order, with some sentences
drawn from anywhere;
each passage's embedding is the normalised sum of the offline model's
embeddings of its sentences — the neighbourhoods of real embeddings, which an
approximate index depends on (random vectors have none), without the 50
minutes that embedding a million passages one by one would take. Then it times whole
search_passages() calls with the evaluation set's questionnaire questions: the
query embedding, the index version check, the full-text ranking (FTS5 bm25 or
tsvector ts_rank_cd over all matching chunks), the matrix product, the fusion
and the passage fetch; and the full-text ranking alone. Each process caches how
many chunks hold a query word until the chunks change, so the first time a
question's words are seen is reported on its own. The first call, which
opens the index files, is reported on its own; so are the time to build the
index files from the database, the first search after one more document, and
each searching process's memory.

Recall@10: for the same questions, the index's 10 nearest chunks against an
exact ranking of the same vectors (every chunk scored, no inverted lists);
and the same for dense queries (a neural embedding model's kind: every
dimension non-zero), here passages made like the library's but never stored,
with noise added — no query is a stored chunk. Recall only means something
where the index is approximate (segments of at least
SEARCH_INDEX_APPROXIMATE_FROM chunks, stored as inverted lists): the JSON says
how many chunks are (`approximate_chunks`); below that, search is exact.

--faiss: faiss-cpu's IndexIVFFlat over the same live vectors, the anchor (make bench passes
it): its recall@10 against the same exact search and its p50, query by query beside our index,
for queries that are not stored chunks (the questions; 100 passages made like the library's
and never stored), at two probe shares. Building it copies the vectors into memory (1.5 GB at a
million chunks of 384 dimensions) and trains on 40 vectors per list.
"""

import argparse
import random
import time

import numpy as np
from _setup import percentile, setup_django, use_model

CHUNKS_PER_DOCUMENT = 100
# As many as search_passages() asks the vector index for (search.CANDIDATES).
CANDIDATES_FOR_TIMING = 50
BATCH = 2000


# Share of a passage's sentences that follow on in its manual; the rest are drawn from anywhere,
# so that a million passages are not copies of the pool's few thousand runs of sentences.
KEPT_SHARE = 0.7


def passage(rng: random.Random, pool: list[str], start: int) -> tuple[str, list[int]]:
    """About 1,000 characters of the pool's sentences from `start` on, and which ones (their indexes)."""
    picked, length = [], 0
    while length < 900:
        following = (start + len(picked)) % len(pool)
        picked.append(following if rng.random() < KEPT_SHARE else rng.randrange(len(pool)))
        length += len(pool[picked[-1]]) + 1
    return " ".join(pool[i] for i in picked)[:1000], picked


def sentence_embeddings(pool: list[str], dims: int) -> np.ndarray:
    """The offline model's embedding of every pool sentence (one row each)."""
    from llm_manager.providers.offline import hashed_embedding

    return np.asarray([hashed_embedding(s, dims) for s in pool], dtype=np.float32)


def passage_embedding(sentence_vectors: np.ndarray, picked: list[int]) -> np.ndarray:
    """The normalised sum of the passage's sentence embeddings: close to what the offline model
    gives the passage itself (which costs 3 ms a passage, 50 minutes at a million), and with the
    same neighbourhoods — passages that share sentences and words are near each other."""
    vector = sentence_vectors[picked].sum(axis=0)
    return vector / np.linalg.norm(vector)


def fill_library(total_chunks: int, model, prefix: str = "bench-search-", offset: int = 0) -> None:
    """Add `total_chunks` chunks in documents of CHUNKS_PER_DOCUMENT, numbered from `offset` (chunks already there)."""
    from django.core.files.base import ContentFile
    from django.db import transaction

    from evaluation.dataset import document_sentences
    from solution_library.models import Chunk, Document, ReviewStatus
    from solution_library.services.search_index import bump_version

    rng, pool = random.Random(7), document_sentences()
    sentence_vectors = sentence_embeddings(pool, model.embedding_dimensions or 384)
    for first in range(offset, offset + total_chunks, CHUNKS_PER_DOCUMENT):
        with transaction.atomic():
            document = Document(
                title=f"{prefix}{first // CHUNKS_PER_DOCUMENT}",
                content_hash=f"{prefix}{first}",
                file_type="text",
                size_bytes=0,
                review_status=ReviewStatus.PENDING_REVIEW,
                chunk_count=CHUNKS_PER_DOCUMENT,
                embedding_model=model,
            )
            document.skip_auto_embed = True
            document.file.save("bench.txt", ContentFile(b"bench"), save=False)
            document.save()
            # A document covers one stretch of a manual, as a real document's chunks follow each other.
            start = rng.randrange(len(pool))
            texts, picks = zip(*(passage(rng, pool, start + 3 * i) for i in range(CHUNKS_PER_DOCUMENT)))
            Chunk.objects.bulk_create(
                [
                    Chunk(
                        document=document,
                        position=i,
                        title=document.title,
                        text=text,
                        embedding=passage_embedding(sentence_vectors, picked).tobytes(),
                        embedding_model=model,
                    )
                    for i, (text, picked) in enumerate(zip(texts, picks))
                ],
                batch_size=BATCH,
            )
            bump_version(model.pk)


def memory_mb() -> dict:
    """This process's resident memory: RSS counts the shared index pages it touched, PSS divides
    them among the processes that map them, own is its anonymous memory (heap: what no other
    process can share — an in-process copy of the index would be here)."""
    fields = {}
    for line in open("/proc/self/smaps_rollup"):
        parts = line.split()
        if len(parts) == 3 and parts[2] == "kB":
            fields[parts[0].rstrip(":")] = int(parts[1]) / 1024
    return {
        "rss": round(fields["Rss"]),
        "pss": round(fields["Pss"]),
        "own": round(fields["Anonymous"]),
    }


def probe(queries: int) -> dict:
    """One new process: its first search (opens the shared files), then p50 of more, and its memory."""
    import json
    import os

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "spelunker.settings")
    import django

    django.setup()
    from evaluation.dataset import load_questions
    from solution_library.services.search import search_passages

    questions = [q.text for q in load_questions()]
    started = time.perf_counter()
    search_passages(questions[0])
    first = (time.perf_counter() - started) * 1000
    for question in questions:  # their word counts, as a long-running process has them
        search_passages(question)
    latencies = []
    for i in range(queries):
        started = time.perf_counter()
        search_passages(questions[i % len(questions)])
        latencies.append((time.perf_counter() - started) * 1000)
    result = {"first_ms": round(first, 1), "p50_ms": round(percentile(latencies, 50), 1), **memory_mb()}
    print(json.dumps(result), flush=True)
    return result


def run_probes(count: int, queries: int) -> list[dict]:
    """`count` searching processes at once, each with its own view of the shared index."""
    import json
    import subprocess
    import sys

    procs = [
        subprocess.Popen(
            [sys.executable, __file__, "--probe", "--queries", str(queries)], stdout=subprocess.PIPE, text=True
        )
        for _ in range(count)
    ]
    return [json.loads(proc.communicate()[0].strip().splitlines()[-1]) for proc in procs]


def exact_twin(index):
    """The same segments and deletions, every chunk scored: the exact search the index approximates."""
    from dataclasses import replace

    from solution_library.services.search_index import VectorIndex

    segments = [replace(segment, lists=None, by_id=None) for segment in index.segments]
    return VectorIndex(index.model_id, index.version, segments, index.deleted)


def against_exact(index, vectors: np.ndarray, others: dict | None = None) -> dict:
    """Recall@10 of the index against exact search of the same vectors (inverted_lists.recall), and
    both one's scoring time, p50, query by query in turn (the machine's load falls on both alike).
    `others`: more searchers (name: (vector, k) -> [(chunk id, score)]) measured the same way."""
    from solution_library.services.inverted_lists import recall

    searchers = {"exact": exact_twin(index).top, "index": index.top, **(others or {})}
    shares, timings = {name: [] for name in searchers if name != "exact"}, {name: [] for name in searchers}
    for vector in vectors:
        found = {}
        for name, search in searchers.items():
            started = time.perf_counter()
            found[name] = search(vector, CANDIDATES_FOR_TIMING)
            timings[name].append((time.perf_counter() - started) * 1000)
        for name in shares:
            shares[name].append(recall(found["exact"][:10], found[name][:10]))
    return {
        "recall": float(np.mean(shares["index"])),
        **{f"{name}_recall": float(np.mean(s)) for name, s in shares.items() if name != "index"},
        **{f"{name}_p50_ms": percentile(t, 50) for name, t in timings.items()},
    }


def dense_queries(model, count: int) -> np.ndarray:
    """Unit vectors with every dimension non-zero (a neural embedding model's kind) that are not stored chunks:
    passages never stored (held_out_passages), plus noise."""
    held_out = held_out_passages(model, count)
    noise = (
        np.random.default_rng(5).standard_normal(held_out.shape).astype(np.float32) * 0.3 / np.sqrt(held_out.shape[1])
    )
    noisy = held_out + noise
    return noisy / np.linalg.norm(noisy, axis=1, keepdims=True)


def held_out_passages(model, count: int) -> np.ndarray:
    """Embeddings of `count` passages made as fill_library makes them but never stored: queries
    that are not chunks of the index, with the neighbourhoods of real passages."""
    from evaluation.dataset import document_sentences

    rng, pool = random.Random(11), document_sentences()  # not fill_library's seed: other passages
    sentence_vectors = sentence_embeddings(pool, model.embedding_dimensions or 384)
    return np.asarray(
        [passage_embedding(sentence_vectors, passage(rng, pool, rng.randrange(len(pool)))[1]) for _ in range(count)],
        dtype=np.float32,
    )


# faiss's IVF, the anchor: faiss's own guideline of 4·√n lists, each query one call on one thread
# (search_passages asks one query at a time, and our index scores on one thread too), probing
# these shares of the lists (a small sweep: faiss's recall and time are set by nprobe).
FAISS_LISTS_PER_ROOT = 4
FAISS_PROBE_SHARES = (0.01, 0.03)
FAISS_TRAIN_PER_LIST = 40  # faiss warns below 39 training vectors per list


class FaissAnchor:
    """faiss-cpu's IndexIVFFlat (inner product: cosine on unit vectors) over the index's live chunks."""

    def __init__(self, index):
        import faiss

        faiss.omp_set_num_threads(1)
        ids, vectors = live_vectors(index)
        self.ids, dimensions = ids, vectors.shape[1]
        self.lists = max(1, min(len(ids) // FAISS_TRAIN_PER_LIST, round(FAISS_LISTS_PER_ROOT * np.sqrt(len(ids)))))
        started = time.perf_counter()
        self.ivf = faiss.IndexIVFFlat(faiss.IndexFlatIP(dimensions), dimensions, self.lists, faiss.METRIC_INNER_PRODUCT)
        sample = np.random.default_rng(9).choice(
            len(ids), min(len(ids), FAISS_TRAIN_PER_LIST * self.lists), replace=False
        )
        self.ivf.train(vectors[np.sort(sample)])
        self.ivf.add(vectors)
        self.build_s = time.perf_counter() - started
        self.nprobe = 1

    def probing(self, share: float) -> "FaissAnchor":
        self.nprobe = self.ivf.nprobe = max(1, round(share * self.lists))
        return self

    def top(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        scores, positions = self.ivf.search(query.reshape(1, -1), k)
        return [(int(self.ids[p]), float(s)) for p, s in zip(positions[0], scores[0]) if p >= 0]


def live_vectors(index) -> tuple[np.ndarray, np.ndarray]:
    """(chunk ids, chunks × dimensions) of every live chunk of the index, in one contiguous array (faiss's input)."""
    count, at = len(index), 0
    ids, vectors = np.empty(count, dtype=np.int64), np.empty((count, index.dimensions), dtype=np.float32)
    for segment in index.segments:
        live = np.ones(len(segment), dtype=bool) if segment.alive is None else segment.alive
        for start in range(0, len(segment), BATCH * 10):  # a block at a time: the columns are a mapped file
            kept = live[start : start + BATCH * 10]
            block = np.asarray(segment.columns[:, start : start + BATCH * 10])[:, kept].T
            ids[at : at + len(block)] = segment.ids[start : start + BATCH * 10][kept]
            vectors[at : at + len(block)] = block
            at += len(block)
    return ids, vectors


def faiss_figures(index, query_sets: dict[str, np.ndarray]) -> dict:
    """faiss beside our index and exact search, on the same queries, for each probe share."""
    anchor = FaissAnchor(index)
    figures = {"lists": anchor.lists, "build_s": anchor.build_s, "runs": []}
    for share in FAISS_PROBE_SHARES:
        anchor.probing(share)
        run = {"nprobe": anchor.nprobe}
        for name, vectors in query_sets.items():
            run[name] = against_exact(index, vectors, {"faiss": anchor.top})
        figures["runs"].append(run)
    return figures


def settle_tables(connection) -> None:
    """VACUUM ANALYZE the library's tables, as autovacuum does within a minute of a bulk load or delete.

    Measured straight after the fill, the planner had no statistics for the new rows, and in `make bench`
    the chunks the batch benchmark had just deleted (100,000) were still in the full-text index: 10,000
    chunks then searched at p50 36 ms against 10 ms once settled. The figures are the library's steady state.
    """
    tables = ("solution_library_chunk", "solution_library_document", "solution_library_chunkwordcount")
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(f"VACUUM ANALYZE {', '.join(tables)}")
        else:
            cursor.execute("ANALYZE")


def build_from_database(model_id: int) -> float:
    """Seconds to write this model's index files anew from the database (once per machine and database)."""
    from solution_library.services.search_index import SharedIndexFolder, current_version

    shared = SharedIndexFolder(model_id, current_version(model_id))
    started = time.perf_counter()
    with shared.locked():
        shared.update(None)
    return time.perf_counter() - started


def clear_library() -> None:
    from solution_library.models import Document

    Document.objects.filter(title__startswith="bench-search-").delete()  # -change- documents too


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--keep", action="store_true", help="keep the generated library for another run")
    parser.add_argument(
        "--processes", type=int, default=3, help="searching processes started at once to measure sharing"
    )
    parser.add_argument("--probe", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--json", help="also write the figures to this file (make bench reads it)")
    parser.add_argument(
        "--faiss", action="store_true", help="also measure faiss-cpu's IVF over the same vectors (the anchor)"
    )
    args = parser.parse_args()
    if args.probe:
        import sys

        sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent.parent))
        probe(args.queries)
        return
    setup_django()
    from django.db import connection

    from evaluation.dataset import load_questions
    from llm_manager.services import embed_texts
    from solution_library.models import Chunk
    from solution_library.services.lexical import affordable_terms, lexical_ranking, questionnaire_terms
    from solution_library.services.search import CANDIDATES, search_passages
    from solution_library.services.search_index import index_for

    # The offline model, whatever an earlier benchmark left as the default: the library's vectors are its own.
    model = use_model("offline")
    existing = Chunk.objects.filter(embedding_model=model).count()
    if existing < args.chunks:
        started = time.perf_counter()
        fill_library(args.chunks - existing, model, offset=existing)
        print(f"filled {args.chunks - existing} chunks in {time.perf_counter() - started:.0f} s")
    settle_tables(connection)
    total = Chunk.objects.filter(embedding_model=model).count()

    rng = random.Random(3)
    questions = [q.text for q in load_questions()]
    queries = [rng.choice(questions) for _ in range(args.queries)]
    build = build_from_database(model.pk)
    started = time.perf_counter()
    search_passages("warm up: which region holds the backup replica?")
    cold = time.perf_counter() - started

    latencies, first_asked, seen = [], [], set()
    for query in queries:
        started = time.perf_counter()
        passages = search_passages(query, limit=5)
        latencies.append((time.perf_counter() - started) * 1000)
        if query not in seen:  # its words' chunk counts were not cached yet
            seen.add(query)
            first_asked.append(latencies[-1])
        assert passages, query
    repeated = []  # the same questions asked again: their word counts cached, as in a long-running process
    for query in seen:
        started = time.perf_counter()
        search_passages(query, limit=5)
        repeated.append((time.perf_counter() - started) * 1000)
    lexical = []
    for query in queries:
        started = time.perf_counter()
        lexical_ranking(affordable_terms(questionnaire_terms(query), model.pk), CANDIDATES, model.pk)
        lexical.append((time.perf_counter() - started) * 1000)
    index = index_for(model.pk)
    dense_vectors = dense_queries(model, args.queries)
    dense = []
    for vector in dense_vectors:
        started = time.perf_counter()
        index.top(vector, 20)
        dense.append((time.perf_counter() - started) * 1000)
    sparse_check = against_exact(index, np.asarray(embed_texts(questions, model), dtype=np.float32))
    dense_check = against_exact(index, dense_vectors[:100])
    recall, dense_recall = sparse_check["recall"], dense_check["recall"]
    anchor = None
    if args.faiss:  # queries that are not stored chunks: the questions, and passages never stored
        question_vectors = np.asarray(embed_texts(questions, model), dtype=np.float32)
        anchor = faiss_figures(index, {"questions": question_vectors, "held_out": held_out_passages(model, 100)})
    from solution_library.models import Document

    Document.objects.filter(title__startswith="bench-search-change-").delete()  # an earlier --keep run's
    fill_library(CHUNKS_PER_DOCUMENT, model, prefix="bench-search-change-")  # one more document: a change
    started = time.perf_counter()
    search_passages("which region holds the backup replica?")
    after_change = time.perf_counter() - started
    own_memory = memory_mb()
    probes = run_probes(args.processes, 100) if args.processes else []

    print(f"database: {connection.vendor}; {total} chunks of model {model.name}")
    grouped = sum(len(s) for s in index.segments if s.lists is not None)
    print(
        f"index: {len(index.segments)} segments, {grouped} chunks in inverted lists; "
        f"built from the database in {build:.1f} s"
    )
    print(
        f"recall@10 against exact search of the same vectors: {recall:.3f} ({len(questions)} questionnaire questions), "
        f"{dense_recall:.3f} (100 dense queries)  (aim >= 0.95)"
    )
    for kind, check in (("questionnaire questions", sparse_check), ("dense queries", dense_check)):
        print(
            f"vector scoring alone, {kind}, the index vs exact search of the same vectors in turn: "
            f"p50 {check['index_p50_ms']:.1f} vs {check['exact_p50_ms']:.1f} ms"
        )
    if anchor:
        print(
            f"faiss IndexIVFFlat, {anchor['lists']} lists, built in {anchor['build_s']:.1f} s (one thread); "
            "recall@10 against exact / vector scoring p50, ours vs faiss, query by query in turn:"
        )
        for run in anchor["runs"]:
            print(
                f"  nprobe {run['nprobe']}: "
                + "; ".join(
                    f"{kind}: ours {c['recall']:.3f} / {c['index_p50_ms']:.1f} ms, "
                    f"faiss {c['faiss_recall']:.3f} / {c['faiss_p50_ms']:.1f} ms, exact {c['exact_p50_ms']:.1f} ms"
                    for kind, c in (
                        ("questionnaire questions", run["questions"]),
                        ("100 passages never stored", run["held_out"]),
                    )
                )
            )
    print(f"first search (opens the shared index files): {cold * 1000:.0f} ms")
    print(
        f"first search after one more document ({CHUNKS_PER_DOCUMENT} chunks; this process updates the files): "
        f"{after_change * 1000:.0f} ms"
    )
    print(
        f"this process: RSS {own_memory['rss']} MB, PSS {own_memory['pss']} MB, own (anonymous) {own_memory['own']} MB"
    )
    for n, found in enumerate(probes, start=1):
        print(
            f"searching process {n} of {len(probes)} (started together): first search {found['first_ms']} ms, "
            f"p50 {found['p50_ms']} ms; RSS {found['rss']} MB, PSS {found['pss']} MB, own (anonymous) {found['own']} MB"
        )
    print(
        f"search_passages over {args.queries} queries: p50 {percentile(latencies, 50):.1f} ms, "
        f"p99 {percentile(latencies, 99):.1f} ms  (aim p50 <= 10 ms)"
    )
    print(
        f"  of which the first time each question is asked ({len(first_asked)}; word counts not yet cached): "
        f"p50 {percentile(first_asked, 50):.1f} ms, p99 {percentile(first_asked, 99):.1f} ms"
    )
    print(
        f"  the same {len(repeated)} questions asked again: p50 {percentile(repeated, 50):.1f} ms, "
        f"p99 {percentile(repeated, 99):.1f} ms"
    )
    print(
        f"full-text ranking alone (as search runs it): p50 {percentile(lexical, 50):.1f} ms, p99 {percentile(lexical, 99):.1f} ms"
    )
    print(
        f"index scoring alone with a dense query (what a neural embedding model costs; not a stored chunk): "
        f"p50 {percentile(dense, 50):.1f} ms, p99 {percentile(dense, 99):.1f} ms"
    )
    if args.json:
        import json

        figures = {
            "database": connection.vendor,
            "chunks": total,
            "cold_ms": cold * 1000,
            "after_change_ms": after_change * 1000,
            "p50_ms": percentile(latencies, 50),
            "p99_ms": percentile(latencies, 99),
            "first_asked_p50_ms": percentile(first_asked, 50),
            "repeated_p50_ms": percentile(repeated, 50),
            "lexical_p50_ms": percentile(lexical, 50),
            "dense_p50_ms": percentile(dense, 50),
            "memory": own_memory,
            "processes": probes,
            "recall_at_10": recall,
            "dense_recall_at_10": dense_recall,
            "build_s": build,
            "approximate_chunks": grouped,
            "against_exact": {"questions": sparse_check, "dense": dense_check},
            "faiss": anchor,
        }
        with open(args.json, "w") as out:
            json.dump(figures, out, indent=1)
    if not args.keep:
        clear_library()


if __name__ == "__main__":
    main()
