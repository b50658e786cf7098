from pathlib import Path

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.http import HttpResponse
from django.views.decorators.cache import cache_control

FAVICON = Path(settings.BASE_DIR) / "static" / "favicon.ico"


@login_not_required
@cache_control(max_age=86400, public=True)
def favicon(request):
    """Browsers ask for /favicon.ico whatever the page links to: answer with the icon, not a 404 or the login page."""
    return HttpResponse(FAVICON.read_bytes(), content_type="image/x-icon")
