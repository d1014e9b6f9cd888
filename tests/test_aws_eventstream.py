"""raf.framing.aws_eventstream against the independent table in eventstream_cases.py, under
every chunking; a property over any valid stream; the recorded Bedrock bodies (the bundled
cassettes, and the shared corpus when present); the cost (each message parsed once, whatever the feeds); the API."""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from raf import framing
from raf.errors import SSEError, SSELimitExceeded, StateError
from raf.framing import ServerSentEvent, aws_eventstream
from raf.framing.aws_eventstream import EventStreamDecoder, EventStreamError, EventStreamMessage
from raf.testing.strategies import network_chunkings
from tests import corpus
from tests.eventstream_cases import (
    CASES,
    M_DELTA,
    M_START,
    Case,
    Frame,
    event,
    h_bool,
    h_bytes,
    h_int,
    h_string,
    h_uuid,
    markdown_table,
    message,
)
from tests.helpers import CHUNKINGS, every_split_point, split

DOC = Path(__file__).resolve().parents[1] / "docs" / "eventstream.md"


def _frame(f: Any) -> Frame:
    assert type(f) is EventStreamMessage
    assert f.id == ""
    assert f.retry is None
    return Frame(f.event, f.payload, f.message_type, dict(f.headers), f.data)


def _expected(case: Case) -> list[Frame]:
    return [Frame(f.event, f.payload, f.message_type, f.headers, f.text) for f in case.frames]


def _run(case: Case, chunks: list[bytes]) -> tuple[list[Frame], str | None, bool]:
    decoder = EventStreamDecoder(**case.limits)
    got: list[Frame] = []
    error: str | None = None
    try:
        for piece in chunks:
            got += [_frame(f) for f in decoder.feed(piece)]
    except EventStreamError as exc:
        error = exc.kind
        got += [_frame(f) for f in exc.events]
    except SSELimitExceeded as exc:
        error = "limit" if exc.kind == "event" else exc.kind
        got += [_frame(f) for f in exc.events]
    if error is not None:
        with pytest.raises(StateError):
            decoder.feed(b"\x00")
    assert decoder.close() == []
    return got, error, decoder.truncated


def _check(case: Case, chunks: list[bytes]) -> None:
    assert _run(case, chunks) == (_expected(case), case.error, case.truncated)


@pytest.mark.parametrize("how", [*CHUNKINGS, "fixed-7"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_case_table(case: Case, how: str) -> None:
    _check(case, split(case.stream, how))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_case_table_cut_in_two_anywhere(case: Case) -> None:
    for chunks in every_split_point(case.stream):
        _check(case, chunks)


def test_the_docs_hold_the_case_table_as_it_is() -> None:
    assert markdown_table() in DOC.read_text(encoding="utf-8"), (
        "docs/eventstream.md: paste the output of `python -m tests.eventstream_cases`"
    )


def test_an_error_says_where_the_bad_message_starts_and_is_an_sse_error() -> None:
    with pytest.raises(EventStreamError) as caught:
        EventStreamDecoder().feed(M_START + M_DELTA + b"\x00" * 16)
    assert caught.value.offset == len(M_START) + len(M_DELTA)
    assert isinstance(caught.value, SSEError)
    assert "prelude CRC" in str(caught.value)
    assert [f.event for f in caught.value.events] == ["messageStart", "contentBlockDelta"]


def messages(events: Sequence[ServerSentEvent]) -> list[EventStreamMessage]:
    """What the decoder gave, each an event stream message (the type that has a payload)."""
    found = [e for e in events if isinstance(e, EventStreamMessage)]
    assert len(found) == len(events)
    return found


def test_an_empty_feed_does_nothing_and_feed_after_close_is_refused() -> None:
    decoder = EventStreamDecoder()
    assert decoder.feed(M_START[:5]) == []
    assert decoder.feed(b"") == []
    assert [f.event for f in decoder.feed(M_START[5:])] == ["messageStart"]
    decoder.close()
    assert decoder.truncated is False
    with pytest.raises(StateError):
        decoder.feed(M_START)


def test_a_payload_above_the_services_maximum_is_accepted() -> None:
    """Smithy: payloads up to 24 MiB, enforced by services; clients must not validate."""
    payload = b"x" * (24 * 1024 * 1024 + 1)
    body = event("contentBlockDelta", payload)
    for pieces in ([body], [body[i : i + 65536] for i in range(0, len(body), 65536)]):
        decoder = EventStreamDecoder()
        frames = messages([f for p in pieces for f in decoder.feed(p)])
        assert [len(f.payload) for f in frames] == [len(payload)]


def test_it_is_the_aws_eventstream_framing() -> None:
    assert "aws_eventstream" in framing.names()
    decoder = framing.create("aws_eventstream", max_event_bytes=64)
    assert isinstance(decoder, EventStreamDecoder)
    assert isinstance(decoder, framing.Framing)
    assert decoder.max_event_bytes == 64
    assert framing.runs_of(decoder) is None


def test_limits_must_leave_room_for_a_message() -> None:
    with pytest.raises(ValueError, match="at least 16"):
        EventStreamDecoder(max_event_bytes=15)


# -- any valid stream, split anywhere ----------------------------------------------------------

_VALUES = st.one_of(
    st.booleans().map(lambda v: (h_bool, v)),
    st.integers(-(2**7), 2**7 - 1).map(lambda v: (2, v)),
    st.integers(-(2**15), 2**15 - 1).map(lambda v: (3, v)),
    st.integers(-(2**31), 2**31 - 1).map(lambda v: (4, v)),
    st.integers(-(2**63), 2**63 - 1).map(lambda v: (5, v)),
    st.integers(-(2**63), 2**63 - 1).map(lambda v: (8, v)),
    st.binary(max_size=40).map(lambda v: (h_bytes, v)),
    st.text(max_size=40).map(lambda v: (h_string, v)),
    st.uuids().map(lambda v: (h_uuid, v)),
)
_NAMES = st.text(min_size=1, max_size=12).filter(lambda n: len(n.encode()) <= 255)


@st.composite
def _messages(draw: st.DrawFn) -> tuple[bytes, Frame]:
    chosen = draw(st.dictionaries(_NAMES, _VALUES, max_size=5))
    kind = draw(st.sampled_from([None, "event", "exception", "error"]))
    named = {"exception": ":exception-type", "error": ":error-code"}.get(kind or "", ":event-type")
    headers: dict[str, object] = {}
    block = b""
    if kind is not None:
        chosen[":message-type"] = (h_string, kind)
    name = draw(st.text(max_size=20))
    chosen[named] = (h_string, name)
    for key, (how, value) in chosen.items():
        block += h_int(key, how, value) if isinstance(how, int) else how(key, value)
        headers[key] = value
    payload = draw(st.binary(max_size=60))
    frame = Frame(name, payload, kind, headers, payload.decode("utf-8", "replace"))
    return message(block, payload), frame


@given(st.lists(_messages(), max_size=6), st.data())
def test_any_stream_of_valid_messages_decodes_to_them_however_it_is_cut(
    messages: list[tuple[bytes, Frame]], data: st.DataObject
) -> None:
    body = b"".join(m for m, _ in messages)
    chunks = data.draw(network_chunkings(body))
    case = Case("drawn", "", body, tuple(f for _, f in messages))
    assert _run(case, chunks) == (_expected(case), None, False)


# -- the recorded Bedrock streams: the bundled cassettes (and the shared corpus, if present) --

CONVERSE_STREAM_EVENTS = {
    "messageStart",
    "contentBlockStart",
    "contentBlockDelta",
    "contentBlockStop",
    "messageStop",
    "metadata",
}
BUNDLED = Path(__file__).resolve().parents[1] / "cassettes" / "bedrock_converse"


def _bodies(path: Path, root: Path, clean_only: bool) -> list[tuple[str, bytes]]:
    text = path.read_text(encoding="utf-8", errors="replace")
    if "/converse-stream" not in text:
        return []
    document = yaml.safe_load(text)
    if clean_only and (document.get("raf") or {}).get("expect", {}).get("errors"):
        return []  # the cassettes of corrupt, cut or failed streams have tests of their own
    out = []
    for n, item in enumerate(document["interactions"]):
        body = item["response"].get("body", {}).get("string")
        status = item["response"].get("status", {}).get("code", 200)
        uri = item["request"]["uri"]
        if uri.endswith("/converse-stream") and status == 200 and isinstance(body, bytes):
            out.append((f"{path.relative_to(root)}#{n}", body))
    return out


def _recorded_bodies() -> list[tuple[str, bytes]]:
    """The 200 bodies of every ``/converse-stream`` interaction of the bundled cassettes
    whose stream is whole (rebuilt message by message from real recordings), and of the
    shared corpus's recordings when it is beside the repository."""
    out = []
    for path in sorted(BUNDLED.glob("*.yaml")):
        out += _bodies(path, BUNDLED, clean_only=True)
    for path in corpus.files():
        out += _bodies(path, corpus.ROOT, clean_only=False)
    return out


def _messages_by_length(body: bytes) -> list[bytes]:
    """The messages of a body, cut by their lengths alone, CRCs checked here with zlib."""
    out = []
    pos = 0
    while pos < len(body):
        total, _, prelude_crc = struct.unpack_from(">III", body, pos)
        assert zlib.crc32(body[pos : pos + 8]) == prelude_crc
        whole = body[pos : pos + total]
        assert zlib.crc32(whole[:-4]) == struct.unpack(">I", whole[-4:])[0]
        out.append(whole)
        pos += total
    return out


def test_every_recorded_bedrock_message_decodes_to_a_converse_stream_event() -> None:
    corpus.check()
    bodies = _recorded_bodies()
    assert len([name for name, _ in bodies if "#" in name and "/" not in name]) >= 8
    seen = set()
    for name, body in bodies:
        whole = EventStreamDecoder()
        frames = whole.feed(body)
        whole.close()
        assert not whole.truncated, name
        assert len(frames) == len(_messages_by_length(body)), name
        for f in frames:
            assert isinstance(f, EventStreamMessage)
            assert f.message_type == "event", name
            assert f.headers[":content-type"] == "application/json"
            assert f.event in CONVERSE_STREAM_EVENTS, (name, f.event)
            assert isinstance(json.loads(f.data), dict)
            seen.add(f.event)
        bytewise = EventStreamDecoder()
        assert [g for i in range(len(body)) for g in bytewise.feed(body[i : i + 1])] == frames
    assert seen == CONVERSE_STREAM_EVENTS


# -- cost --------------------------------------------------------------------------------------


class _Counting:
    """``zlib`` for the decoder, counting the bytes it checksums and the calls."""

    def __init__(self) -> None:
        self.bytes = 0
        self.calls = 0

    def crc32(self, data: Any, value: int = 0) -> int:
        self.bytes += len(data)
        self.calls += 1
        return zlib.crc32(data, value)


def _work(monkeypatch: pytest.MonkeyPatch, chunks: list[bytes]) -> tuple[int, int, int]:
    counting = _Counting()
    monkeypatch.setattr(aws_eventstream, "zlib", counting)
    decoder = EventStreamDecoder()
    held = 0
    frames = 0
    for piece in chunks:
        frames += len(decoder.feed(piece))
        held = max(held, len(decoder._held))
    assert frames == 200
    return counting.bytes, counting.calls, held


def test_each_message_is_checked_once_however_the_body_is_fed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One byte per feed costs what the whole body costs: the same bytes checksummed, two
    CRC computations per message, and never more than one message held."""
    body = (M_START + M_DELTA) * 100
    whole = _work(monkeypatch, [body])
    assert whole == (len(body) - 200 * 4, 400, 0)
    bytewise = _work(monkeypatch, split(body, "bytewise"))
    assert bytewise[:2] == whole[:2]
    assert bytewise[2] < max(len(M_START), len(M_DELTA))


def test_many_tiny_messages_in_one_feed_are_each_read_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    counting = _Counting()
    monkeypatch.setattr(aws_eventstream, "zlib", counting)
    body = message() * 20_000
    assert len(EventStreamDecoder().feed(body)) == 20_000
    assert counting.calls == 40_000
    assert counting.bytes == 20_000 * (8 + 4)


def test_a_message_cut_into_pieces_grows_one_buffer_in_place() -> None:
    """The partial message is one bytearray extended by each piece, never rebuilt: a message
    fed one byte at a time costs what it costs whole."""
    body = event("contentBlockDelta", b"x" * 5000)
    decoder = EventStreamDecoder()
    assert decoder.feed(body[:3]) == []
    held = decoder._held
    for i in range(3, len(body) - 1):
        assert decoder.feed(body[i : i + 1]) == []
        assert decoder._held is held
    assert len(held) == len(body) - 1
    assert [len(f.payload) for f in messages(decoder.feed(body[-1:]))] == [5000]


# -- hostile bytes -----------------------------------------------------------------------------


@st.composite
def _damaged(draw: st.DrawFn) -> bytes:
    """Valid messages, then bytes flipped, cut out or inserted anywhere (or any bytes)."""
    if draw(st.booleans()):
        return draw(st.binary(max_size=80))
    body = bytearray(b"".join(m for m, _ in draw(st.lists(_messages(), min_size=1, max_size=4))))
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(body) - 1))
        how = draw(st.sampled_from(["flip", "cut", "insert"]))
        if how == "flip":
            body[at] ^= 1 << draw(st.integers(0, 7))
        elif how == "cut":
            del body[at : at + draw(st.integers(1, 20))]
        else:
            body[at:at] = draw(st.binary(min_size=1, max_size=20))
        if not body:
            break
    return bytes(body)


def _outcome(body: bytes, chunks: list[bytes], limit: int) -> tuple[list[Frame], str | None, bool]:
    return _run(Case("drawn", "", body, limits={"max_event_bytes": limit}), chunks)


@given(_damaged(), st.sampled_from([16, 100, 1 << 20]), st.data())
def test_any_bytes_give_frames_or_a_typed_error_the_same_however_cut(
    body: bytes, limit: int, data: st.DataObject
) -> None:
    """Only EventStreamError and SSELimitExceeded ever leave feed, and the frames, the error
    and the truncation do not depend on where the body is cut."""
    whole = _outcome(body, [body], limit)
    assert _outcome(body, data.draw(network_chunkings(body)), limit) == whole
