"""AG-UI (raf.interop.agui): what raf writes is what ag_ui.core reads and writes back, byte for
byte; parallel calls stay apart; an error ends the run; any AG-UI stream reads back."""

from __future__ import annotations

import functools
import json
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from raf.chunking import STANDARD_CHUNKINGS
from raf.collect import collect_agent_response
from raf.interop import decode_all, encode_all, frame, get, native_items, roundtrip
from raf.interop.agui import Decoder, Encoder, native, objects
from raf.model import blocks, contents
from raf.model.canonical import to_canonical
from raf.model.codes import ErrorCode
from raf.model.response import AgentResponse, AgentResponseResult
from raf.model.usage import FinishReason
from tests.interop.support import agent_runs, bundled_streams, library
from tests.interop.support import results_of as _results_of

MODEL = get("ag-ui")


def _stream(name: str) -> tuple[AgentResponseResult, ...]:
    stream = next(s for s in bundled_streams() if s.name == name)
    return _results_of(stream, "whole")


@functools.cache
def _every_export() -> tuple[tuple[str, tuple[Any, ...]], ...]:
    """Every distinct export of every bundled stream under every chunking, and of every agent
    run: (name, items)."""
    seen: set[str] = set()
    out = []
    runs = [
        (s.name + "@" + c, _results_of(s, c)) for s in bundled_streams() for c in STANDARD_CHUNKINGS
    ]
    for name, results in [*runs, *agent_runs()]:
        items = tuple(encode_all(MODEL, results))
        key = json.dumps(items, sort_keys=True)
        if key not in seen:
            seen.add(key)
            out.append((name, items))
    return tuple(out)


def test_every_export_is_ag_ui_events_that_dump_back_to_the_same_json_and_bytes() -> None:
    library("ag_ui.core")
    encoder = library("ag_ui.encoder").EventEncoder()
    assert encoder.get_content_type() == MODEL.media_type
    exports = _every_export()
    assert len(exports) > 130
    for name, items in exports:
        for item, event in zip(items, objects(items), strict=True):
            dumped = event.model_dump(mode="json", by_alias=True, exclude_none=True)
            assert dumped == item, name
            assert list(dumped) == list(item), f"{name}: fields out of ag_ui's order"
            assert encoder.encode(event).encode() == frame(MODEL, item), name


def test_every_export_opens_and_closes_as_ag_ui_requires() -> None:
    """The lifecycle the TypeScript client's verifyEvents enforces: RUN_STARTED first, one
    end last, nothing after it; content only inside an open message or call; all closed at
    the end."""
    for name, items in _every_export():
        types = [item["type"] for item in items]
        assert types[0] == "RUN_STARTED", name
        assert types[-1] in ("RUN_FINISHED", "RUN_ERROR"), name
        assert types.count("RUN_FINISHED") + types.count("RUN_ERROR") == 1, name
        messages: set[str] = set()
        calls: set[str] = set()
        for item in items:
            kind = item["type"]
            if kind in ("TEXT_MESSAGE_START", "REASONING_MESSAGE_START", "REASONING_START"):
                assert item["messageId"] not in messages, name
                messages.add(item["messageId"])
            elif kind in ("TEXT_MESSAGE_CONTENT", "REASONING_MESSAGE_CONTENT"):
                assert item["messageId"] in messages, name
            elif kind in ("TEXT_MESSAGE_END", "REASONING_MESSAGE_END", "REASONING_END"):
                messages.remove(item["messageId"])
            elif kind == "TOOL_CALL_START":
                assert item["toolCallId"] not in calls, name
                calls.add(item["toolCallId"])
            elif kind == "TOOL_CALL_ARGS":
                assert item["toolCallId"] in calls, name
            elif kind == "TOOL_CALL_END":
                calls.remove(item["toolCallId"])
            assert kind != "TOOL_CALL_CHUNK", name
        assert not messages, name
        assert not calls, name


def test_interleaved_parallel_calls_stay_apart_through_the_round_trip() -> None:
    results = _stream("openai_chat/parallel_tool_calls_interleaved#0")
    items = list(encode_all(MODEL, results))
    args = [item["toolCallId"] for item in items if item["type"] == "TOOL_CALL_ARGS"]
    # the arguments of the three calls arrive interleaved, each fragment naming its call
    first, second = args[0], next(a for a in args if a != args[0])
    assert args.index(second) < len(args) - 1 - args[::-1].index(first)
    assert len(set(args)) == 3
    for call_id in set(args):
        text = "".join(
            item["delta"]
            for item in items
            if item["type"] == "TOOL_CALL_ARGS" and item["toolCallId"] == call_id
        )
        assert isinstance(json.loads(text), dict)
    back = roundtrip(MODEL, results)
    original = collect_agent_response(results)
    assert back.tool_calls == original.tool_calls
    assert [c.arguments for c in back.tool_calls] == [
        {"location": "Paris, France"},
        {"location": "Tokyo, Japan", "unit": "celsius"},
        {"timezone": "America/New_York"},
    ]
    # an AG-UI consumer that ignores raf's CUSTOM events gets the same calls
    native = list(native_items(MODEL, items))
    assert collect_agent_response(decode_all(MODEL, native)).tool_calls == original.tool_calls


def test_an_in_band_error_ends_the_run_with_run_error_and_nothing_after_it() -> None:
    results = _stream("openai_chat/in_band_error_chunk#0")
    original = collect_agent_response(results)
    assert original.errors
    items = list(encode_all(MODEL, results))
    assert items[-1]["type"] == "RUN_ERROR"
    assert [i["type"] for i in items].count("RUN_ERROR") == 1
    assert "RUN_FINISHED" not in [i["type"] for i in items]
    assert items[-1]["code"] == original.errors[0].error_code
    assert items[-1]["message"] == original.errors[0].message
    back = roundtrip(MODEL, results)
    assert to_canonical(back.errors) == to_canonical(original.errors)
    assert back.text == original.text
    # and nothing more comes out of the encoder once the run ended
    encoder = Encoder()
    for result in results:
        encoder.feed(result)
    assert encoder.close()[-1]["type"] == "RUN_ERROR"
    assert encoder.feed(AgentResponseResult(contents=(contents.Text(delta="late"),))) == []
    assert encoder.close() == []


def test_a_foreign_error_run_reads_back_as_an_error() -> None:
    items = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "RUN_ERROR", "message": "quota", "code": "rate_limited"},
    ]
    back = collect_agent_response(decode_all(MODEL, items))
    assert [(e.error_code, e.message) for e in back.errors] == [("rate_limited", "quota")]


def test_thread_and_run_ids_are_options_with_deterministic_defaults() -> None:
    items = list(encode_all(MODEL, []))
    assert items == [
        {"type": "RUN_STARTED", "threadId": "raf-thread", "runId": "raf-run"},
        {"type": "RUN_FINISHED", "threadId": "raf-thread", "runId": "raf-run"},
    ]
    encoder = Encoder(thread_id="th", run_id="r9")
    out = encoder.feed(AgentResponseResult(contents=(contents.Text(delta="Hi"),))) + encoder.close()
    assert out[0] == {"type": "RUN_STARTED", "threadId": "th", "runId": "r9"}
    assert out[1]["messageId"].startswith("r9-")
    assert out[-1]["threadId"] == "th"


def test_approval_requests_end_the_run_with_an_interrupt_outcome() -> None:
    runs = [(n, r) for n, r in agent_runs() if collect_agent_response(r).approval_requests]
    assert runs
    for name, results in runs:
        original = collect_agent_response(results)
        items = list(encode_all(MODEL, results))
        end = items[-1]
        if end["type"] != "RUN_FINISHED":
            continue
        interrupts = end["outcome"]["interrupts"]
        assert [i["toolCallId"] for i in interrupts] == [
            r.call_id for r in original.approval_requests
        ], name
        native = [item for item in items if item["type"] != "CUSTOM"]
        back = collect_agent_response(decode_all(MODEL, native))
        assert back.approval_requests == original.approval_requests, name


def _native(items: list[Any]) -> AgentResponse:
    return collect_agent_response(decode_all(MODEL, native_items(MODEL, items)))


def test_an_ag_ui_consumer_ignoring_rafs_custom_events_still_gets_the_answer() -> None:
    for stream in bundled_streams():
        results = _results_of(stream, "whole")
        original = collect_agent_response(results)
        back = _native(list(encode_all(MODEL, results)))
        assert back.text == original.text, stream.name
        assert back.reasoning_text == original.reasoning_text, stream.name
        assert back.tool_calls == original.tool_calls, stream.name
        assert [m.content for m in back.tool_messages] == [
            m.content for m in original.tool_messages
        ], stream.name
        if not original.errors:
            assert back.finish_reason == original.finish_reason, stream.name
            assert (back.id, back.model) == (original.id, original.model), stream.name
        if original.usage is not None:
            assert back.usage is not None, stream.name
            assert back.usage.prompt_tokens == original.usage.prompt_tokens, stream.name
            assert back.usage.total_tokens == original.usage.total_tokens, stream.name


def test_native_strips_exactly_rafs_extension_data() -> None:
    assert native({"type": "CUSTOM", "name": "raf.usage", "value": {}}) is None
    other = {"type": "CUSTOM", "name": "app.progress", "value": 1}
    assert native(other) is other
    result = {
        "type": "TOOL_CALL_RESULT",
        "metadata": {"raf": {"is_error": True}, "app": 1},
        "messageId": "m",
        "toolCallId": "c",
        "content": "boom",
        "role": "tool",
    }
    assert native(result) == {**result, "metadata": {"app": 1}}
    kept = native(result)
    assert kept is not None
    assert list(kept) == list(result)
    assert native({**result, "metadata": {"raf": {"is_error": True}}}) == {
        key: value for key, value in result.items() if key != "metadata"
    }
    assert native({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}) == {
        "type": "RUN_STARTED",
        "threadId": "t",
        "runId": "r",
    }


def test_a_plain_consumer_gets_ag_ui_events_with_nothing_of_raf_in_them() -> None:
    """What ag_ui.core loads of raf's events without raf's extension data: valid events, no
    raf.* CUSTOM, no metadata.raf, and (read back) the answer."""
    library("ag_ui.core")
    for name, items in _every_export():
        plain = list(native_items(MODEL, items))
        for item, event in zip(plain, objects(plain), strict=True):
            assert not (item["type"] == "CUSTOM" and item["name"].startswith("raf.")), name
            assert "raf" not in (event.metadata or {}), name
    results = _stream("openai_chat/parallel_tool_calls_interleaved#0")
    back = _native(list(encode_all(MODEL, results)))
    original = collect_agent_response(results)
    assert original.usage is not None
    assert (back.text, back.tool_calls, back.usage) == (
        original.text,
        original.tool_calls,
        msgspec.structs.replace(original.usage, prompt_cache_miss_tokens=None),  # not AG-UI's
    )


def test_a_run_that_ends_in_run_error_names_its_model_in_its_usage() -> None:
    items = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {
            "type": "RUN_ERROR",
            "message": "quota",
            "code": "rate_limited",
            "usage": [{"model": "m-1", "inputTokens": 3, "outputTokens": 0}],
        },
    ]
    back = collect_agent_response(decode_all(MODEL, items))
    assert back.model == "m-1"
    assert back.usage is not None
    assert back.usage.prompt_tokens == 3
    assert [e.error_code for e in back.errors] == ["rate_limited"]


def test_a_run_that_ends_on_a_calls_arguments_has_that_one_error_natively() -> None:
    """RUN_ERROR repeats the error of the call's arguments the decoder parsed itself: a plain
    consumer gets one error, with RUN_ERROR's words and the call's id and text."""
    results = _stream("anthropic_messages/fine_grained_tool_streaming_invalid_json#0")
    original = collect_agent_response(results)
    assert len(original.errors) == 1
    assert original.errors[0].call_id is not None
    back = _native(list(encode_all(MODEL, results)))
    assert to_canonical(back.errors) == to_canonical(original.errors)


def test_the_chunk_forms_read_back() -> None:
    items = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "role": "assistant", "delta": "Hel"},
        {"type": "TEXT_MESSAGE_CHUNK", "delta": "lo"},
        {"type": "REASONING_MESSAGE_CHUNK", "messageId": "r1", "delta": "hmm"},
        {"type": "TOOL_CALL_CHUNK", "toolCallId": "a", "toolCallName": "f", "delta": '{"x"'},
        {"type": "TOOL_CALL_CHUNK", "delta": ": 1}"},
        {"type": "TOOL_CALL_CHUNK", "toolCallId": "b", "toolCallName": "g", "delta": ""},
        {"type": "TOOL_CALL_CHUNK", "toolCallId": "c", "toolCallName": "h", "delta": "{oops"},
        {"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "a", "content": "42"},
        {
            "type": "RUN_FINISHED",
            "threadId": "t",
            "runId": "r",
            "result": {"finishReason": "tool_calls"},
            "usage": [{"inputTokens": 5, "outputTokens": 7, "totalTokens": 12}],
        },
    ]
    results = list(decode_all(MODEL, items))
    response = collect_agent_response(results)
    assert response.text == "Hello"
    assert response.reasoning_text == "hmm"
    assert [(c.id, c.name, c.arguments) for c in response.tool_calls] == [
        ("a", "f", {"x": 1}),
        ("b", "g", {}),
    ]
    assert [(e.error_code, e.call_id, e.raw) for e in response.errors] == [
        (ErrorCode.INVALID_TOOL_ARGUMENTS, "c", "{oops")
    ]
    assert [m.content for m in response.tool_messages] == ["42"]
    assert response.finish_reason == FinishReason.TOOL_CALLS
    assert response.usage is not None
    assert response.usage.total_tokens == 12
    # each chunk call ended before the next began: the calls never mix
    ends = [c.call_id for r in results for c in r.contents if isinstance(c, contents.ToolCallEnd)]
    assert ends == ["a", "b", "c"]


def test_the_decoder_never_raises_and_names_each_bad_item() -> None:
    items: list[Any] = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        "not an event",
        {"type": "NO_SUCH_EVENT"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": 5},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "ghost", "delta": "{}"},
        {"type": "STATE_SNAPSHOT", "snapshot": {}},
        {"type": "CUSTOM", "name": "someone.else", "value": 1},
        {"type": "CUSTOM", "name": "raf.usage", "value": {"type": "usage", "usage": "x"}},
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "kept"},
    ]
    response = collect_agent_response(decode_all(MODEL, items))
    assert response.text == "kept"
    invalid = [e for e in response.errors if e.error_code == ErrorCode.INVALID_CHUNK]
    assert [e.message.split(":")[0] for e in invalid] == [
        "AG-UI item 1",
        "AG-UI item 2",
        "AG-UI item 3",
        "AG-UI item 4",
        "AG-UI item 7",
    ]
    assert [n.message.split(":")[0] for n in response.notices] == ["AG-UI item 5", "AG-UI item 6"]
    assert all(n.error_code == ErrorCode.UNRECOGNISED_CHUNKS for n in response.notices)
    # the stream was cut: no RUN_FINISHED
    assert response.errors[-1].error_code == ErrorCode.STREAM_TRUNCATED


def test_events_after_the_run_ended_are_out_of_place() -> None:
    decoder = Decoder()
    decoder.feed({"type": "RUN_STARTED", "threadId": "t", "runId": "r"})
    decoder.feed({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"})
    late = decoder.feed({"type": "TEXT_MESSAGE_START", "messageId": "m"})
    assert [c.error_code for r in late for c in r.contents] == [ErrorCode.INVALID_CHUNK]  # type: ignore[union-attr]
    assert decoder.close() == []


def test_signatures_travel_as_encrypted_values() -> None:
    """A reasoning signature is REASONING_ENCRYPTED_VALUE on its reasoning message; the
    turn's blocks come back with it."""
    runs = [
        (s.name, _results_of(s, "whole"))
        for s in bundled_streams()
        if any(
            b.signature
            for m in collect_agent_response(_results_of(s, "whole")).turn_transcript
            for b in m.blocks
            if isinstance(b, blocks.Reasoning)
        )
    ]
    assert runs
    for name, results in runs:
        items = list(encode_all(MODEL, results))
        assert any(i["type"] == "REASONING_ENCRYPTED_VALUE" for i in items), name
        original = collect_agent_response(results)
        assert roundtrip(MODEL, results).turn_transcript == original.turn_transcript, name


def test_objects_are_ag_ui_event_classes() -> None:
    core = library("ag_ui.core")
    items = list(encode_all(MODEL, _stream("openai_chat/parallel_tool_calls_interleaved#0")))
    events = objects(items)
    assert isinstance(events[0], core.RunStartedEvent)
    assert isinstance(events[1], core.ToolCallStartEvent)
    assert isinstance(events[-1], core.RunFinishedEvent)
    with pytest.raises(ValueError, match="validation error"):  # pydantic's ValidationError
        objects([{"type": "TOOL_CALL_ARGS", "toolCallId": "a"}])


_KEYS: tuple[str, ...] = (
    "messageId",
    "delta",
    "toolCallId",
    "toolCallName",
    "role",
    "name",
    "value",
    "content",
)
_KEYS += ("subtype", "entityId", "encryptedValue", "threadId", "runId", "result", "usage")
_KEYS += ("outcome", "metadata", "message", "code")
_TYPES = [
    "RUN_STARTED",
    "RUN_FINISHED",
    "RUN_ERROR",
    "TEXT_MESSAGE_START",
    "TEXT_MESSAGE_CONTENT",
    "TEXT_MESSAGE_END",
    "TEXT_MESSAGE_CHUNK",
    "REASONING_MESSAGE_START",
    "REASONING_MESSAGE_CONTENT",
    "REASONING_ENCRYPTED_VALUE",
    "TOOL_CALL_START",
    "TOOL_CALL_ARGS",
    "TOOL_CALL_END",
    "TOOL_CALL_CHUNK",
    "TOOL_CALL_RESULT",
    "CUSTOM",
    "STATE_DELTA",
    "SOMETHING",
]
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=6,
)
_SMALL = st.sampled_from(["a", "b", "raf.usage", "raf.result", "raf.custom", "message"])
_ITEM = st.one_of(
    _JSON,
    st.fixed_dictionaries(
        {"type": st.sampled_from(_TYPES)},
        optional={key: st.one_of(_SMALL, _JSON) for key in _KEYS},
    ),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_ITEM, max_size=12))
def test_the_decoder_never_raises_on_any_json(items: list[Any]) -> None:
    results = list(decode_all(MODEL, items))
    collect_agent_response(results)
    assert all(isinstance(r, AgentResponseResult) for r in results)


def test_results_out_of_order_still_make_a_valid_stream_and_come_back() -> None:
    """A call started twice, arguments of a call never started, a call never ended: AG-UI's
    rules forbid the first two as events, so raf keeps them as CUSTOM events; the open call
    is ended before the run ends."""
    results = (
        AgentResponseResult(contents=(contents.ToolCallArgs(call_id="ghost", args_delta="{}"),)),
        AgentResponseResult(contents=(contents.ToolCallStart(call_id="a", name="f"),)),
        AgentResponseResult(contents=(contents.ToolCallStart(call_id="a", name="f"),)),
        AgentResponseResult(contents=(contents.ToolCallArgs(call_id="a", args_delta='{"x":1}'),)),
        AgentResponseResult(contents=(contents.Text(delta=""),)),
    )
    items = list(encode_all(MODEL, results))
    assert [i["type"] for i in items] == [
        "RUN_STARTED",
        "CUSTOM",
        "TOOL_CALL_START",
        "CUSTOM",
        "TOOL_CALL_ARGS",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "TOOL_CALL_END",
        "RUN_FINISHED",
    ]
    assert [i["name"] for i in items if i["type"] == "CUSTOM"] == [
        "raf.tool_call_args",
        "raf.tool_call_start",
    ]
    back = list(decode_all(MODEL, items))
    original = collect_agent_response(results)
    assert collect_agent_response(back).turn_transcript == original.turn_transcript
    assert [c for r in back for c in r.contents if not isinstance(c, contents.ToolCallEnd)] == [
        c for r in results for c in r.contents
    ]


def test_a_stream_built_with_ag_ui_core_reads_back() -> None:
    """Another producer's stream, made with ag-ui-protocol's own classes and dumped as its
    encoder does: the chunk forms, reasoning, a tool result, usage and the finish."""
    core = library("ag_ui.core")
    built = [
        core.RunStartedEvent(thread_id="t", run_id="r"),
        core.ReasoningStartEvent(message_id="s"),
        core.ReasoningMessageChunkEvent(message_id="rm", delta="think"),
        core.ReasoningEndEvent(message_id="s"),
        core.TextMessageChunkEvent(message_id="m", role="assistant", delta="Hi"),
        core.ToolCallChunkEvent(tool_call_id="c1", tool_call_name="f", delta='{"a":'),
        core.ToolCallChunkEvent(tool_call_id="c1", delta="1}"),
        core.ToolCallStartEvent(tool_call_id="c2", tool_call_name="g", parent_message_id="m"),
        core.ToolCallArgsEvent(tool_call_id="c2", delta="{}"),
        core.ToolCallEndEvent(tool_call_id="c2"),
        core.ToolCallResultEvent(message_id="tm", tool_call_id="c1", content="ok"),
        core.RunFinishedEvent(
            thread_id="t",
            run_id="r",
            result={"finishReason": "stop"},
            usage=[core.TokenUsage(input_tokens=3, output_tokens=4, total_tokens=7)],
        ),
    ]
    items = [json.loads(event.model_dump_json(by_alias=True)) for event in built]
    response = collect_agent_response(decode_all(MODEL, items))
    assert response.text == "Hi"
    assert response.reasoning_text == "think"
    assert [(c.id, c.name, c.arguments) for c in response.tool_calls] == [
        ("c1", "f", {"a": 1}),
        ("c2", "g", {}),
    ]
    assert [(m.tool_call_id, m.content) for m in response.tool_messages] == [("c1", "ok")]
    assert response.finish_reason == "stop"
    assert response.usage is not None
    assert (response.usage.prompt_tokens, response.usage.total_tokens) == (3, 7)
    assert not response.errors
    assert not response.notices
