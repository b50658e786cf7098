"""Queue a new notification's email after commit; close an assignment when its assignee saves an answer."""

from django.db.models.signals import post_save
from django.dispatch import receiver

from rfp_manager.models import Answer

from . import tasks
from .models import Assignment, Notification


@receiver(post_save, sender=Notification, dispatch_uid="teamwork.dispatch_notification_email")
def _queue_email(sender, instance, created, raw=False, **kwargs):
    if created and not raw and instance.email_status == Notification.Email.QUEUED:
        tasks.dispatch_notification_email(instance)


@receiver(post_save, sender=Answer, dispatch_uid="teamwork.assignment_answered")
def _assignment_answered(sender, instance, raw=False, **kwargs):
    """Answered means: the assignee edited the answer after it was given to them."""
    if raw or not (instance.edited_by_id and instance.edited_at):
        return
    Assignment.objects.filter(
        question_id=instance.question_id,
        assignee_id=instance.edited_by_id,
        answered_at__isnull=True,
        assigned_at__lte=instance.edited_at,
    ).update(answered_at=instance.edited_at)
