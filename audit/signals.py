"""Receivers that turn model changes, and what the other apps announce, into answer revisions and audit events.

Kept in this app so the apps it watches need not know about it.
"""

from django.db.models.signals import m2m_changed, post_delete, post_save, pre_save
from django.dispatch import receiver

from answer_library.models import EntryVersion, LibraryJob
from llm_manager.models import LLMApi
from rfp_manager.models import RFP, Answer, InformationDocument, QuestionImport, RFPBatchJob
from rfp_manager.signals import answers_approved
from solution_library.models import Document
from teamwork.events import comment_posted, questions_assigned, role_changed

from . import services
from .context import current_user
from .models import AuditEvent

ANSWER_FIELDS = ("draft_text", "final_text", "review_verdict", "review_feedback")
# Compared to say which settings of an API changed; the key only as "changed", never its value.
LLM_API_FIELDS = (
    "name",
    "kind",
    "base_url",
    "is_active",
    "timeout_seconds",
    "max_concurrent_requests",
    "requests_per_minute",
)


def _stored(model, pk, fields) -> dict:
    """The row as the database holds it before this save ({} for a new row)."""
    if pk is None:
        return {}
    return model.objects.filter(pk=pk).values(*fields).first() or {}


@receiver(pre_save, sender=Answer, dispatch_uid="audit.answer_before")
def _answer_before(sender, instance, **kwargs):
    instance._audit_previous = _stored(Answer, instance.pk, ANSWER_FIELDS)


@receiver(post_save, sender=Answer, dispatch_uid="audit.answer_after")
def _answer_after(sender, instance, raw=False, **kwargs):
    if not raw:
        services.record_answer_changes(instance, getattr(instance, "_audit_previous", {}))


@receiver(post_save, sender=RFPBatchJob, dispatch_uid="audit.job_started")
def _job_started(sender, instance, created, raw=False, **kwargs):
    if created and not raw:
        services.record(
            AuditEvent.Action.JOB_STARTED,
            f"{instance.get_job_type_display()} job {instance.pk}",
            rfp=instance.rfp,
            actor=instance.started_by,
            job_id=instance.pk,
            job_type=instance.job_type,
        )


@receiver(pre_save, sender=LLMApi, dispatch_uid="audit.llm_api_before")
def _llm_api_before(sender, instance, **kwargs):
    instance._audit_previous = _stored(LLMApi, instance.pk, (*LLM_API_FIELDS, "api_key"))


@receiver(post_save, sender=LLMApi, dispatch_uid="audit.llm_api_after")
def _llm_api_after(sender, instance, created, raw=False, **kwargs):
    if raw:
        return
    previous = getattr(instance, "_audit_previous", {})
    changed = [f for f in LLM_API_FIELDS if previous.get(f) != getattr(instance, f)]
    if previous.get("api_key", "") != instance.api_key:
        changed.append("api_key")
    if changed:
        services.record(
            AuditEvent.Action.LLM_API_CHANGED,
            f"LLM API {instance.pk} {instance.name}",
            created=created,
            changed=changed,
        )


@receiver(post_delete, sender=LLMApi, dispatch_uid="audit.llm_api_deleted")
def _llm_api_deleted(sender, instance, **kwargs):
    services.record(AuditEvent.Action.LLM_API_DELETED, f"LLM API {instance.pk} {instance.name}")


@receiver(m2m_changed, sender=RFP.shared_with.through, dispatch_uid="audit.sharing_changed")
def _sharing_changed(sender, instance, action, pk_set, **kwargs):
    if action in ("post_add", "post_remove", "post_clear") and (pk_set or action == "post_clear"):
        services.record(
            AuditEvent.Action.SHARING_CHANGED,
            f"RFP {instance.pk} {instance.name}",
            rfp=instance,
            change=action.removeprefix("post_"),
            groups=sorted(instance.shared_with.values_list("name", flat=True)),
        )


@receiver(post_save, sender=QuestionImport, dispatch_uid="audit.questions_imported")
def _questions_imported(sender, instance, update_fields=None, raw=False, **kwargs):
    """Each apply of an import (the preview's "Import" saves applied_at)."""
    if not raw and update_fields and "applied_at" in update_fields:
        rfp = instance.rfp
        services.record(
            AuditEvent.Action.QUESTIONS_IMPORTED,
            f"RFP {rfp.pk} {rfp.name}",
            rfp=rfp,
            source=instance.original_name or instance.get_kind_display(),
            count=len(instance.rows),
        )


@receiver(post_save, sender=InformationDocument, dispatch_uid="audit.rfp_document_uploaded")
def _rfp_document_uploaded(sender, instance, created, raw=False, **kwargs):
    if created and not raw:
        rfp = instance.rfp
        services.record(
            AuditEvent.Action.DOCUMENT_UPLOADED,
            f"RFP {rfp.pk} {rfp.name}",
            rfp=rfp,
            actor=instance.uploaded_by,
            title=instance.title,
        )


@receiver(post_save, sender=Document, dispatch_uid="audit.library_document_uploaded")
def _library_document_uploaded(sender, instance, created, raw=False, **kwargs):
    """Uploads by a person; documents a sync brings in are the sync job's work."""
    if created and not raw and instance.source_id is None:
        services.record(
            AuditEvent.Action.DOCUMENT_UPLOADED,
            "the document library",
            actor=instance.uploaded_by,
            title=instance.title,
        )


@receiver(post_save, sender=EntryVersion, dispatch_uid="audit.library_changed")
def _library_changed(sender, instance, created, raw=False, **kwargs):
    """A version saved by a person in a request; the rows of an import job are summed up by its own event."""
    if created and not raw and current_user() is not None:
        previous = (
            EntryVersion.objects.filter(entry_id=instance.entry_id, number__lt=instance.number)
            .order_by("-number")
            .values_list("answer_text", flat=True)
            .first()
            or ""
        )
        services.record(
            AuditEvent.Action.LIBRARY_CHANGED,
            f"answer library entry {instance.entry_id}",
            rfp=_origin_rfp(instance.entry),
            actor=instance.changed_by,
            entry_id=instance.entry_id,
            version=instance.number,
            note=instance.note,
            before=previous[: services.KEPT_TEXT],
            after=instance.answer_text[: services.KEPT_TEXT],
        )


def _origin_rfp(entry):
    """The RFP an entry was approved from (its events show under that RFP too), or None."""
    answer = entry.origin_answer if entry.origin_answer_id else None
    return answer.question.rfp if answer else None


@receiver(post_save, sender=LibraryJob, dispatch_uid="audit.library_import")
def _library_import(sender, instance, created, raw=False, **kwargs):
    if created and not raw and instance.job_type == LibraryJob.IMPORT and instance.library_import_id:
        services.record(
            AuditEvent.Action.LIBRARY_IMPORT,
            instance.library_import.original_name or "a file",
            actor=instance.started_by,
            job_id=instance.pk,
        )


@receiver(answers_approved)
def record_bulk_approvals(sender, answers, user, **kwargs):
    """Answers approved at once (a bulk update, no post_save): one event each."""
    services.record_approvals(answers, user)


@receiver(role_changed, dispatch_uid="audit.role_changed")
def _role_changed(sender, rfp, user, by, before, after, **kwargs):
    services.record(
        AuditEvent.Action.ROLE_CHANGED,
        f"RFP {rfp.pk} {rfp.name}",
        rfp=rfp,
        actor=by,
        user=user.get_username(),
        before=before,
        after=after,
    )


@receiver(questions_assigned, dispatch_uid="audit.questions_assigned")
def _questions_assigned(sender, rfp, questions, assignee, due, by, **kwargs):
    """One event per assignment, however many questions it gives."""
    services.record(
        AuditEvent.Action.ASSIGNED,
        f"RFP {rfp.pk} {rfp.name}",
        rfp=rfp,
        actor=by,
        questions=[q.label for q in questions],
        assignee=assignee.get_username(),
        due=due.isoformat() if due else "",
    )


@receiver(comment_posted, dispatch_uid="audit.comment_posted")
def _comment_posted(sender, comment, **kwargs):
    question = comment.question
    rfp = question.rfp
    services.record(
        AuditEvent.Action.COMMENTED,
        f"{question.label} of RFP {rfp.pk} {rfp.name}",
        rfp=rfp,
        actor=comment.author,
        question=question.label,
        text=comment.text[:1000],
    )
