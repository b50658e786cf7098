"""Login everywhere, health and readiness, structured logs."""

import io
import json
import logging

import pytest
from django.test import override_settings
from django.urls import reverse

from jobs.tasks import probe_queue
from spelunker.logging import JsonFormatter, TaskContextFilter

pytestmark = pytest.mark.django_db

PAGES = ["home", "system", "solution_library:index", "rfp_manager:index", "llm_manager:index"]


@pytest.mark.parametrize("name", PAGES)
def test_pages_require_login(client, name):
    response = client.get(reverse(name))
    assert response.status_code == 302
    assert response.url.startswith(reverse("login"))


def test_job_status_endpoint_requires_login(client):
    response = client.get(reverse("system_check_status", args=[1]))
    assert response.status_code == 302


def test_login_then_home(client, user):
    response = client.post(reverse("login"), {"username": "alice", "password": "pw-alice-123"}, follow=True)
    assert response.status_code == 200
    assert b"Welcome, alice" in response.content


def test_a_signed_in_request_reads_its_session_from_the_cache_and_logout_revokes_it(client, staff_user):
    from django.conf import settings
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from jobs.models import SystemCheck

    client.post(reverse("login"), {"username": staff_user.username, "password": "pw-staff-123"})
    status_url = reverse("system_check_status", args=[SystemCheck.objects.create().pk])
    with CaptureQueriesContext(connection) as queries:
        assert client.get(status_url, HTTP_ACCEPT="application/json").status_code == 200
    assert [q["sql"] for q in queries if "django_session" in q["sql"]] == []

    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    client.post(reverse("logout"))
    client.cookies[settings.SESSION_COOKIE_NAME] = cookie  # the old cookie, kept by someone
    assert client.get(status_url, HTTP_ACCEPT="application/json").status_code == 401


def test_system_page_is_for_staff_only(user_client):
    assert user_client.get(reverse("system")).status_code == 403


def test_healthz_needs_no_login_or_dependency(client):
    with override_settings(CELERY_BROKER_URL="amqp://nobody:x@127.0.0.1:1//"):
        response = client.get("/healthz")
    assert response.status_code == 200 and response.json() == {"status": "ok"}


def test_signed_in_requests_reuse_one_memcached_connection(user_client, settings):
    """Each request reads its session from Memcached; Django's own backend reconnected for every one of them."""
    from pymemcache.client.base import Client

    host, port = settings.CACHES["default"]["LOCATION"].rsplit(":", 1)
    probe = Client((host, int(port)))

    def connections_opened() -> int:  # since Memcached started, the probe's own included
        return int(probe.stats()[b"total_connections"])

    assert user_client.get("/healthz").status_code == 200  # this thread's connection, opened once
    before = connections_opened()
    for _ in range(5):
        assert user_client.get("/healthz").status_code == 200
    # Django's own backend opens five here; one more is allowed for another process of the stack.
    assert connections_opened() - before <= 1
    probe.close()


def test_readyz_reports_each_dependency_ok(client):
    response = client.get("/readyz")
    assert response.json() == {"status": "ok", "database": "ok", "broker": "ok", "cache": "ok"}


def test_readyz_is_503_when_broker_and_cache_are_down(client):
    from django.core.cache import caches

    down_cache = {
        "default": {
            "BACKEND": "django.core.cache.backends.memcached.PyMemcacheCache",
            "LOCATION": "127.0.0.1:1",
            "OPTIONS": {"connect_timeout": 0.2, "timeout": 0.2, "ignore_exc": True},
        }
    }
    with override_settings(CELERY_BROKER_URL="amqp://nobody:x@127.0.0.1:1//", CACHES=down_cache):
        caches._settings = None  # let the cache handler see the overridden CACHES
        response = client.get("/readyz")
    body = response.json()
    assert response.status_code == 503
    assert body["database"] == "ok"
    assert body["broker"].startswith("error:") and body["cache"].startswith("error:")


def test_log_lines_are_json_with_task_and_job_ids():
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(TaskContextFilter())
    logger = logging.getLogger("jobs.tasks")
    logger.addHandler(handler)
    try:
        probe_queue.apply(kwargs={"job_id": 4242, "queue": "default"}, task_id="tid-1")
    finally:
        logger.removeHandler(handler)
    records = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert records, "the task logged nothing"
    assert records[-1]["task_id"] == "tid-1"
    assert records[-1]["task_name"] == "spelunker.probe_queue"
    assert records[-1]["job_id"] == 4242
