"""The signed-in user of the current request, for receivers that only see a model instance.

Set by audit.middleware.AuditMiddleware; None outside a request (tasks, Beat).
"""

from contextvars import ContextVar

_current_user = ContextVar("audit_current_user", default=None)


def current_user():
    return _current_user.get()
