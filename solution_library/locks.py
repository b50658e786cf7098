"""One sync per documentation source at a time.

Two layers, both must be won (a cache key with no live lease behind it is
stale and yields to the database):

1. The memcached `add` lock of Celery's cookbook: `add` is atomic, so of two
   workers only one creates the key. It answers a duplicate quickly.
2. A lease on the source's row in the database (a conditional UPDATE), which
   holds when memcached is unreachable — the cache client is configured to
   swallow errors, so a dead memcached would make `add` look like "locked"
   (sync silently skipped) or, worse, an evicted key would let two run.

The owner token is "<job id>:<celery task id>": a redelivered message of the
same task (same task id, after a worker crash) may take over its own lease,
anyone else waits for it to be released or to expire.
"""

import logging
import uuid
from contextlib import contextmanager
from datetime import timedelta

from django.core.cache import cache
from django.db.models import Q
from django.utils import timezone

from .models import DocumentationSource

logger = logging.getLogger(__name__)

# Longer than the sync task's hard time limit, so a live sync never loses its lock.
LOCK_EXPIRE_SECONDS = 60 * 60


def lock_key(source_id: int) -> str:
    return f"solution_library:sync-lock:{source_id}"


def memcached_reachable() -> bool:
    """A write-then-read probe: with ignore_exc a dead server answers None to both."""
    probe = f"solution_library:probe:{uuid.uuid4().hex}"
    if cache.add(probe, "1", 10) and cache.get(probe) == "1":
        cache.delete(probe)
        return True
    return False


@contextmanager
def source_sync_lock(source_id: int, owner: str):
    """Yield True when this owner holds the source's sync lock, False when someone else does."""
    key = lock_key(source_id)
    cache_status = _acquire_cache_lock(key, owner)
    if cache_status == "held_by_other" and lock_holder(source_id):
        yield False
        return
    # A cache key without a live lease is stale (its delete was lost, its owner
    # died and the lease expired): the database lease alone decides.
    if not _acquire_db_lease(source_id, owner):
        if cache_status == "acquired":
            cache.delete(key)
        yield False
        return
    if cache_status == "held_by_other":
        cache.set(key, owner, LOCK_EXPIRE_SECONDS)
        cache_status = "acquired"
    try:
        yield True
    finally:
        _release_db_lease(source_id, owner)
        if cache_status == "acquired" and cache.get(key) == owner:
            cache.delete(key)


def _acquire_cache_lock(key: str, owner: str) -> str:
    """'acquired', 'held_by_other', or 'unavailable' (memcached down: the lease alone decides)."""
    if cache.add(key, owner, LOCK_EXPIRE_SECONDS):
        return "acquired"
    holder = cache.get(key)
    if holder == owner:
        return "acquired"  # our own earlier delivery
    if holder is not None:
        return "held_by_other"
    if memcached_reachable():
        # The key expired between add and get: try once more.
        return "acquired" if cache.add(key, owner, LOCK_EXPIRE_SECONDS) else "held_by_other"
    logger.warning("Memcached unreachable; the database lease alone guards the sync", extra={"lock": key})
    return "unavailable"


def _acquire_db_lease(source_id: int, owner: str) -> bool:
    now = timezone.now()
    free_or_mine = Q(sync_lock_token="") | Q(sync_lock_token=owner) | Q(sync_lock_expires_at__lt=now)
    return bool(
        DocumentationSource.objects.filter(free_or_mine, pk=source_id).update(
            sync_lock_token=owner, sync_lock_expires_at=now + timedelta(seconds=LOCK_EXPIRE_SECONDS)
        )
    )


def _release_db_lease(source_id: int, owner: str) -> None:
    DocumentationSource.objects.filter(pk=source_id, sync_lock_token=owner).update(
        sync_lock_token="", sync_lock_expires_at=None
    )


def lock_holder(source_id: int) -> str:
    """The owner token of the current lease, or '' (for messages and tests)."""
    now = timezone.now()
    row = DocumentationSource.objects.filter(pk=source_id, sync_lock_expires_at__gte=now).values_list(
        "sync_lock_token", flat=True
    )
    return row.first() or ""
