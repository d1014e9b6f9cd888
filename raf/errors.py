"""Exceptions raised by raf. Every one derives from :class:`RafError`. No IO.

Problems *inside* a stream (bad JSON, a provider error, truncation...) are not exceptions:
they become ``updates.Error`` values and the stream goes on (see :mod:`raf.model.codes`).
Exceptions are for what cannot go on: a size limit on hostile input, misuse of the API, or
input that is not a stream at all.
"""

from __future__ import annotations

from typing import Any, Literal

__all__ = [
    "AgentResponseError",
    "CassetteError",
    "CassetteFormatError",
    "CassetteNotFound",
    "DialectError",
    "RafError",
    "SSEError",
    "SSELimitExceeded",
    "StateError",
    "excerpt",
]


def excerpt(text: str | bytes, limit: int = 120) -> str:
    """A short printable rendering of ``text`` for messages: ``repr``-style, cut in the middle."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    shown = repr(text)
    if len(shown) <= limit:
        return shown
    half = (limit - 5) // 2
    return f"{shown[:half]} ... {shown[-half:]}"


class RafError(Exception):
    """Base of all raf exceptions."""


class StateError(RafError):
    """A call the object's state does not allow (e.g. ``feed`` after ``close``)."""


class SSEError(RafError):
    """The SSE byte stream cannot be decoded further."""


class SSELimitExceeded(SSEError):
    """A line or an event grew past the decoder's configured limit.

    The decoder is left in a terminal state. ``events`` holds the events the failing ``feed``
    call had already decoded before the limit was hit, so nothing complete is lost.

    Attributes:
        kind: ``"line"`` (``max_line_bytes``) or ``"event"`` (``max_event_bytes``).
        limit: the configured limit in bytes.
        size: the size reached when the limit was detected (at least ``limit + 1``).
        events: events decoded by the failing call before the limit was hit.
    """

    def __init__(
        self, kind: Literal["line", "event"], limit: int, size: int, events: list[Any]
    ) -> None:
        option = "max_line_bytes" if kind == "line" else "max_event_bytes"
        super().__init__(
            f"SSE {kind} exceeded {limit:,} bytes (reached {size:,}); "
            f"raise {option} if the stream is legitimate"
        )
        self.kind = kind
        self.limit = limit
        self.size = size
        self.events = events


class DialectError(RafError):
    """A dialect name is unknown, or a dialect was misused."""


class AgentResponseError(RafError):
    """An agent run reported errors, or its stream failed; ``response`` holds what arrived.

    Attributes:
        response: the :class:`raf.model.AgentResponse` aggregated from everything received,
            including ``response.errors``.
        cause: the exception that interrupted the stream, if any (also ``__cause__``).
    """

    def __init__(self, response: Any, cause: BaseException | None = None) -> None:
        errors = getattr(response, "errors", ())
        if cause is not None:
            summary = f"the stream failed: {cause!r}"
        else:
            codes = ", ".join(sorted({e.error_code for e in errors}))
            summary = f"the run reported {len(errors)} error(s): {codes}"
            if errors:
                summary += f"; first: {errors[0].message}"
        super().__init__(summary)
        self.response = response
        self.cause = cause


class CassetteError(RafError):
    """A cassette cannot be read, written or replayed."""


class CassetteNotFound(CassetteError, FileNotFoundError):
    """The cassette file does not exist."""

    def __init__(self, path: str) -> None:
        super().__init__(f"cassette not found: {path}")
        self.path = path


class CassetteFormatError(CassetteError, ValueError):
    """The file is not a cassette raf can read; ``problem`` says where and why."""

    def __init__(self, source: str, problem: str) -> None:
        super().__init__(f"{source}: {problem}")
        self.source = source
        self.problem = problem
