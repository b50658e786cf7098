"""What stands between a caller and an LLM API: circuit breaker, rate limit, concurrency slots.

All three are shared by every process through the database, not kept per
process: two workers with concurrency 4 each must still send at most
`max_concurrent_requests` requests at once and `requests_per_minute` per
minute. Each check is one conditional UPDATE (or a SELECT … FOR UPDATE SKIP
LOCKED for slots), atomic on PostgreSQL and SQLite.

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

from django.db import IntegrityError, transaction
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
    if check_circuit:
        enter_circuit(api)
    wait_for_rate_allowance(api)
    with request_slot(api):
        try:
            yield
        except TransientLLMError as exc:
            record_failure(api, str(exc), transient=True)
            raise
        except LLMError as exc:
            record_failure(api, str(exc), transient=False)
            raise
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
        raise CircuitOpenError(f"{api.name} is being re-tested after repeated failures", retry_after=CIRCUIT_COOLDOWN_SECONDS)
    logger.info("Circuit of %s half-open: trial call", api.name, extra={"api_id": api.pk})


def record_success(api: LLMApi) -> None:
    """Close the circuit. Only writes when something changes (the common case costs one cheap UPDATE)."""
    closed = LLMApi.objects.filter(pk=api.pk).filter(
        Q(consecutive_failures__gt=0) | Q(circuit_opened_at__isnull=False) | ~Q(health_status=LLMApi.HEALTH_HEALTHY)
    ).update(consecutive_failures=0, circuit_opened_at=None, health_status=LLMApi.HEALTH_HEALTHY, last_error="")
    if closed:
        logger.info("%s answered: marked healthy", api.name, extra={"api_id": api.pk})


def record_failure(api: LLMApi, error: str, *, transient: bool) -> None:
    """Count a transient failure toward the breaker; a business error is recorded but opens nothing."""
    if not transient:
        LLMApi.objects.filter(pk=api.pk).update(last_error=error[:2000])
        return
    LLMApi.objects.filter(pk=api.pk).update(consecutive_failures=F("consecutive_failures") + 1, last_error=error[:2000])
    opened = LLMApi.objects.filter(
        pk=api.pk, consecutive_failures__gte=CIRCUIT_FAILURE_THRESHOLD
    ).update(health_status=LLMApi.HEALTH_UNHEALTHY, circuit_opened_at=timezone.now())
    if opened:
        logger.warning("Circuit of %s opened after repeated failures: %s", api.name, error, extra={"api_id": api.pk})


# --- rate limit -------------------------------------------------------------------------
def wait_for_rate_allowance(api: LLMApi) -> None:
    """Take one request from this minute's allowance, waiting for the next minute if it is used up.

    requests_per_minute = 0 means no rate limit (local servers).
    """
    if not api.requests_per_minute:
        return
    deadline = time.monotonic() + MAX_WAIT_FOR_RATE_SECONDS
    while True:
        window = timezone.now().replace(second=0, microsecond=0)
        if _take_from_window(api, window):
            return
        next_window = (window + timedelta(minutes=1) - timezone.now()).total_seconds()
        if time.monotonic() + next_window > deadline:
            raise TransientLLMError(
                f"{api.name} allows {api.requests_per_minute} requests per minute; the allowance is used up",
                retry_after=next_window,
            )
        time.sleep(min(next_window, 1.0) + random.uniform(0, 0.05))


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
def request_slot(api: LLMApi):
    """Hold one of the API's concurrent-request slots for the duration of a call."""
    slot_pk, holder = acquire_slot(api)
    try:
        yield
    finally:
        RequestSlot.objects.filter(pk=slot_pk, holder=holder).update(holder="", lease_until=timezone.now())


def slot_count(api: LLMApi) -> int:
    return max(1, api.max_concurrent_requests)


def acquire_slot(api: LLMApi) -> tuple[int, str]:
    holder = uuid.uuid4().hex
    lease = timedelta(seconds=api.timeout_seconds * 2 + SLOT_LEASE_MARGIN_SECONDS)
    deadline = time.monotonic() + max(MAX_WAIT_FOR_SLOT_SECONDS, api.timeout_seconds)
    ensured = False
    while time.monotonic() < deadline:
        slot_pk = _take_free_slot(api, holder, lease)
        if slot_pk:
            return slot_pk, holder
        if not ensured:  # no free slot: perhaps its rows do not exist yet (a new API, a larger limit)
            ensure_slots(api)
            ensured = True
            continue
        time.sleep(POLL_SECONDS + random.uniform(0, POLL_SECONDS))
    raise TransientLLMError(f"All {slot_count(api)} request slots of {api.name} stayed busy")


def _take_free_slot(api: LLMApi, holder: str, lease: timedelta) -> int | None:
    """Lease one free slot, or None. Rows another transaction holds are skipped, not waited for."""
    now = timezone.now()
    with transaction.atomic():
        slot = (
            RequestSlot.objects.select_for_update(skip_locked=True)
            .filter(api=api, number__lt=slot_count(api), lease_until__lte=now)
            .order_by("number")
            .first()
        )
        if slot is None:
            return None
        RequestSlot.objects.filter(pk=slot.pk).update(holder=holder, lease_until=now + lease)
        return slot.pk


def ensure_slots(api: LLMApi) -> None:
    """Create the slot rows once per size (cheap no-op afterwards)."""
    if RequestSlot.objects.filter(api=api).count() >= slot_count(api):
        return
    epoch = timezone.now() - timedelta(days=1)
    RequestSlot.objects.bulk_create(
        [RequestSlot(api=api, number=n, lease_until=epoch) for n in range(slot_count(api))],
        ignore_conflicts=True,
    )
