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

Access is checked as before, through the view's own loader, and remembered per
user and job for MAX_AGE as well: a user whose access is withdrawn may see the
counters for another half second, never longer.
"""

import time

from django.core.cache import cache
from django.http import JsonResponse

# Half the progress partial's poll interval (templates/jobs/_progress.html: every 1 s).
MAX_AGE = 0.5
# Memcached expiry is in whole seconds; the stamp, not this, decides freshness.
STORED_SECONDS = 2


def payload_key(model, pk: int) -> str:
    return f"job-status:{model._meta.label_lower}:{pk}"


def access_key(model, pk: int, user) -> str:
    return f"job-status-access:{model._meta.label_lower}:{pk}:{user.pk}"


def forget(job) -> None:
    """The job's status changed in a way no page may show late (it finished): the next poll reads the row."""
    cache.delete(payload_key(type(job), job.pk))


def _fresh(entry):
    """The value of a (stamp, value) entry read within MAX_AGE, else None."""
    if entry is None:
        return None
    stamp, value = entry
    return value if time.time() - stamp < MAX_AGE else None


def status_json(request, model, pk: int, load) -> JsonResponse:
    """The job's status_payload() as JSON; `load()` checks access and returns the job (raising 404/403), on a miss."""
    keys = payload_key(model, pk), access_key(model, pk, request.user)
    found = cache.get_many(keys)
    payload, allowed = (_fresh(found.get(key)) for key in keys)
    if payload is None or not allowed:
        stamp = time.time()  # before the read: a payload is never younger than its stamp says
        payload = load().status_payload()
        cache.set_many({keys[0]: (stamp, payload), keys[1]: (stamp, True)}, timeout=STORED_SECONDS)
    return JsonResponse(payload)
