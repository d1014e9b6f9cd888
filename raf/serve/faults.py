"""Faults ``raf serve`` injects, and the plan of one response. Pure functions, no IO.

A fault is named in the URL (``/f/cut-200``, ``/f/stall-2000+garbage``) or in a test
(:func:`parse_faults`). :func:`plan` turns a recorded response, its chunks, the recorded
delays and the faults into a :class:`Plan`: the status and headers to send, then a list of
steps (write these bytes, pause this long, send a chunk header that promises more than
follows, close the connection). The server (:mod:`raf.serve.app`) only executes the steps,
so what a client is sent is decided here, where tests can read it without a socket.

==========================  =====================================================================
fault                       what the client gets
==========================  =====================================================================
``cut-N``                   the first N bytes of the body, then the connection closes (no
                            terminating chunk: the client sees an incomplete body)
``reset-N``                 the first N bytes of the body, then the connection is reset (a TCP
                            RST: the client's read fails with "connection reset")
``stall-MS``                a pause of MS milliseconds after the first chunk (trips read
                            timeouts); the rest of the body follows
``http-STATUS``             an error response with that status (400-599) instead of the stream:
                            the dialect's error JSON, and ``Retry-After: 1`` for 429 and 503
``drip`` / ``drip-MS``      the body one byte per write, MS milliseconds apart (10 by default)
``truncated-chunked``       half the body, then a chunk header that promises more bytes than
                            follow, then the connection closes
``garbage``                 an event that is not JSON injected after the first event (in the
                            body's own framing; in an AWS event stream, a message with valid
                            CRCs, named as the first one, whose payload is not JSON)
``wrong-content-type``      the stream, labelled ``text/html; charset=utf-8``
``no-content-type``         the stream, with no ``content-type`` header at all
==========================  =====================================================================

Any fault takes a suffix ``xN`` to break only the first N requests of its case (counted per
path prefix and ``x-raf-session``, as the order of interactions is): ``http-429x2`` answers
429 twice, then the stream, which is how a client's retry loop is tested.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

import msgspec

from raf import formats
from raf.errors import RafError
from raf.framing import aws_eventstream_encode
from raf.framing.aws_eventstream import EventStreamDecoder

__all__ = [
    "FAULTS",
    "MAX_FAULT_MS",
    "Close",
    "Fault",
    "FaultError",
    "Pause",
    "Plan",
    "Step",
    "Truncate",
    "Write",
    "active",
    "error_body",
    "parse_faults",
    "plan",
]

FAULTS: Final[dict[str, str]] = {
    "cut-N": "close the connection after N bytes of body",
    "reset-N": "reset the connection (TCP RST) after N bytes of body",
    "stall-MS": "pause MS milliseconds after the first chunk",
    "http-STATUS": "answer STATUS (400-599) with the dialect's error JSON "
    "(Retry-After: 1 for 429 and 503)",
    "drip": "one byte per write, 10 ms apart (drip-MS: MS apart)",
    "truncated-chunked": "half the body, then a chunk header promising more, then close",
    "garbage": "inject an event that is not JSON after the first event",
    "wrong-content-type": "label the stream text/html",
    "no-content-type": "send no content-type header",
    "FAULTxN": "any fault, on the first N requests of the case only (http-429x2)",
}
"""Every fault, by the form of its name, and what it does."""

MAX_FAULT_MS: Final = 600_000
"""Longest pause a fault may ask for (10 minutes)."""

_DEFAULT_DRIP_MS: Final = 10
_RETRY_STATUSES: Final = frozenset({429, 503})
_FAULT: Final = re.compile(
    r"(?:(?P<kind>cut|reset|stall|http|drip)(?:-(?P<value>[0-9]{1,9}))?"
    r"|(?P<plain>truncated-chunked|garbage|wrong-content-type|no-content-type))"
    r"(?:x(?P<times>[0-9]{1,6}))?"
)


class FaultError(ValueError):
    """A fault name that means nothing; the message lists the choices."""


@dataclass(frozen=True)
class Fault:
    """One fault: its kind (``cut``, ``stall``...), its number if it takes one, and on how
    many requests it applies (``times``: the first N of the case; ``None``: every one)."""

    kind: str
    value: int | None = None
    times: int | None = None

    @property
    def name(self) -> str:
        name = self.kind if self.value is None else f"{self.kind}-{self.value}"
        return name if self.times is None else f"{name}x{self.times}"

    def applies(self, attempt: int) -> bool:
        """Whether it breaks the request numbered ``attempt`` (0 for the first) of its case."""
        return self.times is None or attempt < self.times


def active(faults: tuple[Fault, ...], attempt: int) -> tuple[Fault, ...]:
    """The faults that break request number ``attempt`` of a case (``http-429x2``: the first
    two requests get 429, the third the stream: what a client's retry loop must survive)."""
    return tuple(f for f in faults if f.applies(attempt))


def parse_faults(text: str) -> tuple[Fault, ...]:
    """The faults of ``cut-10+stall-500`` (``+`` joins several).

    Raises:
        FaultError: an unknown name, a missing or out-of-range number, or a fault given twice.
    """
    faults: list[Fault] = []
    for name in text.split("+"):
        match = _FAULT.fullmatch(name)
        if match is None:
            raise FaultError(f"unknown fault {name!r}; use {', '.join(FAULTS)}")
        kind = match.group("kind") or match.group("plain")
        raw = match.group("value")
        value = int(raw) if raw is not None else None
        times = int(match.group("times")) if match.group("times") is not None else None
        if kind in ("cut", "reset", "stall", "http") and value is None:
            raise FaultError(f"the fault {kind} takes a number: {kind}-N")
        if kind == "http" and value is not None and not 400 <= value <= 599:
            raise FaultError(f"http-{value}: the status must be between 400 and 599")
        if kind in ("stall", "drip") and value is not None and value > MAX_FAULT_MS:
            raise FaultError(f"{name}: at most {MAX_FAULT_MS} ms")
        if any(f.kind == kind for f in faults):
            raise FaultError(f"the fault {kind} is given twice")
        if {kind, *(f.kind for f in faults)} >= {"cut", "reset"}:
            raise FaultError("cut and reset both end the connection: give one")
        faults.append(Fault(kind, value, times))
    return tuple(faults)


@dataclass(frozen=True)
class Write:
    """Send these body bytes (one network write, flushed)."""

    data: bytes


@dataclass(frozen=True)
class Pause:
    """Wait this many seconds before the next step."""

    seconds: float


@dataclass(frozen=True)
class Truncate:
    """Send a chunk header promising ``promised`` bytes, then only ``data``, then close."""

    promised: int
    data: bytes


@dataclass(frozen=True)
class Close:
    """Close the connection now, without ending the body; ``reset``: with a TCP RST
    instead of a FIN."""

    reset: bool = False


Step = Write | Pause | Truncate | Close


@dataclass(frozen=True)
class Plan:
    """One response: status, reason, headers (in order), then the body steps. A plan that
    ends without :class:`Close` or :class:`Truncate` ends its body properly."""

    status: int
    reason: str
    headers: list[tuple[str, str]]
    steps: list[Step]

    def body(self) -> bytes:
        """Every body byte the client is sent, joined (what its parser sees)."""
        return b"".join(s.data for s in self.steps if isinstance(s, Write | Truncate))

    @property
    def complete(self) -> bool:
        """The body is ended properly (no cut, no truncation)."""
        return not any(isinstance(s, Close | Truncate) for s in self.steps)


_REASONS: Final = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    408: "Request Timeout",
    409: "Conflict",
    413: "Payload Too Large",
    422: "Unprocessable Entity",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
    529: "Overloaded",
}


def error_body(dialect: str, status: int) -> bytes:
    """The error JSON a provider of ``dialect`` answers ``status`` with (the shape its
    clients parse, :attr:`raf.formats.Format.error_document`; OpenAI's for a dialect without a
    format); the message says it is raf's fault."""
    message = f"raf serve: injected fault http-{status}"
    found = formats.find(dialect) or formats.get("openai_chat")
    return msgspec.json.encode(found.error_document(status, message))


def _first_message(body: bytes) -> tuple[int, str] | None:
    """The end and the name of the first message of an AWS event stream body, or ``None``
    when it does not start with a valid one."""
    decoder = EventStreamDecoder()
    try:
        messages = decoder.feed(body[: int.from_bytes(body[:4], "big")])
    except RafError:
        return None
    if not messages:
        return None
    return decoder.offset, messages[0].event or "event"


def _garbage(body: bytes) -> tuple[int, bytes]:
    """Where to inject a garbage event into ``body``, and the event, in its framing."""
    if body[:1] == b"\x00":  # an AWS event stream: a message whose payload is not JSON
        found = _first_message(body)
        if found is not None:
            end, name = found
            return end, aws_eventstream_encode.event(name, b"{raf injected garbage")
    start = body.lstrip()[:1]
    if start == b"[":  # a streamed JSON array: a bad element after the first one
        depth, in_string, escape = 0, False, False
        for i, byte in enumerate(body):
            if in_string:
                if escape:
                    escape = False
                elif byte == 0x5C:
                    escape = True
                elif byte == 0x22:
                    in_string = False
            elif byte == 0x22:
                in_string = True
            elif byte in (0x5B, 0x7B):
                depth += 1
            elif byte in (0x5D, 0x7D):
                depth -= 1
                if depth == 1:
                    return i + 1, b",\r\n{raf injected garbage}"
        return len(body), b"{raf injected garbage}"
    if start == b"{":  # JSON lines
        end = body.find(b"\n")
        return (end + 1 if end >= 0 else len(body)), b"{raf injected garbage\n"
    for terminator in (b"\r\n\r\n", b"\n\n", b"\r\r"):
        end = body.find(terminator)
        if end >= 0:
            return end + len(terminator), b"data: {raf injected garbage\n\n"
    return len(body), b"\n\ndata: {raf injected garbage\n\n"


def plan(
    *,
    dialect: str,
    status: int,
    reason: str,
    headers: list[tuple[str, str]],
    chunks: list[bytes],
    delays: list[float] | None = None,
    faults: tuple[Fault, ...] = (),
) -> Plan:
    """The response to send.

    Args:
        dialect: the cassette's dialect (the shape of an injected error).
        status, reason, headers: the recorded ones (hop-by-hop headers already removed).
        chunks: the recorded body, cut by the chunking.
        delays: seconds to wait before each chunk (the recorded timing, scaled), or ``None``.
        faults: what to break.
    """
    by_kind = {f.kind: f for f in faults}
    if "http" in by_kind:
        code = by_kind["http"].value or 500
        error_headers = [("content-type", "application/json")]
        if code in _RETRY_STATUSES:
            error_headers.append(("retry-after", "1"))
        return Plan(
            code, _REASONS.get(code, "Error"), error_headers, [Write(error_body(dialect, code))]
        )
    body_chunks = list(chunks)
    if "garbage" in by_kind:
        body = b"".join(body_chunks)
        at, event = _garbage(body)
        body_chunks = _split_at(body_chunks, at)
        index = _chunk_index(body_chunks, at)
        body_chunks.insert(index, event)
        if delays is not None:
            delays = _split_delays(chunks, delays, at)
            delays.insert(index, 0.0)
    if "drip" in by_kind:
        gap = (by_kind["drip"].value or _DEFAULT_DRIP_MS) / 1000
        body = b"".join(body_chunks)
        body_chunks = [body[i : i + 1] for i in range(len(body))]
        delays = [gap if i else 0.0 for i in range(len(body_chunks))]
    out_headers = [(k, v) for k, v in headers if k.lower() not in _DROPPED]
    if "wrong-content-type" in by_kind or "no-content-type" in by_kind:
        out_headers = [(k, v) for k, v in out_headers if k.lower() != "content-type"]
        if "wrong-content-type" in by_kind:
            out_headers.append(("content-type", "text/html; charset=utf-8"))
    total = sum(len(piece) for piece in body_chunks)
    end: str | None = None
    end_at = total
    for kind in ("cut", "reset"):
        if kind in by_kind:
            end, end_at = kind, min(by_kind[kind].value or 0, total)
    if "truncated-chunked" in by_kind and (end is None or total // 2 < end_at):
        end, end_at = "truncate", total // 2
    stall = by_kind.get("stall")
    steps: list[Step] = []
    sent = 0
    for n, piece in enumerate(body_chunks):
        if sent >= end_at and end is not None:
            break
        piece = piece[: end_at - sent]  # noqa: PLW2901 - the part before the cut
        delay = delays[n] if delays is not None and n < len(delays) else 0.0
        if delay > 0:
            steps.append(Pause(delay))
        steps.append(Write(piece))
        sent += len(piece)
        if stall is not None and n == 0 and stall.value:
            steps.append(Pause(stall.value / 1000))
    if end in ("cut", "reset"):
        steps.append(Close(reset=end == "reset"))
    elif end == "truncate":
        rest = b"".join(body_chunks)[end_at:]
        steps.append(Truncate(max(len(rest), 1) + 1, rest[: len(rest) // 2]))
    return Plan(status, reason, out_headers, steps)


_DROPPED: Final = frozenset(
    {
        "content-length",
        "transfer-encoding",
        "connection",
        "keep-alive",
        "content-encoding",
        "date",
        "server",
    }
)
"""Recorded headers not replayed: the server frames the body itself (chunked, never
compressed: a body recorded with a ``content-encoding`` is sent decoded) and sends its own
date."""


def _split_at(chunks: list[bytes], at: int) -> list[bytes]:
    out: list[bytes] = []
    position = 0
    for piece in chunks:
        if position < at < position + len(piece):
            out += [piece[: at - position], piece[at - position :]]
        else:
            out.append(piece)
        position += len(piece)
    return out


def _chunk_index(chunks: list[bytes], at: int) -> int:
    position = 0
    for n, piece in enumerate(chunks):
        if position >= at:
            return n
        position += len(piece)
    return len(chunks)


def _split_delays(chunks: list[bytes], delays: list[float], at: int) -> list[float]:
    out: list[float] = []
    position = 0
    for n, piece in enumerate(chunks):
        delay = delays[n] if n < len(delays) else 0.0
        out.append(delay)
        if position < at < position + len(piece):
            out.append(0.0)
        position += len(piece)
    return out
