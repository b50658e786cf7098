"""What the RFP manager tells the apps built on it (the audit trail), which it does not import."""

from django.dispatch import Signal

# Sent (answers=, user=) after answers were approved at once: a bulk update sends no post_save.
answers_approved = Signal()
