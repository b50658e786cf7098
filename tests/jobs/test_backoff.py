"""The one backoff rule every retry follows: full jitter under a doubling ceiling, a cap, Retry-After as a floor."""

import pytest

from jobs.backoff import backoff_seconds

DRAWS = 2000  # enough that a draw in the lowest and the highest tenth is all but certain


def draws(retries: int, **kwargs) -> list[float]:
    return [backoff_seconds(retries, **kwargs) for _ in range(DRAWS)]


@pytest.mark.parametrize(
    "retries, ceiling",
    [
        pytest.param(0, 10, id="first-retry-base"),
        pytest.param(3, 80, id="fourth-retry-doubled-three-times"),
        pytest.param(7, 600, id="capped"),
    ],
)
def test_waits_spread_over_the_whole_range_up_to_the_doubling_ceiling(retries, ceiling):
    waits = draws(retries, base=10, cap=600)
    assert all(0 <= wait <= ceiling for wait in waits)
    assert min(waits) < ceiling * 0.1 and max(waits) > ceiling * 0.9  # full jitter: low and high both drawn
    assert len(set(waits)) > DRAWS * 0.99  # not a few fixed steps


@pytest.mark.parametrize("retries", [0, 5, 40, 10_000], ids=lambda n: f"retry-{n}")
def test_never_above_the_cap(retries):
    assert max(draws(retries, base=30, cap=120)) <= 120


def test_unlimited_retries_do_not_overflow():
    assert 0 <= backoff_seconds(10**6, base=2.5, cap=5) <= 5


@pytest.mark.parametrize("retry_after", [0.5, 9, 60], ids=lambda s: f"retry-after-{s:g}s")
def test_never_sooner_than_retry_after(retry_after):
    waits = draws(2, base=2, cap=30, retry_after=retry_after)
    assert min(waits) >= retry_after
    assert max(waits) <= max(retry_after, 8)  # the jitter still spreads the waits above a short floor


def test_retry_after_above_the_cap_is_honoured():
    """The cap bounds our own guess, not the server's word: it asked for 900 s, it gets 900 s."""
    assert set(draws(1, base=10, cap=600, retry_after=900)) == {900}


@pytest.mark.parametrize("retry_after", [None, 0], ids=["no-header", "zero"])
def test_no_retry_after_means_jitter_alone(retry_after):
    assert min(draws(4, base=1, cap=100, retry_after=retry_after)) < 1.6
