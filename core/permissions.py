"""Who may do what: the shared view decorators."""

from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied


def staff_required(view):
    """Staff only: anonymous users go to the login page, others get a 403 (not a login loop)."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not request.user.is_staff:
            raise PermissionDenied("Only staff may do this.")
        return view(request, *args, **kwargs)

    return wrapper
