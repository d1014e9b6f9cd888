"""raf.sse.SSEDecoder against the independent table in sse_cases.py, plus limits and API."""

from __future__ import annotations

import pytest

from raf.errors import SSELimitExceeded, StateError
from raf.sse import ServerSentEvent, SSEDecoder
from tests.helpers import CHUNKINGS, every_split_point, feed_all, split
from tests.sse_cases import CASES, SSECase


def _as_expected(events: list[ServerSentEvent]) -> list[tuple[str, str, str, int | None]]:
    return [(e.event, e.data, e.id, e.retry) for e in events]


def _run(case: SSECase, chunks: list[bytes]) -> SSEDecoder:
    decoder = SSEDecoder()
    events = feed_all(decoder.feed, decoder.close, chunks)
    assert _as_expected(events) == [(e.event, e.data, e.id, e.retry) for e in case.events]
    assert decoder.last_event_id == case.last_event_id
    assert decoder.retry == case.retry
    assert decoder.truncated is case.truncated
    return decoder


@pytest.mark.parametrize("how", CHUNKINGS)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_case_table(case: SSECase, how: str) -> None:
    _run(case, split(case.stream, how))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_case_table_every_two_way_split(case: SSECase) -> None:
    for chunks in every_split_point(case.stream):
        _run(case, chunks)


def test_crlf_split_across_feeds_is_one_terminator() -> None:
    # eventsource-parser#17: "\r" | "\n" must not produce an extra blank line.
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\r") == []
    assert decoder.feed(b"\ndata: b\r") == []
    assert decoder.feed(b"\n\r\n") == [ServerSentEvent(data="a\nb")]


def test_cr_as_last_byte_of_the_stream_ends_the_line() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: x\r\r") == [ServerSentEvent(data="x")]
    decoder.close()
    assert decoder.truncated is False


def test_unicode_line_separators_do_not_split_data() -> None:
    # httpx-sse#34: str.splitlines would cut this JSON in three.
    payload = '{"t":"a\u2028b\u0085c"}'
    decoder = SSEDecoder()
    events = decoder.feed(f"data: {payload}\n\n".encode())
    assert [e.data for e in events] == [payload]


def test_line_limit_raises_typed_error_and_keeps_earlier_events() -> None:
    decoder = SSEDecoder(max_line_bytes=16)
    with pytest.raises(SSELimitExceeded) as info:
        decoder.feed(b"data: ok\n\ndata: " + b"x" * 40)
    assert info.value.kind == "line"
    assert info.value.limit == 16
    assert info.value.events == [ServerSentEvent(data="ok")]
    with pytest.raises(StateError):
        decoder.feed(b"\n\n")


def test_line_limit_applies_to_a_line_arriving_byte_by_byte() -> None:
    decoder = SSEDecoder(max_line_bytes=100)
    with pytest.raises(SSELimitExceeded) as info:  # noqa: PT012 - the loop is the point
        for _ in range(1000):
            decoder.feed(b"x")
    assert info.value.size == 101


def test_line_limit_counts_a_complete_line_too() -> None:
    decoder = SSEDecoder(max_line_bytes=8)
    with pytest.raises(SSELimitExceeded):
        decoder.feed(b"data: 0123456789\n")


def test_event_limit_counts_all_lines_of_a_block() -> None:
    decoder = SSEDecoder(max_line_bytes=100, max_event_bytes=50)
    decoder.feed(b"data: 0123456789\n" * 2)
    with pytest.raises(SSELimitExceeded) as info:
        decoder.feed(b"data: 0123456789\n")
    assert info.value.kind == "event"
    assert "max_event_bytes" in str(info.value)


def test_event_limit_resets_at_each_dispatch() -> None:
    decoder = SSEDecoder(max_event_bytes=20)
    events = decoder.feed(b"data: 0123456789\n\n" * 50)
    assert len(events) == 50


def test_invalid_limits_are_rejected() -> None:
    with pytest.raises(ValueError, match="positive"):
        SSEDecoder(max_line_bytes=0)


def test_close_is_idempotent_and_feed_after_close_is_an_error() -> None:
    decoder = SSEDecoder()
    decoder.feed(b"data: x")
    assert decoder.close() == []
    assert decoder.truncated is True
    assert decoder.close() == []
    with pytest.raises(StateError):
        decoder.feed(b"\n\n")


def test_empty_feed_is_not_end_of_stream() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: x") == []
    assert decoder.feed(b"") == []
    assert decoder.feed(b"\n\n") == [ServerSentEvent(data="x")]


def test_large_single_line_event_fed_bytewise_is_kept_whole() -> None:
    body = b"data: " + b"y" * 200_000 + b"\n\n"
    decoder = SSEDecoder()
    events = feed_all(decoder.feed, decoder.close, split(body, "bytewise"))
    assert len(events) == 1
    assert len(events[0].data) == 200_000


def _window_body() -> bytes:
    """Over 2 MiB of events whose blocks straddle the decoder's 1 MiB windows every way: a
    CRLF cut between CR and LF, a multi-byte character cut, an event name, a comment."""
    from raf.framing.sse import _WINDOW  # noqa: PLC0415

    parts = []
    size = 0
    n = 0
    while size < 2 * _WINDOW + 4096:
        if n % 97 == 0:
            part = f"event: tick\r\ndata: é{n}\r\n\r\n".encode()
        elif n % 89 == 0:
            part = f": keep-alive {n}\n\ndata: ✓{n}\n\n".encode()
        else:
            part = f'data: {{"n": {n}, "text": "déjà vu {n}"}}\n\n'.encode()
        parts.append(part)
        size += len(part)
        n += 1
    return b"".join(parts)


@pytest.mark.parametrize("shift", [0, 1, 2, 7, 13])
def test_a_chunk_larger_than_the_window_reads_as_its_pieces_do(shift: int) -> None:
    # A whole multi-megabyte body fed at once is decoded window by window: the events are
    # exactly those of the same bytes fed in small reads, wherever the windows cut them.
    body = _window_body()[shift:]
    whole = SSEDecoder()
    at_once = whole.feed(body) + whole.close()
    pieces = SSEDecoder()
    reads = [body[i : i + 4093] for i in range(0, len(body), 4093)]
    small = feed_all(pieces.feed, pieces.close, reads)
    assert at_once == small
    assert len(at_once) > 20_000
    assert whole.truncated is pieces.truncated


def test_a_limit_error_in_a_later_window_keeps_the_events_of_the_earlier_ones() -> None:
    body = _window_body()
    body += b"data: " + b"a" * 300 + b"\n\n"
    decoder = SSEDecoder(max_line_bytes=200)
    expected = SSEDecoder().feed(_window_body())
    with pytest.raises(SSELimitExceeded) as raised:
        decoder.feed(body)
    assert raised.value.events == expected


def test_a_line_past_the_limit_keeps_the_events_before_it_in_the_same_chunk() -> None:
    decoder = SSEDecoder(max_line_bytes=20)
    with pytest.raises(SSELimitExceeded) as raised:
        decoder.feed(b"event: a\ndata: 1\n\ndata: 2\n\ndata: " + b"x" * 30 + b"\n\n")
    assert raised.value.events == [
        ServerSentEvent(event="a", data="1"),
        ServerSentEvent(data="2"),
    ]
