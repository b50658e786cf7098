"""What stands between a caller and an LLM API: circuit breaker, rate limit, concurrency slots.

All three are shared by every process through the database, not kept per
process: two workers with concurrency 4 each must still send at most
`max_concurrent_requests` requests at once and `requests_per_minute` per
minute. Each check is one conditional UPDATE, atomic on PostgreSQL and SQLite.

The common call — a healthy API with a free slot — costs two statements (three
with a rate limit): one UPDATE that leases a free slot only while the API is
healthy (circuit closed, no failure counted: `lease_slot(healthy_only=True)`),
and one that gives it back. It used to take seven round trips. A
call that starts while the API is not known healthy takes the long way (the
circuit check with its half-open trial, then a slot) and marks the API healthy
when it succeeds. So a success resets the failures counted before its call
started; a failure recorded by another process during a call that started
healthy is reset by the next call that starts after it, not by this one.

Why the database and not Memcached: a Memcached key can be evicted or lost on a
restart (silently lifting the limit), and an outage would need a second
limiter anyway. The price is a few small writes per LLM call, which is nothing
next to the call itself. Caveat: an LLM call made inside a caller's open
transaction keeps its bookkeeping rows locked until that transaction ends;
other processes then skip that slot and wait on the minute's rate row (never
over the limit, but slower). Do not call LLMs inside long transactions.

Circuit breaker (after the Celery 5 architecture draft): after
`CIRCUIT_FAILURE_THRESHOLD` consecutive transient failures the API is marked
unhealthy and the circuit opens; calls fail fast with CircuitOpenError. After
`CIRCUIT_COOLDOWN_SECONDS` one process gets a trial call (half-open); success
closes the circuit, failure keeps it open for another cool-down.
"""

import logging
import random
import time
import uuid
from contextlib import contextmanager
from datetime import timedelta

from django.db import IntegrityError, connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from .exceptions import CircuitOpenError, LLMError, TransientLLMError
from .models import LLMApi, RateWindow, RequestSlot

logger = logging.getLogger(__name__)

CIRCUIT_FAILURE_THRESHOLD = 3
CIRCUIT_COOLDOWN_SECONDS = 30
SLOT_LEASE_MARGIN_SECONDS = 30
MAX_WAIT_FOR_SLOT_SECONDS = 120
MAX_WAIT_FOR_RATE_SECONDS = 65
POLL_SECONDS = 0.05


@contextmanager
def guarded_call(api: LLMApi, *, check_circuit: bool = True):
    """Run one request to `api` within its limits and record the outcome for the breaker.

    Validation passes check_circuit=False: it is the health check that may close the circuit.
    """
    with request_slot(api, check_circuit=check_circuit) as started_healthy:
        try:
            yield
        except TransientLLMError as exc:
            record_failure(api, str(exc), transient=True)
            raise
        except LLMError as exc:
            record_failure(api, str(exc), transient=False)
            raise
    if not started_healthy:  # nothing to reset when the slot was leased only because the API was healthy
        record_success(api)


# --- circuit breaker -------------------------------------------------------------------
def enter_circuit(api: LLMApi) -> None:
    """Raise CircuitOpenError while the circuit is open; let exactly one trial call through after the cool-down."""
    opened_at = LLMApi.objects.filter(pk=api.pk).values_list("circuit_opened_at", flat=True).first()
    if opened_at is None:
        return
    resting_until = opened_at + timedelta(seconds=CIRCUIT_COOLDOWN_SECONDS)
    now = timezone.now()
    if now < resting_until:
        raise CircuitOpenError(
            f"{api.name} is marked unhealthy after repeated failures; not calling it for another "
            f"{(resting_until - now).total_seconds():.0f} s",
            retry_after=(resting_until - now).total_seconds(),
        )
    # Half-open: whoever moves opened_at forward gets the trial call; the others keep failing fast.
    if not LLMApi.objects.filter(pk=api.pk, circuit_opened_at=opened_at).update(circuit_opened_at=now):
        raise CircuitOpenError(
            f"{api.name} is being re-tested after repeated failures", retry_after=CIRCUIT_COOLDOWN_SECONDS
        )
    logger.info("Circuit of %s half-open: trial call", api.name, extra={"api_id": api.pk})


def record_success(api: LLMApi) -> None:
    """Close the circuit. Only writes when something changes (the common case costs one cheap UPDATE)."""
    closed = (
        LLMApi.objects.filter(pk=api.pk)
        .filter(
            Q(consecutive_failures__gt=0) | Q(circuit_opened_at__isnull=False) | ~Q(health_status=LLMApi.HEALTH_HEALTHY)
        )
        .update(consecutive_failures=0, circuit_opened_at=None, health_status=LLMApi.HEALTH_HEALTHY, last_error="")
    )
    if closed:
        logger.info("%s answered: marked healthy", api.name, extra={"api_id": api.pk})


def record_failure(api: LLMApi, error: str, *, transient: bool) -> None:
    """Count a transient failure toward the breaker; a business error is recorded but opens nothing."""
    if not transient:
        LLMApi.objects.filter(pk=api.pk).update(last_error=error[:2000])
        return
    LLMApi.objects.filter(pk=api.pk).update(consecutive_failures=F("consecutive_failures") + 1, last_error=error[:2000])
    opened = LLMApi.objects.filter(pk=api.pk, consecutive_failures__gte=CIRCUIT_FAILURE_THRESHOLD).update(
        health_status=LLMApi.HEALTH_UNHEALTHY, circuit_opened_at=timezone.now()
    )
    if opened:
        logger.warning("Circuit of %s opened after repeated failures: %s", api.name, error, extra={"api_id": api.pk})


# --- rate limit -------------------------------------------------------------------------
def wait_for_rate_allowance(api: LLMApi) -> bool:
    """Take one request from this minute's allowance, waiting for the next minute if it is used up.

    requests_per_minute = 0 means no rate limit (local servers). True when it had to wait.
    """
    if not api.requests_per_minute:
        return False
    deadline = time.monotonic() + MAX_WAIT_FOR_RATE_SECONDS
    waited = False
    while True:
        window = timezone.now().replace(second=0, microsecond=0)
        if _take_from_window(api, window):
            return waited
        next_window = (window + timedelta(minutes=1) - timezone.now()).total_seconds()
        if time.monotonic() + next_window > deadline:
            raise TransientLLMError(
                f"{api.name} allows {api.requests_per_minute} requests per minute; the allowance is used up",
                retry_after=next_window,
            )
        time.sleep(min(next_window, 1.0) + random.uniform(0, 0.05))
        waited = True


def _take_from_window(api: LLMApi, window) -> bool:
    limit = api.requests_per_minute
    if RateWindow.objects.filter(api=api, window_start=window, count__lt=limit).update(count=F("count") + 1):
        return True
    if RateWindow.objects.filter(api=api, window_start=window).exists():
        return False
    try:
        with transaction.atomic():
            RateWindow.objects.create(api=api, window_start=window, count=1)
    except IntegrityError:  # another process created it first: take from it like everyone else
        return _take_from_window(api, window)
    RateWindow.objects.filter(api=api, window_start__lt=window - timedelta(minutes=5)).delete()
    return True


# --- concurrency slots ------------------------------------------------------------------
@contextmanager
def request_slot(api: LLMApi, *, check_circuit: bool = True):
    """Hold one of the API's concurrent-request slots for the duration of a call, its rate allowance taken.

    Yields whether the slot was leased on the fast path, i.e. the API was healthy when the call started.
    """
    holder, started_healthy = acquire_slot(api, check_circuit=check_circuit)
    try:
        # After the slot: a call refused by an open circuit must not use up the minute's allowance.
        if wait_for_rate_allowance(api):
            # The wait may have used up the lease meant for the call; renewed only then, so a killed
            # worker's slots still free themselves after one lease.
            RequestSlot.objects.filter(api=api, holder=holder).update(lease_until=timezone.now() + slot_lease(api))
        yield started_healthy
    finally:
        RequestSlot.objects.filter(api=api, holder=holder).update(holder="", lease_until=timezone.now())


def slot_count(api: LLMApi) -> int:
    return max(1, api.max_concurrent_requests)


def slot_lease(api: LLMApi) -> timedelta:
    """How long a slot stays taken without being given back: longer than any call, short enough to recover from a crash."""
    return timedelta(seconds=api.timeout_seconds * 2 + SLOT_LEASE_MARGIN_SECONDS)


def acquire_slot(api: LLMApi, *, check_circuit: bool = True) -> tuple[str, bool]:
    """Lease a free slot: (holder, whether the API was healthy). Raises CircuitOpenError while the circuit is open."""
    holder = uuid.uuid4().hex
    lease = slot_lease(api)
    if check_circuit and lease_slot(api, holder, lease, healthy_only=True):
        return holder, True
    if check_circuit:
        enter_circuit(api)
    deadline = time.monotonic() + max(MAX_WAIT_FOR_SLOT_SECONDS, api.timeout_seconds)
    ensured = False
    while time.monotonic() < deadline:
        if lease_slot(api, holder, lease):
            return holder, False
        if not ensured:  # no free slot: perhaps its rows do not exist yet (a new API, a larger limit)
            ensure_slots(api)
            ensured = True
            continue
        time.sleep(POLL_SECONDS + random.uniform(0, POLL_SECONDS))
    raise TransientLLMError(f"All {slot_count(api)} request slots of {api.name} stayed busy")


def lease_slot(api: LLMApi, holder: str, lease: timedelta, *, healthy_only: bool = False) -> bool:
    """Lease one free slot to `holder` in one UPDATE; False when none is free (or, `healthy_only`, the API is not healthy).

    Plain SQL: the free slot is picked by a sub-select that locks it with
    FOR UPDATE SKIP LOCKED where the database has it (PostgreSQL), so
    concurrent callers take different slots without waiting on each other
    (SQLite runs one writer at a time); the ORM refuses FOR UPDATE in a
    statement that is not inside a transaction, which would cost two more round trips.
    """
    features, ops = connection.features, connection.ops
    now = timezone.now()
    lock = " FOR UPDATE OF s SKIP LOCKED" if features.has_select_for_update_skip_locked else ""
    healthy = (
        (
            " AND EXISTS (SELECT 1 FROM llm_manager_llmapi a WHERE a.id = s.api_id AND a.circuit_opened_at IS NULL"
            " AND a.consecutive_failures = 0 AND a.health_status = %s)"
        )
        if healthy_only
        else ""
    )
    sql = (
        "UPDATE llm_manager_requestslot SET holder = %s, lease_until = %s WHERE id = ("
        "SELECT s.id FROM llm_manager_requestslot s WHERE s.api_id = %s AND s.number < %s AND s.lease_until <= %s"
        f"{healthy} ORDER BY s.number LIMIT 1{lock})"
    )
    params = [
        holder,
        ops.adapt_datetimefield_value(now + lease),
        api.pk,
        slot_count(api),
        ops.adapt_datetimefield_value(now),
        *([LLMApi.HEALTH_HEALTHY] if healthy_only else []),
    ]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount == 1


def ensure_slots(api: LLMApi) -> None:
    """Create the slot rows once per size (cheap no-op afterwards)."""
    if RequestSlot.objects.filter(api=api).count() >= slot_count(api):
        return
    epoch = timezone.now() - timedelta(days=1)
    RequestSlot.objects.bulk_create(
        [RequestSlot(api=api, number=n, lease_until=epoch) for n in range(slot_count(api))],
        ignore_conflicts=True,
    )
