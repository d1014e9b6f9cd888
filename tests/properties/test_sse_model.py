"""raf's incremental SSE decoder agrees with a deliberately naive model of the standard
(decode everything, then split), on arbitrary bytes cut anywhere."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from raf.sse import SSEDecoder
from raf.testing.strategies import network_chunkings

# Bytes biased toward what matters to an event stream.
PIECES = [
    b"data",
    b"event",
    b"id",
    b"retry",
    b":",
    b" ",
    b"\n",
    b"\r",
    b"\r\n",
    b"x",
    b"1",
    b"\x00",
    b"\xef\xbb\xbf",
    b"\xff",
    b"\xc3",
    b"\xa9",
    b"\xe2\x80\xa8",
    b"\xf0\x9f\x98\x80",
    b"data: ",
    b"\n\n",
]
streams_of_bytes = st.one_of(
    st.binary(max_size=200), st.lists(st.sampled_from(PIECES), max_size=60).map(b"".join)
)


def naive(stream: bytes) -> tuple[list[tuple[str, str, str, int | None]], str, int | None, bool]:
    """WHATWG 9.2.6 applied to the whole stream at once."""
    text = stream.decode("utf-8", "replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    *lines, tail = re.split("\r\n|\r|\n", text)
    events: list[tuple[str, str, str, int | None]] = []
    data: list[str] = []
    event_type, id_buffer, last_id = "", "", ""
    retry: int | None = None
    block_retry: int | None = None
    open_block = False
    for line in lines:
        if line == "":
            last_id = id_buffer
            if data:
                events.append((event_type or "message", "\n".join(data), last_id, block_retry))
            data, event_type, block_retry, open_block = [], "", None, False
            continue
        if line.startswith(":"):
            continue
        open_block = True
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            data.append(value)
        elif name == "event":
            event_type = value
        elif name == "id" and "\x00" not in value:
            id_buffer = value
        elif name == "retry" and value != "" and all(c in "0123456789" for c in value):
            retry = block_retry = int(value)
    return events, last_id, retry, bool(tail) or open_block


@given(streams_of_bytes, st.data())
def test_decoder_agrees_with_the_naive_model(stream: bytes, data: st.DataObject) -> None:
    decoder = SSEDecoder()
    events = []
    for chunk in data.draw(network_chunkings(stream)):
        events += decoder.feed(chunk)
    events += decoder.close()
    expected_events, last_id, retry, truncated = naive(stream)
    assert [(e.event, e.data, e.id, e.retry) for e in events] == expected_events
    assert (decoder.last_event_id, decoder.retry, decoder.truncated) == (last_id, retry, truncated)
