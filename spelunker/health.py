"""/healthz (the process answers) and /readyz (its dependencies answer)."""

import uuid

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.core.cache import cache
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from kombu import Connection

from core.storage import check_storage


def _check_database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return "ok"


def _check_broker() -> str:
    with Connection(settings.CELERY_BROKER_URL, connect_timeout=2) as conn:
        conn.ensure_connection(max_retries=1, timeout=2)
    return "ok"


def _check_cache() -> str:
    # The cache client swallows errors (an outage must degrade, not break a
    # page), so readiness proves a real round trip instead.
    key = f"readyz:{uuid.uuid4().hex}"
    cache.set(key, "1", timeout=10)
    if cache.get(key) != "1":
        raise ConnectionError("memcached did not return the value just stored")
    cache.delete(key)
    return "ok"


CHECKS = {"database": _check_database, "broker": _check_broker, "cache": _check_cache}


def _checks() -> dict:
    """With media in S3 (several machines share it) a machine that cannot reach the bucket is not ready."""
    return {**CHECKS, "storage": check_storage} if settings.S3_BUCKET else CHECKS


@login_not_required
@never_cache
def healthz(request):
    return JsonResponse({"status": "ok"})


def _embedding_warning() -> dict:
    """A default embedding model that cannot run here, and what embeds meanwhile.

    A warning, not unreadiness: with the offline baseline standing in, the app
    still answers (with weaker retrieval), so a balancer must not take it out.
    """
    from llm_manager.services import embedding_fallback

    fallback = embedding_fallback()
    if fallback is None:
        return {}
    stand_in = fallback.stand_in.name if fallback.stand_in else "nothing (no offline baseline is active)"
    return {"embedding_model": f"warning: {fallback.problem}; embedding with {stand_in} meanwhile"}


@login_not_required
@never_cache
def readyz(request):
    results = {}
    for name, check in _checks().items():
        try:
            results[name] = check()
        except Exception as exc:  # report every failing dependency, not just the first
            results[name] = f"error: {type(exc).__name__}: {exc}"
    ready = all(value == "ok" for value in results.values())
    if results["database"] == "ok":
        results.update(_embedding_warning())
    return JsonResponse({"status": "ok" if ready else "unavailable", **results}, status=200 if ready else 503)
