"""Documents in, chunks out: store an upload, then parse → chunk → embed → store.

`process_document` is the whole pipeline for one document and is idempotent:
when the stored chunks already match what it would write, it writes nothing;
otherwise it replaces them in one transaction (never a mix of old and new,
never duplicates). A failure leaves the previous chunks in place and records
the reason on the document.
"""

import hashlib
import logging
from dataclasses import dataclass

import numpy as np
from django.conf import settings
from django.core.files.base import ContentFile
from django.db import IntegrityError, transaction
from django.utils import timezone

from core.storage import STORAGE_ERRORS, describe_storage_error
from jobs.models import ErrorCode
from jobs.runner import StopRequested
from llm_manager import services as llm
from llm_manager.exceptions import LLMError, TransientLLMError

from ..models import READY_STATUSES, Chunk, Document, DocumentJob, EmbedBatchJob, ReviewStatus
from . import search_index
from .chunking import TextChunk, chunk_text
from .parsing import UnsupportedFile, check_readable, detect_type, extract_text

logger = logging.getLogger(__name__)

EMBED_BATCH_SIZE = 64
BULK_CREATE_BATCH = 500


# --- storing uploads ---------------------------------------------------------
@dataclass
class UploadResult:
    """What happened to one uploaded file: a document, or the reason it was refused."""

    filename: str
    document: Document | None = None
    duplicate: bool = False
    error: str = ""


def max_upload_bytes() -> int:
    return int(settings.SOLUTION_LIBRARY_MAX_UPLOAD_MB * 1024 * 1024)


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def store_upload(filename: str, data: bytes, user=None) -> UploadResult:
    """Validate one file and store it as a new document (or find its twin).

    Each file is judged on its own, so one bad file never stops the others.
    The document is created with status processing; its post_save signal
    queues the embedding once the transaction commits.
    """
    try:
        if len(data) > max_upload_bytes():  # the upload view reads no more than the limit and a byte: no exact size
            raise UnsupportedFile(
                f"The file is larger than {settings.SOLUTION_LIBRARY_MAX_UPLOAD_MB} MB, the library's limit "
                "(SOLUTION_LIBRARY_MAX_UPLOAD_MB). Split it into smaller files and upload those."
            )
        file_type = detect_type(data, filename)
        check_readable(data, file_type)
    except UnsupportedFile as exc:
        return UploadResult(filename, error=str(exc))

    digest = content_hash(data)
    existing = Document.objects.filter(content_hash=digest, source__isnull=True).first()
    if existing:
        return UploadResult(filename, document=existing, duplicate=True)
    document = Document(
        title=_title_from_filename(filename),
        content_hash=digest,
        file_type=file_type,
        size_bytes=len(data),
        uploaded_by=user,
    )
    try:
        with transaction.atomic():
            document.file.save(_safe_name(filename), ContentFile(data), save=False)
            document.save()
    except IntegrityError:  # the same file uploaded twice at the same moment
        document.file.delete(save=False)
        return UploadResult(
            filename, document=Document.objects.get(content_hash=digest, source__isnull=True), duplicate=True
        )
    except STORAGE_ERRORS as exc:  # no row without its file: the person uploads again once storage is back
        logger.warning("Upload of %s refused: %s", filename, exc)
        return UploadResult(
            filename,
            error=f"Not stored: {describe_storage_error(exc)}. Nothing was saved; "
            f"upload it again once the file storage is back.",
        )
    return UploadResult(filename, document=document)


def _title_from_filename(filename: str) -> str:
    stem = filename.rsplit("/", 1)[-1].rsplit(".", 1)[0] if "." in filename else filename
    return (stem.replace("_", " ").strip() or "Untitled")[:300]


def _safe_name(filename: str) -> str:
    name = filename.replace("\\", "/").rsplit("/", 1)[-1]
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in name)[-150:] or "upload"


# --- processing ----------------------------------------------------------------
class DocumentGone(Exception):
    """The document was deleted while it was being processed: nothing to store."""


class DocumentSuperseded(DocumentGone):
    """The document's content changed while it was processed: the newer run stores the chunks."""


class StoredFileUnreadable(Exception):
    """The document's file could not be read from the media storage (down, refused, missing)."""


@dataclass
class ProcessResult:
    document_id: int
    success: bool
    chunks: int = 0
    unchanged: bool = False
    error: str = ""
    code: str = ""  # set when the document was marked failed (an ErrorCode)

    def as_dict(self) -> dict:
        return {
            "success": self.success,
            "document_id": self.document_id,
            "chunks_created": self.chunks,
            "unchanged": self.unchanged,
            **({"error": self.error} if self.error else {}),
        }


def process_document(
    document_id: int, embedding_model_id: int | None = None, *, alongside: bool = False
) -> ProcessResult:
    """Parse, chunk, embed and store one document. Safe to run any number of times.

    `alongside=True` (re-embedding the library with a new model) adds or
    replaces only that model's chunks and leaves the document's status and its
    current chunks alone, so searches keep using them meanwhile.

    Raises TransientLLMError (the caller may retry later); every other failure
    is recorded on the document as failed, with the reason.
    """
    document = Document.objects.filter(pk=document_id).first()
    if document is None:
        return ProcessResult(document_id, False, error=f"document {document_id} not found")
    if not alongside:
        Document.objects.filter(pk=document_id).exclude(review_status=ReviewStatus.PROCESSING).update(
            review_status=ReviewStatus.PROCESSING, status_message="", updated_at=timezone.now()
        )
    try:
        model = _embedding_model(embedding_model_id)
        text = extract_text(_read_file(document), document.file_type)
        pieces = chunk_text(text)
        if _chunks_unchanged(document, pieces, model, alongside):
            if not alongside:
                # the same chunks, searchable since processed_at: a task run twice, a Retry of a ready document
                _mark_ready(document, text, len(pieces), model, became_ready=document.processed_at is None)
            return ProcessResult(document_id, True, chunks=len(pieces), unchanged=True)
        vectors = embed_in_batches([_embedded_text(document, p) for p in pieces], model)
        replace_chunks(document, text, pieces, vectors, model, alongside=alongside)
        return ProcessResult(document_id, True, chunks=len(pieces))
    except TransientLLMError:
        raise
    except DocumentGone as exc:
        return ProcessResult(document_id, False, error=str(exc))
    except StoredFileUnreadable as exc:  # the file is kept: Retry works once the storage answers again
        return _failed(document_id, str(exc), ErrorCode.STORAGE_UNAVAILABLE, alongside)
    except (UnsupportedFile, LLMError, OSError) as exc:
        return _failed(document_id, str(exc) or type(exc).__name__, ErrorCode.TASK_ERROR, alongside)


def _failed(document_id: int, reason: str, code: str, alongside: bool) -> ProcessResult:
    if alongside:  # a failed re-embed must not hide a document whose chunks still serve
        return ProcessResult(document_id, False, error=reason)
    mark_failed(document_id, reason, code=code)
    return ProcessResult(document_id, False, error=reason, code=code)


def _embedded_text(document: Document, piece: TextChunk) -> str:
    """What the embedding model sees: the passage with where it comes from, as a reader would."""
    return "\n".join(part for part in (document.title, piece.heading, piece.text) if part)


def mark_failed(document_id: int, reason: str, code: str = ErrorCode.TASK_ERROR) -> None:
    logger.warning("Document %s failed: %s", document_id, reason, extra={"document_id": document_id})
    Document.objects.filter(pk=document_id).mark_failed(reason, code)


def mark_for_reprocessing(document: Document) -> None:
    """Show the document as processing again (Retry) before its new job runs."""
    Document.objects.filter(pk=document.pk).update(
        review_status=ReviewStatus.PROCESSING, status_message="", error_code="", updated_at=timezone.now()
    )
    document.refresh_from_db()


def create_document_job(document: Document, user=None, embedding_model=None, *, dispatch) -> DocumentJob:
    """A job processing the document, queued by `dispatch(job)` in the same transaction as the job.

    Every request to process a document comes here (its upload, a Retry, a sync that changed its
    page), inside the caller's transaction when it has one, so the request, the job and its message
    are written together or not at all.
    """
    with transaction.atomic():
        job = DocumentJob.objects.create(
            document=document, embedding_model=embedding_model, started_by=user, status=DocumentJob.STATUS_PROCESSING
        )
        dispatch(job)
    return job


def _embedding_model(model_id: int | None):
    from llm_manager.models import LLMModel

    if model_id is None:
        return llm.get_default_model("embedding")
    model = LLMModel.objects.filter(pk=model_id, model_type="embedding", is_active=True).first()
    if model is None:
        raise LLMError(f"Embedding model {model_id} does not exist or is inactive.")
    return model


def _read_file(document: Document) -> bytes:
    try:
        with document.file.open("rb") as handle:
            return handle.read()
    except STORAGE_ERRORS as exc:
        raise StoredFileUnreadable(
            f"The file could not be read: {describe_storage_error(exc)}. Retry once the file storage answers again."
        ) from exc


def embed_in_batches(texts: list[str], model) -> np.ndarray:
    """float32 matrix of the texts' embeddings, one row per text."""
    rows: list[list[float]] = []
    for start in range(0, len(texts), EMBED_BATCH_SIZE):
        rows.extend(llm.embed_texts(texts[start : start + EMBED_BATCH_SIZE], model))
    return np.asarray(rows, dtype=np.float32).reshape(len(texts), -1)


def _chunks_unchanged(document: Document, pieces: list[TextChunk], model, alongside: bool = False) -> bool:
    """True when the stored chunks of this model are exactly these pieces (and, unless
    `alongside`, no other model's chunks remain)."""
    chunks = document.chunks.all()
    if not alongside and chunks.exclude(embedding_model=model).exists():
        return False
    stored = list(
        chunks.filter(embedding_model=model).order_by("position").values_list("position", "title", "heading", "text")
    )
    return stored == [(p.position, document.title, p.heading, p.text) for p in pieces]


def replace_chunks(
    document: Document, text: str, pieces: list[TextChunk], vectors: np.ndarray, model, *, alongside: bool = False
) -> None:
    """Swap the document's chunks (only this model's when `alongside`) for the new ones in one transaction."""
    rows = [
        Chunk(
            document_id=document.pk,
            position=piece.position,
            title=document.title,
            heading=piece.heading,
            text=piece.text,
            start_char=piece.start,
            end_char=piece.end,
            embedding=vector.tobytes(),
            embedding_model_id=model.pk,
        )
        for piece, vector in zip(pieces, vectors, strict=True)
    ]
    with transaction.atomic():
        # Lock the document row: two deliveries of the same task serialise here.
        current_hash = (
            Document.objects.select_for_update().filter(pk=document.pk).values_list("content_hash", flat=True).first()
        )
        if current_hash is None:
            raise DocumentGone(f"document {document.pk} was deleted while it was processed")
        if current_hash != document.content_hash:
            # A sync stored a newer version meanwhile (and queued its own run):
            # writing these chunks would put old text back under the new version.
            raise DocumentSuperseded(f"document {document.pk} changed while it was processed; the newer version wins")
        replaced = Chunk.objects.filter(document_id=document.pk)
        if alongside:
            replaced = replaced.filter(embedding_model=model)
        old_models = set(replaced.values_list("embedding_model_id", flat=True))
        replaced.delete()
        Chunk.objects.bulk_create(rows, batch_size=BULK_CREATE_BATCH)
        if not alongside:
            _mark_ready(document, text, len(rows), model)
        for model_id in old_models | {model.pk}:
            search_index.bump_version(model_id)


def delete_document(document: Document) -> bool:
    """Delete a document and its chunks; False when it was gone already.

    Under the row lock an embedding run takes before it stores chunks
    (replace_chunks): without it, chunks stored between the delete's collection
    of chunks and its DELETE of the row would be left pointing at no document,
    and the commit fails. With it, the run either stored its chunks first (they
    are deleted with the document) or finds the document gone and stores nothing.
    """
    with transaction.atomic():
        if not Document.objects.select_for_update().filter(pk=document.pk).values_list("pk", flat=True).first():
            return False
        document.delete()
    delete_stored_file(document.file)  # after the commit: a file is never missing under a live row
    return True


def delete_stored_file(field_file) -> None:
    """Delete a removed row's file; a storage outage leaves an orphan object (logged), never a failed delete."""
    try:
        field_file.delete(save=False)
    except STORAGE_ERRORS as exc:
        logger.warning(
            "File %s of a deleted document is left in storage: %s",
            field_file.name,
            describe_storage_error(exc),
            extra={"file": field_file.name},
        )


def _mark_ready(document: Document, text: str, chunk_count: int, model, *, became_ready: bool = True) -> None:
    """Searchable. `processed_at` says when its content became searchable: a run that finds the chunks of a
    document processed before unchanged keeps it, so the RFP page's redraft offer and the owners' notice (rfp_manager's
    `batch.drafted_before_library_grew`) never take the same content for a new document. (A document that failed
    in between has none: Document.objects.mark_failed clears it.)"""
    Document.objects.filter(pk=document.pk).update(
        review_status=ReviewStatus.PENDING_REVIEW,
        status_message="",
        error_code="",
        text=text,
        chunk_count=chunk_count,
        embedding_model=model,
        **({"processed_at": timezone.now()} if became_ready else {}),
        updated_at=timezone.now(),
    )


# --- batch re-embedding ----------------------------------------------------------
def run_embed_batch(job) -> dict:
    """The work of an EmbedBatchJob: each document re-processed, errors per item.

    Re-running it is cheap and gives the same counts: unchanged documents are
    recognised and skipped by process_document. A job with a target model
    re-embeds the library beside the current index and switches only at the end.
    """
    alongside = job.target_model_id is not None
    succeeded = failed = 0
    for done, document_id in enumerate(job.document_ids, start=1):
        stop = job.stop_reason()
        if stop == "shutdown":
            raise StopRequested(f"embedding batch {job.pk} stopped before document {document_id}")
        if stop:
            return {"succeeded": succeeded, "failed": failed}
        result = _process_for_batch(document_id, job.target_model_id, alongside)
        if result.success:
            succeeded += 1
        else:
            failed += 1
            job.add_error(document_id, result.error, save=False)
        job.set_counts(processed_items=done, successful_items=succeeded, failed_items=failed, errors=job.errors)
    if alongside:
        return {"succeeded": succeeded, "failed": failed, **finish_library_reembed(job)}
    return {"succeeded": succeeded, "failed": failed}


def _process_for_batch(document_id: int, model_id: int | None, alongside: bool) -> ProcessResult:
    try:
        return process_document(document_id, model_id, alongside=alongside)
    except TransientLLMError as exc:
        result = ProcessResult(document_id, False, error=f"Embedding service unavailable: {exc}")
        if not alongside:
            mark_failed(document_id, result.error)
        return result


def library_document_ids() -> list[int]:
    """The documents a library re-embed covers: every ready one."""
    return list(Document.objects.filter(review_status__in=READY_STATUSES).order_by("pk").values_list("pk", flat=True))


def create_embed_batch_job(document_ids: list[int], user, target_model=None) -> EmbedBatchJob:
    """A pending job re-embedding these documents (with `target_model`: see EmbedBatchJob); the caller dispatches it."""
    return EmbedBatchJob.objects.create(
        document_ids=sorted(document_ids), total_items=len(document_ids), started_by=user, target_model=target_model
    )


def create_library_reembed_job(model, user) -> EmbedBatchJob:
    """Re-embed every ready document with `model`, which becomes the default when all are done."""
    return create_embed_batch_job(library_document_ids(), user, target_model=model)


def finish_library_reembed(job) -> dict:
    """Switch search to the job's model once every ready document has its chunks.

    Documents uploaded during the job were embedded with the old default; they
    are caught up here first. Any document still missing keeps the switch from
    happening: the job reports it and the old index goes on serving.
    """
    model = job.target_model
    missing = _documents_missing(model)
    for document_id in missing:
        _process_for_batch(document_id, model.pk, True)
    missing = _documents_missing(model)
    if missing:
        return {"switched": False, "missing_documents": missing[:50]}
    with transaction.atomic():
        llm.make_default(model)
        old_models = set(Chunk.objects.exclude(embedding_model=model).values_list("embedding_model_id", flat=True))
        Chunk.objects.exclude(embedding_model=model).delete()
        Document.objects.filter(review_status__in=READY_STATUSES).update(embedding_model=model)
        for model_id in old_models | {model.pk}:
            search_index.bump_version(model_id)
    return {"switched": True, "missing_documents": []}


def _documents_missing(model) -> list[int]:
    have = Chunk.objects.filter(embedding_model=model).values("document_id")
    return list(
        Document.objects.filter(review_status__in=READY_STATUSES, chunk_count__gt=0)
        .exclude(pk__in=have)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
