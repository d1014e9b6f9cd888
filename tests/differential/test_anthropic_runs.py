"""The Anthropic Messages dialect reads runs of events straight from bytes, through a template
per open block (docs/dialects.md, "Runs and batches"). On generated streams with events made
to trip that up put anywhere in them (deltas for blocks never started, already stopped or
restarted as another kind, a new message, tool blocks without an id, a key escaped or spaced,
unknown fields, invalid UTF-8 or a raw control character in a string, payloads long enough to
nest too deep, other event names, ``error`` events, end markers), in compact and in spaced
JSON and under any chunking, the updates of the runs must be exactly those of the events fed
one by one, a batch must stand for its events' updates in their order, and respond() must give
what collecting run() gives."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from raf.collect import collect_agent_response
from raf.formats.anthropic_messages.dialect import AnthropicMessagesDialect
from raf.formats.anthropic_messages.strategies import streams
from raf.framing.sse import SSEDecoder
from raf.model import updates
from raf.pipeline import respond, run

NAME = "anthropic_messages"
COMPACT = (",", ":")
SPACED = (", ", ": ")
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _clock() -> datetime:
    return T0


def _dump(value: Any, separators: tuple[str, str]) -> str:
    return json.dumps(value, separators=separators, ensure_ascii=False)


_STRINGS = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=5)
_DELTAS = [
    ("text_delta", "text"),
    ("thinking_delta", "thinking"),
    ("input_json_delta", "partial_json"),
    ("signature_delta", "signature"),
]
_BLOCKS: list[dict[str, Any]] = [
    {"type": "text", "text": ""},
    {"type": "thinking", "thinking": "", "signature": ""},
    {"type": "tool_use", "id": "toolu_x", "name": "get", "input": {}},
    {"type": "tool_use", "input": {}},  # no id nor name: ToolCallDelta by index
    {"type": "tool_use", "id": "toolu_y", "name": "put", "input": {"a": 1}},
    {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}},
    {"type": "redacted_thinking", "data": "abc"},
    {"type": "compaction"},
]


@st.composite
def _inserted(
    draw: st.DrawFn, separators: tuple[str, str], seen: list[tuple[int, str]]
) -> tuple[str | None, str]:
    """One event to put in a stream: its name (``None``: its type; ``""``: no ``event:``
    line) and its data. Its delta is mostly of a block the stream has (``seen``), often of
    the kind of that block's."""
    value = draw(_STRINGS)
    if seen and draw(st.integers(0, 3)) != 0:
        index, kind = draw(st.sampled_from(seen))
        if draw(st.booleans()):  # thinking in a text block, text in a thinking block
            kind = draw(st.sampled_from(["text_delta", "thinking_delta"]))
        field = dict(_DELTAS)[kind]
    else:
        index = draw(st.integers(0, 3))
        kind, field = draw(st.sampled_from(_DELTAS))
    delta: dict[str, Any] = {
        "type": "content_block_delta",
        "index": index,
        "delta": {"type": kind, field: value},
    }
    text = _dump(delta, separators)
    colon = separators[1]
    key = f'"{field}"{colon}'
    choice = draw(st.integers(0, 24))
    name: str | None = None
    if choice <= 5:
        pass  # a delta of any kind for a block that may be open, stopped or never started
    elif choice == 6:
        text = text.replace(key, f'"{field}" {colon}')
    elif choice == 7:
        text = text.replace(key, key.replace(field[0], f"\\u{ord(field[0]):04x}", 1))
    elif choice == 8:
        text = text.replace(key, key + '"x",' + key)  # the key twice
    elif choice == 9:
        text = _dump({**delta, "extra": 1}, separators)
    elif choice == 10:
        text = _dump({**delta, "delta": {**delta["delta"], "extra": 1}}, separators)
    elif choice == 11:
        text = text.replace(key + '"', key + '"\t')  # a raw control character
    elif choice == 12:
        text = text.replace(key + '"', key + '"\udcff', 1)  # invalid UTF-8, once encoded
    elif choice == 13:
        text = text.replace(key + '"', key + '"' + "y" * 600)  # long: the depth is counted
    elif choice == 14:
        deep = "[" * 300 + "]" * 300
        text = _dump({**delta, "x": 1}, separators).replace("1}", deep + "}")
    elif choice == 15:
        name = draw(st.sampled_from(["error", "ping", "", "message_delta"]))
    elif choice == 16:
        text = _dump({**delta, "index": draw(st.sampled_from([True, 0.0, None]))}, separators)
    elif choice == 17:
        block = draw(st.sampled_from(_BLOCKS))
        text = _dump(
            {"type": "content_block_start", "index": index, "content_block": block}, separators
        )
    elif choice == 18:
        text = _dump({"type": "content_block_stop", "index": index}, separators)
    elif choice == 19:
        message_id = draw(st.sampled_from(["msg_same", "msg_other"]))
        message = {"id": message_id, "model": "m", "usage": {"input_tokens": 3}}
        text = _dump({"type": "message_start", "message": message}, separators)
    elif choice == 20:
        text = draw(st.sampled_from(['{"type":"ping"}', '{"type":"mystery","a":1}', "{", ""]))
    elif choice == 21:
        text = _dump({"type": "message_delta", "delta": {"stop_reason": "end_turn"}}, separators)
    elif choice == 22:
        text = _dump({"type": "error", "error": {"type": "overloaded_error"}}, separators)
    elif choice == 23:
        text = "[DONE]"
        name = ""
    else:
        text = text.replace("{", "{ ", 1)  # other spacing
    return name, text


@st.composite
def bodies(draw: st.DrawFn) -> list[bytes]:
    """A generated stream, in compact or spaced JSON, with events put anywhere in it, cut
    into network reads."""
    separators = draw(st.sampled_from([COMPACT, SPACED]))
    stream = draw(streams(max_tool_calls=2))
    named = stream.profile.event_names
    events: list[tuple[str | None, str]] = []
    seen: list[tuple[int, str]] = []  # the block and kind of each delta
    for text in stream.payloads:
        if text == "[DONE]":
            events.append(("", text))
            continue
        payload = json.loads(text)
        events.append((None, _dump(payload, separators)))
        delta = payload.get("delta")
        if payload.get("type") == "content_block_delta" and delta["type"] in dict(_DELTAS):
            seen.append((payload["index"], delta["type"]))
    for _ in range(draw(st.integers(0, 4))):
        # Anywhere, or right after a block's stop (before the next block starts).
        stops = [n + 1 for n, (_, text) in enumerate(events) if '"content_block_stop"' in text]
        if stops and bool(draw(st.booleans())):
            where = draw(st.sampled_from(stops))
        else:
            where = draw(st.integers(0, len(events)))
        events.insert(where, draw(_inserted(separators, seen)))
    parts = []
    for label, text in events:
        name = label
        if name is None:
            try:
                kind = json.loads(text).get("type")
            except (ValueError, AttributeError):
                kind = None
            name = kind if named and isinstance(kind, str) else ""
        head = f"event: {name}\n" if name else ""
        parts.append(f"{head}data: {text}\n\n".encode("utf-8", "surrogateescape"))
    body = b"".join(parts)
    size = draw(st.sampled_from([1, 7, 64, 300, 4096, len(body)]))
    return [body[i : i + size] for i in range(0, len(body), size)]


def _by_events(chunks: list[bytes]) -> list[Any]:
    decoder, dialect = SSEDecoder(), AnthropicMessagesDialect()
    out: list[Any] = []
    for chunk in chunks:
        out.extend(dialect.feed_events(decoder.feed(chunk)))
    decoder.close()
    return out + dialect.close(truncated=decoder.truncated)


def _by_runs(chunks: list[bytes], batch: bool) -> list[Any]:
    decoder, dialect = SSEDecoder(), AnthropicMessagesDialect()
    out: list[Any] = []
    for chunk in chunks:
        out.extend(dialect.feed_frames(decoder.feed_runs(chunk), batch=batch))
    decoder.close()
    return out + dialect.close(truncated=decoder.truncated)  # close() flushes a batch first


def _fragment(update: Any) -> bool:
    """An argument fragment: what a batch keeps in its ``order``."""
    if isinstance(update, updates.ToolCallArgs):
        return True
    return isinstance(update, updates.ToolCallDelta) and update.id is None and update.name is None


_SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(bodies())
def test_a_run_maps_to_what_its_events_map_to_one_by_one(chunks: list[bytes]) -> None:
    assert _by_runs(chunks, batch=False) == _by_events(chunks)


@_SETTINGS
@given(bodies())
def test_batches_stand_for_the_updates_of_their_events(chunks: list[bytes]) -> None:
    """Expanding every batch gives the updates of the events, in their order but for where
    the argument fragments stand among the texts inside one batch; the aggregate is the
    same."""
    got = _by_runs(chunks, batch=True)
    expanded = [
        u
        for item in got
        for u in (item.updates() if isinstance(item, updates.DeltaBatch) else [item])
    ]
    events = _by_events(chunks)
    assert [u for u in expanded if not _fragment(u)] == [u for u in events if not _fragment(u)]
    assert [u for u in expanded if _fragment(u)] == [u for u in events if _fragment(u)]
    assert respond(chunks, NAME, clock=_clock) == collect_agent_response(
        run(chunks, NAME, clock=_clock)
    )


def _usual_stream(separators: tuple[str, str]) -> tuple[bytes, int, int]:
    """Thinking, text, then two tool calls, as the API sends them; with how many events
    are deltas of text, thinking or arguments, and how many are of another kind."""
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {"id": "msg_1", "model": "claude", "usage": {"input_tokens": 9}},
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking"}},
    ]
    events += [
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "thinking_delta", "thinking": f"step {n}. "},
        }
        for n in range(100)
    ]
    events.append({"type": "content_block_stop", "index": 0})
    events.append({"type": "content_block_start", "index": 1, "content_block": {"type": "text"}})
    events += [
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "text_delta", "text": f"word {n}, "},
        }
        for n in range(300)
    ]
    events.append({"type": "content_block_stop", "index": 1})
    arguments = json.dumps({"path": "/tmp/a b", "body": 'say "hi"\n' * 40})
    pieces = [arguments[i : i + 7] for i in range(0, len(arguments), 7)]
    for index in (2, 3):
        block = {"type": "tool_use", "id": f"toolu_{index}", "name": "write", "input": {}}
        events.append({"type": "content_block_start", "index": index, "content_block": block})
        events += [
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "input_json_delta", "partial_json": piece},
            }
            for piece in ["", *pieces]
        ]
        events.append({"type": "content_block_stop", "index": index})
    events.append({"type": "message_delta", "delta": {"stop_reason": "tool_use"}})
    events.append({"type": "message_stop"})
    body = "".join(f"event: {e['type']}\ndata: {_dump(e, separators)}\n\n" for e in events).encode()
    deltas = sum(e["type"] == "content_block_delta" for e in events)
    return body, deltas, len(events) - deltas


def test_spaced_and_compact_json_read_the_same_and_nearly_all_deltas_through_templates() -> None:
    responses = {}
    for name, separators in (("compact", COMPACT), ("spaced", SPACED)):
        body, deltas, others = _usual_stream(separators)
        reads = [body[i : i + 4096] for i in range(0, len(body), 4096)]
        for aggregate in (True, False):
            dialect = AnthropicMessagesDialect()
            if aggregate:
                responses[name] = respond(reads, dialect, clock=_clock)
            else:
                list(run(reads, dialect, clock=_clock))
            counts = dialect.fast_path_counts()
            # Each block's first delta is decoded (typed), as is an event cut by a read's
            # end (read alone, outside a run); every other delta is read through a template.
            assert counts["template"] >= deltas - 4 - len(reads), (name, counts)
            assert counts["template"] + counts["typed"] == deltas, (name, counts)
            assert counts["full"] == others, (name, counts)
    assert responses["compact"] == responses["spaced"]
    assert [c.name for c in responses["compact"].tool_calls] == ["write", "write"]
    assert responses["compact"].text.startswith("word 0, word 1, ")


def _events(*events: dict[str, Any]) -> bytes:
    return "".join(f"event: {e['type']}\ndata: {_dump(e, COMPACT)}\n\n" for e in events).encode()


def _delta(index: int, kind: str, value: str) -> dict[str, Any]:
    field = dict(_DELTAS)[kind]
    return {"type": "content_block_delta", "index": index, "delta": {"type": kind, field: value}}


def _start(index: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": block}


_MESSAGE = {"type": "message_start", "message": {"id": "msg_1", "model": "claude"}}
_END = ({"type": "message_delta", "delta": {"stop_reason": "tool_use"}}, {"type": "message_stop"})


def _read_all_ways(body: bytes) -> tuple[list[Any], dict[str, int]]:
    """The updates of ``body`` in one read, checked to be those of its events one by one,
    in runs and in batches; and how the runs read it."""
    events = _by_events([body])
    assert _by_runs([body], batch=False) == events
    assert respond([body], NAME, clock=_clock) == collect_agent_response(
        run([body], NAME, clock=_clock)
    )
    dialect = AnthropicMessagesDialect()
    dialect.feed_frames(SSEDecoder().feed_runs(body), batch=True)
    return events, dialect.fast_path_counts()


def test_tool_blocks_without_an_id_and_server_tool_blocks_read_as_their_events() -> None:
    """A tool block without an id gives ToolCallDelta values by its index, through a template
    too; a server tool block's input (kept for its HostedToolCall) takes the shared path."""
    pieces = ['{"a"', ": 1", ', "b"', ": [2", "]}"]
    body = _events(
        _MESSAGE,
        _start(0, {"type": "tool_use", "input": {}}),
        *[_delta(0, "input_json_delta", p) for p in pieces],
        {"type": "content_block_stop", "index": 0},
        _start(1, {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search"}),
        *[_delta(1, "input_json_delta", p) for p in pieces],
        {"type": "content_block_stop", "index": 1},
        *_END,
    )
    events, counts = _read_all_ways(body)
    fragments = [u for u in events if isinstance(u, updates.ToolCallDelta) and u.arguments_delta]
    assert fragments == [updates.ToolCallDelta(index=0, arguments_delta=p) for p in pieces]
    assert [u.arguments for u in events if isinstance(u, updates.HostedToolCall)] == [
        {"a": 1, "b": [2]}
    ]
    assert counts["template"] == len(pieces) - 1  # the legacy block's; the server block's: none


def test_a_delta_after_its_blocks_stop_is_a_violation_read_through_a_run_too() -> None:
    """The template of a block is dropped at its stop: a later delta of the same shape takes
    the shared path, which reports it (once) and still emits its text."""
    body = _events(
        _MESSAGE,
        _start(0, {"type": "text", "text": ""}),
        *[_delta(0, "text_delta", t) for t in ("a", "b", "c")],
        {"type": "content_block_stop", "index": 0},
        *[_delta(0, "text_delta", t) for t in ("late", "later")],
        *_END,
    )
    events, counts = _read_all_ways(body)
    assert [u.delta for u in events if isinstance(u, updates.TextDelta)] == [
        "a",
        "b",
        "c",
        "late",
        "later",
    ]
    violations = [u for u in events if isinstance(u, updates.Error)]
    assert [u.error_code for u in violations] == ["protocol_violation"]
    assert "after its stop" in violations[0].message
    assert counts["template"] == 2  # "b" and "c"; the late ones are not read through one


def test_a_block_restarted_as_another_kind_reads_its_deltas_by_the_new_kind() -> None:
    body = _events(
        _MESSAGE,
        _start(0, {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}),
        *[_delta(0, "input_json_delta", p) for p in ("[1", ",2", "]")],
        _start(0, {"type": "text", "text": ""}),
        *[_delta(0, "input_json_delta", p) for p in ("[3", ",4")],
        *[_delta(0, "text_delta", t) for t in ("x", "y")],
        *_END,
    )
    events, _ = _read_all_ways(body)
    assert [u.args_delta for u in events if isinstance(u, updates.ToolCallArgs)] == [
        "[1",
        ",2",
        "]",
    ]
    assert [u.delta for u in events if isinstance(u, updates.TextDelta)] == ["x", "y"]


def test_reasoning_after_text_in_one_run_keeps_its_place_in_the_message() -> None:
    """A batch gives its reasoning before its text: reasoning that comes after text hands the
    batch so far on first, so the turn's message has text, reasoning, text."""
    body = _events(
        _MESSAGE,
        _start(0, {"type": "text", "text": ""}),
        *[_delta(0, "text_delta", t) for t in ("a", "b")],
        *[_delta(0, "thinking_delta", t) for t in ("r", "s")],
        *[_delta(0, "text_delta", t) for t in ("c", "d")],
        *_END,
    )
    events, _ = _read_all_ways(body)
    kinds = [
        type(u).__name__
        for u in events
        if isinstance(u, updates.TextDelta | updates.ReasoningDelta)
    ]
    assert kinds == ["TextDelta"] * 2 + ["ReasoningDelta"] * 2 + ["TextDelta"] * 2
    dialect = AnthropicMessagesDialect()
    got = dialect.feed_frames(SSEDecoder().feed_runs(body), batch=True) + dialect.flush()
    batches = [(b.reasoning, b.text) for b in got if isinstance(b, updates.DeltaBatch)]
    assert batches == [([], ["a", "b"]), (["r", "s"], ["c", "d"])]
