"""What raf did not read of a recording (raf.cassettes.inventory.unread) and the field tables
it measures against (raf/formats/<name>/fields.py).

The tables are kept honest against the dialects: over every bundled cassette, removing every
field a table says raf does not read (and every event it skips) leaves raf's reading of the
stream unchanged, and every event type the cassettes hold is classified.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from raf import dialects, formats
from raf.cassettes import persister
from raf.cassettes.coding import BodyNotDecoded
from raf.cassettes.inventory import Unread, field_table, unread, wire_events
from raf.cassettes.lint import lint_file
from raf.cassettes.show import render
from raf.cassettes.unread_doc import BEGIN, END, render_doc
from raf.cassettes.unread_doc import main as doc_main
from raf.framing import aws_eventstream_encode as eventstream
from raf.model.canonical import to_canonical
from raf.pipeline import UpdateDecoder
from raf.shared.bundled import bundled

FORMATS = (
    "openai_chat",
    "openai_responses",
    "openai_completions",
    "anthropic_messages",
    "gemini",
    "ollama_chat",
    "cohere_v2",
    "gemini_interactions",
    "bedrock_converse",
)


def _bodies() -> list[tuple[str, str, bytes]]:
    out = []
    for path in sorted(bundled().cassettes.rglob("*.yaml")):
        cassette = persister.load(path)
        assert cassette.info is not None
        for n, interaction in enumerate(cassette.interactions):
            response = interaction.response
            if not 200 <= response.status < 300:
                continue
            try:
                body = response.content()
            except BodyNotDecoded:
                continue
            out.append((f"{path.parent.name}/{path.stem}[{n}]", cassette.info.dialect, body))
    return out


BODIES = _bodies()


_QUOTE = re.compile(r"""['"]?\{.*""", re.S)


def _reading(dialect: str, body: bytes) -> list[Any]:
    """The updates raf makes of a body, without the ``raw`` quotes of errors and the quotes
    of a frame in their messages (they quote the frame's data as it came, which removing
    fields changes)."""
    decoder = UpdateDecoder(dialect)
    made = decoder.feed(body) + decoder.close()
    out = []
    for update in made:
        value = to_canonical(update)
        if isinstance(value, dict):
            value.pop("raw", None)
            if isinstance(value.get("message"), str):
                value["message"] = _QUOTE.sub("<frame>", value["message"])
        out.append(value)
    return out


def _reframed(dialect: str, frames: list[tuple[str, str]]) -> bytes:
    """Frames written again in the dialect's framing (SSE for ``sse`` and ``auto``; an AWS
    event stream's exception messages, named ``...Exception``, as exception messages)."""
    framing = dialects.create(dialect).framing
    if framing == "json_lines":
        return b"".join(data.encode() + b"\n" for _, data in frames)
    if framing == "aws_eventstream":
        return b"".join(
            (eventstream.exception if name.endswith("Exception") else eventstream.event)(
                name, data.encode()
            )
            for name, data in frames
        )
    out = []
    for name, data in frames:
        head = "" if name == "message" else f"event: {name}\n"
        lines = "".join(f"data: {line}\n" for line in data.split("\n"))
        out.append(f"{head}{lines}\n")
    return "".join(out).encode()


def _remove(value: Any, keys: list[str]) -> None:
    """Remove the field at ``keys`` (``[]`` steps into every item of an array)."""
    if not keys:
        return
    key, rest = keys[0], keys[1:]
    if key.endswith("[]"):
        inner = value.get(key[:-2]) if isinstance(value, dict) else None
        items: list[Any] = [inner] if key != "[]" else [value]
        for item in items:
            if isinstance(item, list):
                for element in item:
                    _remove(element, rest)
        return
    if isinstance(value, dict):
        if rest:
            _remove(value.get(key), rest)
        else:
            value.pop(key, None)


def _steps(path: str) -> list[str]:
    """``a[][].b`` -> ``a[]``, ``[]``, ``b``: a step per key, one more per array of arrays."""
    steps: list[str] = []
    for part in path.split("."):
        key = part.removesuffix("[]" * part.count("[]")) if "[]" in part else part
        depth = part.count("[]")
        steps.append(key + ("[]" if depth else ""))
        steps.extend(["[]"] * max(depth - 1, 0))
    return steps


def _stripped(dialect: str, body: bytes, seen: Unread) -> bytes:
    unread_types = {e.type for e in seen.events if e.why == "skipped"}
    by_type: dict[str | None, list[str]] = {}
    for f in seen.fields:
        by_type.setdefault(f.event_type, []).append(f.path)
    frames = []
    for event in wire_events(dialect, body):
        payload = event.payload
        if isinstance(payload, dict):
            if event.type in unread_types:
                continue
            payload = json.loads(event.data)
            for path in by_type.get(event.type, ()):
                _remove(payload, _steps(path))
            frames.append((event.name, json.dumps(payload)))
        else:
            frames.append((event.name, event.data))
    return _reframed(dialect, frames)


def _as_frames(dialect: str, body: bytes) -> bytes:
    return _reframed(dialect, [(e.name, e.data) for e in wire_events(dialect, body)])


@pytest.mark.parametrize(("where", "dialect", "body"), BODIES, ids=[b[0] for b in BODIES])
def test_removing_what_raf_does_not_read_changes_nothing(
    where: str, dialect: str, body: bytes
) -> None:
    seen = unread(dialect, body)
    same = _as_frames(dialect, body)
    assert _reading(dialect, _stripped(dialect, body, seen)) == _reading(dialect, same), where


def test_every_bundled_event_type_is_classified() -> None:
    """Each event type of the bundled cassettes is read, skipped on purpose, or (in a
    cassette about a stream raf does not recognise) unrecognised; and the tables list every
    type the bundled cassettes read."""
    types: dict[str, set[str | None]] = {name: set() for name in FORMATS}
    for where, dialect, body in BODIES:
        table = field_table(dialect)
        assert table is not None, dialect
        seen = unread(dialect, body)
        for event in wire_events(dialect, body):
            if isinstance(event.payload, dict):
                types[dialect].add(event.type)
                why = table.why(event.type)
                if why is not None:
                    assert any(e.type == event.type and e.why == why for e in seen.events), where
    assert types["anthropic_messages"] >= {"message_start", "content_block_delta", "ping"}
    assert None in types["openai_chat"]
    assert None in types["gemini"]


def test_bundled_cassettes_hold_no_unrecognised_event_type_but_where_they_are_about_it() -> None:
    """An unrecognised event type in a bundled recording is one the cassette expects raf to
    report (``unrecognised_chunks`` or ``unrecognised_format``): nothing else is new."""
    for path in sorted(bundled().cassettes.rglob("*.yaml")):
        cassette = persister.load(path)
        assert cassette.info is not None
        expect = cassette.info.expect
        about = expect is not None and bool(
            {"unrecognised_chunks", "unrecognised_format"} & {*expect.errors, *expect.notices}
        )
        for interaction in cassette.interactions:
            if not 200 <= interaction.response.status < 300:
                continue
            try:
                body = interaction.response.content()
            except BodyNotDecoded:
                continue
            seen = unread(cassette.info.dialect, body)
            if not about:
                assert seen.unrecognised_events == (), path


@pytest.mark.parametrize("dialect", ["anthropic_messages", "openai_responses"])
def test_typed_tables_follow_the_dialects_handlers(dialect: str) -> None:
    """Every type a typed dialect has a handler for is read by its table (or skipped, for a
    handler that does nothing: ``ping``), every type it ignores is skipped, and every type
    the table reads has a handler."""
    made = dialects.create(dialect)
    table = field_table(dialect)
    assert table is not None
    handlers = set(type(made).handlers)  # type: ignore[attr-defined]
    for kind in handlers:
        assert kind in table.events or table.why(kind) == "skipped", kind
    for kind in type(made).ignored:  # type: ignore[attr-defined]
        assert table.why(kind) == "skipped", kind
    assert set(table.events) <= handlers


def test_every_builtin_format_has_a_table() -> None:
    assert set(FORMATS) <= set(formats.names())
    for name in formats.names():
        assert field_table(name) is not None, name


# -- made-up event types and fields, per format ---------------------------------------------

_SSE = "data: {}\n\n"

_MADE_UP: dict[str, tuple[bytes, str, str | None, str]] = {
    # format: (body, the new event type, the event type of the new field, the field's path)
    "openai_chat": (
        (
            _SSE.format(
                '{"id":"c","object":"chat.completion.chunk","model":"m","choices":'
                '[{"index":0,"delta":{"content":"hi","sparkle":{"x":1}}}]}'
            )
            + _SSE.format(
                '{"id":"c","object":"chat.completion.chunk","model":"m","choices":'
                '[{"index":0,"delta":{"content":"!","sparkle":2},'
                '"finish_reason":"stop"}]}'
            )
            + _SSE.format('{"type":"new.thing","x":1}')
            + "data: [DONE]\n\n"
        ).encode(),
        "new.thing",
        None,
        "choices[].delta.sparkle",
    ),
    "openai_completions": (
        (
            _SSE.format(
                '{"id":"c","object":"text_completion","model":"m","choices":'
                '[{"index":0,"text":"hi","sparkle":1}]}'
            )
            + _SSE.format(
                '{"id":"c","object":"text_completion","model":"m","choices":'
                '[{"index":0,"text":"!","finish_reason":"stop","sparkle":1}]}'
            )
            + _SSE.format('{"object":"new.thing"}')
            + "data: [DONE]\n\n"
        ).encode(),
        "new.thing",
        None,
        "choices[].sparkle",
    ),
    "anthropic_messages": (
        (
            "event: message_start\n"
            + _SSE.format(
                '{"type":"message_start","message":{"id":"m1","model":"c",'
                '"usage":{"input_tokens":1,"output_tokens":1}}}'
            )
            + "event: content_block_start\n"
            + _SSE.format(
                '{"type":"content_block_start","index":0,'
                '"content_block":{"type":"text","text":"","sparkle":1}}'
            )
            + _SSE.format(
                '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}'
            )
            + _SSE.format('{"type":"new.thing"}')
            + _SSE.format(
                '{"type":"content_block_start","index":1,'
                '"content_block":{"type":"text","text":"","sparkle":2}}'
            )
            + _SSE.format(
                '{"type":"message_delta","delta":{"stop_reason":"end_turn"},'
                '"usage":{"output_tokens":2}}'
            )
            + _SSE.format('{"type":"message_stop"}')
        ).encode(),
        "new.thing",
        "content_block_start",
        "content_block.sparkle",
    ),
    "openai_responses": (
        (
            _SSE.format('{"type":"response.created","response":{"id":"r","model":"m"}}')
            + _SSE.format(
                '{"type":"response.output_text.delta","item_id":"i","output_index":0,'
                '"content_index":0,"delta":"hi","sparkle":1}'
            )
            + _SSE.format('{"type":"new.thing"}')
            + _SSE.format(
                '{"type":"response.output_text.delta","item_id":"i","output_index":0,'
                '"content_index":0,"delta":"!","sparkle":{"a":[1]}}'
            )
            + _SSE.format('{"type":"response.completed","response":{"id":"r","model":"m"}}')
        ).encode(),
        "new.thing",
        "response.output_text.delta",
        "sparkle",
    ),
    "gemini": (
        (
            _SSE.format(
                '{"candidates":[{"content":{"parts":[{"text":"hi","sparkle":1}]},'
                '"index":0}],"responseId":"r"}'
            )
            + _SSE.format('{"newThing":{"x":1}}')
            + _SSE.format(
                '{"candidates":[{"content":{"parts":[{"text":"!","sparkle":2}]},'
                '"finishReason":"STOP"}],"responseId":"r"}'
            )
        ).encode(),
        "{newThing}",
        None,
        "candidates[].content.parts[].sparkle",
    ),
    "ollama_chat": (
        (
            b'{"model":"m","message":{"content":"hi","sparkle":1},"done":false}\n'
            b'{"newThing":1}\n'
            b'{"model":"m","message":{"content":"!","sparkle":[1]},"done":true}\n'
        ),
        "{newThing}",
        None,
        "message.sparkle",
    ),
    "cohere_v2": (
        (
            _SSE.format(
                '{"id":"m1","type":"message-start","delta":{"message":{"role":"assistant"}}}'
            )
            + _SSE.format(
                '{"type":"content-delta","index":0,'
                '"delta":{"message":{"content":{"text":"hi","sparkle":1}}}}'
            )
            + _SSE.format('{"type":"new.thing"}')
            + _SSE.format(
                '{"type":"content-delta","index":0,'
                '"delta":{"message":{"content":{"text":"!","sparkle":2}}}}'
            )
            + _SSE.format('{"type":"message-end","delta":{"finish_reason":"COMPLETE"}}')
            + "data: [DONE]\n\n"
        ).encode(),
        "new.thing",
        "content-delta",
        "delta.message.content.sparkle",
    ),
    "gemini_interactions": (
        (
            _SSE.format('{"event_type":"interaction.created","interaction":{"id":"i","model":"m"}}')
            + _SSE.format('{"event_type":"step.start","index":0,"step":{"type":"model_output"}}')
            + _SSE.format(
                '{"event_type":"step.delta","index":0,'
                '"delta":{"type":"text","text":"hi","sparkle":1}}'
            )
            + _SSE.format('{"event_type":"new.thing"}')
            + _SSE.format(
                '{"event_type":"step.delta","index":0,'
                '"delta":{"type":"text","text":"!","sparkle":2}}'
            )
            + _SSE.format('{"event_type":"step.stop","index":0}')
            + _SSE.format(
                '{"event_type":"interaction.completed",'
                '"interaction":{"id":"i","status":"completed"}}'
            )
            + "data: [DONE]\n\n"
        ).encode(),
        "new.thing",
        "step.delta",
        "delta.sparkle",
    ),
    "bedrock_converse": (
        b"".join(
            eventstream.event(name, data)
            for name, data in [
                ("messageStart", b'{"role":"assistant","p":"abc"}'),
                ("contentBlockDelta", b'{"contentBlockIndex":0,"delta":{"text":"hi"},"sparkle":1}'),
                ("newThing", b'{"x":1}'),
                ("contentBlockDelta", b'{"contentBlockIndex":0,"delta":{"text":"!"},"sparkle":2}'),
                ("messageStop", b'{"stopReason":"end_turn"}'),
            ]
        ),
        "newThing",
        "contentBlockDelta",
        "sparkle",
    ),
}


@pytest.mark.parametrize("dialect", FORMATS)
def test_a_made_up_event_type_and_field_are_named(dialect: str) -> None:
    body, new_type, field_type, path = _MADE_UP[dialect]
    seen = unread(dialect, body)
    assert [(e.type, e.count, e.why) for e in seen.unrecognised_events] == [
        (new_type, 1, "unrecognised")
    ]
    first = next(e.index for e in wire_events(dialect, body) if e.type == new_type)
    assert seen.unrecognised_events[0].first == first
    assert [(f.path, f.event_type, f.count) for f in seen.unknown_fields] == [(path, field_type, 2)]
    as_json = json.loads(json.dumps(seen.to_json()))
    assert {"type": new_type, "count": 1, "first": first, "why": "unrecognised"} in as_json[
        "events"
    ]
    assert {"path": path, "event_type": field_type, "count": 2, "known": False} in as_json["fields"]


def test_known_fields_are_known_and_skipped_events_skipped() -> None:
    body = (
        b'event: ping\ndata: {"type":"ping"}\n\n'
        b'event: message_start\ndata: {"type":"message_start","message":{"id":"m","model":"c",'
        b'"role":"assistant","usage":{"input_tokens":1}}}\n\n'
    )
    seen = unread("anthropic_messages", body)
    assert [(e.type, e.why, e.first) for e in seen.events] == [("ping", "skipped", 0)]
    assert seen.unrecognised_events == ()
    assert [(f.path, f.known) for f in seen.fields] == [("message.role", True)]
    assert seen.unknown_fields == ()


def test_a_new_responses_event_type_is_unrecognised_though_the_dialect_passes_it_over() -> None:
    """The Responses dialect skips any ``response.*`` type it has no handler for; the table
    tells the documented families from a new type."""
    body = (
        b'data: {"type":"response.created","response":{"id":"r","model":"m"}}\n\n'
        b'data: {"type":"response.web_search_call.searching","item_id":"w"}\n\n'
        b'data: {"type":"response.output_audio.delta","delta":"AAAA"}\n\n'
        b'data: {"type":"response.output_audio.delta","delta":"BBBB"}\n\n'
        b'data: {"type":"response.completed","response":{"id":"r","model":"m"}}\n\n'
    )
    seen = unread("openai_responses", body)
    assert [(e.type, e.why, e.count, e.first) for e in seen.events] == [
        ("response.web_search_call.searching", "skipped", 1, 1),
        ("response.output_audio.delta", "unrecognised", 2, 2),
    ]


def test_an_untyped_object_in_a_typed_format_is_named_by_its_keys() -> None:
    body = b'data: {"delta": {"text": "x"}, "index": 0}\n\n'
    (event,) = unread("anthropic_messages", body).unrecognised_events
    assert (event.type, event.count) == ("{delta,index}", 1)


# -- never raises, linear --------------------------------------------------------------------

_ODD = [
    b"",
    b"not json at all",
    b"\xff\xfe\x00garbage",
    b"[1, 2, 3]",
    b"[" * 100_000,
    b"data: " + b"[" * 50_000 + b"\n\n",
    b"data: " + b'{"a":' * 50_000 + b"1" + b"}" * 50_000 + b"\n\n",
    b'data: {"choices": ' + b"[" * 20_000 + b"]" * 20_000 + b"}\n\n",
    b'{"message": {"content": ' + b"[" * 20_000 + b"]" * 20_000 + b"}}\n",
    b'data: {"type": 5}\n\ndata: null\n\ndata: "x"\n\n',
    b"data: [DONE]\n\n" * 1000,
    b'data: {"choices":[{"delta":{"x":1}}]}\n\n' * 20_000,
]


@pytest.mark.parametrize("dialect", [*FORMATS, "no_such_format"])
@pytest.mark.parametrize("body", _ODD, ids=range(len(_ODD)))
def test_odd_bodies_never_raise(dialect: str, body: bytes) -> None:
    assert isinstance(unread(dialect, body), Unread)


@settings(max_examples=60, deadline=None)
@given(dialect=st.sampled_from(FORMATS), body=st.binary(max_size=400))
def test_any_bytes_never_raise(dialect: str, body: bytes) -> None:
    assert isinstance(unread(dialect, body), Unread)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "choices",
                    "delta",
                    "type",
                    "message",
                    "x",
                    "error",
                    "candidates",
                    "content",
                    "parts",
                    "response",
                ]
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=20,
)


@settings(max_examples=60, deadline=None)
@given(dialect=st.sampled_from(FORMATS), values=st.lists(_JSON, max_size=5))
def test_any_json_events_never_raise(dialect: str, values: list[Any]) -> None:
    sse = "".join(f"data: {json.dumps(v)}\n\n" for v in values).encode()
    lines = "".join(f"{json.dumps(v)}\n" for v in values).encode()
    assert isinstance(unread(dialect, sse), Unread)
    assert isinstance(unread(dialect, lines), Unread)


def test_a_long_stream_is_counted_whole() -> None:
    """Every event is counted, however many (the reading is one pass over the body)."""
    one = b'data: {"choices":[{"delta":{"content":"x","new":{"a":[1,2]}}}],"created":1}\n\n'
    small = unread("openai_chat", one * 100)
    large = unread("openai_chat", one * 10_000)
    assert [f.count for f in small.fields] == [100, 100]
    assert [f.count for f in large.fields] == [10_000, 10_000]


def test_every_bundled_cassette_is_covered() -> None:
    dialects_seen = {dialect for _, dialect, _ in BODIES}
    assert dialects_seen == set(FORMATS)
    assert Path(bundled().cassettes).is_dir()


# -- the documentation -----------------------------------------------------------------------

DOC = Path(__file__).resolve().parents[2] / "docs" / "recording.md"


def test_the_documented_tables_are_current() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert render_doc(text) == text, "run: python -m raf.cassettes.unread_doc " + str(DOC)
    assert "| `content_block_delta` | `type`, `index`, `delta`" in text


def test_the_doc_renderer_refuses_a_file_without_its_block(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no block"):
        render_doc("# nothing here\n")
    stale = tmp_path / "stale.md"
    stale.write_text(f"x\n{BEGIN}\nold\n{END}\n", encoding="utf-8")
    assert doc_main(["--check", str(stale)]) == 1
    assert "old" in stale.read_text(encoding="utf-8")
    assert doc_main([str(stale)]) == 0
    assert doc_main(["--check", str(stale)]) == 0
    assert "#### `openai_chat`" in stale.read_text(encoding="utf-8")


# -- show and lint ---------------------------------------------------------------------------

_BASE = "anthropic_messages/data_only_events_without_event_names"
_NEW_EVENT = b'event: content_block_flourish\ndata: {"type":"content_block_flourish"}\n\n'


def _with_new_event(tmp_path: Path, notices: tuple[str, ...] = ()) -> Path:
    """A bundled cassette with an event of a new type (twice) and a new field inserted."""
    cassette = persister.load(bundled().cassettes / f"{_BASE}.yaml")
    response = cassette.interactions[0].response
    body = response.content().replace(
        b'"type":"content_block_stop"', b'"type":"content_block_stop","flourish":1'
    )
    response.body = _NEW_EVENT + _NEW_EVENT + body
    cassette.interactions[0].timing = None
    assert cassette.info is not None
    assert cassette.info.expect is not None
    if notices:
        expect = msgspec.structs.replace(cassette.info.expect, notices=notices)
        cassette.info = msgspec.structs.replace(cassette.info, expect=expect)
    return persister.save(cassette, tmp_path / "new_event.yaml")


def test_lint_warns_about_a_new_event_type_by_name(tmp_path: Path) -> None:
    findings = lint_file(_with_new_event(tmp_path))
    assert [(f.severity, f.where, f.message) for f in findings] == [
        (
            "warning",
            "interactions[0].response.body",
            "event type content_block_flourish: raf does not read it (2 events, the first is #0)",
        )
    ]


def test_lint_is_quiet_when_the_cassette_is_about_unrecognised_chunks(tmp_path: Path) -> None:
    path = _with_new_event(tmp_path, notices=("unrecognised_chunks",))
    assert [f for f in lint_file(path) if "raf does not read" in f.message] == []


def test_lint_does_not_warn_about_skipped_events_or_unknown_fields(tmp_path: Path) -> None:
    cassette = persister.load(bundled().cassettes / f"{_BASE}.yaml")
    response = cassette.interactions[0].response
    response.body = b'event: ping\ndata: {"type":"ping"}\n\n' + response.content().replace(
        b'"type":"content_block_stop"', b'"type":"content_block_stop","flourish":1'
    )
    cassette.interactions[0].timing = None
    path = persister.save(cassette, tmp_path / "quiet.yaml")
    assert lint_file(path) == []


def test_show_lists_what_raf_did_not_read(tmp_path: Path) -> None:
    console = Console(record=True, width=300, color_system=None)
    render(console, persister.load(_with_new_event(tmp_path)))
    shown = console.export_text().split("not read by raf:", 1)[1]
    assert "event type content_block_flourish: unrecognised, 2 events (first #0)" in shown
    assert "unknown field flourish in content_block_stop: 1 event" in shown


def test_show_lists_known_fields_briefly() -> None:
    console = Console(record=True, width=300, color_system=None)
    render(
        console,
        persister.load(bundled().cassettes / "openai_chat/deepseek_reasoning_then_content.yaml"),
    )
    shown = console.export_text().split("not read by raf:", 1)[1]
    assert "known fields left aside: " in shown
    assert "system_fingerprint (" in shown
    assert "unknown field" not in shown


def test_show_says_nothing_when_raf_read_everything(tmp_path: Path) -> None:
    cassette = persister.load(bundled().cassettes / "ollama_chat/text_with_usage.yaml")
    for interaction in cassette.interactions:
        lines = [
            json.loads(line)
            for line in interaction.response.content().decode().splitlines()
            if line.strip()
        ]
        for line in lines:
            for key in (
                "created_at",
                "total_duration",
                "load_duration",
                "eval_duration",
                "prompt_eval_duration",
            ):
                line.pop(key, None)
            if isinstance(line.get("message"), dict):
                line["message"].pop("role", None)
        interaction.response.body = "".join(json.dumps(x) + "\n" for x in lines).encode()
        interaction.timing = None
    console = Console(record=True, width=300, color_system=None)
    render(console, cassette)
    assert "not read by raf" not in console.export_text()
