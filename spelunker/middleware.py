"""The login requirement for every view, answering scripts the way scripts understand."""

from django.contrib.auth import middleware as auth_middleware
from django.http import JsonResponse
from django.shortcuts import resolve_url


def wants_json(request) -> bool:
    """A script or htmx asked: it cannot follow a redirect to an HTML login form."""
    accept = request.headers.get("Accept", "")
    return "application/json" in accept or request.headers.get("HX-Request") == "true"


class LoginRequiredMiddleware(auth_middleware.LoginRequiredMiddleware):
    """Django's LoginRequiredMiddleware, but JSON and htmx requests get a 401 JSON answer.

    A 302 to the login page would hand a polling script (or htmx, which swaps
    the response into the page) an HTML form with status 200.
    """

    def handle_no_permission(self, request, view_func):
        if wants_json(request):
            login_url = resolve_url(self.get_login_url(view_func))
            return JsonResponse({"error": "authentication required", "login_url": login_url}, status=401)
        return super().handle_no_permission(request, view_func)
