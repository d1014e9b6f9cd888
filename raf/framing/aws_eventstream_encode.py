"""AWS event stream encoder: messages in, ``application/vnd.amazon.eventstream`` bytes out.
Sans-IO.

The inverse of :class:`raf.framing.aws_eventstream.EventStreamDecoder`, for what writes
event-stream bodies: cassettes, hypothesis strategies, tests. It writes the layout the Smithy
specification "Amazon Event Stream" defines (docs/eventstream.md): a prelude (total length,
header length, CRC-32 of both), the headers, the payload, and the CRC-32 of everything
before it.

:func:`encode_message` takes the headers in order, each a value typed by its Python type
(``bool``: types 0/1; ``str``: 7; ``bytes``: 6; :class:`uuid.UUID`: 9; ``int``: 4, the
32-bit integer, or 5 when it does not fit) or an explicit :class:`Header` for the other
types (byte, short, timestamp). :func:`event`, :func:`exception` and :func:`error` build the
three kinds of message a service sends, with the headers in the order Bedrock sends them.
"""

from __future__ import annotations

import struct
import uuid
import zlib
from collections.abc import Iterable
from typing import NamedTuple

from raf.framing.aws_eventstream import HeaderValue

__all__ = ["Header", "encode_headers", "encode_message", "error", "event", "exception"]

_PRELUDE = struct.Struct(">II")
_U32 = struct.Struct(">I")
_U16 = struct.Struct(">H")
_FIXED = {2: ">b", 3: ">h", 4: ">i", 5: ">q", 8: ">q"}
_INT32 = (-(2**31), 2**31 - 1)


class Header(NamedTuple):
    """A header with its wire type given (``kind`` 0..9, docs/eventstream.md)."""

    name: str
    kind: int
    value: HeaderValue


def _typed(name: str, value: HeaderValue | Header) -> Header:
    if isinstance(value, Header):
        return value
    if isinstance(value, bool):
        return Header(name, 0 if value else 1, value)
    if isinstance(value, int):
        return Header(name, 4 if _INT32[0] <= value <= _INT32[1] else 5, value)
    if isinstance(value, str):
        return Header(name, 7, value)
    if isinstance(value, bytes):
        return Header(name, 6, value)
    return Header(name, 9, value)


def encode_headers(headers: Iterable[tuple[str, HeaderValue | Header]]) -> bytes:
    """A header block: each ``(name, value)`` in order (see the module docstring)."""
    out = bytearray()
    for name, value in headers:
        header = _typed(name, value)
        raw_name = header.name.encode("utf-8")
        out.append(len(raw_name))
        out += raw_name
        out.append(header.kind)
        kind, item = header.kind, header.value
        if kind in (0, 1):
            continue
        if kind in _FIXED:
            assert isinstance(item, int)
            out += struct.pack(_FIXED[kind], item)
        elif kind in (6, 7):
            raw = item.encode("utf-8") if isinstance(item, str) else bytes(item)  # type: ignore[arg-type]
            out += _U16.pack(len(raw)) + raw
        elif kind == 9:
            assert isinstance(item, uuid.UUID)
            out += item.bytes
        else:
            raise ValueError(f"header {header.name!r}: unknown type {kind}")
    return bytes(out)


def encode_message(headers: Iterable[tuple[str, HeaderValue | Header]], payload: bytes) -> bytes:
    """One message: the headers (in order) and the payload, with both CRCs."""
    block = encode_headers(headers)
    total = 16 + len(block) + len(payload)
    prelude = _PRELUDE.pack(total, len(block))
    prelude_crc = zlib.crc32(prelude)
    head = prelude + _U32.pack(prelude_crc)
    body = block + payload
    return head + body + _U32.pack(zlib.crc32(body, zlib.crc32(head)))


def event(name: str, payload: bytes, content_type: str = "application/json") -> bytes:
    """An ``event`` message named ``name`` (``:event-type``), headers as Bedrock orders them."""
    return encode_message(
        [(":event-type", name), (":content-type", content_type), (":message-type", "event")],
        payload,
    )


def exception(name: str, payload: bytes, content_type: str = "application/json") -> bytes:
    """An ``exception`` message (a modelled error, ``:exception-type`` = ``name``)."""
    return encode_message(
        [
            (":exception-type", name),
            (":content-type", content_type),
            (":message-type", "exception"),
        ],
        payload,
    )


def error(code: str, message: str) -> bytes:
    """An ``error`` message (an unmodelled error: ``:error-code``, ``:error-message``, no
    payload)."""
    return encode_message(
        [(":error-code", code), (":error-message", message), (":message-type", "error")], b""
    )
