"""The pipeline: byte chunks -> SSE events -> updates -> results. Sans-IO core plus drivers.

* :class:`UpdateDecoder` composes :class:`raf.sse.SSEDecoder` and a dialect: bytes in,
  ``AgentResponseUpdate`` values out.
* :class:`Pipeline` adds an :class:`raf.converter.AgentResponseConverter`: bytes in,
  ``AgentResponseResult`` values out, one per update that produced contents or events, and
  the converter's final result at ``close()`` (raf-spec 3.6).
* :func:`iter_updates` / :func:`aiter_updates` and :func:`run` / :func:`arun` drive them over
  any iterable of byte chunks (a file, an HTTP body, a list in a test); :func:`respond` /
  :func:`arespond` go all the way to the aggregated :class:`AgentResponse`. None of them does
  IO itself.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Any, Protocol, TypeVar

from raf import dialects
from raf.collect import acollect_agent_response, collect_agent_response
from raf.converter import AgentResponseConverter
from raf.dialects.base import Dialect
from raf.errors import SSELimitExceeded, StateError, excerpt
from raf.model import updates
from raf.model.codes import ErrorCode
from raf.model.response import AgentResponse, AgentResponseResult
from raf.model.updates import AgentResponseUpdate
from raf.sse import DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_LINE_BYTES, ServerSentEvent, SSEDecoder

__all__ = [
    "Machine",
    "Pipeline",
    "UpdateDecoder",
    "adrive",
    "aiter_updates",
    "arespond",
    "arun",
    "drive",
    "http_error",
    "iter_updates",
    "respond",
    "run",
]


class UpdateDecoder:
    """Bytes in, ``AgentResponseUpdate`` values out, for one stream.

    Args:
        dialect: a dialect name (``"openai_chat"``) or a dialect object.
        max_line_bytes: passed to :class:`SSEDecoder`.
        max_event_bytes: passed to :class:`SSEDecoder`.

    Attributes:
        done: no more input is wanted: the dialect saw its end marker, or a size limit was
            exceeded (reported as an ``sse_limit_exceeded`` error update). Bytes fed after
            that are ignored.
    """

    def __init__(
        self,
        dialect: str | Dialect = "openai_chat",
        *,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
    ) -> None:
        self.dialect = dialects.create(dialect)
        self.sse = SSEDecoder(max_line_bytes=max_line_bytes, max_event_bytes=max_event_bytes)
        self._aborted = False
        self._closed = False

    @property
    def done(self) -> bool:
        """See the class docstring."""
        return self._aborted or self.dialect.done

    def feed(self, data: bytes) -> list[AgentResponseUpdate]:
        """Decode the next chunk of bytes into the updates it completes."""
        if self._closed:
            raise StateError("feed() after close()")
        if self.done:
            return []
        try:
            events = self.sse.feed(data)
        except SSELimitExceeded as exc:
            out = self._events(exc.events)
            if not self.dialect.done:
                self._aborted = True
                out.append(updates.Error(code=ErrorCode.SSE_LIMIT_EXCEEDED, message=str(exc)))
            return out
        return self._events(events)

    def close(self) -> list[AgentResponseUpdate]:
        """End of input: flush the decoder and let the dialect report truncation."""
        if self._closed:
            return []
        self._closed = True
        if self._aborted:
            return []
        if self.dialect.done:
            return []
        out = self._events(self.sse.close())
        out.extend(self.dialect.close(truncated=self.sse.truncated))
        return out

    def fail(self, error: updates.Error) -> list[AgentResponseUpdate]:
        """End the stream with an error that happened outside it (an HTTP status, a
        cancellation); nothing more is read. Returns the updates to deliver: the error."""
        self._closed = True
        self._aborted = True
        return [error]

    def _events(self, events: list[ServerSentEvent]) -> list[AgentResponseUpdate]:
        return self.dialect.feed_events(events) if events else []


T = TypeVar("T")


class Machine(Protocol[T]):
    """A sans-IO state machine fed bytes: :class:`UpdateDecoder` and :class:`Pipeline`."""

    @property
    def done(self) -> bool: ...

    def feed(self, data: bytes) -> list[T]: ...

    def close(self) -> list[T]: ...


def drive(machine: Machine[T], chunks: Iterable[bytes]) -> Iterator[T]:
    """Feed ``chunks`` to ``machine`` until it is done, then close it, yielding its outputs."""
    for chunk in chunks:
        yield from machine.feed(chunk)
        if machine.done:
            break
    yield from machine.close()


async def adrive(machine: Machine[T], chunks: AsyncIterable[bytes]) -> AsyncIterator[T]:
    """Async twin of :func:`drive`."""
    async for chunk in chunks:
        for item in machine.feed(chunk):
            yield item
        if machine.done:
            break
    for item in machine.close():
        yield item


def iter_updates(
    chunks: Iterable[bytes],
    dialect: str | Dialect = "openai_chat",
    *,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
) -> Iterator[AgentResponseUpdate]:
    """Yield the updates of a stream given as byte chunks; stops reading at the end marker."""
    decoder = UpdateDecoder(dialect, max_line_bytes=max_line_bytes, max_event_bytes=max_event_bytes)
    return drive(decoder, chunks)


def aiter_updates(
    chunks: AsyncIterable[bytes],
    dialect: str | Dialect = "openai_chat",
    *,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
) -> AsyncIterator[AgentResponseUpdate]:
    """Async twin of :func:`iter_updates`."""
    decoder = UpdateDecoder(dialect, max_line_bytes=max_line_bytes, max_event_bytes=max_event_bytes)
    return adrive(decoder, chunks)


class Pipeline:
    """Bytes in, ``AgentResponseResult`` values out, for one model turn.

    Args:
        dialect: a dialect name or object.
        converter: the converter to use (default: a new one built from ``converter_options``).
        max_line_bytes: passed to :class:`SSEDecoder`.
        max_event_bytes: passed to :class:`SSEDecoder`.
        **converter_options: passed to :class:`AgentResponseConverter` (``agent_id``,
            ``executor_id``, ``properties``, ``clock``, ``max_arguments_chars``...).

    Attributes:
        updates: the :class:`UpdateDecoder` (its ``done`` says no more input is wanted).
        converter: the :class:`AgentResponseConverter`.
    """

    def __init__(
        self,
        dialect: str | Dialect = "openai_chat",
        *,
        converter: AgentResponseConverter | None = None,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
        **converter_options: Any,
    ) -> None:
        self.updates = UpdateDecoder(
            dialect, max_line_bytes=max_line_bytes, max_event_bytes=max_event_bytes
        )
        self.converter = converter or AgentResponseConverter(**converter_options)
        self._closed = False

    @property
    def done(self) -> bool:
        """No more input is wanted (see :attr:`UpdateDecoder.done`)."""
        return self.updates.done

    def feed(self, data: bytes) -> list[AgentResponseResult]:
        """The results completed by the next chunk of bytes."""
        return self._convert(self.updates.feed(data))

    def close(self) -> list[AgentResponseResult]:
        """End of input: the remaining results, then the converter's final result."""
        if self._closed:
            return []
        self._closed = True
        out = self._convert(self.updates.close())
        out.append(self.converter.finalize(self.converter.finish_reason))
        return out

    def fail(self, error: updates.Error) -> list[AgentResponseResult]:
        """End the turn with an error that happened outside the stream (e.g. an HTTP error
        status): its result, then the final result. Nothing more is read."""
        if self._closed:
            return []
        self._closed = True
        out = self._convert(self.updates.fail(error))
        out.append(self.converter.finalize(self.converter.finish_reason))
        return out

    def _convert(self, batch: list[AgentResponseUpdate]) -> list[AgentResponseResult]:
        return self.converter.results(batch) if batch else []


def http_error(status: int, reason: str, body: bytes) -> updates.Error:
    """The update that reports an HTTP error status, quoting the response body."""
    return updates.Error(
        code=ErrorCode.HTTP_ERROR,
        message=f"HTTP {status} {reason}: {excerpt(body, 300) if body else '(empty body)'}",
        raw=body.decode("utf-8", "replace") if body else None,
    )


def run(
    chunks: Iterable[bytes], dialect: str | Dialect = "openai_chat", **options: Any
) -> Iterator[AgentResponseResult]:
    """Yield the results of a stream given as byte chunks; the last is the final result.

    ``options`` are those of :class:`Pipeline`. Reading stops at the dialect's end marker.
    """
    return drive(Pipeline(dialect, **options), chunks)


def arun(
    chunks: AsyncIterable[bytes], dialect: str | Dialect = "openai_chat", **options: Any
) -> AsyncIterator[AgentResponseResult]:
    """Async twin of :func:`run`."""
    return adrive(Pipeline(dialect, **options), chunks)


def respond(
    chunks: Iterable[bytes],
    dialect: str | Dialect = "openai_chat",
    *,
    raise_on_error: bool = False,
    **options: Any,
) -> AgentResponse:
    """``collect_agent_response(run(chunks, dialect, **options))``."""
    return collect_agent_response(run(chunks, dialect, **options), raise_on_error=raise_on_error)


async def arespond(
    chunks: AsyncIterable[bytes],
    dialect: str | Dialect = "openai_chat",
    *,
    raise_on_error: bool = False,
    **options: Any,
) -> AgentResponse:
    """Async twin of :func:`respond`."""
    return await acollect_agent_response(
        arun(chunks, dialect, **options), raise_on_error=raise_on_error
    )
