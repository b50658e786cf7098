"""Circuit breaker and shared rate limit, in one process (the cross-process proof is in test_workers.py)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from llm_manager import guard, services
from llm_manager.exceptions import CircuitOpenError, TransientLLMError
from llm_manager.models import LLMApi, RateWindow, RequestSlot
from llm_manager.testing.fixtures import register_fake_api

pytestmark = pytest.mark.django_db
HELLO = [{"role": "user", "content": "hello"}]


def rewind_circuit(api, seconds):
    LLMApi.objects.filter(pk=api.pk).update(circuit_opened_at=timezone.now() - timedelta(seconds=seconds))


def test_circuit_opens_after_repeated_transient_failures_and_fails_fast(fake_llm):
    api = register_fake_api(fake_llm)
    fake_llm.configure(fault="500")
    for _ in range(guard.CIRCUIT_FAILURE_THRESHOLD):
        with pytest.raises(TransientLLMError):
            services.chat(HELLO)
    api.refresh_from_db()
    assert api.health_status == LLMApi.HEALTH_UNHEALTHY and api.circuit_opened_at is not None

    with pytest.raises(CircuitOpenError, match="marked unhealthy") as caught:
        services.chat(HELLO)
    assert caught.value.retry_after > 0
    assert len(fake_llm.requests) == guard.CIRCUIT_FAILURE_THRESHOLD  # failed fast: the API was not called


def test_business_errors_do_not_open_the_circuit(fake_llm):
    api = register_fake_api(fake_llm)
    fake_llm.configure(fault="401")
    for _ in range(guard.CIRCUIT_FAILURE_THRESHOLD + 1):
        with pytest.raises(Exception, match="API key rejected"):
            services.chat(HELLO)
    api.refresh_from_db()
    assert api.circuit_opened_at is None and api.consecutive_failures == 0


def test_half_open_trial_success_closes_the_circuit(fake_llm):
    api = register_fake_api(fake_llm)
    LLMApi.objects.filter(pk=api.pk).update(consecutive_failures=3, health_status="unhealthy")
    rewind_circuit(api, guard.CIRCUIT_COOLDOWN_SECONDS - 5)
    with pytest.raises(CircuitOpenError):
        services.chat(HELLO)  # still cooling down

    rewind_circuit(api, guard.CIRCUIT_COOLDOWN_SECONDS + 1)
    assert services.chat(HELLO).text  # the trial call goes through
    api.refresh_from_db()
    assert (api.circuit_opened_at, api.consecutive_failures, api.health_status) == (None, 0, LLMApi.HEALTH_HEALTHY)


def test_half_open_trial_failure_keeps_it_open_for_another_cooldown(fake_llm):
    api = register_fake_api(fake_llm)
    LLMApi.objects.filter(pk=api.pk).update(consecutive_failures=3, health_status="unhealthy")
    rewind_circuit(api, guard.CIRCUIT_COOLDOWN_SECONDS + 1)
    fake_llm.configure(fault="500")
    with pytest.raises(TransientLLMError):
        services.chat(HELLO)
    with pytest.raises(CircuitOpenError):
        services.chat(HELLO)
    assert len(fake_llm.requests) == 1


def test_validation_is_the_health_check_and_may_close_the_circuit(fake_llm):
    api = register_fake_api(fake_llm)
    LLMApi.objects.filter(pk=api.pk).update(
        consecutive_failures=3, health_status="unhealthy", circuit_opened_at=timezone.now()
    )
    assert services.validate_api(api.pk).success
    api.refresh_from_db()
    assert api.circuit_opened_at is None and api.health_status == LLMApi.HEALTH_HEALTHY


def test_rate_window_counts_every_request_and_refuses_beyond_the_limit(fake_llm):
    api = register_fake_api(fake_llm, requests_per_minute=3)
    window = timezone.now().replace(second=0, microsecond=0)
    assert [guard._take_from_window(api, window) for _ in range(4)] == [True, True, True, False]
    assert RateWindow.objects.get(api=api, window_start=window).count == 3


def test_slots_are_exclusive_and_released(fake_llm):
    api = register_fake_api(fake_llm, max_concurrent=2)
    with guard.request_slot(api):
        holder, _ = guard.acquire_slot(api)  # the second and last slot
        assert not RequestSlot.objects.filter(api=api, lease_until__lte=timezone.now()).exists()
        assert not guard.lease_slot(api, "a third caller", timedelta(seconds=60))
    # Leaving the context manager gave its slot back; the other one is still held.
    assert RequestSlot.objects.filter(api=api, lease_until__lte=timezone.now(), holder="").count() == 1
    assert RequestSlot.objects.filter(api=api, holder=holder).count() == 1


def test_a_success_resets_the_failures_counted_before_its_call(fake_llm):
    api = register_fake_api(fake_llm)
    assert services.chat(HELLO).text  # marks the API healthy: later calls take the one-statement path
    LLMApi.objects.filter(pk=api.pk).update(
        consecutive_failures=2, last_error="HTTP 500"
    )  # another process failed twice
    assert services.chat(HELLO).text
    api.refresh_from_db()
    assert (api.consecutive_failures, api.health_status, api.last_error) == (0, LLMApi.HEALTH_HEALTHY, "")


def test_the_healthy_fast_path_never_bypasses_an_open_circuit(fake_llm):
    api = register_fake_api(fake_llm)
    assert services.chat(HELLO).text
    LLMApi.objects.filter(pk=api.pk).update(circuit_opened_at=timezone.now())  # another process opened it
    with pytest.raises(CircuitOpenError):
        services.chat(HELLO)
    assert len(fake_llm.requests) == 1
    assert not RequestSlot.objects.filter(api=api).exclude(holder="").exists()  # no slot left leased


def test_a_call_refused_by_the_open_circuit_uses_no_rate_allowance(fake_llm):
    api = register_fake_api(fake_llm, requests_per_minute=3)
    LLMApi.objects.filter(pk=api.pk).update(
        consecutive_failures=3, health_status="unhealthy", circuit_opened_at=timezone.now()
    )
    for _ in range(3):
        with pytest.raises(CircuitOpenError):
            services.chat(HELLO)
    assert not RateWindow.objects.filter(api=api, count__gt=0).exists()
