"""Library pages: upload, documents and their live status, search, passages, sources and jobs."""

from django.contrib import messages
from django.core.paginator import Paginator
from django.db import transaction
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from core.permissions import staff_required
from jobs.views import job_status_response, progress_context

from .models import Chunk, Document, DocumentationSource, EmbedBatchJob, SyncJob
from .services import scheduling, snippets
from .services.documents import create_document_job, mark_for_reprocessing, max_upload_bytes, store_upload
from .services.search import search_passages
from .tasks import dispatch_document_job, dispatch_sync_job

DOCUMENTS_PER_PAGE = 50
SEARCH_LIMIT = 10


def _wants_json(request) -> bool:
    return "application/json" in request.headers.get("Accept", "")


# --- library page and upload ---------------------------------------------------
def index(request):
    return render(
        request,
        "solution_library/index.html",
        {
            **_documents_context(request),
            "max_upload_mb": max_upload_bytes() // (1024 * 1024),
        },
    )


@never_cache
def documents_table(request):
    """The documents table alone: htmx refreshes it while anything is processing."""
    return render(request, "solution_library/_documents.html", _documents_context(request))


def _documents_context(request) -> dict:
    documents = Document.objects.select_related("source", "uploaded_by").defer("text")
    page = Paginator(documents, DOCUMENTS_PER_PAGE).get_page(request.GET.get("page"))
    return {"page": page, "any_processing": any(d.is_processing for d in page)}


@require_POST
def upload(request):
    """Store each posted file independently; answer per file (JSON for the upload script)."""
    results = [store_upload(f.name, _read_limited(f), request.user) for f in request.FILES.getlist("files")]
    if _wants_json(request):
        payload = [_upload_payload(r) for r in results]
        status = 200 if all(r.document for r in results) and results else 400
        return JsonResponse({"results": payload}, status=status)
    for r in results:
        if r.error:
            messages.error(request, f"{r.filename}: {r.error}")
        elif r.duplicate:
            messages.info(request, f"{r.filename} is already in the library as “{r.document.title}”.")
        else:
            messages.success(request, f"{r.filename} uploaded; it is being processed.")
    if not results:
        messages.error(request, "Choose at least one file.")
    return redirect("solution_library:index")


def _read_limited(uploaded_file) -> bytes:
    """The file's bytes, or just enough of them to tell that it is over the limit."""
    limit = max_upload_bytes()
    if uploaded_file.size > limit:
        return uploaded_file.read(limit + 1)
    return uploaded_file.read()


def _upload_payload(result) -> dict:
    if result.error:
        return {"filename": result.filename, "ok": False, "error": result.error}
    return {
        "filename": result.filename,
        "ok": True,
        "duplicate": result.duplicate,
        "document": _document_payload(result.document),
    }


def _document_payload(document: Document) -> dict:
    return {
        "id": document.pk,
        "title": document.title,
        "status": document.review_status,
        "status_display": document.get_review_status_display(),
        "is_ready": document.is_ready,
        "is_processing": document.is_processing,
        "message": document.status_message,
        "chunk_count": document.chunk_count,
        "url": reverse("solution_library:document", args=[document.pk]),
        "status_url": reverse("solution_library:document_status", args=[document.pk]),
        "retry_url": reverse("solution_library:document_retry", args=[document.pk]),
        "can_retry": document.can_retry,
    }


# --- one document ----------------------------------------------------------------
def document_detail(request, pk):
    document = get_object_or_404(Document.objects.select_related("source", "uploaded_by", "embedding_model"), pk=pk)
    return render(request, "solution_library/document.html", _document_context(document))


def _document_context(document: Document) -> dict:
    """The document and the passages it serves with (while it is re-embedded, not the new model's set as well)."""
    chunks = document.chunks.filter(embedding_model_id=document.embedding_model_id).only("id", "position", "text")
    return {"document": document, "chunks": chunks}


def _document_live(request, document: Document):
    """The document page's status and passages, swapped together: "Ready · 93 passages" never sits above none."""
    return render(request, "solution_library/_document_live.html", _document_context(document))


@never_cache
def document_status(request, pk):
    """JSON for scripts and the upload list; the status and the passages for the document page (htmx)."""
    document = get_object_or_404(Document.objects.defer("text"), pk=pk)
    if getattr(request, "htmx", False):
        return _document_live(request, document)
    return JsonResponse(_document_payload(document))


@require_POST
def document_retry(request, pk):
    """Process a document again (after a failure, or to re-embed it)."""
    document = get_object_or_404(Document, pk=pk)
    if document.can_retry:  # a second click while it is queued must not queue it twice
        with transaction.atomic():
            mark_for_reprocessing(document)
            create_document_job(document, request.user, dispatch=dispatch_document_job)
    if _wants_json(request):
        return JsonResponse(_document_payload(document))
    if getattr(request, "htmx", False):
        return _document_live(request, document)
    messages.info(request, f"“{document.title}” is being processed again.")
    return redirect("solution_library:document", pk=pk)


# --- search and passages -----------------------------------------------------------
def search(request):
    query = request.GET.get("q", "").strip()
    results = [
        {"passage": p, "snippet": snippets.best_snippet(query, p.text)}
        for p in (search_passages(query, SEARCH_LIMIT) if query else [])
    ]
    return render(request, "solution_library/search.html", {"query": query, "results": results})


def chunk(request, pk):
    """A passage highlighted within its document's text."""
    passage = get_object_or_404(Chunk.objects.select_related("document"), pk=pk)
    text = passage.document.text
    start, end = passage.start_char, passage.end_char
    if text[start:end] != passage.text:  # text re-extracted since: fall back to the passage alone
        text, start, end = passage.text, 0, len(passage.text)
    return render(
        request,
        "solution_library/chunk.html",
        {
            "chunk": passage,
            "document": passage.document,
            "before": text[:start],
            "passage_text": text[start:end],
            "after": text[end:],
        },
    )


# --- documentation sources and jobs (staff) --------------------------------------
@staff_required
def sources(request):
    return render(request, "solution_library/sources.html", {"sources": DocumentationSource.objects.all()})


@staff_required
def source_detail(request, pk):
    source = get_object_or_404(DocumentationSource, pk=pk)
    return render(
        request,
        "solution_library/source.html",
        {
            "source": source,
            "jobs": source.sync_jobs.all()[:20],
            "documents": source.documents.defer("text")[:200],
        },
    )


@staff_required
@require_POST
def source_sync(request, pk):
    source = get_object_or_404(DocumentationSource, pk=pk)
    job = scheduling.create_sync_job(source, request.user, dispatch=dispatch_sync_job)
    if job is None:
        active = source.sync_jobs.filter(status__in=[SyncJob.STATUS_PENDING, SyncJob.STATUS_PROCESSING]).first()
        messages.warning(request, "A sync of this source is already running.")
        return (
            redirect("solution_library:sync_job", pk=active.pk)
            if active
            else redirect("solution_library:source", pk=pk)
        )
    messages.info(request, f"Sync of {source.name} queued.")
    return redirect("solution_library:sync_job", pk=job.pk)


@staff_required
def sync_job(request, pk):
    job = get_object_or_404(SyncJob.objects.select_related("source"), pk=pk)
    poll_url = reverse("solution_library:sync_job_status", args=[pk])
    return render(request, "solution_library/sync_job.html", progress_context(job, poll_url))


@staff_required
def sync_job_status(request, pk):
    return job_status_response(
        request,
        SyncJob,
        pk,
        "solution_library:sync_job_status",
        partial="solution_library/_sync_progress.html",
    )


@staff_required
def embed_job(request, pk):
    job = get_object_or_404(EmbedBatchJob, pk=pk)
    poll_url = reverse("solution_library:embed_job_status", args=[pk])
    return render(request, "solution_library/embed_job.html", progress_context(job, poll_url))


@staff_required
def embed_job_status(request, pk):
    return job_status_response(
        request,
        EmbedBatchJob,
        pk,
        "solution_library:embed_job_status",
    )
