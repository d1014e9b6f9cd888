"""The pipeline: byte chunks -> SSE events -> updates. Sans-IO core plus sync/async drivers.

:class:`UpdateDecoder` composes :class:`raf.sse.SSEDecoder` and a dialect into one state
machine fed bytes. :func:`iter_updates` and :func:`aiter_updates` drive it over any iterable of
byte chunks (a file, an HTTP body, a list in a test); they do no IO themselves.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator

from raf import dialects
from raf.dialects.base import Dialect
from raf.errors import SSELimitExceeded, StateError
from raf.model import updates
from raf.model.codes import ErrorCode
from raf.model.updates import AgentResponseUpdate
from raf.sse import DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_LINE_BYTES, ServerSentEvent, SSEDecoder

__all__ = ["UpdateDecoder", "aiter_updates", "iter_updates"]


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

    def _events(self, events: list[ServerSentEvent]) -> list[AgentResponseUpdate]:
        out: list[AgentResponseUpdate] = []
        feed = self.dialect.feed
        for event in events:
            out.extend(feed(event))
            if self.dialect.done:
                break
        return out


def iter_updates(
    chunks: Iterable[bytes],
    dialect: str | Dialect = "openai_chat",
    *,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
) -> Iterator[AgentResponseUpdate]:
    """Yield the updates of a stream given as byte chunks; stops reading at the end marker."""
    decoder = UpdateDecoder(dialect, max_line_bytes=max_line_bytes, max_event_bytes=max_event_bytes)
    for chunk in chunks:
        yield from decoder.feed(chunk)
        if decoder.done:
            break
    yield from decoder.close()


async def aiter_updates(
    chunks: AsyncIterable[bytes],
    dialect: str | Dialect = "openai_chat",
    *,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
) -> AsyncIterator[AgentResponseUpdate]:
    """Async twin of :func:`iter_updates`."""
    decoder = UpdateDecoder(dialect, max_line_bytes=max_line_bytes, max_event_bytes=max_event_bytes)
    async for chunk in chunks:
        for update in decoder.feed(chunk):
            yield update
        if decoder.done:
            break
    for update in decoder.close():
        yield update
