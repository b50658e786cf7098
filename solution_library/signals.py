"""post_save/post_delete receivers: queue embedding after commit, keep the search index honest."""

from django.conf import settings
from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from llm_manager.signals import embedding_default_requested

from .models import Chunk, Document


@receiver(post_save, sender=Document)
def process_new_document(sender, instance: Document, created: bool, raw: bool = False, **kwargs):
    """A new document gets a job, in the transaction that saves it; a worker runs it once both are committed.

    Code that processes or queues the document itself (the sync, the test
    helper) sets `skip_auto_embed` on the instance; a document loaded from a
    backup (raw) comes with its chunks.
    """
    if raw or not created or not settings.AUTO_EMBED_DOCUMENTS or getattr(instance, "skip_auto_embed", False):
        return
    from .services.documents import create_document_job
    from .tasks import dispatch_document_job  # tasks import services → models; avoid the cycle

    create_document_job(instance, instance.uploaded_by, dispatch=dispatch_document_job)


@receiver(post_save, sender=Document)
def copy_title_to_chunks(sender, instance: Document, created: bool, **kwargs):
    """A renamed document's chunks carry the new title, so the full-text index ranks them by it."""
    if not created:
        Chunk.objects.filter(document=instance).exclude(title=instance.title).update(title=instance.title)


@receiver(post_delete, sender=Document)
def forget_deleted_document_chunks(sender, instance: Document, **kwargs):
    """Chunks go with the document (cascade); tell every process's search index."""
    from .services.search_index import bump_version

    if instance.embedding_model_id:
        bump_version(instance.embedding_model_id)


@receiver(embedding_default_requested)
def reembed_library_before_new_default(sender, model, user, **kwargs):
    """A new default embedding model finds nothing until the library's chunks are embedded with it."""
    if not Chunk.objects.exclude(embedding_model=model).exists():
        return None
    from .services import documents
    from .tasks import dispatch_embed_batch_job  # tasks import services → models; avoid the cycle

    with transaction.atomic():
        job = documents.create_library_reembed_job(model, user)
        dispatch_embed_batch_job(job)
    return job
