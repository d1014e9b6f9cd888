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
    "EventStreamError",
    "EventStreamErrorKind",
    "FileRefused",
    "GoldenFormatError",
    "RafError",
    "SSEError",
    "SSELimitExceeded",
    "StateError",
    "excerpt",
    "internal_error_message",
    "raw_excerpt",
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


def raw_excerpt(text: str, limit: int) -> str:
    """``text`` itself when it has at most ``limit`` characters, else its first and last
    halves around a marker saying how many characters were left out (what the ``raw`` field
    of an error keeps, so that a stream of bad events costs bounded memory per error)."""
    if len(text) <= limit:
        return text
    half = max(limit // 2, 1)
    return f"{text[:half]} ...[{len(text) - 2 * half:,} characters omitted]... {text[-half:]}"


def internal_error_message(exc: BaseException, where: str) -> str:
    """The message of an ``internal_error``: raf itself failed (a bug in raf)."""
    return (
        f"raf failed on {where} ({type(exc).__name__}: {excerpt(str(exc), 200)}); it was "
        "skipped. This is a bug in raf: please report it with the input"
    )


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


EventStreamErrorKind = Literal["prelude_crc", "message_crc", "malformed", "headers_limit"]
"""What is wrong with a corrupt AWS event stream (:class:`EventStreamError`)."""


class EventStreamError(SSEError):
    """The AWS event stream (``application/vnd.amazon.eventstream``) is corrupt: a CRC failed,
    or a message's layout is impossible.

    Raised by :class:`raf.framing.aws_eventstream.EventStreamDecoder`, which is then left in
    a terminal state (the stream cannot be resynchronised: nothing in the framing marks where
    the next message starts). The pipeline reports it as ``stream_corrupt`` after the updates
    of ``events``.

    Attributes:
        kind: ``"prelude_crc"``, ``"message_crc"``, ``"malformed"`` (lengths or headers) or
            ``"headers_limit"`` (a header block past ``max_headers_bytes``).
        offset: where the bad message starts in the body, in bytes.
        events: the messages decoded by the failing ``feed`` call before it.
    """

    def __init__(
        self, kind: EventStreamErrorKind, offset: int, detail: str, events: list[Any]
    ) -> None:
        super().__init__(f"AWS event stream: {detail} (message at byte {offset:,})")
        self.kind = kind
        self.offset = offset
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
        if cause is not None:
            # Also here, not only by ``raise ... from cause``: the compiled build's raise
            # statement does not set ``__cause__``.
            self.__cause__ = cause


class CassetteError(RafError):
    """A cassette cannot be read, written or replayed."""


class CassetteNotFound(CassetteError, FileNotFoundError):
    """The cassette file does not exist."""

    def __init__(self, path: str) -> None:
        super().__init__(f"cassette not found: {path}")
        self.path = path


class CassetteFormatError(CassetteError, ValueError):
    """The file is not a cassette raf can read; ``problem`` says where and why.

    Attributes:
        source: the file (or ``<cassette>`` for text that came from no file).
        problem: what is wrong, and where in the document.
        line: the 1-based line of the problem, when it is known.
    """

    def __init__(self, source: str, problem: str, *, line: int | None = None) -> None:
        place = source if line is None else f"{source}:{line}"
        super().__init__(f"{place}: {problem}")
        self.source = source
        self.problem = problem
        self.line = line


class FileRefused(RafError, ValueError):
    """A file was not read: it is not a regular file (a folder, a device, a FIFO, or a link to
    one), it is larger than its limit, or the system refused to open it.

    Attributes:
        path: the file as it was given.
        reason: why it was refused, e.g. ``not a regular file (a FIFO)``.
    """

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class GoldenFormatError(RafError, ValueError):
    """A golden file cannot be read: not JSON, not the golden shape, nested too deeply, or
    refused as a file; ``problem`` says why."""

    def __init__(self, source: str, problem: str) -> None:
        super().__init__(f"{source}: {problem}")
        self.source = source
        self.problem = problem
