"""A job's JSON status from Memcached for half a poll: many clients watching one job cost one row read per half second.

Why this and not the alternatives (issue 23, profiled with pyinstrument on
the status endpoint under load): the endpoint's own work is one read of the
job row and its JSON; the row read — a round trip to the database, a query
built by the ORM and a model made from it — is most of what the endpoint adds
to any signed-in request (session from Memcached, user from the database).

- A conditional GET (an ETag from the row) still reads the row to know whether
  it changed: it saves the JSON and the bytes, not the round trip.
- Server-Sent Events hold one connection per watching tab; with gunicorn's
  sync workers (two on this machine) a third watcher would wait for a worker.
- So the payload is kept in Memcached for at most MAX_AGE seconds, stamped
  with the time it was read (Memcached's own expiry counts whole seconds), and
  forgotten the moment the job finishes — completed, failed or cancelled
  (BaseJob.finish): those are the changes a page must not show late. Progress
  counters may be up to MAX_AGE old; with pages polling every second that is at
  most one poll. Should the forget be lost (a read that began before the
  cancellation stores its payload after it, or Memcached is briefly down), the
  stamp still bounds the delay to MAX_AGE: never more than one poll.

Access is checked as before, through the view's own loader, and remembered in
the same entry, per user, for MAX_AGE as well: a user whose access is withdrawn
may see the counters for another half second, never longer. One entry per job
(the payload, already encoded, and the users who may read it, each with the time
their access was checked) makes a poll one Memcached read: the endpoint costs
what any signed-in request costs plus that read.

A tenth of a poll (LOCAL_AGE) the entry is also kept in the web process's own
memory: under a burst of polls (16 clients on one job, make bench) even the
Memcached read — a round trip that was most of what the endpoint still added
to a signed-in request once the user came from Memcached too (spelunker.auth) —
is paid once per process per LOCAL_AGE. The stamps rule there as well; only a
finish forgotten by another process (a worker's) reaches this process up to
LOCAL_AGE late, a tenth of the one poll the design allows at most.
"""

import json
import time

from django.core.cache import cache
from django.core.serializers.json import DjangoJSONEncoder
from django.http import HttpResponse

# Half the progress partial's poll interval (templates/jobs/_progress.html: every 1 s).
MAX_AGE = 0.5
# Memcached expiry is in whole seconds; the stamps, not this, decide freshness.
STORED_SECONDS = 2
# How long this process answers from its own copy of an entry before asking Memcached again.
LOCAL_AGE = 0.1
# {key: (when this process took its copy, the entry)}; cleared whole when it grows past LOCAL_ENTRIES.
_local: dict = {}
LOCAL_ENTRIES = 1000


def payload_key(model, pk: int) -> str:
    return f"job-status:{model._meta.label_lower}:{pk}"


def forget(job) -> None:
    """The job's status changed in a way no page may show late (it finished): the next poll reads the row."""
    key = payload_key(type(job), job.pk)
    _local.pop(key, None)
    cache.delete(key)


def _entry(key: str, now: float):
    """The entry from this process's copy while younger than LOCAL_AGE, else from Memcached (copied here)."""
    copied, entry = _local.get(key, (None, None))
    if copied is None or not 0 <= now - copied < LOCAL_AGE:
        entry = cache.get(key)
        _keep(key, now, entry)
    return entry


def _keep(key: str, now: float, entry) -> None:
    if len(_local) >= LOCAL_ENTRIES:
        _local.clear()
    _local[key] = (now, entry)


def _fresh(stamp: float | None, now: float) -> bool:
    return stamp is not None and now - stamp < MAX_AGE


def status_json(request, model, pk: int, load) -> HttpResponse:
    """The job's status_payload() as JSON; `load()` checks access and returns the job (raising 404/403), on a miss.

    The entry is (stamp of the payload, its JSON, {user pk: stamp of their access check}). A poll is
    answered from it when both the payload and this user's check are younger than MAX_AGE; otherwise
    the row is read through `load()` and the entry rewritten, keeping the other users' checks that are
    still fresh (never re-stamped: each check counts from when it was made).
    """
    key, user, now = payload_key(model, pk), request.user.pk, time.time()
    stamp, body, readers = _entry(key, now) or (None, None, {})
    if not (_fresh(stamp, now) and _fresh(readers.get(user), now)):
        # The stamp is taken before the read: a payload is never younger than its stamp says.
        body = json.dumps(load().status_payload(), cls=DjangoJSONEncoder)
        readers = {reader: checked for reader, checked in readers.items() if _fresh(checked, now)} | {user: now}
        cache.set(key, (now, body, readers), timeout=STORED_SECONDS)
        _keep(key, now, (now, body, readers))
    return HttpResponse(body, content_type="application/json")
