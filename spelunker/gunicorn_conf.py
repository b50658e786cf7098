"""Gunicorn settings for the `web` process (Procfile and docker-compose.yml).

Read from the environment so the same command works everywhere:
SPELUNKER_HOST (127.0.0.1 locally, 0.0.0.0 in a container), SPELUNKER_PORT,
WEB_CONCURRENCY (worker processes).
"""

import os

bind = f"{os.environ.get('SPELUNKER_HOST') or '127.0.0.1'}:{os.environ.get('SPELUNKER_PORT') or '8000'}"
workers = int(os.environ.get("WEB_CONCURRENCY") or 2)
# Django is imported once, in the master, and the workers are forked from it: each worker
# importing it again doubled the seconds to the first page on a busy 2-core machine. Safe
# because nothing opens a connection at import (the database, the broker and the cache are
# reached on a request's first use, in the worker); the warm-up below runs in each worker.
preload_app = True
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
