"""Server-Sent Events decoder: bytes in, :class:`ServerSentEvent` out. Sans-IO.

This is exactly the algorithm of the HTML Living Standard, section 9.2.6 "Interpreting an event
stream" (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation):

* the stream is UTF-8 as a whole: a character split across ``feed`` calls is fine, invalid
  bytes become U+FFFD (one per maximal subpart);
* one leading BOM is stripped, at the start of the stream only;
* a line ends at CRLF, LF or CR, also when the CR and the LF arrive in different feeds, and a CR
  as the last byte of the stream ends a line; nothing else ends a line (not U+2028, not U+0085);
* a line starting with ``:`` is a comment; otherwise it is ``field: value`` (one optional
  space after the colon is removed) or, without a colon, a field with an empty value;
* ``data`` lines are joined with LF; ``event`` sets the type (``"message"`` by default);
  ``id`` sets the last event ID unless it contains U+0000; ``retry`` is taken only if it is
  all ASCII digits; other fields are ignored;
* a blank line commits the last event ID and dispatches an event, unless no ``data`` line
  was seen (then nothing is dispatched);
* at the end of the stream an unfinished block is discarded, and :attr:`SSEDecoder.truncated`
  says so.

Cost is linear in the input whatever the feed sizes: each chunk is searched once for its last
line terminator and its complete lines are split on CR and LF only, as bytes (never
``str.splitlines``, which also splits on U+2028, U+0085...); an unfinished line is kept in
one growing buffer; a value is decoded from UTF-8 once, when its event is dispatched (data
lines joined with LF). That is the general path, which interprets line after line. Most
streams are nothing but one-line ``data: ...`` blocks, and most chunks of them start inside
a line and end inside another; so when no block is open, the fast path takes the text from
the unfinished line to the chunk's last blank line, decodes it once, splits it at the
``"\\n\\ndata: "`` (or ``"\\r\\n\\r\\ndata: "``) between blocks, and dispatches one
event per piece, after checking that no piece holds a line terminator. Two-line
``event: <type>`` / ``data: <value>`` blocks (Anthropic, the Responses API) have a fast path
of the same kind, which may also finish the block the last chunk left open after its
``event:`` line. Anything else (other fields, comments, several data lines, a chunk that could
pass a limit) goes through the general path, with the same results, for at most one more pass
over the chunk.
:meth:`SSEDecoder.feed_runs` is :meth:`SSEDecoder.feed` with the fast path's blocks given as
one :class:`DataRun` (their data left as bytes, for a dialect that decodes JSON straight from
bytes) instead of one event each.
Two limits bound memory on hostile input (``max_line_bytes``, ``max_event_bytes``); passing
one raises :class:`raf.errors.SSELimitExceeded`.
"""

from __future__ import annotations

import re
from typing import ClassVar, Literal, NoReturn, cast

from raf._mypyc import mypyc_attr
from raf.errors import SSELimitExceeded, StateError
from raf.framing._event import DataRun, EventOrRun, ServerSentEvent
from raf.limits import DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_LINE_BYTES

__all__ = [
    "DEFAULT_MAX_EVENT_BYTES",
    "DEFAULT_MAX_LINE_BYTES",
    "DataRun",
    "EventOrRun",
    "SSEDecoder",
    "ServerSentEvent",
]

_LF = 0x0A
_CR = 0x0D
_BOM = "\ufeff"
_LINE_END = re.compile(b"\r\n|\r|\n")

_BOM_BYTES = _BOM.encode()
_COLON = ord(":")
_WINDOW = 1 << 20
"""The most bytes of one ``feed`` decoded at a time (1 MiB): larger chunks are decoded in
pieces of this size, which keeps the time per byte flat (a 56 MB body decoded in one piece
took 3.5 times what its pieces took, the cost of its huge temporaries)."""


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled build: subclasses may override methods
class SSEDecoder:
    """Incremental WHATWG event-stream decoder.

    Feed it the body bytes as they arrive; it returns the events completed by each chunk.
    Call :meth:`close` once at the end of the stream.

    Args:
        max_line_bytes: longest accepted line, in bytes, terminator excluded.
        max_event_bytes: largest accepted block (the lines of one event), in bytes.

    Attributes:
        last_event_id: the last event ID string (committed at each blank line).
        retry: the last valid reconnection time received, in milliseconds, or ``None``.
        truncated: set by :meth:`close`: ``True`` when the stream ended inside a line or
            inside a block (field lines after the last blank line), which were discarded, or
            after a limit error (which discarded the line or block that passed the limit).
    """

    accelerators: ClassVar[frozenset[Literal["feed_runs"]]] = frozenset({"feed_runs"})
    """The optional methods it offers (:class:`raf.framing.Framing`): :meth:`feed_runs`."""

    def __init__(
        self,
        *,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
    ) -> None:
        if max_line_bytes < 1 or max_event_bytes < 1:
            raise ValueError("limits must be positive")
        self.max_line_bytes = max_line_bytes
        self.max_event_bytes = max_event_bytes
        self.last_event_id = ""
        self.retry: int | None = None
        self.truncated = False
        # Unterminated line, as fragments joined once when its terminator arrives.
        # The unterminated line so far (a bytearray grows in amortised constant time per byte
        # and holds each byte once, even when the line arrives one byte per feed).
        self._partial = bytearray()
        # The previous chunk ended with CR: an LF at the start of the next one belongs to it.
        self._skip_lf = False
        self._first_line = True
        # The block being assembled.
        self._data: list[bytes] = []
        self._event_type = ""
        self._id_buffer = ""
        self._block_retry: int | None = None
        self._block_bytes = 0
        self._block_open = False
        self._closed = False
        self._failed = False

    def feed(self, data: bytes) -> list[ServerSentEvent]:
        """Decode the next chunk of the stream.

        Args:
            data: any number of bytes, split anywhere; ``b""`` is allowed and does nothing.

        Returns:
            The events dispatched by this chunk, in order.

        Raises:
            SSELimitExceeded: a line or block passed its limit; ``exc.events`` holds the
                events this call decoded first. The decoder then refuses further input.
            StateError: the decoder was closed or has failed.
        """
        return cast("list[ServerSentEvent]", self._windows(data, False))

    def feed_runs(self, data: bytes) -> list[EventOrRun]:
        """:meth:`feed`, except that each run of one-line ``data:`` blocks the fast path
        takes is one :class:`DataRun` (its payloads still bytes) instead of one event each.

        Expanding every run with :meth:`DataRun.events` gives exactly what :meth:`feed`
        returns; the errors are the same (``exc.events`` may then hold runs too).
        """
        return self._windows(data, True)

    def _windows(self, data: bytes, runs: bool) -> list[EventOrRun]:
        """``_feed`` over ``data`` in pieces of at most :data:`_WINDOW` bytes, so that the
        temporaries of one call (the decoded text, its values) stay bounded however large
        the chunk: a whole multi-megabyte body fed at once costs what its pieces cost.
        Splitting anywhere gives the same events; a limit error keeps every event decoded
        before it."""
        if len(data) <= _WINDOW:
            return self._feed(data, True, runs)
        events: list[EventOrRun] = []
        for start in range(0, len(data), _WINDOW):
            try:
                events.extend(self._feed(data[start : start + _WINDOW], True, runs))
            except SSELimitExceeded as exc:
                exc.events[:0] = events
                raise
        return events

    def _feed(self, data: bytes, fast: bool, runs: bool) -> list[EventOrRun]:
        """``feed`` (``runs``: ``feed_runs``); with ``fast=False`` every line goes through
        :meth:`_lines` (the general path, which the fast path must match exactly)."""
        if self._closed or self._failed:
            raise StateError("feed() after close() or after a limit error")
        events: list[EventOrRun] = []
        if not data:
            return events
        if self._skip_lf:
            self._skip_lf = False
            if data[0] == _LF:
                data = data[1:]
                if not data:
                    return events
        # Split the chunk into its complete part (up to the last terminator) and a tail.
        last_cr = data.rfind(b"\r")
        end = max(data.rfind(b"\n"), last_cr) + 1
        if end == 0:
            self._partial += data
            if len(self._partial) > self.max_line_bytes:
                self._fail("line", self.max_line_bytes, len(self._partial), events)
            return events
        if end == len(data) and data[-1] == _CR:
            self._skip_lf = True  # the LF of a CRLF may come with the next chunk
        pos = 0  # data[:pos] is interpreted
        if fast and not self._data and len(self._partial) + end <= self.max_line_bytes:
            pos = self._data_blocks(data, end, last_cr < 0, events, runs)
        if pos < end:
            self._complete_lines(data[pos:end] if pos or end < len(data) else data, events)
        if end < len(data):
            self._partial += data[end:]
            if len(self._partial) > self.max_line_bytes:
                self._fail("line", self.max_line_bytes, len(self._partial), events)
        return events

    def close(self) -> list[ServerSentEvent]:
        """Signal the end of the stream.

        An unterminated final line and an undispatched block are discarded, as the standard
        requires; :attr:`truncated` tells whether anything was. Calling it again is a no-op.

        Returns:
            Always an empty list under the standard's rules (kept for symmetry with
            :meth:`feed`, so drivers can treat both the same way).
        """
        if not self._closed:
            self._closed = True
            pending = bytes(self._partial)
            if self._first_line and pending.startswith(_BOM_BYTES):
                pending = pending[len(_BOM_BYTES) :]  # a lone BOM is not content
            # A limit error discarded the line or block that passed it.
            self.truncated = self._failed or bool(pending) or self._block_open
            self._partial = bytearray()
            self._data = []
        return []

    def _fail(
        self, kind: Literal["line", "event"], limit: int, size: int, events: list[EventOrRun]
    ) -> NoReturn:
        self._failed = True
        self._partial = bytearray()
        self._data = []
        raise SSELimitExceeded(kind, limit, size, events)

    def _complete_lines(self, complete: bytes, events: list[EventOrRun]) -> None:
        """Interpret ``complete``, which ends with a line terminator, after the unfinished
        line if there is one."""
        if self._partial:
            self._partial += complete
            complete = bytes(self._partial)
            self._partial = bytearray()
        lines = _LINE_END.split(complete) if b"\r" in complete else complete.split(b"\n")
        lines.pop()  # the empty string after the last terminator
        if len(complete) > self.max_line_bytes:
            # Rare: only now is it worth measuring each line in bytes. The lines before the
            # one past the limit are read first: their events are kept with the error.
            for index, line in enumerate(lines):
                if len(line) > self.max_line_bytes:
                    if index:
                        self._lines(lines[:index], events)
                    self._fail("line", self.max_line_bytes, len(line), events)
        self._lines(lines, events)

    def _data_blocks(
        self, data: bytes, end: int, lf_only: bool, events: list[EventOrRun], runs: bool
    ) -> int:
        """The fast path: dispatch the blocks from the unfinished line (or the start of
        ``data``) to the last blank line of ``data``, if they are all one-line ``data: ...``
        blocks ended by LF LF (CRLF CRLF when ``data`` has a CR), the usual shape of a
        stream; as one :class:`DataRun` when ``runs``. Returns where the blocks end in
        ``data``, or 0 (nothing done).

        The caller checked that no block is open (no field is pending, and the ID buffer is
        the last event ID) and that no line of the chunk passes ``max_line_bytes``; the text
        starts with ``data: `` (so even the stream's first line has no BOM to strip). Each
        block then gives what :meth:`_lines` makes of its two lines: an event of type
        ``message`` whose data is the line after ``data: ``, with the current ID and no
        retry. The blocks are split at the separators; that the values hold no CR or LF then
        proves the shape (as bytes or as text: CR and LF are never part of a UTF-8 sequence,
        which is also why decoding the blocks as one text gives every value the same text as
        decoding it alone).
        """
        terminator = b"\n\n" if lf_only else b"\r\n\r\n"
        blocks_end = data.rfind(terminator, 0, end) + len(terminator)
        if blocks_end < len(terminator):
            return 0
        partial = self._partial
        if self._block_bytes + len(partial) + blocks_end > self.max_event_bytes:
            return 0  # one of these blocks might pass the limit: the general path decides
        raw = bytes(partial) + data[:blocks_end] if partial else data[:blocks_end]
        if self._block_open or not raw.startswith(b"data: "):
            return self._typed_blocks(raw, partial, blocks_end, lf_only, events, runs=runs)
        if runs:
            payloads = (
                raw[6:-2].split(b"\n\ndata: ") if lf_only else raw[6:-4].split(b"\r\n\r\ndata: ")
            )
            joined = b"".join(payloads)
            if b"\n" in joined or (not lf_only and b"\r" in joined):
                return 0
            self._dispatched(partial)
            events.append(DataRun(payloads=payloads, id=self._id_buffer))
            return blocks_end
        text = raw.decode("utf-8", "replace")
        values = text[6:-2].split("\n\ndata: ") if lf_only else text[6:-4].split("\r\n\r\ndata: ")
        text = "".join(values)
        if "\n" in text or (not lf_only and "\r" in text):
            return 0
        self._dispatched(partial)
        event_id = self._id_buffer
        events.extend(
            [
                ServerSentEvent(event="message", data=value, id=event_id, retry=None)
                for value in values
            ]
        )
        return blocks_end

    def _typed_blocks(
        self,
        raw: bytes,
        partial: bytearray,
        blocks_end: int,
        lf_only: bool,
        events: list[EventOrRun],
        *,
        runs: bool = False,
    ) -> int:
        """The fast path's other usual shape, that of Anthropic's and the Responses API's
        streams: two-line blocks, ``event: <type>`` then ``data: <value>``, from the
        unfinished line to the last blank line (``raw``). A chunk of such a stream nearly
        always ends inside a block, after its ``event:`` line: the block left open by the
        last chunk, if it holds no data line yet, is then finished by a ``data:`` line at the
        start of ``raw``. Returns ``blocks_end``, or 0 (nothing done).

        Each block gives what :meth:`_lines` makes of its lines: an event of its type
        (``message`` when empty) whose data is the value, with the current ID; the block left
        open keeps the type, ID and retry its lines set. With ``runs`` the blocks after the
        open one are one :class:`DataRun` with their types (``names``), their data bytes. The
        text is split at the separators between blocks and each block at its ``data:`` line;
        every block must have one, and no more LFs (nor, with CRLF, CRs) may be left than
        blocks: then each block is those two lines.
        """
        if runs:
            return self._typed_run(raw, partial, blocks_end, lf_only, events)
        text = raw.decode("utf-8", "replace")
        separator, field = ("\n\n", "\ndata: ") if lf_only else ("\r\n\r\n", "\r\ndata: ")
        first: ServerSentEvent | None = None
        if self._block_open:  # the caller checked that it holds no data line
            if not text.startswith("data: "):
                return 0
            cut = text.find(separator)
            value = text[6:cut]
            if "\n" in value or "\r" in value:
                return 0
            first = ServerSentEvent(
                event=self._event_type or "message",
                data=value,
                id=self._id_buffer,
                retry=self._block_retry,
            )
            text = text[cut + len(separator) :]
        if not text:  # only the open block was finished
            pieces: list[str] = []
        elif text.startswith("event: "):
            pieces = text[7 : -len(separator)].split(separator + "event: ")
        else:
            return 0
        flat = "".join(pieces)
        count = len(pieces)
        if flat.count("\n") != count or (not lf_only and flat.count("\r") != count):
            return 0
        event_id = self._id_buffer
        out: list[EventOrRun] = [] if first is None else [first]
        for piece in pieces:
            name, found, value = piece.partition(field)
            if not found:
                return 0
            out.append(
                ServerSentEvent(event=name or "message", data=value, id=event_id, retry=None)
            )
        if first is not None:  # the open block is dispatched: its state is committed
            self.last_event_id = event_id
            self._event_type = ""
            self._block_retry = None
            self._block_bytes = 0
            self._block_open = False
        self._dispatched(partial)
        events.extend(out)
        return blocks_end

    def _typed_run(
        self,
        raw: bytes,
        partial: bytearray,
        blocks_end: int,
        lf_only: bool,
        events: list[EventOrRun],
    ) -> int:
        """:meth:`_typed_blocks` for :meth:`feed_runs`, on bytes: the block left open (an
        event), then the others as one :class:`DataRun` with ``names``. Splitting the bytes
        at the separators gives each value the text that decoding the whole and splitting it
        gives (CR and LF are never part of a UTF-8 sequence)."""
        separator, field = (b"\n\n", b"\ndata: ") if lf_only else (b"\r\n\r\n", b"\r\ndata: ")
        first: ServerSentEvent | None = None
        if self._block_open:  # the caller checked that it holds no data line
            if not raw.startswith(b"data: "):
                return 0
            cut = raw.find(separator)
            value = raw[6:cut]
            if b"\n" in value or b"\r" in value:
                return 0
            first = ServerSentEvent(
                event=self._event_type or "message",
                data=value.decode("utf-8", "replace"),
                id=self._id_buffer,
                retry=self._block_retry,
            )
            raw = raw[cut + len(separator) :]
        if not raw:  # only the open block was finished
            pieces: list[bytes] = []
        elif raw.startswith(b"event: "):
            pieces = raw[7 : -len(separator)].split(separator + b"event: ")
        else:
            return 0
        flat = b"".join(pieces)
        count = len(pieces)
        if flat.count(b"\n") != count or (not lf_only and flat.count(b"\r") != count):
            return 0
        names: list[str] = []
        payloads: list[bytes] = []
        for piece in pieces:
            name, found, value = piece.partition(field)
            if not found:
                return 0
            names.append(name.decode("utf-8", "replace") if name else "message")
            payloads.append(value)
        event_id = self._id_buffer
        if first is not None:  # the open block is dispatched: its state is committed
            self.last_event_id = event_id
            self._event_type = ""
            self._block_retry = None
            self._block_bytes = 0
            self._block_open = False
            events.append(first)
        self._dispatched(partial)
        if payloads:
            events.append(DataRun(payloads=payloads, id=event_id, names=names))
        return blocks_end

    def _dispatched(self, partial: bytearray) -> None:
        """The fast path took the unfinished line ``partial`` and the blocks after it."""
        if partial:
            self._partial = bytearray()
        self._first_line = False  # it started with "data: ", so with no BOM

    def _lines(self, lines: list[bytes], events: list[EventOrRun]) -> None:
        """Interpret complete lines (WHATWG 9.2.6): the general path. The block's state lives
        in locals here, written back at the end: this loop is the hot path of any stream that
        is not made of one-line data blocks.

        Lines stay bytes until a value is needed: CR and LF never occur inside a UTF-8
        sequence, so decoding each value (data lines joined with LF) gives the same text as
        decoding the stream as a whole.
        """
        if self._first_line:
            self._first_line = False
            if lines[0].startswith(_BOM_BYTES):
                lines[0] = lines[0][len(_BOM_BYTES) :]
        data = self._data
        event_type = self._event_type
        id_buffer = self._id_buffer
        block_retry = self._block_retry
        block_bytes = self._block_bytes
        block_open = self._block_open
        max_event = self.max_event_bytes
        dispatch = events.append
        for line in lines:
            if not line:  # a blank line: commit the id, dispatch unless no data line came
                self.last_event_id = id_buffer
                if data:
                    dispatch(
                        ServerSentEvent(
                            event=event_type or "message",
                            data=(data[0] if len(data) == 1 else b"\n".join(data)).decode(
                                "utf-8", "replace"
                            ),
                            id=id_buffer,
                            retry=block_retry,
                        )
                    )
                    data = []
                event_type = ""
                block_retry = None
                block_bytes = 0
                block_open = False
                continue
            if line[0] == _COLON:
                continue  # a comment
            block_open = True
            block_bytes += len(line) + 1
            if block_bytes > max_event:
                self._fail("event", max_event, block_bytes, events)
            if line.startswith(b"data: "):  # the usual line
                data.append(line[6:])
                continue
            field, colon, raw = line.partition(b":")
            if colon and raw[:1] == b" ":
                raw = raw[1:]
            if field == b"data":
                data.append(raw)
            elif field == b"event":
                event_type = raw.decode("utf-8", "replace")
            elif field == b"id" and b"\x00" not in raw:
                id_buffer = raw.decode("utf-8", "replace")
            elif field == b"retry" and raw.isdigit():  # bytes.isdigit: ASCII digits only
                block_retry = self.retry = int(raw)
            # Any other field is ignored.
        self._data = data
        self._event_type = event_type
        self._id_buffer = id_buffer
        self._block_retry = block_retry
        self._block_bytes = block_bytes
        self._block_open = block_open
