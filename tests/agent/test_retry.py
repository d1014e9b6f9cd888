"""The retry policy (raf.agent.retry): a pure decision, checked as a table and as properties."""

from __future__ import annotations

import random

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from raf.agent.retry import RETRY_STATUSES, RetryPolicy

POLICY = RetryPolicy()


@pytest.mark.parametrize(
    ("attempt", "status", "retry_after", "expected"),
    [
        (1, None, None, 0.5),  # no response: retried, first wait
        (2, None, None, 1.0),  # doubled
        (3, None, None, None),  # the third attempt was the last
        (1, 429, None, 0.5),
        (1, 503, None, 0.5),
        (1, 400, None, None),  # a client error is not retried
        (1, 401, None, None),
        (1, 404, None, None),
        (1, 429, 2.5, 2.5),  # Retry-After replaces the backoff
        (1, 503, 0.0, 0.0),
        (1, 429, 60.0, 60.0),  # up to max_delay
        (1, 429, 3600.0, None),  # beyond it: give up at once, never sleep an hour
        (3, 429, 1.0, None),
        (1, 400, 1.0, None),  # Retry-After on a status not retried changes nothing
    ],
)
def test_decide_table(
    attempt: int, status: int | None, retry_after: float | None, expected: float | None
) -> None:
    assert POLICY.decide(attempt, status, retry_after) == expected


def test_defaults_retry_the_statuses_the_sdks_retry() -> None:
    assert POLICY.retry_statuses == RETRY_STATUSES == {408, 409, 429, 500, 502, 503, 504}
    assert (POLICY.max_attempts, POLICY.jitter, POLICY.retry_failures) == (3, 0.0, True)


def test_none_is_one_attempt() -> None:
    assert RetryPolicy.none().decide(1, 503, None) is None
    assert RetryPolicy.none().decide(1, None, None) is None


def test_failures_can_be_left_unretried() -> None:
    assert RetryPolicy(retry_failures=False).decide(1, None, None) is None
    assert RetryPolicy(retry_failures=False).decide(1, 503, None) == 0.5


def test_backoff_is_capped_by_max_delay() -> None:
    policy = RetryPolicy(max_attempts=10, initial_delay=1.0, multiplier=10.0, max_delay=30.0)
    assert [policy.decide(n, 500, None) for n in range(1, 5)] == [1.0, 10.0, 30.0, 30.0]


def test_seeded_jitter_is_reproducible_and_shortens_only() -> None:
    def waits(seed: int) -> list[float | None]:
        policy = RetryPolicy(max_attempts=6, jitter=0.5, rng=random.Random(seed).random)
        return [policy.decide(n, 503, None) for n in range(1, 6)]

    assert waits(7) == waits(7)
    assert waits(7) != waits(8)
    for n, wait in enumerate(waits(7), start=1):
        assert wait is not None
        assert 0.5 * 0.5 * 2 ** (n - 1) <= wait <= 0.5 * 2 ** (n - 1)
    # A Retry-After is never shortened by jitter.
    assert RetryPolicy(jitter=1.0, rng=lambda: 0.99).decide(1, 429, 3.0) == 3.0


@pytest.mark.parametrize(
    "settings",
    [{"max_attempts": 0}, {"initial_delay": -1.0}, {"max_delay": -1.0}, {"jitter": 1.5}],
)
def test_nonsense_settings_are_refused(settings: dict[str, float]) -> None:
    with pytest.raises(ValueError, match="must"):
        RetryPolicy(**settings)  # type: ignore[arg-type]


@given(
    max_attempts=st.integers(1, 8),
    max_delay=st.floats(0, 100),
    attempt=st.integers(1, 12),
    status=st.none() | st.sampled_from(sorted(RETRY_STATUSES)) | st.integers(100, 599),
    retry_after=st.none() | st.floats(0, 10_000),
)
def test_a_wait_is_bounded_and_attempts_are_bounded(
    max_attempts: int,
    max_delay: float,
    attempt: int,
    status: int | None,
    retry_after: float | None,
) -> None:
    policy = RetryPolicy(max_attempts=max_attempts, max_delay=max_delay)
    wait = policy.decide(attempt, status, retry_after)
    event("retried" if wait is not None else "gave up")
    if wait is None:
        return
    assert attempt < max_attempts
    assert status is None or status in RETRY_STATUSES
    assert 0 <= wait <= max_delay
    if retry_after is not None:
        assert wait == retry_after  # honoured exactly when within max_delay
