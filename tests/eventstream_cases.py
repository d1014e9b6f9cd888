"""Independent decoding cases for the AWS event stream framing
(``application/vnd.amazon.eventstream``), the table ``tests/test_aws_eventstream.py`` runs.

Every expectation was written by hand from the Smithy specification "Amazon Event Stream"
(https://smithy.io/2.0/aws/amazon-eventstream.html: "Message Format", "Headers Format",
"Amazon Event Semantics") and from the decoder rules of docs/eventstream.md; none was
produced by running a decoder, and this module imports nothing from ``raf``. The bytes are
built by the small encoder below (``zlib.crc32`` is CRC-32/IEEE, the checksum the format
uses), which can also build wrong messages: a length that lies, a CRC that does not match, a
header block of any bytes.

How to read a case: ``frames`` is every frame the decoder returns for ``stream`` (``feed``
and ``close`` together, plus the ``events`` of the error when there is one), whatever the
chunking; ``error`` is the kind of the fatal error (``None``: none), ``limit`` for
``SSELimitExceeded``; ``truncated`` is the decoder's attribute after ``close``.
"""

from __future__ import annotations

import struct
import uuid
import zlib
from dataclasses import dataclass, field

# -- the encoder (tests only) ------------------------------------------------------------------


def name_bytes(name: str | bytes) -> bytes:
    raw = name.encode() if isinstance(name, str) else name
    return bytes([len(raw)]) + raw


def h_string(name: str | bytes, value: str | bytes) -> bytes:
    raw = value.encode() if isinstance(value, str) else value
    return name_bytes(name) + b"\x07" + struct.pack(">H", len(raw)) + raw


def h_bytes(name: str, value: bytes) -> bytes:
    return name_bytes(name) + b"\x06" + struct.pack(">H", len(value)) + value


def h_bool(name: str, value: bool) -> bytes:
    return name_bytes(name) + (b"\x00" if value else b"\x01")


def h_int(name: str, kind: int, value: int) -> bytes:
    fmt = {2: ">b", 3: ">h", 4: ">i", 5: ">q", 8: ">q"}[kind]
    return name_bytes(name) + bytes([kind]) + struct.pack(fmt, value)


def h_uuid(name: str, value: uuid.UUID) -> bytes:
    return name_bytes(name) + b"\x09" + value.bytes


def message(
    headers: bytes = b"",
    payload: bytes = b"",
    *,
    total: int | None = None,
    headers_length: int | None = None,
    prelude_crc: int | None = None,
    message_crc: int | None = None,
) -> bytes:
    """One message; the keyword arguments replace a field by a wrong value (the prelude CRC
    is computed over the lengths as given, so a lying length keeps a valid prelude CRC)."""
    total = len(headers) + len(payload) + 16 if total is None else total
    headers_length = len(headers) if headers_length is None else headers_length
    prelude = struct.pack(">II", total, headers_length)
    crc = zlib.crc32(prelude) if prelude_crc is None else prelude_crc
    body = prelude + struct.pack(">I", crc) + headers + payload
    crc = zlib.crc32(body) if message_crc is None else message_crc
    return body + struct.pack(">I", crc)


def event(name: str, payload: bytes, *, content_type: str = "application/json") -> bytes:
    """An event message shaped as Bedrock sends them (three string headers, in its order)."""
    return message(
        h_string(":event-type", name)
        + h_string(":content-type", content_type)
        + h_string(":message-type", "event"),
        payload,
    )


def flip(data: bytes, index: int, bit: int = 0) -> bytes:
    return data[:index] + bytes([data[index] ^ (1 << bit)]) + data[index + 1 :]


# -- the cases ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Frame:
    event: str
    payload: bytes
    message_type: str | None
    headers: dict[str, object]
    data: str | None = None  # None: the payload as UTF-8

    @property
    def text(self) -> str:
        return self.payload.decode() if self.data is None else self.data


def bedrock(name: str, payload: bytes) -> Frame:
    headers: dict[str, object] = {
        ":event-type": name,
        ":content-type": "application/json",
        ":message-type": "event",
    }
    return Frame(name, payload, "event", headers)


@dataclass(frozen=True)
class Case:
    name: str
    why: str
    stream: bytes
    frames: tuple[Frame, ...] = ()
    error: str | None = None
    truncated: bool = False
    limits: dict[str, int] = field(default_factory=dict)


START = b'{"p":"abcdefghijklmnopqr","role":"assistant"}'
DELTA = b'{"contentBlockIndex":0,"delta":{"text":"The"},"p":"abcdefghijk"}'
STOP = b'{"contentBlockIndex":0,"p":"abcd"}'
M_START = event("messageStart", START)
M_DELTA = event("contentBlockDelta", DELTA)
M_STOP = event("contentBlockStop", STOP)
F_START = bedrock("messageStart", START)
F_DELTA = bedrock("contentBlockDelta", DELTA)
F_STOP = bedrock("contentBlockStop", STOP)

EXCEPTION = b'{"message":"Rate exceeded"}'
UUID = uuid.UUID("00010203-0405-0607-0809-0a0b0c0d0e0f")
ALL_TYPES = (
    h_bool("t", True)
    + h_bool("f", False)
    + h_int("b", 2, -1)
    + h_int("s", 3, -2)
    + h_int("i", 4, -3)
    + h_int("l", 5, -4)
    + h_bytes("ba", b"\x00\x01\x02")
    + h_string("st", "hi")
    + h_int("ts", 8, 1_700_000_000_000)
    + h_uuid("u", UUID)
)
ALL_TYPES_VALUES: dict[str, object] = {
    "t": True,
    "f": False,
    "b": -1,
    "s": -2,
    "i": -3,
    "l": -4,
    "ba": b"\x00\x01\x02",
    "st": "hi",
    "ts": 1_700_000_000_000,
    "u": UUID,
}
HTML = b"<html><body>502 Bad Gateway</body></html>"
ONE_TYPE = h_string(":message-type", "event")

CASES: tuple[Case, ...] = (
    # -- well-formed streams
    Case("empty body", "nothing sent, nothing cut", b""),
    Case("one event", "Bedrock's usual message", M_START, (F_START,)),
    Case(
        "three events",
        "messages follow each other with no separator",
        M_START + M_DELTA + M_STOP,
        (F_START, F_DELTA, F_STOP),
    ),
    Case(
        "16-byte message",
        "no headers, no payload: the smallest message; no name, no type",
        message(),
        (Frame("", b"", None, {}),),
    ),
    Case(
        "empty payload",
        "an event without payload is a frame; its JSON is the dialect's business",
        event("messageStart", b""),
        (bedrock("messageStart", b""),),
    ),
    Case(
        "no :message-type",
        "the frame is named by :event-type, message_type None",
        message(h_string(":event-type", "messageStart"), b"{}"),
        (Frame("messageStart", b"{}", None, {":event-type": "messageStart"}),),
    ),
    Case(
        ":message-type not a string",
        "message_type None; the header is kept as sent",
        message(h_int(":message-type", 4, 1) + h_string(":event-type", "x"), b"{}"),
        (Frame("x", b"{}", None, {":message-type": 1, ":event-type": "x"}),),
    ),
    Case(
        "all ten header types",
        "Smithy's fixed type set, each decoded",
        message(ALL_TYPES, b"x"),
        (Frame("", b"x", None, ALL_TYPES_VALUES),),
    ),
    Case(
        "empty string and byte values",
        "a value of length 0 is unambiguous: accepted",
        message(h_string("a", "") + h_bytes("b", b""), b""),
        (Frame("", b"", None, {"a": "", "b": b""}),),
    ),
    Case(
        "unknown header names",
        "kept in headers, otherwise ignored",
        message(ONE_TYPE + h_string(":event-type", "e") + h_string("x-foo", "bar"), b"{}"),
        (
            Frame(
                "e", b"{}", "event", {":message-type": "event", ":event-type": "e", "x-foo": "bar"}
            ),
        ),
    ),
    Case(
        "exception message",
        "a modelled error the service sends in the stream: a frame named by :exception-type",
        M_START
        + message(
            h_string(":message-type", "exception")
            + h_string(":exception-type", "throttlingException")
            + h_string(":content-type", "application/json"),
            EXCEPTION,
        ),
        (
            F_START,
            Frame(
                "throttlingException",
                EXCEPTION,
                "exception",
                {
                    ":message-type": "exception",
                    ":exception-type": "throttlingException",
                    ":content-type": "application/json",
                },
            ),
        ),
    ),
    Case(
        "error message",
        "an unmodelled error: a frame named by :error-code, empty payload",
        message(
            h_string(":message-type", "error")
            + h_string(":error-code", "InternalFailure")
            + h_string(":error-message", "boom"),
        ),
        (
            Frame(
                "InternalFailure",
                b"",
                "error",
                {
                    ":message-type": "error",
                    ":error-code": "InternalFailure",
                    ":error-message": "boom",
                },
            ),
        ),
    ),
    Case(
        "unknown message type",
        "a frame with the type as sent, named by :event-type; the dialect reports it",
        message(h_string(":message-type", "ping") + h_string(":event-type", "e"), b""),
        (Frame("e", b"", "ping", {":message-type": "ping", ":event-type": "e"}),),
    ),
    Case(
        "payload not UTF-8",
        "the payload bytes are kept; data has U+FFFD",
        event("contentBlockDelta", b'{"t":"\xff"}'),
        (
            Frame(
                "contentBlockDelta",
                b'{"t":"\xff"}',
                "event",
                bedrock("x", b"").headers | {":event-type": "contentBlockDelta"},
                data='{"t":"\ufffd"}',
            ),
        ),
    ),
    # -- cut short
    Case(
        "ends inside a prelude",
        "7 bytes of the next prelude: discarded",
        M_START + M_DELTA[:7],
        (F_START,),
        truncated=True,
    ),
    Case(
        "ends after a prelude",
        "the prelude is valid, the rest never came",
        M_START + M_DELTA[:12],
        (F_START,),
        truncated=True,
    ),
    Case(
        "ends one byte short",
        "a message whose CRC never came is never dispatched",
        M_START + M_DELTA[:-1],
        (F_START,),
        truncated=True,
    ),
    Case(
        "short trailing garbage",
        "fewer than 12 bytes cannot be checked: truncation",
        M_START + b"<html>",
        (F_START,),
        truncated=True,
    ),
    # -- corrupt: the stream ends with a typed error
    Case(
        "bad prelude CRC",
        "Smithy: an invalid checksum terminates the stream",
        M_START + message(prelude_crc=0xDEADBEEF),
        (F_START,),
        error="prelude_crc",
        truncated=True,
    ),
    Case(
        "length bit flipped",
        "a corrupted length is a bad prelude CRC, never a wait",
        M_START + flip(M_DELTA, 1, 7),
        (F_START,),
        error="prelude_crc",
        truncated=True,
    ),
    Case(
        "huge length, bad CRC",
        "the CRC is checked before the limit",
        flip(M_START, 0, 7),
        error="prelude_crc",
        truncated=True,
    ),
    Case(
        "long trailing garbage",
        "an HTML page after the messages: its first 12 bytes are no prelude",
        M_START + HTML,
        (F_START,),
        error="prelude_crc",
        truncated=True,
    ),
    Case(
        "payload bit flipped",
        "the message CRC covers the payload; the message is not dispatched",
        M_START + flip(M_DELTA, len(M_DELTA) - 10),
        (F_START,),
        error="message_crc",
        truncated=True,
    ),
    Case(
        "header bit flipped",
        "the message CRC covers the headers",
        flip(M_START, 14),
        error="message_crc",
        truncated=True,
    ),
    Case(
        "message CRC bit flipped",
        "the last four bytes",
        flip(M_START, len(M_START) - 1),
        error="message_crc",
        truncated=True,
    ),
    Case(
        "bad CRC before bad headers",
        "the message CRC is checked before the headers are read",
        message(b"\x01a\x0a", message_crc=1),
        error="message_crc",
        truncated=True,
    ),
    Case(
        "length under 16",
        "a valid prelude CRC over total_length 12",
        M_START + message(total=12)[:12],
        (F_START,),
        error="malformed",
        truncated=True,
    ),
    Case(
        "headers longer than the message",
        "headers_length > total_length - 16, reported from the prelude alone",
        message(total=20, headers_length=5)[:12],
        error="malformed",
        truncated=True,
    ),
    Case(
        "message over max_event_bytes",
        "reported from the prelude, before the body arrives",
        M_START + message(b"", b"x" * 300)[:12],
        (F_START,),
        error="limit",
        truncated=True,
        limits={"max_event_bytes": 200},
    ),
    Case(
        "headers over max_headers_bytes",
        "reported from the prelude",
        message(h_string("a", "x" * 40))[:12],
        error="headers_limit",
        truncated=True,
        limits={"max_headers_bytes": 32},
    ),
    Case(
        "unknown header type",
        "the type set is fixed; the rest of the block cannot be read",
        M_START + message(b"\x01a\x0a\x00\x00"),
        (F_START,),
        error="malformed",
        truncated=True,
    ),
    Case(
        "empty header name",
        "Smithy: a name has 1 to 255 bytes",
        message(b"\x00\x00"),
        error="malformed",
        truncated=True,
    ),
    Case(
        "value past the header block",
        "a string length pointing past the block (the payload is not a value)",
        message(b"\x01a\x07\x00\x09abc", b"defghi"),
        error="malformed",
        truncated=True,
    ),
    Case(
        "block ends inside a name",
        "name length 5, 3 bytes left",
        message(b"\x05abc"),
        error="malformed",
        truncated=True,
    ),
    Case(
        "block ends before a type",
        "a name and no type byte",
        message(b"\x01a"),
        error="malformed",
        truncated=True,
    ),
    Case(
        "block ends inside an int",
        "an int32 with two bytes",
        message(b"\x01a\x04\x00\x00"),
        error="malformed",
        truncated=True,
    ),
    Case(
        "block ends inside a uuid",
        "a uuid with eight bytes",
        message(b"\x01a\x09" + bytes(8)),
        error="malformed",
        truncated=True,
    ),
    Case(
        "duplicate header",
        "Smithy: a name appears once per message",
        message(h_string("a", "x") + h_string("a", "y")),
        error="malformed",
        truncated=True,
    ),
    Case(
        "name not UTF-8",
        "names are UTF-8",
        message(h_string(b"\xff", "x")),
        error="malformed",
        truncated=True,
    ),
    Case(
        "string value not UTF-8",
        "string values are UTF-8 (byte arrays may hold anything)",
        message(h_string("a", b"\xc3") + h_bytes("b", b"\xff")),
        error="malformed",
        truncated=True,
    ),
)


def outcome(case: Case) -> str:
    """The expected outcome in words, for the table in the docs."""
    parts = []
    if case.frames:
        parts.append(f"{len(case.frames)} frame{'s' * (len(case.frames) > 1)}")
    if case.error == "limit":
        parts.append("`SSELimitExceeded`")
    elif case.error:
        parts.append(f"`EventStreamError` `{case.error}`")
    if case.truncated and not case.error:
        parts.append("truncated")
    return ", ".join(parts) or "nothing"


def markdown_table() -> str:
    """The case table as Markdown (docs/eventstream.md holds it)."""
    rows = ["| case | why | outcome |", "|---|---|---|"]
    rows += [f"| {c.name} | {c.why} | {outcome(c)} |" for c in CASES]
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    print(markdown_table(), end="")
