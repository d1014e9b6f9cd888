"""SSEDecoder: the fast path of ``feed`` against the general path (``_feed(chunk, False,
False)``, where every line goes through the per-line interpreter), and ``feed_runs`` with its
runs expanded against both, on streams of every shape cut every way that matters.

After every chunk both sides must have returned the same events (or raised the same
``SSELimitExceeded``: kind, limit, size, message and the events decoded first) and have the
same ``last_event_id`` and ``retry``; after ``close`` the same ``truncated``.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from raf.errors import SSELimitExceeded
from raf.framing.sse import DataRun, ServerSentEvent, SSEDecoder

Limits = tuple[int, int]
DEFAULT_LIMITS: Limits = (16 * 1024 * 1024, 32 * 1024 * 1024)


def expand(frames: list[ServerSentEvent | DataRun]) -> list[ServerSentEvent]:
    return [e for f in frames for e in (f.events() if isinstance(f, DataRun) else [f])]


def run(chunks: list[bytes], limits: Limits, *, how: str) -> list[Any]:
    decoder = SSEDecoder(max_line_bytes=limits[0], max_event_bytes=limits[1])
    out: list[Any] = []
    for chunk in chunks:
        try:
            if how == "fast":
                events = decoder.feed(chunk)
            elif how == "runs":
                events = expand(decoder.feed_runs(chunk))
            else:
                events = decoder._feed(chunk, False, False)  # type: ignore[assignment]
        except SSELimitExceeded as exc:
            out.append(("limit", exc.kind, exc.limit, exc.size, str(exc), expand(exc.events)))
            break
        out.append((events, decoder.last_event_id, decoder.retry))
    out.append(("close", decoder.close(), decoder.truncated, decoder.last_event_id))
    return out


def assert_same_paths(chunks: list[bytes], limits: Limits = DEFAULT_LIMITS) -> None:
    general = run(chunks, limits, how="general")
    assert run(chunks, limits, how="fast") == general
    assert run(chunks, limits, how="runs") == general


# -- streams ----------------------------------------------------------------------------------

# Value bytes: ASCII, multi-byte UTF-8, invalid and cut sequences, a BOM, a NUL, colons and
# spaces; never CR or LF (those end lines).
_VALUE_PIECES = [
    b"a",
    b"xyz",
    b'{"k": [1, "v"]}',
    b" ",
    b":",
    b"data: ",
    "é".encode(),
    "€".encode(),
    "😀".encode(),
    "\u2028".encode(),
    b"\xef\xbb\xbf",
    b"\xff",
    b"\xc3",
    b"\xe2\x82",
    b"\xf0\x9f\x98",
    b"\xed\xa0\x80",
    b"\xc0\xaf",
    b"\x00",
]
values = st.lists(st.sampled_from(_VALUE_PIECES), max_size=6).map(b"".join)
_FIELDS = [b"event", b"id", b"retry", b"Data", b"foo", b"data"]


@st.composite
def lines(draw: st.DrawFn) -> bytes:
    kind = draw(
        st.sampled_from(["data", "data", "data", "nospace", "bare", "field", "comment", "bom"])
    )
    if kind == "bom":  # a BOM that is not at the start of the stream is part of the line
        return b"\xef\xbb\xbf" + draw(st.sampled_from([b"data: x", b"data", b":", b""]))
    if kind == "data":
        return b"data: " + draw(values)
    if kind == "nospace":
        return b"data:" + draw(values)
    if kind == "bare":
        return draw(st.sampled_from([b"data", b"event", b"id", b"retry", b"x"]))
    if kind == "comment":
        return b":" + draw(values)
    field = draw(st.sampled_from(_FIELDS))
    value = draw(st.sampled_from([b"123", b"1x", b"", b"7\x00", b"a b"]) | values)
    return field + draw(st.sampled_from([b": ", b":"])) + value


@st.composite
def blocks(draw: st.DrawFn) -> list[bytes]:
    """The lines of one block, its blank line included; mostly the usual one data line."""
    if draw(st.integers(min_value=0, max_value=3)):
        return [b"data: " + draw(values), b""]
    return [*draw(st.lists(lines(), max_size=4)), b""]


@st.composite
def streams(draw: st.DrawFn) -> bytes:
    endings = draw(st.sampled_from([[b"\n"], [b"\n"], [b"\r\n"], [b"\r"], [b"\n", b"\r\n", b"\r"]]))
    out = [draw(st.sampled_from([b"", b"", b"\xef\xbb\xbf", b"\xef\xbb\xbf\xef\xbb\xbf"]))]
    for block in draw(st.lists(blocks(), max_size=12)):
        out.extend(line + draw(st.sampled_from(endings)) for line in block)
    stream = b"".join(out)
    if draw(st.booleans()):  # an unfinished end: inside a line or a block
        stream = stream[: draw(st.integers(min_value=0, max_value=len(stream)))]
    return stream


@st.composite
def limits(draw: st.DrawFn) -> Limits:
    if draw(st.booleans()):
        return DEFAULT_LIMITS
    return (draw(st.integers(min_value=1, max_value=120)), draw(st.integers(1, 240)))


# -- chunkings -----------------------------------------------------------------------------


def cut_at(data: bytes, cuts: set[int]) -> list[bytes]:
    points = sorted(c for c in cuts if 0 < c < len(data))
    return [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]


def special_positions(data: bytes) -> list[int]:
    """Between a CR and the next byte, and inside or next to multi-byte UTF-8 sequences."""
    return [i + 1 for i, b in enumerate(data) if b == 0x0D or b >= 0x80]


@st.composite
def chunkings(draw: st.DrawFn, data: bytes) -> list[bytes]:
    how = draw(st.sampled_from(["bytes", "random", "special", "sized", "whole"]))
    if how == "bytes":
        return [data[i : i + 1] for i in range(len(data))]
    if how == "whole":
        return [data]
    if how == "sized":
        size = draw(st.sampled_from([2, 3, 7, 16, 64, 100, 333, 4096]))
        return [data[i : i + size] for i in range(0, len(data), size)]
    n = max(len(data) - 1, 1)
    cuts = draw(st.sets(st.integers(min_value=1, max_value=n), max_size=12))
    if how == "special":
        special = special_positions(data)
        if special:
            cuts |= set(draw(st.lists(st.sampled_from(special), max_size=12)))
    chunks = cut_at(data, cuts)
    if draw(st.booleans()):  # b"" is allowed anywhere
        chunks.insert(draw(st.integers(min_value=0, max_value=len(chunks))), b"")
    return chunks


# -- properties -----------------------------------------------------------------------------


@given(streams(), limits(), st.data())
def test_feed_fast_path_equals_the_general_path(
    stream: bytes, limit: Limits, data: st.DataObject
) -> None:
    for _ in range(3):
        assert_same_paths(data.draw(chunkings(stream)), limit)


@given(streams(), limits())
def test_byte_by_byte_and_at_every_cr_and_utf8_byte(stream: bytes, limit: Limits) -> None:
    assert_same_paths([stream[i : i + 1] for i in range(len(stream))], limit)
    assert_same_paths(cut_at(stream, set(special_positions(stream))), limit)


@st.composite
def usual_streams(draw: st.DrawFn) -> bytes:
    """A Chat Completions-like stream: one-line data blocks, LF LF or CRLF CRLF, with an
    occasional other block (comment, event, id, retry) or a block split over lines."""
    usual = draw(st.sampled_from([b"\n", b"\r\n"]))
    out = []
    for _ in range(draw(st.integers(min_value=1, max_value=30))):
        nl = usual if draw(st.integers(0, 5)) else draw(st.sampled_from([b"\n", b"\r\n", b"\r"]))
        shape = draw(st.integers(min_value=0, max_value=11))
        if shape > 1:
            out.append(b"data: " + draw(values) + nl + nl)
        elif shape == 1:  # one line, but not the usual prefix
            prefix = draw(st.sampled_from([b"data:", b"data:  ", b"event: ", b": ", b"Data: "]))
            out.append(prefix + draw(values) + nl + nl)
        else:
            out.append(b"".join(line + nl for line in draw(blocks())))
    return b"".join(out)


@given(usual_streams(), st.data())
def test_usual_streams_in_network_sized_chunks(stream: bytes, data: st.DataObject) -> None:
    size = data.draw(st.integers(min_value=1, max_value=200))
    assert_same_paths([stream[i : i + size] for i in range(0, len(stream), size)])
    assert_same_paths(data.draw(chunkings(stream)), data.draw(limits()))


_NAMES = [b"content_block_delta", b"response.output_text.delta", b"", b"a:b", b" x", b"\xff"]


@st.composite
def typed_streams(draw: st.DrawFn) -> bytes:
    """An Anthropic- or Responses-like stream: two-line blocks, ``event: <type>`` then
    ``data: <value>``, LF or CRLF, with an occasional other shape: a line more or less in a
    block (id, retry, a comment, a second data line, no data line), the type without its
    space, a one-line data block, a stray CR."""
    usual = draw(st.sampled_from([b"\n", b"\r\n"]))
    out = []
    for _ in range(draw(st.integers(min_value=1, max_value=30))):
        nl = usual if draw(st.integers(0, 7)) else draw(st.sampled_from([b"\n", b"\r\n", b"\r"]))
        name = draw(st.sampled_from(_NAMES) | values)
        event = b"event: " + name + nl
        data = b"data: " + draw(values) + nl
        shape = draw(st.integers(min_value=0, max_value=15))
        if shape > 5:
            out.append(event + data + nl)
        elif shape == 5:  # a line inside the block, before or after the data line
            extra = draw(st.sampled_from([b"id: 7", b"retry: 30", b": ping", b"data: more", b"x"]))
            out.append(
                event + extra + nl + data + nl
                if draw(st.booleans())
                else event + data + extra + nl + nl
            )
        elif shape == 4:  # no data line: nothing is dispatched
            out.append(event + nl)
        elif shape == 3:
            out.append(b"event:" + name + nl + data + nl)
        elif shape == 2:
            out.append(data + nl)
        else:
            out.append(b"".join(line + nl for line in draw(blocks())))
    return b"".join(out)


@given(typed_streams(), st.data())
def test_typed_streams_in_network_sized_chunks(stream: bytes, data: st.DataObject) -> None:
    size = data.draw(st.integers(min_value=1, max_value=200))
    assert_same_paths([stream[i : i + size] for i in range(0, len(stream), size)])
    assert_same_paths(data.draw(chunkings(stream)), data.draw(limits()))


def test_examples_of_the_typed_fast_path() -> None:
    a = b'event: content_block_delta\ndata: {"a":1}\n\n'
    cases = [
        [a * 3],
        [a + a[:30], a[30:] + a],  # the second chunk finishes the block the first left open
        [a + b"event: x\n", b"data: y\n\n" + a],  # cut right after the event line
        [a + b"event: x\ndata: y\n", b"\n" + a],  # cut after the data line: general path
        [b"event: x\nid: 9\nretry: 5\n", b"data: y\n\n" + a],  # the open block's id and retry
        [b"event: \ndata: untyped\n\n" + a],  # an empty type is "message"
        [a.replace(b"\n", b"\r\n") * 2, b"event: x\r\n", b"data: y\r\n\r\n"],
        [a + b"event: x\n\n" + a],  # a block with no data line dispatches nothing
        [a + b"data: plain\n\n" + a],  # a one-line data block among typed ones
        [b"event: x\n", b"data: a\nevent: y\n\n" + a],  # a second field after the data
    ]
    for chunks in cases:
        for first in ([], [b"data: 0\n\n"], [a + b"event: p\n"], [b": hi\n"]):
            assert_same_paths([*first, *chunks])
            assert_same_paths([*first, *chunks], (40, 60))
    decoder = SSEDecoder()
    events = decoder.feed(b"event: x\nid: 9\nretry: 5\n") + decoder.feed(b"data: y\n\n" + a)
    assert [(e.event, e.data, e.id, e.retry) for e in events] == [
        ("x", "y", "9", 5),
        ("content_block_delta", '{"a":1}', "9", None),
    ]
    assert decoder.last_event_id == "9"


@given(st.integers(min_value=-3, max_value=3), st.integers(min_value=-3, max_value=3), st.data())
def test_lines_and_blocks_near_the_limits(
    line_delta: int, event_delta: int, data: st.DataObject
) -> None:
    """Data lines whose length is within a few bytes of max_line_bytes, in blocks whose size
    is within a few bytes of max_event_bytes."""
    max_line = data.draw(st.integers(min_value=8, max_value=60))
    line = b"data: " + b"x" * max(max_line - 6 + line_delta, 0)
    stream = b"data: ok\n\n" + (line + b"\n\n") * 3 + b"data: a\n" + line + b"\n\n"
    max_event = len(line) + 1 + event_delta
    for limit in [(max_line, max(max_event, 1)), (max_line, 10_000), (10_000, max(max_event, 1))]:
        size = data.draw(st.integers(min_value=1, max_value=len(stream)))
        assert_same_paths([stream[i : i + size] for i in range(0, len(stream), size)], limit)
        assert_same_paths(data.draw(chunkings(stream)), limit)


def test_examples_of_the_fast_path() -> None:
    cases = [
        [b'data: {"a":1}\n\ndata: {"b":2}\n\ndata: {"c"', b":3}\n\ndata: x\n\n"],
        [b"data: a\r\n\r\ndata: b\r", b"\n\r\ndata: c\r\n\r\n"],
        [b"data: a\n\ndata: b\ndata: c\n\ndata: d\n\n"],  # a two-line block among usual ones
        [b"data: a\n\n: ping\n\ndata: b\n\n", b"id: 7\n\ndata: c\n\n"],
        [b"\xef\xbb\xbfdata: a\n\n", b"data: \xe2", b"\x82\xac\n\ndata: \xff\n\n"],
        [b"data: a\n", b"\ndata: b\n\n"],  # the chunk starts with the blank line
        [b"data: a\n\ndata: b\n\n", b"data: c\n\ndata: d"],  # ends with an unfinished line
        [b"data: a\rdata: b\r\n\r\ndata: c\r\n\r\n"],  # a CR alone among CRLFs
        [b"data: abc\n\ndata: d\r\n", b"\r\ndata: e\n\n"],  # LF blocks, then a CR
        [b"data: a\n\n", b"\xef\xbb\xbfdata: b\n\n"],  # a BOM after the first line is data
        [b"data: a\n\n", b"\xef\xbb\xbf"],  # ... and content at the end
        [b"data:xy\n\ndata: z\n\n", b"data:  xy\n\ndata: z\n\n"],  # other spacings
    ]
    for chunks in cases:
        for first in ([], [b"data: 0\n\n"], [b"data: 0\n\nda"], [b": hi\n"]):
            assert_same_paths([*first, *chunks])
            assert_same_paths([*first, *chunks], (12, 20))


def test_huge_lines_near_the_limits() -> None:
    """Lines of 64 KiB and blocks of several of them, around both limits, in 4 KiB chunks and
    in chunks just smaller and larger than a line."""
    limit = 64 * 1024
    for delta in (-1, 0, 1):
        line = b"data: " + b"y" * (limit - 6 + delta)
        stream = b"data: a\n\n" + line + b"\n\n" + (line + b"\n") * 2 + b"\ndata: z\n\n"
        for max_event in (limit - 1, limit + 1, 2 * limit + 2, 3 * limit + 3):
            for size in (4096, limit - 7, limit + 9, len(stream)):
                chunks = [stream[i : i + size] for i in range(0, len(stream), size)]
                assert_same_paths(chunks, (limit, max_event))
