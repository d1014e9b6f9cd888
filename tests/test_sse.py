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
