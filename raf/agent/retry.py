"""The retry policy of a chat client, sans-IO: :meth:`RetryPolicy.decide` is a pure function
of the attempt and what went wrong, returning how long to wait before the next attempt or
``None`` (give up). The client does the waiting, with a ``sleep`` it is given (tests give one
that records and returns at once).

What is retried (docs/agent.md, "Chat clients"): a request that failed before any response
(a refused connection, a timeout before the status line), and a response whose status is one
of :attr:`RetryPolicy.retry_statuses`. Only ever before the first byte of a successful body:
once a stream has started, a failure is an in-band ``transport_error`` and nothing is sent
again (the model's turn is not repeated behind the caller's back). RAF retries nothing;
``RetryPolicy.none()`` does the same.

The wait doubles from :attr:`~RetryPolicy.initial_delay` up to
:attr:`~RetryPolicy.max_delay`. A provider's ``Retry-After`` replaces it, but never beyond
``max_delay``: a provider that asks for longer (an hour's rate limit) is answered by giving up
at once with the :class:`raf.agent.errors.HttpStatusError`, whose ``retry_after`` says how long
it asked for, rather than by a client that sleeps for an hour.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["RETRY_STATUSES", "RetryPolicy"]

RETRY_STATUSES: frozenset[int] = frozenset({408, 409, 429, 500, 502, 503, 504})
"""Statuses worth another attempt: a timeout, a conflict, a rate limit, a server's passing
failure (the set the OpenAI and Anthropic SDKs retry)."""


@dataclass(frozen=True, kw_only=True)
class RetryPolicy:
    """When and after how long a chat client sends a request again.

    Attributes:
        max_attempts: requests sent at most (the first included); 1 retries nothing.
        initial_delay: seconds before the second attempt.
        multiplier: each further wait is this many times the previous one.
        max_delay: the longest wait, in seconds; a ``Retry-After`` beyond it gives up.
        jitter: the fraction of each computed wait drawn at random (0: none, the default, so
            that waits are reproducible; 0.5: between half the wait and all of it). A
            ``Retry-After`` is never shortened.
        retry_statuses: the statuses retried.
        retry_failures: whether a request that got no response (connection refused or
            reset, a timeout before the status line) is retried.
        rng: the random numbers of the jitter, in ``[0, 1)`` (pass ``random.Random(seed).random``
            for reproducible jitter).
    """

    max_attempts: int = 3
    initial_delay: float = 0.5
    multiplier: float = 2.0
    max_delay: float = 60.0
    jitter: float = 0.0
    retry_statuses: frozenset[int] = RETRY_STATUSES
    retry_failures: bool = True
    rng: Callable[[], float] = field(default=random.random, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if min(self.initial_delay, self.multiplier, self.max_delay) < 0:
            raise ValueError("delays and the multiplier must not be negative")
        if not 0 <= self.jitter <= 1:
            raise ValueError("jitter must be between 0 and 1")

    @classmethod
    def none(cls) -> RetryPolicy:
        """One attempt, no retry (RAF's behaviour)."""
        return cls(max_attempts=1)

    def decide(self, attempt: int, status: int | None, retry_after: float | None) -> float | None:
        """The seconds to wait before attempt ``attempt + 1``, or ``None`` to give up.

        Args:
            attempt: the attempt that just failed (1 for the first request).
            status: its response's status, or ``None`` when no response arrived.
            retry_after: the wait the response asked for (seconds), if it asked.
        """
        if attempt >= self.max_attempts:
            return None
        if status is None:
            if not self.retry_failures:
                return None
        elif status not in self.retry_statuses:
            return None
        if retry_after is not None:
            return max(retry_after, 0.0) if retry_after <= self.max_delay else None
        delay = min(self.initial_delay * self.multiplier ** (attempt - 1), self.max_delay)
        if self.jitter:
            delay *= 1 - self.jitter * self.rng()
        return delay
