"""Gunicorn settings for the `web` process (Procfile and docker-compose.yml).

Read from the environment so the same command works everywhere:
SPELUNKER_HOST (127.0.0.1 locally, 0.0.0.0 in a container), SPELUNKER_PORT,
WEB_CONCURRENCY (worker processes).
"""

import os

bind = f"{os.environ.get('SPELUNKER_HOST') or '127.0.0.1'}:{os.environ.get('SPELUNKER_PORT') or '8000'}"
workers = int(os.environ.get("WEB_CONCURRENCY") or 2)
# Requests stay short (long work runs in Celery); a stuck one is recycled.
timeout = 60
graceful_timeout = 30
accesslog = "-"
errorlog = "-"
# Behind a proxy in compose/production: trust X-Forwarded-* only from it.
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")


def post_worker_init(worker):
    """Warm the search in the background as each web process starts (loading the local embedding model takes
    seconds): the first searches no longer wait for it, and the process serves requests meanwhile."""
    import threading

    from django.db import connection

    from solution_library.services.search import warm_up

    def warm():
        try:
            warm_up()
        finally:
            connection.close()  # this thread's own connection

    threading.Thread(target=warm, name="search-warm-up", daemon=True).start()
