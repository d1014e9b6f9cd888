"""Hostile input: arbitrary bytes and damaged streams never make the pipeline raise, never
cost the text that arrived before the damage, and hit the size limits instead of memory."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from raf.model import updates
from raf.pipeline import iter_updates, respond
from raf.testing.strategies import GeneratedStream, network_chunkings, streams
from tests.properties.test_sse_model import streams_of_bytes


@given(st.one_of(streams_of_bytes, st.binary(max_size=2000)), st.data())
def test_arbitrary_bytes_never_raise(stream: bytes, data: st.DataObject) -> None:
    chunks = data.draw(network_chunkings(stream))
    response = respond(chunks, max_line_bytes=64, max_event_bytes=128)
    assert {e.error_code for e in response.errors} <= {
        "sse_parse_error",
        "invalid_chunk",
        "provider_error",
        "stream_truncated",
        "sse_limit_exceeded",
        "invalid_tool_arguments",
        "invalid_tool_call",
        "tool_arguments_too_large",
        "too_many_tool_calls",
    }


@st.composite
def damaged(draw: st.DrawFn) -> tuple[GeneratedStream, bytes, int]:
    """A valid stream, its body damaged at one place, and where the damage starts."""
    stream = draw(streams())
    body = stream.body
    if not body:
        return stream, body, 0
    kind = draw(st.sampled_from(["flip", "cut", "duplicate", "swap", "insert"]))
    at = draw(st.integers(0, len(body) - 1))
    if kind == "flip":
        return (
            stream,
            body[:at] + bytes([body[at] ^ draw(st.integers(1, 255))]) + body[at + 1 :],
            at,
        )
    if kind == "cut":
        return stream, body[:at], at
    if kind == "insert":
        return (
            stream,
            body[:at]
            + draw(st.sampled_from([b"\n", b"\r", b"data: {", b"\xff", b"\n\ndata: oops\n\n"]))
            + body[at:],
            at,
        )
    blocks = body.split(b"\n\n")
    if len(blocks) < 3:
        return stream, body, len(body)
    i = draw(st.integers(0, len(blocks) - 3))
    start = len(b"\n\n".join(blocks[:i])) + (2 if i else 0)
    if kind == "duplicate":
        blocks.insert(i, blocks[i])
    else:
        blocks[i], blocks[i + 1] = blocks[i + 1], blocks[i]
    return stream, b"\n\n".join(blocks), start


@given(damaged(), st.data())
def test_damage_never_costs_the_text_that_arrived_before_it(
    case: tuple[GeneratedStream, bytes, int], data: st.DataObject
) -> None:
    _, body, at = case
    before = respond([body[:at]]).text  # the text of the events complete before the damage
    after = respond(data.draw(network_chunkings(body)))
    assert after.text.startswith(before)


@given(st.integers(1000, 50_000), st.sampled_from([1, 7, 4096]))
def test_an_endless_line_hits_the_limit_not_the_memory(size: int, piece: int) -> None:
    body = b"data: " + b"x" * size
    chunks = [body[i : i + piece] for i in range(0, len(body), piece)]
    out = list(iter_updates(chunks, max_line_bytes=999))
    assert [u.error_code for u in out if isinstance(u, updates.Error)] == ["sse_limit_exceeded"]
