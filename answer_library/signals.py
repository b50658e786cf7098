"""A person's edit of an answer's final text becomes an open library candidate; drafts and reviews do not."""

from django.db.models.signals import post_save
from django.dispatch import receiver

from rfp_manager.models import Answer

from .services.entries import record_candidate


@receiver(post_save, sender=Answer, dispatch_uid="answer_library.candidate")
def _answer_edited(sender, instance, raw=False, update_fields=None, **kwargs):
    # save_final_text saves exactly these fields: a person's edit, not a draft or a review.
    if not raw and update_fields and "final_text" in update_fields:
        record_candidate(instance)
