"""The diff's field paths and JSON types, and what raf did not read, on nested payloads: arrays
of arrays, empty containers, dotted keys, a nesting deeper than the diff enters. The field
table of each event type is built once per type, however many events share it."""

from __future__ import annotations

import json
from typing import Any

from raf.cassettes.diff import Drift, diff
from raf.cassettes.format import Cassette, Interaction, Request, Response, ScenarioInfo
from raf.cassettes.inventory import iter_wire_events, unread, wire_events


def chat(*extras: dict[str, Any]) -> Cassette:
    """A Chat Completions recording: one text chunk per extra, each carrying the extra's
    fields beside the usual ones, then the finish and ``[DONE]``."""
    base = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "m"}
    frames = [
        {**base, **extra, "choices": [{"index": 0, "delta": {"content": "hi"}}]} for extra in extras
    ]
    frames.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    body = "".join(f"data: {json.dumps(f)}\n\n" for f in frames) + "data: [DONE]\n\n"
    interaction = Interaction(
        request=Request(uri="http://127.0.0.1/v1/chat/completions"),
        response=Response(headers={"content-type": ["text/event-stream"]}, body=body.encode()),
    )
    return Cassette(
        interactions=[interaction], info=ScenarioInfo(scenario="s", dialect="openai_chat")
    )


def fields(drift: Drift) -> list[tuple[str, str, Any, Any]]:
    """(kind, path, old, new) of the field changes, the path without its event type."""
    return [
        (c.kind, c.where.split(" ", 2)[2], c.old, c.new)
        for c in drift.changes
        if c.kind.startswith("field_")
    ]


def nested(depth: int, leaf: Any) -> dict[str, Any]:
    value: Any = leaf
    for _ in range(depth):
        value = {"n": value}
    assert isinstance(value, dict)
    return value


def test_arrays_of_arrays_and_the_types_found_across_events() -> None:
    old = chat({"x": [[1, 2], [3]]}, {"x": [[4]]})
    new = chat({"x": [[1, "two"]]}, {"x": [[], [None]]})
    assert fields(diff(old, new)) == [
        ("field_type_changed", "x[][]", "integer", "integer|null|string"),
    ]
    assert fields(diff(new, old)) == [
        ("field_type_narrowed", "x[][]", "integer|null|string", "integer")
    ]


def test_a_field_is_named_outermost_with_what_went_with_it() -> None:
    old = chat({"meta": {"a": {"b": 1, "c": [{"d": True}]}}})
    new = chat({"meta": {}})
    assert fields(diff(old, new)) == [("field_removed", "meta.a", "object", None)]
    change = next(c for c in diff(old, new).changes if c.kind == "field_removed")
    assert change.message.endswith("with 4 field(s) under it")  # b, c, c[], c[].d
    assert fields(diff(new, old)) == [("field_added", "meta.a", None, "object")]


def test_the_same_shape_in_every_event_is_no_change_whatever_the_values() -> None:
    old = chat(*({"x": {"k": [i, i + 1], "s": f"v{i}"}} for i in range(50)))
    new = chat(*({"x": {"k": [i * 7], "s": "w"}} for i in range(3)))
    assert fields(diff(old, new)) == []
    assert [c.kind for c in diff(old, new).changes if c.kind.startswith("field")] == []


def test_the_diff_enters_32_levels_and_counts_the_values_there() -> None:
    # a value at depth 32 (counting the payload's own fields as depth 1) is compared by
    # type; what lies under it is not entered
    assert fields(diff(chat({"x": nested(31, 1)}), chat({"x": nested(31, "one")}))) == [
        ("field_type_changed", "x" + ".n" * 31, "integer", "string")
    ]
    assert fields(diff(chat({"x": nested(32, 1)}), chat({"x": nested(32, "one")}))) == []


def test_unread_of_the_events_a_caller_has_is_unread_of_the_body() -> None:
    body = chat({"x": [[1]], "service_tier": "default"}, {"y": {"z": 1}}).interactions[0]
    content = body.response.body
    events = wire_events("openai_chat", content)
    seen = unread("openai_chat", content)
    assert unread("openai_chat", content, events=events) == seen
    assert {(f.path, f.known, f.count) for f in seen.unknown_fields} == {
        ("x", False, 1),
        ("y", False, 1),
    }


def test_an_empty_key_at_the_top_is_no_field_of_its_own() -> None:
    old = chat({"": {"b": 1}})
    new = chat({"": {"b": "one"}})
    assert fields(diff(old, new)) == [("field_type_changed", "b", "integer", "string")]
    assert fields(diff(chat({"": 1}), chat({"": "one"}))) == []


def test_the_events_streamed_across_pieces_are_the_events_listed() -> None:
    """A body of several of the pieces the framer is fed, frames spanning each cut."""
    body = chat(*({"x": "y" * 1000} for _ in range(300))).interactions[0].response.body
    assert len(body) > 4 * 65536
    events = list(iter_wire_events("openai_chat", body))
    assert events == wire_events("openai_chat", body)
    assert [e.index for e in events] == list(range(302))  # 300, the finish, [DONE]
    assert all(e.payload["x"] == "y" * 1000 for e in events[:300])
    assert events[-1].data == "[DONE]"
    assert unread("openai_chat", body).unknown_fields[0].count == 300
    assert diff(chat({"x": 1}), chat({"x": 1})).changes == ()


def test_a_framing_limit_ends_the_events_streamed_where_it_stopped() -> None:
    body = b'data: {"a": 1}\n\ndata: {"b": 2}\n\ndata: ' + b"x" * (16 * 1024 * 1024 + 1)
    events = list(iter_wire_events("openai_chat", body + b'\n\ndata: {"c": 3}\n\n'))
    assert [e.payload for e in events] == [{"a": 1}, {"b": 2}]
