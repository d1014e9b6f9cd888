"""Hostile input as a fuzzer makes it: a wrong value at any JSON path of a real stream, a
transport failure at any network read, truncation and insertion anywhere, arbitrary bytes.
Whatever the input, nothing escapes (tests/properties/soundness.py), and what arrived before
the fault survives.

The ``ci`` profile keeps these fast; ``RAF_HYPOTHESIS_PROFILE=fuzz`` runs long campaigns
(``RAF_HYPOTHESIS_EXAMPLES`` raises the number of examples of every property).
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from raf.cassettes import load
from raf.chunking import chunk
from raf.errors import AgentResponseError
from raf.pipeline import respond
from raf.sse import SSEDecoder
from raf.testing.strategies import GeneratedStream, network_chunkings, streams
from tests import corpus
from tests.corpus import recorded_streams
from tests.properties.soundness import sound_response
from tests.properties.test_sse_model import streams_of_bytes

CASSETTES = sorted((Path(__file__).resolve().parents[2] / "cassettes").rglob("*.yaml"))
PLACEHOLDER = "@@raf-hostile@@"
FINISH = re.compile(r'"finish_reason"\s*:\s*"')

# Raw JSON texts (valid or not) to put where a value was: wrong types, numbers out of range,
# nesting past the limit, lone surrogates, bad escapes, broken syntax, huge strings.
HOSTILE_TEXTS = [
    "null", "true", "false", "0", "-1", "1.5", "-0.0", '""', '"x"', "[]", "{}", "[null]",
    '{"x":null}', "1e400", "-1e400", "1E309", "1" * 5000, "-" + "9" * 20_000, "9" * 30,
    '"\\ud800"', '"\\udc00x"', '"a\\ud83d"', '"\\u0000"', '"\\x"', '"unterminated',
    "[" * 1000 + "]" * 1000, '{"a":' * 600 + "1" + "}" * 600, "[" * 257 + "]" * 257,
    "[1,", "}", "]", ",", "NaN", "Infinity", "-", "01", "1.", '"' + "x" * 100_000 + '"',
    '{"index":0,"id":"evil","function":{"name":"rm","arguments":"{"}}',
    '[{"index":0,"function":{"arguments":"]}"}}]', '{"content":"\\n"}',
]  # fmt: skip
HOSTILE_EVENTS = [b"\n\ndata: " + text.encode() + b"\n\n" for text in HOSTILE_TEXTS]
hostile_values = st.one_of(
    st.sampled_from(HOSTILE_TEXTS),
    st.integers().map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.text(max_size=20).map(json.dumps),
    st.lists(st.integers(), max_size=3).map(json.dumps),
)


@cache
def cassette_payloads(path: Path) -> tuple[str, ...]:
    """The data values of a bundled cassette's (last) stream, as raf's decoder reads them."""
    body = load(path).interactions[-1].response.body
    decoder = SSEDecoder()
    return tuple(event.data for event in decoder.feed(body) + decoder.close())


def frame(payloads: list[str]) -> bytes:
    return "".join(
        "".join(f"data: {line}\n" for line in payload.split("\n")) + "\n" for payload in payloads
    ).encode("utf-8", "surrogatepass")


def paths(value: Any) -> list[tuple[str | int, ...]]:
    """Every path in a JSON value (the root included), without recursion."""
    out: list[tuple[str | int, ...]] = []
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), value)]
    while stack:
        path, node = stack.pop()
        out.append(path)
        if isinstance(node, dict):
            stack.extend(((*path, k), v) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend(((*path, n), v) for n, v in enumerate(node))
    return sorted(out, key=lambda p: (len(p), [str(k) for k in p]))


def replaced(payload: str, path: tuple[str | int, ...], text: str) -> str:
    """``payload`` with the value at ``path`` replaced by the raw JSON ``text``."""
    document = json.loads(payload)
    if not path:
        return text
    node = document
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = PLACEHOLDER
    return json.dumps(document, ensure_ascii=False).replace(json.dumps(PLACEHOLDER), text, 1)


@st.composite
def damaged_payloads(draw: st.DrawFn) -> tuple[list[str], int, list[str]]:
    """Payloads of a real or generated stream, which one was damaged, and the damaged list."""
    if draw(st.booleans()):
        original = list(draw(streams()).payloads)
        event("seed: a generated stream")
    else:
        cassette = draw(st.sampled_from(CASSETTES))
        original = list(cassette_payloads(cassette))
        event("seed: a bundled cassette")
    json_events = [n for n, p in enumerate(original) if _is_json_container(p)]
    if not json_events:
        return original, len(original), original
    at = draw(st.sampled_from(json_events))
    every = paths(json.loads(original[at]))
    depth = draw(st.sampled_from(sorted({len(p) for p in every})))  # deep paths as often
    path = draw(st.sampled_from([p for p in every if len(p) == depth]))
    damaged = list(original)
    value = draw(hostile_values)
    damaged[at] = replaced(original[at], path, value)
    event(f"damaged at depth {min(len(path), 5)}{'+' if len(path) >= 5 else ''}")
    event(f"damaged key: {path[-1] if path and isinstance(path[-1], str) else '(index/root)'}")
    return original, at, damaged


def _is_json_container(payload: str) -> bool:
    try:
        return isinstance(json.loads(payload), dict | list)
    except ValueError:
        return False


@given(damaged_payloads(), st.data())
def test_a_wrong_value_at_any_json_path_never_escapes_nor_costs_what_came_before(
    case: tuple[list[str], int, list[str]], data: st.DataObject
) -> None:
    original, at, damaged = case
    body = frame(damaged)
    response = sound_response(data.draw(network_chunkings(body)))
    for code in sorted({e.error_code for e in response.errors}):
        event(f"reported: {code}")
    before = respond([frame(original[:at])]).text
    assert response.text.startswith(before)
    if at < len(original) and original[-1] == "[DONE]":
        touched = original[at] + damaged[at]
        if "tool_calls" not in touched and not FINISH.search(touched):
            # An event without tool calls and without a finish reason cannot change the calls.
            assert response.tool_calls == respond([frame(original)]).tool_calls


@given(streams(), st.data())
def test_a_transport_failure_at_any_read_loses_nothing_that_arrived(
    stream: GeneratedStream, data: st.DataObject
) -> None:
    chunks = list(stream.chunks)
    cut = data.draw(st.integers(0, len(chunks)))

    def source() -> Any:
        yield from chunks[:cut]
        raise ConnectionResetError("dropped")

    prefix = respond(chunks[:cut])  # the same bytes, ending normally
    try:
        response = respond(source())
    except AgentResponseError as exc:
        response = exc.response
        assert [e.error_code for e in response.errors].count("transport_error") == 1
    else:  # the end marker came before the failure: reading had stopped
        assert b"[DONE]" in b"".join(chunks[:cut])
    assert response.text == prefix.text
    assert response.reasoning_text == prefix.reasoning_text
    assert response.tool_calls == prefix.tool_calls
    assert response.finish_reason == prefix.finish_reason
    assert response.usage == prefix.usage
    ignore = {"transport_error", "stream_truncated"}
    assert [e.error_code for e in response.errors if e.error_code not in ignore] == [
        e.error_code for e in prefix.errors if e.error_code not in ignore
    ]


@st.composite
def cut_or_spliced(draw: st.DrawFn) -> tuple[bytes, int]:
    """A generated stream's body, cut at or spliced with garbage at any byte."""
    body = draw(streams()).body
    at = draw(st.integers(0, len(body)))
    if draw(st.booleans()):
        return body[:at], at
    garbage = draw(st.one_of(streams_of_bytes, st.sampled_from(HOSTILE_EVENTS)))
    return body[:at] + garbage + body[at:], at


@given(cut_or_spliced(), st.data())
def test_truncation_or_insertion_anywhere_never_escapes_nor_costs_the_text_before(
    case: tuple[bytes, int], data: st.DataObject
) -> None:
    body, at = case
    response = sound_response(data.draw(network_chunkings(body)))
    assert response.text.startswith(respond([body[:at]]).text)


@given(st.one_of(streams_of_bytes, st.binary(max_size=4000)), st.data())
def test_arbitrary_bytes_are_sound(stream: bytes, data: st.DataObject) -> None:
    sound_response(data.draw(network_chunkings(stream)), max_line_bytes=64, max_event_bytes=128)


@cache
def recorded_bodies() -> tuple[bytes, ...]:
    """Real streams to mutate: the bundled cassettes' and the corpus's Chat Completions bodies
    (those over 16 KB left out: they would dominate the time of a campaign). The corpus's
    absence fails the test that draws them with RAF_REQUIRE_CORPUS=1."""
    corpus.check()
    bodies = [load(path).interactions[-1].response.body for path in CASSETTES]
    bodies += [s.body for s in recorded_streams() if s.dialect == "openai_chat"]
    return tuple(body for body in bodies if len(body) < 16 * 1024)


MUTATIONS = ("flip", "invalid_utf8", "delete", "truncate", "duplicate", "value")


@st.composite
def mutated_recordings(draw: st.DrawFn) -> tuple[bytes, int]:
    """A real stream with one mutation, and the offset where the damage starts."""
    body = draw(st.sampled_from(recorded_bodies()))
    if not body:
        return body, 0
    kind = draw(st.sampled_from(MUTATIONS))
    event(f"mutation: {kind}")
    at = draw(st.integers(0, max(len(body) - 1, 0)))
    if kind == "flip":
        return body[:at] + bytes([body[at] ^ (1 << draw(st.integers(0, 7)))]) + body[at + 1 :], at
    if kind == "invalid_utf8":
        garbage = draw(st.sampled_from([b"\xff", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\x80"]))
        return body[:at] + garbage + body[at:], at
    if kind == "delete":
        return body[:at] + body[at + draw(st.integers(1, 64)) :], at
    if kind == "truncate":
        return body[:at], at
    if kind == "duplicate":
        piece = body[at : at + draw(st.integers(1, 400))]
        return body[:at] + piece + body[at:], at
    # A wrong value in the JSON of the event holding ``at`` (or the next one).
    start = body.rfind(b"data: {", 0, at + 1)
    end = body.find(b"\n", start)
    if start < 0 or end < 0:
        return body, len(body)
    try:
        payload = body[start + 6 : end].decode()
        json.loads(payload)
    except ValueError:
        return body, len(body)
    every = paths(json.loads(payload))
    depth = draw(st.sampled_from(sorted({len(p) for p in every})))
    path = draw(st.sampled_from([p for p in every if len(p) == depth]))
    damaged = replaced(payload, path, draw(hostile_values)).encode("utf-8", "surrogatepass")
    return body[: start + 6] + damaged + body[end:], start


@given(mutated_recordings(), st.sampled_from(["whole", "random", "fixed-7"]))
def test_a_mutated_recorded_stream_is_sound_and_keeps_the_text_before_the_damage(
    case: tuple[bytes, int], chunking: str
) -> None:
    body, at = case
    response = sound_response(chunk(body, chunking))
    assert response.text.startswith(respond([body[:at]]).text)


@pytest.mark.parametrize("path", CASSETTES, ids=lambda p: p.stem)
def test_every_bundled_cassette_is_sound(path: Path) -> None:
    sound_response([load(path).interactions[-1].response.body])
