"""The vector index files that every process memory-maps follow the library's changes across processes.

A real worker embeds the documents, another Python process (index_reader.py)
searches with its own long-lived view of the files, and this process searches
too; after every change their answers must equal an exact ranking read
straight from the database.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from django.core.files.base import ContentFile

from llm_manager.services import embed_texts
from solution_library.models import Chunk, Document, DocumentType, ReviewStatus
from solution_library.services import search_index
from solution_library.services.documents import content_hash, create_document_job
from solution_library.services.search import search_passages, vector_ranking
from solution_library.tasks import dispatch_document_job
from solution_library.testing import add_library_document
from tests.workers import ROOT, database_url_for_current_connection, wait_for

BACKUPS = "Backups are copied nightly to a second region and kept for 35 days. Restores are tested every quarter."
ACCESS = "Administrators sign in with single sign-on and hardware security keys. Access is reviewed monthly."
ENCRYPTION = "Customer data is encrypted at rest with AES-256 and keys are rotated by the key management service."
ACCESS_V2 = "Staff accounts are provisioned through the identity provider and removed within one day of leaving."


class Reader:
    """index_reader.py in its own process: one query in, one JSON answer out."""

    def __init__(self):
        env = {**os.environ, "DATABASE_URL": database_url_for_current_connection()}
        self.proc = subprocess.Popen(
            [sys.executable, str(ROOT / "tests" / "solution_library" / "index_reader.py")],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def ask(self, query: str) -> dict:
        self.proc.stdin.write(query + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, f"the reader process exited with {self.proc.poll()}"
        return json.loads(line)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(20)


@pytest.fixture(params=[50_000, 1], ids=["exact", "every-segment-grouped"])
def approximate_from(request, settings):
    """Segments from this many chunks are written in inverted lists: 1 puts every segment of these
    small libraries there (and with so few lists a search probes all, so results stay exact)."""
    settings.SEARCH_INDEX_APPROXIMATE_FROM = request.param
    os.environ["SPELUNKER_SEARCH_INDEX_APPROXIMATE_FROM"] = str(request.param)  # for the reader process
    yield request.param
    del os.environ["SPELUNKER_SEARCH_INDEX_APPROXIMATE_FROM"]


def grouped_as_configured(index: search_index.VectorIndex, approximate_from: int) -> bool:
    return all((segment.lists is not None) == (len(segment) >= approximate_from) for segment in index.segments)


@pytest.fixture
def reader(live_worker, offline_embedding, tmp_path, settings, approximate_from):
    settings.SEARCH_INDEX_DIR = tmp_path / "index"
    os.environ["SPELUNKER_SEARCH_INDEX_DIR"] = str(settings.SEARCH_INDEX_DIR)  # for the reader process
    process = Reader()
    yield process
    process.close()
    del os.environ["SPELUNKER_SEARCH_INDEX_DIR"]


def upload(title: str, text: str) -> Document:
    """Store a document as an upload does; the worker embeds it (post_save → on_commit → RabbitMQ)."""
    data = text.encode()
    document = Document(title=title, content_hash=content_hash(data), file_type=DocumentType.TEXT, size_bytes=len(data))
    document.file.save("document.txt", ContentFile(data), save=False)
    document.save()
    return wait_until_ready(document)


def wait_until_ready(document: Document, old_chunks: set[int] = frozenset()) -> Document:
    def ready():
        document.refresh_from_db()
        chunks = chunk_ids(document)
        return document.review_status == ReviewStatus.PENDING_REVIEW and chunks and not chunks & old_chunks

    wait_for(ready, 60, message=f"the worker to embed {document.title}")
    return document


def chunk_ids(document: Document) -> set[int]:
    return set(Chunk.objects.filter(document=document).values_list("id", flat=True))


def exact_scores(query: str, model) -> dict[int, float]:
    """Every chunk's cosine from an index read straight from the database, no files involved."""
    vector = np.asarray(embed_texts([query], model)[0])
    return dict(search_index.build_in_memory(model.pk).top(vector, 10_000))


def same_scores(ranking: list[tuple[int, float]], exact: dict[int, float]) -> bool:
    """The same chunks with the same cosines (to float32 rounding: block shapes change summation order)."""
    return dict(ranking).keys() == exact.keys() and all(abs(score - exact[c]) < 1e-5 for c, score in ranking)


def test_every_process_follows_adds_deletes_and_re_embeds(reader, offline_embedding, settings, approximate_from):
    backups, access = upload("Backup policy", BACKUPS), upload("Access policy", ACCESS)

    answer = reader.ask("Where are backups copied and how long are they kept?")
    assert answer["passages"][0] in chunk_ids(backups)
    assert answer["written_by"] == answer["pid"]  # the reader found no files and wrote them
    # This process opens the reader's files instead of building its own index.
    assert search_passages("Where are backups copied?")[0].chunk_id in chunk_ids(backups)
    folder = search_index.SharedIndexFolder(offline_embedding.pk, search_index.current_version(offline_embedding.pk))
    assert folder.manifest()["written_by"] == answer["pid"]

    encryption = upload("Encryption policy", ENCRYPTION)  # added by the worker
    answer = reader.ask("Is customer data encrypted at rest?")
    assert answer["passages"][0] in chunk_ids(encryption)

    gone = chunk_ids(backups)
    backups.delete()  # deleted by this process
    answer = reader.ask("Where are backups copied and how long are they kept?")
    assert not gone & set(answer["passages"] + answer["vector"])

    old = chunk_ids(access)  # re-embedded by the worker: new text, new chunk ids
    data = ACCESS_V2.encode()
    access.file.save("document.txt", ContentFile(data), save=False)
    Document.objects.filter(pk=access.pk).update(file=access.file.name, content_hash=content_hash(data))
    create_document_job(access, dispatch=dispatch_document_job)
    wait_until_ready(access, old_chunks=old)
    answer = reader.ask("How are staff accounts provisioned and removed?")
    assert answer["passages"][0] in chunk_ids(access)
    assert not old & set(answer["passages"] + answer["vector"])

    for query in ("backups region", "hardware keys", "encrypted at rest", "identity provider accounts"):
        exact = exact_scores(query, offline_embedding)  # every chunk: the library is smaller than 20 chunks
        assert set(reader.ask(query)["vector"]) == exact.keys(), query
        assert same_scores(vector_ranking(query, offline_embedding, 20), exact), query
    assert grouped_as_configured(search_index.index_for(offline_embedding.pk), approximate_from)


def test_segments_are_merged_and_deletions_compacted_without_changing_results(
    transactional_db, offline_embedding, settings, tmp_path, approximate_from
):
    settings.SEARCH_INDEX_DIR = tmp_path / "index"
    model = offline_embedding
    documents, queries = [], ["fact about backups", "hardware keys", "topic 7 subsystem", "encryption of data"]

    def check() -> search_index.VectorIndex:
        index = search_index.index_for(model.pk)
        for query in queries:
            assert same_scores(vector_ranking(query, model, 10_000, index=index), exact_scores(query, model)), query
            some = [document.pk for document in documents[1::3]]  # a filter by document ids
            vector = np.asarray(embed_texts([query], model)[0])
            exact = search_index.build_in_memory(model.pk).top(vector, 10_000, some)
            assert same_scores(index.top(vector, 10_000, some), dict(exact)), query
        assert grouped_as_configured(index, approximate_from)
        return index

    for n in range(search_index.MAX_SEGMENTS + 1):  # one change, one new segment, each time
        documents.append(
            add_library_document(f"Topic {n}", f"Fact about topic {n}: " + f"{BACKUPS} {ACCESS} " * (n % 3))
        )
        assert len(check().segments) <= search_index.MAX_SEGMENTS + 1
    assert len(check().segments) == 2  # the base and the merged small ones

    for document in documents[: len(documents) // 2]:
        document.delete()
    index = check()
    assert len(index.segments) == 1 and not len(index.deleted)  # rewritten without the deleted chunks
