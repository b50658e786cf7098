"""Sync a documentation website into library documents.

Pages come from a sitemap (when the start URL is one) or from a breadth-first
crawl of links on the allowed host, up to the page limit. Each page becomes
one document keyed by its URL: new → created, same text → skipped, changed
text → updated. Documents whose page is gone are removed, but only after a
complete crawl (no page limit reached, start page read), so a broken or
truncated crawl never deletes anything. Embedding is left to the caller, who
gets the ids of the documents that need it.
"""

import logging
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from urllib.parse import urldefrag, urljoin, urlparse

import httpx
from bs4 import BeautifulSoup
from django.contrib.auth import get_user_model
from django.core.files.base import ContentFile
from django.db import transaction
from django.utils import timezone

from ..models import Document, DocumentationSource, DocumentType, ReviewStatus
from .documents import content_hash, delete_document
from .parsing import html_title, html_to_text, html_tree

logger = logging.getLogger(__name__)

FETCH_TIMEOUT_SECONDS = 15
GONE_STATUSES = (404, 410)
USER_AGENT = "Spelunker documentation sync"


class SyncError(Exception):
    """The sync as a whole cannot go on (e.g. the start URL is unreachable)."""


@dataclass
class SyncResult:
    created: int = 0
    updated: int = 0
    skipped: int = 0
    failed: int = 0
    removed: int = 0
    processed: int = 0
    total: int = 0
    complete: bool = True
    errors: list[dict] = field(default_factory=list)
    to_embed: list[int] = field(default_factory=list)

    def counts(self) -> dict:
        return {
            "created": self.created,
            "updated": self.updated,
            "skipped": self.skipped,
            "failed": self.failed,
            "removed": self.removed,
            "processed": self.processed,
            "total": self.total,
        }


ProgressCallback = Callable[[SyncResult], None]


@dataclass
class Page:
    url: str
    status: int = 0
    body: bytes = b""
    error: str = ""

    @cached_property
    def tree(self):
        """The page parsed once: its links, text and title are read from the same tree."""
        return html_tree(self.body)


def sync_documentation_source(
    source_id: int, user_id: int | None = None, progress_callback: ProgressCallback | None = None
) -> SyncResult:
    source = DocumentationSource.objects.get(pk=source_id)
    user = get_user_model().objects.filter(pk=user_id).first() if user_id else None
    result = SyncResult()
    seen: set[str] = set()
    with httpx.Client(
        timeout=FETCH_TIMEOUT_SECONDS,
        follow_redirects=True,
        headers={"User-Agent": USER_AGENT},
        # Runs for every request, redirects included: nothing off the allowed host is fetched.
        event_hooks={"request": [lambda request: _refuse_other_hosts(source, request)]},
    ) as client:
        for page in _pages(source, client, result):
            _record_page(source, page, user, result, seen)
            result.processed += 1
            if progress_callback:
                progress_callback(result)
    if result.complete:
        result.removed = _remove_gone_documents(source, seen)
    DocumentationSource.objects.filter(pk=source_id).update(last_synced_at=timezone.now())
    if progress_callback:
        progress_callback(result)
    logger.info("Synced source %s: %s", source.name, result.counts(), extra={"source_id": source_id})
    return result


# --- finding pages -------------------------------------------------------------
def _pages(source: DocumentationSource, client: httpx.Client, result: SyncResult) -> Iterator[Page]:
    start = _fetch(client, source.start_url)
    if start.error or start.status >= 400:
        raise SyncError(f"The start URL {source.start_url} could not be read: {start.error or f'HTTP {start.status}'}")
    if _is_sitemap(start.body):
        yield from _sitemap_pages(source, client, start, result)
    else:
        yield from _crawled_pages(source, client, start, result)


def _sitemap_pages(source, client, sitemap: Page, result: SyncResult) -> Iterator[Page]:
    soup = BeautifulSoup(sitemap.body, "xml")
    urls = list(dict.fromkeys(_normalise(loc.get_text(strip=True)) for loc in soup.find_all("loc")))
    urls = [u for u in urls if _on_allowed_host(source, u)]
    if len(urls) > source.page_limit:
        result.complete = False
        urls = urls[: source.page_limit]
    result.total = len(urls)
    for url in urls:
        yield _fetch(client, url)


def _crawled_pages(source, client, start: Page, result: SyncResult) -> Iterator[Page]:
    queued = {_normalise(start.url)}
    queue: deque[str] = deque()
    page: Page | None = start
    while page is not None:
        result.total = len(queued)
        yield page
        for link in _links(page):
            if link not in queued and _on_allowed_host(source, link):
                if len(queued) >= source.page_limit:
                    result.complete = False
                    break
                queued.add(link)
                queue.append(link)
        page = _fetch(client, queue.popleft()) if queue else None


def _fetch(client: httpx.Client, url: str) -> Page:
    try:
        response = client.get(url)
    except httpx.HTTPError as exc:
        return Page(url, error=f"{type(exc).__name__}: {exc}")
    return Page(_normalise(str(response.url)), response.status_code, response.content)


def _links(page: Page) -> Iterator[str]:
    if page.error or page.status >= 400:
        return
    for anchor in page.tree.iterfind(".//a[@href]"):
        url = urljoin(page.url, anchor.get("href"))
        if urlparse(url).scheme in ("http", "https"):
            yield _normalise(url)


def _normalise(url: str) -> str:
    return urldefrag(url)[0]


def _on_allowed_host(source: DocumentationSource, url: str) -> bool:
    parsed = urlparse(url)
    return source.allowed_host.lower() in {(parsed.hostname or "").lower(), parsed.netloc.lower()}


class OffHostRequest(httpx.RequestError):
    """A request (usually a redirect) that would leave the source's allowed host."""


def _refuse_other_hosts(source: DocumentationSource, request: httpx.Request) -> None:
    url = str(request.url)
    if not _on_allowed_host(source, url):
        raise OffHostRequest(f"{url} is not on the allowed host {source.allowed_host}", request=request)


def _is_sitemap(body: bytes) -> bool:
    head = body[:2048].lower()
    return b"<urlset" in head or b"<sitemapindex" in head


# --- one page --------------------------------------------------------------------
def _record_page(source, page: Page, user, result: SyncResult, seen: set[str]) -> None:
    if page.status in GONE_STATUSES:
        return  # not seen: its document is removed after a complete crawl
    seen.add(page.url)
    if page.error or page.status >= 400:
        result.failed += 1
        result.errors.append({"item": page.url, "error": page.error or f"HTTP {page.status}"})
        return
    text = html_to_text(page.tree)
    if not text.strip():
        result.failed += 1
        result.errors.append({"item": page.url, "error": "The page has no text."})
        return
    outcome, document = _upsert_page_document(source, page, text, user)
    setattr(result, outcome, getattr(result, outcome) + 1)
    if outcome != "skipped" or not document.is_ready:
        # Skipped-but-not-ready covers a crashed earlier run whose embedding never ran.
        result.to_embed.append(document.pk)


def _upsert_page_document(source, page: Page, text: str, user) -> tuple[str, Document]:
    """'created', 'updated' or 'skipped', and the page's document."""
    digest = content_hash(text.encode())
    title = html_title(page.tree) or page.url
    with transaction.atomic():
        document = Document.objects.select_for_update().filter(source=source, source_url=page.url).first()
        if document is not None and document.content_hash == digest:
            return "skipped", document
        outcome = "created" if document is None else "updated"
        document = document or Document(source=source, source_url=page.url, uploaded_by=user)
        document.title = title[:300]
        document.content_hash = digest
        document.file_type = DocumentType.HTML
        document.size_bytes = len(page.body)
        document.review_status = ReviewStatus.PROCESSING
        document.status_message = ""
        old_file = document.file.name if document.file else ""
        document.file.save("page.html", ContentFile(page.body), save=False)
        document.skip_auto_embed = True  # the sync task queues embedding for what changed
        document.save()
    if old_file:
        document.file.storage.delete(old_file)
    return outcome, document


def _remove_gone_documents(source: DocumentationSource, seen: set[str]) -> int:
    gone = Document.objects.filter(source=source).exclude(source_url__in=seen)
    return sum(delete_document(document) for document in gone)
