"""System checks of our own (run by `manage.py check`; `--deploy` ones only when asked).

`make run` calls `manage.py check --deploy --tag exposure`: a warning, not a
refusal, when the web server listens beyond this machine while development
secrets are still in place.
"""

import ipaddress
import os
from urllib.parse import urlsplit

from django.conf import settings
from django.core.checks import Warning, register

# The settings' built-in default and the .env.example placeholder.
DEVELOPMENT_SECRET_KEYS = {"dev-only-insecure-key-change-me", "change-me-to-a-long-random-string"}
# RabbitMQ's default user and the .env.example placeholders: known to everyone.
DEVELOPMENT_PASSWORDS = {"guest", "secret", "admin", "password"}


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:  # a host name: it may resolve anywhere
        return False


def development_secrets() -> list[str]:
    """Which of the settings still hold values anyone could know."""
    found = []
    if settings.SECRET_KEY in DEVELOPMENT_SECRET_KEYS:
        found.append("DJANGO_SECRET_KEY is the development default")
    if settings.DEBUG:
        found.append("DJANGO_DEBUG is on (tracebacks and settings are shown to visitors)")
    if urlsplit(settings.CELERY_BROKER_URL).password in DEVELOPMENT_PASSWORDS:
        found.append("CELERY_BROKER_URL uses a well-known password")
    if settings.DATABASES["default"].get("PASSWORD") in DEVELOPMENT_PASSWORDS:
        found.append("DATABASE_URL uses a well-known password")
    if os.environ.get("FLOWER_BASIC_AUTH", "").partition(":")[2] in DEVELOPMENT_PASSWORDS:
        found.append("FLOWER_BASIC_AUTH uses a well-known password")
    return found


@register("exposure", deploy=True)
def development_secrets_exposed(app_configs, **kwargs):
    host = os.environ.get("SPELUNKER_HOST") or "127.0.0.1"  # what gunicorn binds (spelunker/gunicorn_conf.py)
    found = [] if is_loopback(host) else development_secrets()
    if not found:
        return []
    return [
        Warning(
            f"Spelunker listens on {host}, beyond this machine, with development secrets: {'; '.join(found)}.",
            hint="Set real secrets in the environment (see .env.example), or set SPELUNKER_HOST=127.0.0.1.",
            id="spelunker.W001",
        )
    ]
