"""The signed-in user of the current request, for receivers that only see a model instance; and a restore in progress.

The user is set by audit.middleware.AuditMiddleware; None outside a request (tasks, Beat).
"""

from contextlib import contextmanager
from contextvars import ContextVar

_current_user = ContextVar("audit_current_user", default=None)
_restoring = ContextVar("audit_restoring", default=False)


def current_user():
    return _current_user.get()


@contextmanager
def restoring():
    """Loading a backup (`manage.py import_team`): its rows bring their own audit trail.

    Django's loaddata marks saves as raw, which the receivers skip, but not the
    many-to-many sets (an RFP's groups) nor the deletes that make room for the
    backup: nothing done meanwhile is a person's action to record.
    """
    token = _restoring.set(True)
    try:
        yield
    finally:
        _restoring.reset(token)


def is_restoring() -> bool:
    return _restoring.get()
