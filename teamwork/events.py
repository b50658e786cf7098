"""What teamwork tells the apps built on it (the audit trail), which it does not import.

Each signal is sent inside the transaction of the change it reports, so a receiver's writes commit or roll back
with that change.
"""

from django.dispatch import Signal

# Sent (rfp=, user=, by=, before=, after=) when a person's role on an RFP was given, changed or taken away;
# before and after are role names, "" for no role.
role_changed = Signal()

# Sent (rfp=, questions=, assignee=, due=, by=) when questions of an RFP were given to a person; due may be None.
questions_assigned = Signal()

# Sent (comment=) when a comment was posted on a question.
comment_posted = Signal()
