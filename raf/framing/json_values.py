"""JSON-array and JSON-lines framing: bytes in, one :class:`ServerSentEvent` per JSON value
out. Sans-IO.

Two ways servers stream JSON without Server-Sent Events:

* **JSON array** (:class:`JSONArrayDecoder`): Gemini's ``streamGenerateContent`` without
  ``alt=sse`` sends one array, ``[{...}\\r\\n,{...}\\r\\n]``, whose elements arrive one by one.
  Every top-level value is one frame: the elements of the outermost array, and values outside
  any array too (a server that sends ``{...}{...}`` or a lone error object is read the same
  way). Whitespace, the commas between elements and the array's brackets are not frames.
* **JSON lines** (:class:`JSONLinesDecoder`, also called NDJSON): one value per line. A line
  ends at LF (a CR before it is dropped); blank lines are skipped.

Each frame is a :class:`ServerSentEvent` with only ``data`` set (the value's text), so a
dialect reads frames of every framing the same way. What is not a JSON value (stray text
between elements) is passed on as a frame of its own, for the dialect to report; nothing is
dropped silently.

The body is UTF-8: a value's bytes are decoded once, when the value is complete (a character
split across feeds is fine, invalid bytes become U+FFFD), and one leading BOM is skipped. At
the end of the stream a value (or line) that is not finished is discarded and
:attr:`truncated` says so, as :class:`raf.framing.sse.SSEDecoder` does for an unfinished
event; for a JSON array, a missing closing ``]`` is truncation too.

Cost is linear whatever the feed sizes: each byte is looked at once, by regular-expression
scans that jump between the characters that matter (quotes, backslashes, brackets), or, for
an object alone on its line (how Google's servers send each element), by one check in C that
the line is one complete JSON value (each line is tried once). One
limit bounds memory (``max_event_bytes``: the largest value, or line); passing it raises
:class:`raf.errors.SSELimitExceeded`, whose ``events`` holds the frames decoded first.
"""

from __future__ import annotations

import re
from typing import ClassVar, Literal

import msgspec

from raf.errors import SSELimitExceeded, StateError
from raf.framing.sse import ServerSentEvent
from raf.limits import DEFAULT_MAX_EVENT_BYTES

__all__ = ["JSONArrayDecoder", "JSONLinesDecoder"]

_BOM = b"\xef\xbb\xbf"
# One complete JSON value, checked (not built): msgspec reads it into a Raw slice.
_one_value = msgspec.json.Decoder(msgspec.Raw).decode
# Inside a value, outside strings: the characters that change the state.
_STRUCTURE = re.compile(rb'[\[\]{}"]')
# Inside a string: the characters that may end it.
_STRING = re.compile(rb'["\\]')
# Between values: anything that is not whitespace.
_NOT_SPACE = re.compile(rb"[^ \t\r\n]")
# Stray text between values ends where a value, a separator or whitespace begins.
_STRAY_END = re.compile(rb'[\[\]{},"\s]')

# States of the JSON-array scanner (the transitions are in JSONArrayDecoder._scan).
_BETWEEN = 0  # between values: whitespace, commas and the outer array's brackets
_VALUE = 1  # inside an object or array value, outside strings
_STRING_ = 2  # inside a string of a value
_ESCAPE = 3  # after a backslash inside a string
_SCALAR = 4  # a top-level string, number or literal (or stray text)


def _frame(data: bytes) -> ServerSentEvent:
    return ServerSentEvent(data=data.decode("utf-8", "replace"))


class JSONArrayDecoder:
    """Incremental splitter of a streamed JSON array (or of concatenated JSON values).

    Args:
        max_event_bytes: largest accepted value, in bytes.
        max_line_bytes: accepted for a uniform signature; values may span lines, so only
            ``max_event_bytes`` applies.

    Attributes:
        truncated: set by :meth:`close`: the stream ended inside a value, or inside the
            outermost array (no closing ``]``).
    """

    accelerators: ClassVar[frozenset[Literal["feed_runs"]]] = frozenset()
    """No optional methods (:class:`raf.framing.Framing`)."""

    def __init__(
        self,
        *,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
        max_line_bytes: int | None = None,
    ) -> None:
        del max_line_bytes
        if max_event_bytes < 1:
            raise ValueError("limits must be positive")
        self.max_event_bytes = max_event_bytes
        self.truncated = False
        self._state = _BETWEEN
        self._depth = 0  # nesting inside the current value
        self._array_open = False  # inside the outermost array
        self._value = bytearray()
        self._first = True
        self._closed = False
        self._failed = False
        self._tried = 0
        # The start of an object whose line has not ended yet (see _whole_line), held until
        # it does; None when there is none.
        self._pending: bytearray | None = None

    def feed(self, data: bytes) -> list[ServerSentEvent]:
        """Decode the next chunk; returns the values it completed, in order.

        Raises:
            SSELimitExceeded: a value passed ``max_event_bytes`` (``exc.events``: the frames
                of this call before it). The decoder then refuses further input.
            StateError: the decoder was closed or has failed.
        """
        return self._feed_chunk(data, fast=True)

    def _feed_chunk(self, data: bytes, *, fast: bool) -> list[ServerSentEvent]:
        """:meth:`feed`; with ``fast=False`` every value goes through the scanner (the path
        the fast one must match exactly, event for event and feed for feed)."""
        if self._closed or self._failed:
            raise StateError("feed() after close() or after a limit error")
        if self._first and data:
            self._value += data
            if len(self._value) < len(_BOM) and _BOM.startswith(bytes(self._value)):
                return []  # maybe a BOM, split across feeds
            data = bytes(self._value)
            self._value = bytearray()
            self._first = False
            if data.startswith(_BOM):
                data = data[len(_BOM) :]
        events: list[ServerSentEvent] = []
        self._feed(data, events, fast=fast)
        return events

    def _feed(self, data: bytes, events: list[ServerSentEvent], *, fast: bool) -> None:
        """Scan ``data``; with ``fast=False`` every value goes through the scanner, bracket
        by bracket (the path the fast one must match exactly)."""
        pending = self._pending
        if pending is not None:  # the line of an object begun in an earlier feed
            line_end = data.find(b"\n")
            if line_end < 0:
                pending += data
                if b"}" in data or len(pending) > self.max_event_bytes:
                    # The object may end here (the scanner would give it now), or it is
                    # too long (the scanner tells): the scanner reads it.
                    self._pending = None
                    self._scan(bytes(pending), events, fast=False)
                return
            self._pending = None
            line = bytes(pending) + data[:line_end]
            whole = line.rstrip(b" \t\r")
            if self._one_value(whole):
                events.append(_frame(whole))
            else:
                self._scan(line, events, fast=False)
            data = data[line_end:]
        self._scan(data, events, fast=fast)

    def close(self) -> list[ServerSentEvent]:
        """End of the stream: an unfinished value is discarded (:attr:`truncated`)."""
        if self._closed:
            return []
        self._closed = True
        events: list[ServerSentEvent] = []
        if self._pending is not None:  # an object whose line never ended: the scanner's
            pending, self._pending = bytes(self._pending), None
            self._scan(pending, events, fast=False)
        if self._state == _SCALAR:
            self._emit(events)  # a top-level scalar (or stray text) ends with the stream
        self.truncated = self._state != _BETWEEN or self._array_open
        self._value = bytearray()
        return events

    def _emit(self, events: list[ServerSentEvent]) -> None:
        text = bytes(self._value).strip(b" \t\r\n")
        self._value = bytearray()
        self._state = _BETWEEN
        if text:
            events.append(_frame(text))

    def _grow(self, piece: bytes, events: list[ServerSentEvent]) -> None:
        self._value += piece
        if len(self._value) > self.max_event_bytes:
            self._failed = True
            size = len(self._value)
            self._value = bytearray()
            raise SSELimitExceeded("event", self.max_event_bytes, size, events)

    def _whole_line(self, data: bytes, start: int) -> int:
        """Where the object that begins at ``start`` ends, if it is a whole JSON value that
        ends its line (only whitespace after it before the LF); else ``start`` (the scanner
        reads it). A raw LF is never inside a JSON string, so such an object is exactly the
        value the scanner would find, bracket by bracket; the check that it is one complete
        value is msgspec's, in C. A line is tried once (values that share a line, or span
        several, are the scanner's), so the cost stays linear."""
        line_end = data.find(b"\n", start)
        self._tried = len(data) if line_end < 0 else line_end
        if line_end < 0:
            if len(data) - start > self.max_event_bytes or data.find(b"}", start) >= 0:
                return start  # it may end in this feed: the scanner gives it as it ends
            # It cannot have ended (no "}" yet) and its line goes on in the next feed: held
            # until the line ends (_feed), never past where the scanner would give it.
            self._pending = bytearray(data[start:])
            return len(data)
        candidate = data[start:line_end].rstrip(b" \t\r")
        return start + len(candidate) if self._one_value(candidate) else start

    def _one_value(self, candidate: bytes) -> bool:
        """Whether ``candidate`` is one complete JSON object within the size limit."""
        if len(candidate) > self.max_event_bytes or candidate[-1:] != b"}":
            return False
        try:
            _one_value(candidate)
        except msgspec.DecodeError:
            return False
        return True

    def _scan(self, data: bytes, events: list[ServerSentEvent], *, fast: bool = True) -> None:
        """The state machine. Each step finds the next byte that matters for the current
        state and consumes everything before it in one slice."""
        self._tried = 0  # data[:_tried] was tried by _whole_line (this feed's offsets)
        pos = 0
        end = len(data)
        while pos < end:
            state = self._state
            if state == _BETWEEN:
                match = _NOT_SPACE.search(data, pos)
                if match is None:
                    return
                pos = match.start()
                byte = data[pos]
                if byte == 0x5B and not self._array_open and self._depth == 0:  # [
                    self._array_open = True
                    pos += 1
                elif byte == 0x5D and self._array_open:  # ]
                    self._array_open = False
                    pos += 1
                elif byte == 0x2C and self._array_open:  # ,
                    pos += 1
                elif (
                    byte == 0x7B
                    and fast
                    and pos >= self._tried
                    and (stop := self._whole_line(data, pos)) > pos
                ):
                    # An object alone on its line, as Google's servers send each element:
                    # one frame, without walking its characters (or held until its line
                    # ends, in a later feed).
                    if self._pending is None:
                        events.append(_frame(data[pos:stop]))
                    pos = stop
                elif byte in (0x7B, 0x5B):  # { or [ : a value begins
                    self._state = _VALUE
                    self._depth = 1
                    self._grow(data[pos : pos + 1], events)
                    pos += 1
                elif byte == 0x22:  # a top-level string
                    self._state = _STRING_
                    self._depth = 0
                    self._grow(data[pos : pos + 1], events)
                    pos += 1
                else:  # a number, a literal, or stray text: up to the next separator
                    self._state = _SCALAR
            elif state == _VALUE:
                match = _STRUCTURE.search(data, pos)
                if match is None:
                    self._grow(data[pos:], events)
                    return
                stop = match.end()
                self._grow(data[pos:stop], events)
                pos = stop
                byte = data[stop - 1]
                if byte == 0x22:
                    self._state = _STRING_
                elif byte in (0x7B, 0x5B):
                    self._depth += 1
                else:
                    self._depth -= 1
                    if self._depth == 0:
                        self._emit(events)
            elif state in (_STRING_, _ESCAPE):
                if state == _ESCAPE:
                    self._grow(data[pos : pos + 1], events)
                    pos += 1
                    self._state = _STRING_
                    continue
                match = _STRING.search(data, pos)
                if match is None:
                    self._grow(data[pos:], events)
                    return
                stop = match.end()
                self._grow(data[pos:stop], events)
                pos = stop
                if data[stop - 1] == 0x5C:  # backslash
                    self._state = _ESCAPE
                elif self._depth == 0:
                    self._emit(events)  # a top-level string is complete
                else:
                    self._state = _VALUE
            else:  # _SCALAR
                match = _STRAY_END.search(data, pos)
                if match is None:
                    self._grow(data[pos:], events)
                    return
                stop = match.start()
                if stop == pos and not self._value:
                    # A separator where none belongs (a comma outside an array, a stray
                    # bracket): it is stray text of its own.
                    stop = pos + 1
                self._grow(data[pos:stop], events)
                pos = stop
                self._emit(events)


class JSONLinesDecoder:
    """Incremental JSON-lines splitter: one frame per non-blank line.

    Args:
        max_line_bytes: longest accepted line, in bytes, terminator excluded.
        max_event_bytes: accepted for a uniform signature (a line is an event).

    Attributes:
        truncated: set by :meth:`close`: the stream ended inside a line (no final LF); the
            unfinished line was discarded.
    """

    accelerators: ClassVar[frozenset[Literal["feed_runs"]]] = frozenset()
    """No optional methods (:class:`raf.framing.Framing`)."""

    def __init__(
        self,
        *,
        max_line_bytes: int = DEFAULT_MAX_EVENT_BYTES,
        max_event_bytes: int | None = None,
    ) -> None:
        del max_event_bytes
        if max_line_bytes < 1:
            raise ValueError("limits must be positive")
        self.max_line_bytes = max_line_bytes
        self.truncated = False
        self._partial = bytearray()
        self._first = True
        self._closed = False
        self._failed = False

    def feed(self, data: bytes) -> list[ServerSentEvent]:
        """Decode the next chunk; returns the lines it completed, in order.

        Raises:
            SSELimitExceeded: a line passed ``max_line_bytes``.
            StateError: the decoder was closed or has failed.
        """
        if self._closed or self._failed:
            raise StateError("feed() after close() or after a limit error")
        events: list[ServerSentEvent] = []
        end = data.rfind(b"\n") + 1
        if end == 0:
            self._partial += data
            self._check(events)
            return events
        complete = bytes(self._partial) + data[:end] if self._partial else data[:end]
        self._partial = bytearray(data[end:])
        if self._first:
            self._first = False
            if complete.startswith(_BOM):
                complete = complete[len(_BOM) :]
        for raw in complete.split(b"\n")[:-1]:
            if len(raw) > self.max_line_bytes:
                self._check(events, size=len(raw))
            line = raw.strip(b" \t\r")
            if line:
                events.append(_frame(line))
        self._check(events)
        return events

    def close(self) -> list[ServerSentEvent]:
        """End of the stream: an unterminated last line is discarded (:attr:`truncated`)."""
        if not self._closed:
            self._closed = True
            pending = bytes(self._partial)
            if self._first and pending.startswith(_BOM):
                pending = pending[len(_BOM) :]
            self.truncated = bool(pending.strip(b" \t\r"))
            self._partial = bytearray()
        return []

    def _check(self, events: list[ServerSentEvent], size: int | None = None) -> None:
        size = len(self._partial) if size is None else size
        if size > self.max_line_bytes:
            self._failed = True
            self._partial = bytearray()
            raise SSELimitExceeded("line", self.max_line_bytes, size, events)
