"""Documentation-source sync against a real loopback website, through real workers."""

import socket
import threading
import time

import pytest
from django.db import connection, transaction

from solution_library.models import Chunk, Document, DocumentationSource, DocumentJob, ReviewStatus, SyncJob
from solution_library.services.documents import delete_document
from solution_library.tasks import sync_documentation_source
from solution_library.testing import add_library_document
from tests.workers import wait_for

from .website import Website

pytestmark = pytest.mark.integration

LOCK_TEST_QUEUE = "solution_library_lock_test"


@pytest.fixture
def website():
    with Website() as site:
        yield site


def docs_site(site: Website, pages: int = 4) -> list[str]:
    """An index page linking to `pages` pages (and to another host, which is not followed)."""
    paths = [f"/docs/page-{i}" for i in range(pages)]
    site.page("/", "Docs home", ["Welcome to the product documentation."], [*paths, "http://example.invalid/x"])
    for i, path in enumerate(paths):
        site.page(path, f"Page {i}", [f"Page {i} explains feature {i} in detail.", f"Feature {i} needs setting {i}."])
    return paths


def make_source(site: Website, start_path: str = "/", page_limit: int = 50) -> DocumentationSource:
    return DocumentationSource.objects.create(
        name=f"Docs {site.host}", start_url=site.url(start_path), allowed_host=site.host, page_limit=page_limit
    )


def sync_via_page(client, source) -> SyncJob:
    response = client.post(f"/library/sources/{source.pk}/sync/")
    assert response.status_code == 302
    job = SyncJob.objects.filter(source=source).order_by("-pk").first()
    assert response["Location"] == f"/library/sync-jobs/{job.pk}/"
    wait_for(lambda: not SyncJob.objects.get(pk=job.pk).is_active, 60, message="sync job to finish")
    job.refresh_from_db()
    assert job.status == SyncJob.STATUS_COMPLETED, job.message
    return job


def counts(job: SyncJob) -> dict:
    return {
        "created": job.documents_created,
        "updated": job.documents_updated,
        "skipped": job.documents_skipped,
        "failed": job.documents_failed,
        "removed": job.documents_removed,
    }


def wait_until_source_ready(source):
    wait_for(
        lambda: not Document.objects.filter(source=source).exclude(review_status=ReviewStatus.PENDING_REVIEW).exists(),
        60,
        message="synced documents to be embedded",
    )


def test_crawl_sync_creates_then_updates_skips_and_removes(live_worker, offline_embedding, staff_client, website):
    paths = docs_site(website, pages=4)
    source = make_source(website)

    first = sync_via_page(staff_client, source)
    assert counts(first) == {"created": 5, "updated": 0, "skipped": 0, "failed": 0, "removed": 0}
    assert website.hits("/x") == 0
    wait_until_source_ready(source)
    untouched = Document.objects.get(source=source, source_url=website.url(paths[0]))
    untouched_chunks = list(untouched.chunks.values_list("id", flat=True))

    website.page(paths[1], "Page 1", ["Page 1 now describes the new billing export."])
    del website.pages[paths[3]]  # still linked from the index, but gone (404)
    second = sync_via_page(staff_client, source)

    assert counts(second) == {"created": 0, "updated": 1, "skipped": 3, "failed": 0, "removed": 1}
    assert not Document.objects.filter(source=source, source_url=website.url(paths[3])).exists()
    wait_until_source_ready(source)
    changed = Document.objects.get(source=source, source_url=website.url(paths[1]))
    assert "billing export" in Chunk.objects.get(document=changed).text
    # Only what changed was embedded again: one job per request, the page's creation, then its change.
    assert list(untouched.chunks.values_list("id", flat=True)) == untouched_chunks
    assert (untouched.jobs.count(), changed.jobs.count()) == (1, 2)
    jobs = DocumentJob.objects.filter(document__source=source)
    wait_for(lambda: not jobs.filter(status="processing").exists(), 30, message="the page jobs to finish")
    assert set(jobs.values_list("status", flat=True)) == {"completed"}
    status = staff_client.get(f"/library/sync-jobs/{second.pk}/status/").json()
    assert (status["updated"], status["skipped"], status["removed"]) == (1, 3, 1)


def test_sitemap_sync_counts(live_worker, offline_embedding, staff_client, website):
    paths = docs_site(website, pages=3)
    website.sitemap_paths = paths
    source = make_source(website, "/sitemap.xml")
    assert counts(sync_via_page(staff_client, source)) == {
        "created": 3,
        "updated": 0,
        "skipped": 0,
        "failed": 0,
        "removed": 0,
    }

    website.page(paths[0], "Page 0", ["Rewritten page zero."])
    website.page("/docs/new", "New page", ["A brand new page about exports."])
    website.sitemap_paths = [paths[0], paths[1], "/docs/new"]
    assert counts(sync_via_page(staff_client, source)) == {
        "created": 1,
        "updated": 1,
        "skipped": 1,
        "failed": 0,
        "removed": 1,
    }
    assert Document.objects.filter(source=source).count() == 3


def test_a_second_sync_request_while_one_is_active_is_refused(staff_client, website, transactional_db):
    source = make_source(website)
    SyncJob.objects.create(source=source, status=SyncJob.STATUS_PROCESSING)
    response = staff_client.post(f"/library/sources/{source.pk}/sync/", follow=True)
    assert b"already running" in response.content
    assert SyncJob.objects.filter(source=source).count() == 1


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("memcached", ["up", "down"])
def test_two_concurrent_syncs_of_one_source_never_both_run(memcached, make_worker, offline_embedding, website):
    env = {} if memcached == "up" else {"KVDB_LOCATION": f"127.0.0.1:{closed_port()}"}
    make_worker(queues=LOCK_TEST_QUEUE, concurrency=2, env=env)
    paths = docs_site(website, pages=5)
    website.latency = 0.15  # long enough for the two deliveries to overlap
    source = make_source(website)
    job = SyncJob.objects.create(source=source)

    # The same job delivered twice at once (e.g. a duplicate publish): two task ids.
    results = [
        sync_documentation_source.apply_async(
            kwargs={"source_id": source.pk, "user_id": None, "job_id": job.pk}, queue=LOCK_TEST_QUEUE
        )
        for _ in range(2)
    ]
    outcomes = sorted((r.get(timeout=60) for r in results), key=lambda r: r.get("skipped", False))

    assert outcomes[0]["success"] is True and outcomes[0]["created"] == 6
    assert outcomes[1] == {
        "success": False,
        "job_id": job.pk,
        "skipped": True,
        "error": "Another sync of this source is already running.",
    }
    for path in ["/", *paths]:
        assert website.hits(path) == 1, f"{path} fetched {website.hits(path)} times"
    job.refresh_from_db()
    assert job.status == SyncJob.STATUS_COMPLETED and job.documents_created == 6
    source.refresh_from_db()
    assert source.sync_lock_token == ""  # released


def test_sync_killed_mid_way_is_finished_by_another_worker(make_worker, offline_embedding, website):
    paths = docs_site(website, pages=8)
    website.latency = 0.3
    source = make_source(website)
    job = SyncJob.objects.create(source=source)
    first = make_worker(queues=LOCK_TEST_QUEUE, concurrency=1)
    sync_documentation_source.apply_async(
        kwargs={"source_id": source.pk, "user_id": None, "job_id": job.pk}, queue=LOCK_TEST_QUEUE
    )
    wait_for(lambda: SyncJob.objects.get(pk=job.pk).processed_items >= 3, 30, message="sync to be under way")

    first.kill()  # SIGKILL mid-task: the message is not acked, RabbitMQ redelivers it
    make_worker(queues=LOCK_TEST_QUEUE, concurrency=1)

    wait_for(
        lambda: SyncJob.objects.get(pk=job.pk).status == SyncJob.STATUS_COMPLETED,
        60,
        message="the second worker to finish the sync",
    )
    job.refresh_from_db()
    assert job.documents_created + job.documents_skipped == len(paths) + 1
    assert job.documents_updated == job.documents_failed == 0
    urls = list(Document.objects.filter(source=source).values_list("source_url", flat=True))
    assert sorted(urls) == sorted(website.url(p) for p in ["/", *paths])  # each page exactly once


def test_redirects_off_the_allowed_host_are_not_followed(website, db):
    """SSRF guard: a page of the allowed host that redirects elsewhere is a failed page, never fetched."""
    from solution_library.services.sync import sync_documentation_source as sync_service

    with Website() as other:
        other.page("/secret", "Internal", ["Internal metadata that must not be synced."])
        website.page("/", "Docs home", ["Welcome to the documentation."], ["/moved", "/inside"])
        website.page("/docs/inside", "Inside", ["A page reached through a same-host redirect."])
        website.redirects["/moved"] = other.url("/secret")
        website.redirects["/inside"] = website.url("/docs/inside")
        source = make_source(website)

        result = sync_service(source.pk)

        assert other.hits("/secret") == 0
        assert result.created == 2 and result.failed == 1
        assert "allowed host" in result.errors[0]["error"]
        titles = set(Document.objects.filter(source=source).values_list("title", flat=True))
        assert titles == {"Docs home", "Inside"}

        # A start URL that redirects off the host stops the sync before anything is fetched there.
        website.redirects["/"] = other.url("/secret")
        with pytest.raises(Exception, match="allowed host"):
            sync_service(source.pk)
        assert other.hits("/secret") == 0


def test_each_page_is_parsed_once_for_its_links_text_and_title(website, db, monkeypatch):
    """A crawl reads a page's links, its text and its title from one parse (lxml's), not one parse each."""
    import lxml.html

    from solution_library.services.sync import sync_documentation_source as sync_service

    parse = lxml.html.document_fromstring
    parsed = []
    monkeypatch.setattr(lxml.html, "document_fromstring", lambda data, **kw: parsed.append(data) or parse(data, **kw))
    docs_site(website, pages=4)

    result = sync_service(make_source(website).pk)

    assert result.created == 5
    assert len(parsed) == 5
    assert "Page 3" in Document.objects.values_list("title", flat=True)  # the title read from that same tree


def test_a_stale_cache_lock_without_a_database_lease_does_not_block_the_source(offline_embedding, website, settings):
    """A lock key left in memcached (its delete lost, its job long finished) must not strand new jobs pending."""
    from django.core.cache import cache

    from solution_library.locks import lock_key, memcached_reachable

    assert memcached_reachable(), "this test needs the stack's memcached"
    settings.AUTO_EMBED_DOCUMENTS = False
    docs_site(website, pages=1)
    source = make_source(website)
    cache.set(lock_key(source.pk), "999:finished-long-ago", 600)  # no lease in the database
    try:
        job = SyncJob.objects.create(source=source)
        result = sync_documentation_source.apply(
            kwargs={"source_id": source.pk, "user_id": None, "job_id": job.pk}
        ).get()
        job.refresh_from_db()
        assert result["success"] is True, result
        assert job.status == SyncJob.STATUS_COMPLETED and job.documents_created == 2
        source.refresh_from_db()
        assert source.sync_lock_token == ""
    finally:
        cache.delete(lock_key(source.pk))


def _wait_until_a_lock_is_awaited(cursor, timeout: float = 30) -> None:
    """Until some other connection waits for a row lock (PostgreSQL's own view of it)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        cursor.execute("SELECT count(*) FROM pg_locks WHERE NOT granted")
        if cursor.fetchone()[0]:
            return
        time.sleep(0.05)
    raise AssertionError("the delete never waited for the embedding run's lock")


def test_a_gone_page_deleted_while_its_embedding_run_stores_chunks_leaves_no_orphans(
    transactional_db, offline_embedding
):
    """The sync removes a document at the moment an embedding run holds its row to store chunks.

    The run's chunks land first and go with the document; before the delete
    took the same lock, they were left pointing at a deleted row and the
    sync failed with an IntegrityError.
    """
    document = add_library_document("Gone page", "This page is about to disappear from the site.")
    template = Chunk.objects.filter(document=document).first()
    run_holds_the_row = threading.Event()

    def embedding_run_storing_chunks():
        try:
            with transaction.atomic():  # as replace_chunks: lock the row, then store
                Document.objects.select_for_update().get(pk=document.pk)
                run_holds_the_row.set()
                with connection.cursor() as cursor:
                    _wait_until_a_lock_is_awaited(cursor)
                Chunk.objects.create(
                    document_id=document.pk,
                    position=1,
                    text="Stored by the run.",
                    embedding=template.embedding,
                    embedding_model_id=template.embedding_model_id,
                )
        finally:
            connection.close()

    run = threading.Thread(target=embedding_run_storing_chunks)
    run.start()
    assert run_holds_the_row.wait(30)
    assert delete_document(document)
    run.join(30)

    assert not Document.objects.filter(pk=document.pk).exists()
    assert not Chunk.objects.filter(document_id=document.pk).exists()
    assert not delete_document(document)  # twice: nothing left to delete
