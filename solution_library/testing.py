"""Helpers for other apps' tests."""

from django.core.files.base import ContentFile

from .models import Document, DocumentType
from .services.documents import content_hash, process_document


def add_library_document(title: str, text: str, user=None) -> Document:
    """Store a text document and process it now, in this process (no worker), so search finds it."""
    data = text.encode()
    existing = Document.objects.filter(content_hash=content_hash(data), source__isnull=True).first()
    if existing and existing.is_ready:
        return existing
    document = existing or Document(
        title=title,
        content_hash=content_hash(data),
        file_type=DocumentType.TEXT,
        size_bytes=len(data),
        uploaded_by=user,
    )
    if existing is None:
        document.file.save("document.txt", ContentFile(data), save=False)
        document.skip_auto_embed = True
        document.save()
    result = process_document(document.pk)
    if not result.success:
        raise RuntimeError(f"add_library_document({title!r}) failed: {result.error}")
    document.refresh_from_db()
    return document
