"""AWS event stream decoder (``application/vnd.amazon.eventstream``): bytes in,
:class:`EventStreamMessage` out. Sans-IO.

The binary framing of Amazon Bedrock's ConverseStream (and of every AWS event stream), as
the Smithy specification "Amazon Event Stream" (https://smithy.io/2.0/aws/amazon-eventstream.html)
defines it. A body is a sequence of messages, each::

    total_length u32 | headers_length u32 | prelude_crc u32 | headers | payload | message_crc u32

(integers big-endian; ``total_length`` counts the whole message, 16 bytes of overhead
included; both CRCs are CRC-32/IEEE, ``zlib.crc32``; the message CRC covers everything
before it, the prelude and its CRC included). A header is a name (u8 length, UTF-8, at least
one byte), a type (u8) and a value of that type: 0 true, 1 false, 2 int8, 3 int16, 4 int32,
5 int64, 6 bytes (u16 length), 7 UTF-8 string (u16 length), 8 timestamp (int64
milliseconds since the epoch), 9 UUID (16 bytes).

Each message is checked in this order, and only a message that passes every check is
dispatched:

1. the prelude CRC, as soon as 12 bytes are held (so a corrupted length is reported as a bad
   CRC, never waited for and never taken for a limit);
2. the lengths: ``total_length >= 16`` and ``headers_length <= total_length - 16``;
3. the limits: ``total_length <= max_event_bytes`` and ``headers_length <=
   max_headers_bytes``, from the prelude, before the body arrives;
4. the message CRC, once the whole message is held;
5. the headers: a known type, a name of at least one byte, every value inside the header
   block, valid UTF-8 in names and strings, no name twice.

A failed check ends the stream (Smithy: "If either checksum is invalid, the stream MUST be
terminated"; a header block that cannot be parsed leaves nothing to trust): ``feed`` raises
:class:`EventStreamError` (CRC and layout) or :class:`raf.errors.SSELimitExceeded` (the
total length), carrying in ``events`` the messages that call decoded before, and the decoder
refuses further input. Everything else is a frame, for the dialect to judge: a message
without ``:message-type``, of an unknown message type, without ``:event-type``, with an empty
payload or a payload that is not UTF-8; an ``exception`` or ``error`` message (a modelled or
unmodelled error the service reports inside the stream) is a frame like any other, never an
error of the framing. ``close`` sets ``truncated`` when the body ended inside a message
(which is discarded) or after a fatal error.

The frame: :class:`EventStreamMessage`, a subclass of :class:`ServerSentEvent`, the frame
every framing gives, so the pipeline, the dialect interface and every tool that prints
frames take it as they are:

- ``event`` is the name of the message: the ``:event-type`` of an ``event`` message, the
  ``:exception-type`` of an ``exception``, the ``:error-code`` of an ``error`` (the first two
  are members of the same event-stream union of the service model, so they never collide),
  ``:event-type`` when there is no ``:message-type``, ``""`` when there is no name;
- ``data`` is the payload decoded from UTF-8 (invalid bytes as U+FFFD), so a dialect reads
  ``json(event.data)`` as for SSE;
- ``message_type`` is ``:message-type`` (``"event"``, ``"exception"``, ``"error"``, or
  ``None`` without it), so a dialect that reads only names still sees an exception: its name
  is no event name of the model;
- ``headers`` holds every header, decoded (``bool``, ``int``, ``bytes``, ``str``, ``int``
  milliseconds, :class:`uuid.UUID`); ``payload`` the payload bytes exactly.

Prefixing names with the message type (``exception:throttlingException``) would have kept
one frame class but made every dialect parse names; a second frame type in the
:class:`raf.framing.Framing` protocol would have touched every consumer.

Cost is linear in the input whatever the feed sizes: complete messages are parsed where they
lie in the chunk (through a ``memoryview``, no copy but the payload and the header block);
only a message cut by the end of a chunk is held, in one ``bytearray`` that grows to at most
one message, and it is parsed once, when its last byte arrives. Each byte is covered by one
CRC computation.
"""

from __future__ import annotations

import struct
import uuid
import zlib
from typing import ClassVar, Literal, NoReturn, TypeAlias

import msgspec

from raf.errors import EventStreamError, EventStreamErrorKind, SSELimitExceeded, StateError
from raf.framing._event import ServerSentEvent
from raf.limits import (
    DEFAULT_MAX_EVENT_BYTES,
    DEFAULT_MAX_EVENTSTREAM_HEADERS_BYTES,
    DEFAULT_MAX_LINE_BYTES,
)

__all__ = [
    "CONTENT_TYPE",
    "EventStreamDecoder",
    "EventStreamError",
    "EventStreamMessage",
    "HeaderValue",
]

CONTENT_TYPE = "application/vnd.amazon.eventstream"
"""The media type of a body in this framing."""

HeaderValue: TypeAlias = bool | int | bytes | str | uuid.UUID
"""A decoded header value (a timestamp is an ``int``, milliseconds since the epoch)."""

_PRELUDE = 12
_OVERHEAD = 16  # prelude and message CRC
_U32 = struct.Struct(">I")
_PRELUDE_STRUCT = struct.Struct(">III")
_U16 = struct.Struct(">H")
# The header types of fixed size (0 and 1 carry no value): type -> how to unpack the value.
_FIXED = {
    2: struct.Struct(">b"),
    3: struct.Struct(">h"),
    4: struct.Struct(">i"),
    5: struct.Struct(">q"),
    8: struct.Struct(">q"),
}


class EventStreamMessage(ServerSentEvent, frozen=True, kw_only=True, gc=False):
    """One message of an AWS event stream, CRC-verified.

    Attributes:
        event: the message's name: ``:event-type``, ``:exception-type`` or ``:error-code`` by
            ``message_type`` (``""`` when it has none).
        data: the payload decoded from UTF-8, invalid bytes as U+FFFD.
        message_type: the ``:message-type`` header (``"event"``, ``"exception"``,
            ``"error"``, anything else as sent), or ``None`` when absent or not a string.
        headers: every header by name, decoded.
        payload: the payload bytes.
    """

    message_type: str | None = None
    headers: dict[str, HeaderValue] = msgspec.field(default_factory=dict)
    payload: bytes = b""


class _Malformed(Exception):
    """A header block that cannot be read (internal: becomes an EventStreamError)."""


def _headers(block: bytes) -> dict[str, HeaderValue]:
    """The headers of a header block, or ``_Malformed``."""
    headers: dict[str, HeaderValue] = {}
    end = len(block)
    pos = 0
    while pos < end:
        name_len = block[pos]
        if name_len == 0:
            raise _Malformed("a header name is empty")
        pos += 1
        if pos + name_len + 1 > end:
            raise _Malformed("a header runs past the header block")
        try:
            name = block[pos : pos + name_len].decode("utf-8")
        except UnicodeDecodeError:
            raise _Malformed("a header name is not UTF-8") from None
        pos += name_len
        kind = block[pos]
        pos += 1
        value: HeaderValue
        if kind == 0:
            value = True
        elif kind == 1:
            value = False
        elif kind in _FIXED:
            fixed = _FIXED[kind]
            if pos + fixed.size > end:
                raise _Malformed(f"header {name!r} runs past the header block")
            value = fixed.unpack_from(block, pos)[0]
            pos += fixed.size
        elif kind in {6, 7}:
            if pos + 2 > end:
                raise _Malformed(f"header {name!r} runs past the header block")
            size = _U16.unpack_from(block, pos)[0]
            pos += 2
            if pos + size > end:
                raise _Malformed(f"header {name!r} runs past the header block")
            raw = block[pos : pos + size]
            pos += size
            if kind == 6:
                value = raw
            else:
                try:
                    value = raw.decode("utf-8")
                except UnicodeDecodeError:
                    raise _Malformed(f"header {name!r} is not UTF-8") from None
        elif kind == 9:
            if pos + 16 > end:
                raise _Malformed(f"header {name!r} runs past the header block")
            value = uuid.UUID(bytes=block[pos : pos + 16])
            pos += 16
        else:
            raise _Malformed(f"header {name!r} has the unknown type {kind}")
        if name in headers:
            raise _Malformed(f"header {name!r} appears twice")
        headers[name] = value
    return headers


_NAME_HEADER = {"event": ":event-type", "exception": ":exception-type", "error": ":error-code"}


def _message(headers: dict[str, HeaderValue], payload: bytes) -> EventStreamMessage:
    message_type = headers.get(":message-type")
    if not isinstance(message_type, str):
        message_type = None
    name = headers.get(_NAME_HEADER.get(message_type or "event", ":event-type"))
    return EventStreamMessage(
        event=name if isinstance(name, str) else "",
        data=payload.decode("utf-8", "replace"),
        message_type=message_type,
        headers=headers,
        payload=payload,
    )


class EventStreamDecoder:
    """Incremental AWS event stream decoder.

    Feed it the body bytes as they arrive; it returns the messages completed by each chunk.
    Call :meth:`close` once at the end of the body.

    Args:
        max_line_bytes: not used (this framing has no lines); accepted so that
            :func:`raf.framing.create` can create every framing alike.
        max_event_bytes: largest accepted message (``total_length``, prelude and CRCs
            included), in bytes.
        max_headers_bytes: largest accepted header block, in bytes.

    Attributes:
        truncated: set by :meth:`close`: ``True`` when the body ended inside a message
            (which was discarded) or after a fatal error.
        offset: bytes of the body consumed by complete messages.
    """

    accelerators: ClassVar[frozenset[Literal["feed_runs"]]] = frozenset()

    def __init__(
        self,
        *,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
        max_headers_bytes: int = DEFAULT_MAX_EVENTSTREAM_HEADERS_BYTES,
    ) -> None:
        if max_line_bytes < 1 or max_event_bytes < _OVERHEAD or max_headers_bytes < 0:
            raise ValueError(
                "limits must be positive, and max_event_bytes at least 16 (a message's overhead)"
            )
        self.max_event_bytes = max_event_bytes
        self.max_headers_bytes = max_headers_bytes
        self.truncated = False
        self.offset = 0
        # The message cut by the end of the last chunk: its first bytes, and its length once
        # its prelude was read and checked (0 before).
        self._held = bytearray()
        self._total = 0
        self._closed = False
        self._failed = False

    def feed(self, data: bytes) -> list[ServerSentEvent]:
        """Decode the next chunk of the body.

        Args:
            data: any number of bytes, split anywhere; ``b""`` is allowed and does nothing.

        Returns:
            The messages (:class:`EventStreamMessage`) completed by this chunk, in order.

        Raises:
            EventStreamError: a CRC failed or a message cannot be laid out (``exc.events``:
                the messages this call decoded first). The decoder then refuses input.
            SSELimitExceeded: a message is longer than ``max_event_bytes`` (``kind``
                ``"event"``), raised when its prelude is read.
            StateError: the decoder was closed or has failed.
        """
        if self._closed or self._failed:
            raise StateError("feed() after close() or after a fatal error")
        events: list[ServerSentEvent] = []
        if not data:
            return events
        pos = 0
        held = self._held
        if held:
            # Complete the held message from the start of the chunk, no more.
            if not self._total:
                take = min(_PRELUDE - len(held), len(data))
                held += data[:take]
                pos = take
                if len(held) < _PRELUDE:
                    return events
                self._total = self._prelude(held, 0, events)
            take = min(self._total - len(held), len(data) - pos)
            held += data[pos : pos + take]
            pos += take
            if len(held) < self._total:
                return events
            with memoryview(held) as view:
                self._parse(view, 0, self._total, events)
            self._held = bytearray()
            self._total = 0
        # Messages that lie whole in the chunk are read where they are.
        end = len(data)
        with memoryview(data) as view:
            while end - pos >= _PRELUDE:
                total = self._prelude(view, pos, events)
                if end - pos < total:
                    self._total = total
                    break
                self._parse(view, pos, total, events)
                pos += total
        if pos < end:
            self._held = bytearray(data[pos:] if pos else data)
        return events

    def close(self) -> list[ServerSentEvent]:
        """Signal the end of the body. A message cut short is discarded, and
        :attr:`truncated` says so. Calling it again is a no-op.

        Returns:
            Always an empty list (every complete message was returned by :meth:`feed`).
        """
        if not self._closed:
            self._closed = True
            self.truncated = self._failed or bool(self._held)
            self._held = bytearray()
        return []

    def _prelude(
        self, buf: bytes | bytearray | memoryview, at: int, events: list[ServerSentEvent]
    ) -> int:
        """Check the prelude at ``buf[at:]`` (12 bytes held); its ``total_length``."""
        total, headers_len, crc = _PRELUDE_STRUCT.unpack_from(buf, at)
        if zlib.crc32(buf[at : at + 8]) != crc:
            self._fail("prelude_crc", "the prelude CRC does not match", events)
        if total < _OVERHEAD:
            self._fail("malformed", f"message length {total} is shorter than 16 bytes", events)
        if headers_len > total - _OVERHEAD:
            self._fail(
                "malformed",
                f"headers length {headers_len:,} does not fit in a message of {total:,} bytes",
                events,
            )
        if total > self.max_event_bytes:
            self._failed = True
            self._held = bytearray()
            raise SSELimitExceeded("event", self.max_event_bytes, total, events)
        if headers_len > self.max_headers_bytes:
            self._fail(
                "headers_limit",
                f"header block of {headers_len:,} bytes exceeds {self.max_headers_bytes:,}; "
                "raise max_headers_bytes if the stream is legitimate",
                events,
            )
        return int(total)

    def _parse(
        self,
        buf: bytes | bytearray | memoryview,
        at: int,
        total: int,
        events: list[ServerSentEvent],
    ) -> None:
        """Check the message ``buf[at : at + total]`` (prelude checked) and dispatch it."""
        headers_len, prelude_crc = _PRELUDE_STRUCT.unpack_from(buf, at)[1:]
        crc_at = at + total - 4
        if zlib.crc32(buf[at + 8 : crc_at], prelude_crc) != _U32.unpack_from(buf, crc_at)[0]:
            self._fail("message_crc", "the message CRC does not match", events)
        body = at + _PRELUDE + headers_len
        try:
            headers = _headers(bytes(buf[at + _PRELUDE : body])) if headers_len else {}
        except _Malformed as exc:
            self._fail("malformed", str(exc), events)
        events.append(_message(headers, bytes(buf[body:crc_at])))
        self.offset += total

    def _fail(
        self,
        kind: EventStreamErrorKind,
        detail: str,
        events: list[ServerSentEvent],
    ) -> NoReturn:
        self._failed = True
        self._held = bytearray()
        raise EventStreamError(kind, self.offset, detail, events)
