"""A person's edit of an answer's final text becomes an open library candidate; drafts and reviews do not.

An answer names the entry it reused by id (rfp_manager cannot point at this app): the library keeps that link
true, so a deleted entry leaves its answers reused from nothing, as a foreign key's SET_NULL would.
"""

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from rfp_manager.models import Answer

from .models import Entry
from .services.entries import record_candidate


@receiver(post_save, sender=Answer, dispatch_uid="answer_library.candidate")
def _answer_edited(sender, instance, raw=False, update_fields=None, **kwargs):
    # save_final_text saves exactly these fields: a person's edit, not a draft or a review.
    if not raw and update_fields and "final_text" in update_fields:
        record_candidate(instance)


@receiver(post_delete, sender=Entry, dispatch_uid="answer_library.entry_deleted")
def _entry_deleted(sender, instance, **kwargs):
    Answer.objects.filter(library_entry_id=instance.pk).update(library_entry_id=None)
