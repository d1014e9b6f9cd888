"""The ``cohere_v2`` dialect (Cohere v2 Chat streams): what a client relies on, rule by rule
(docs/dialects.md, section ``cohere_v2``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from raf import dialects, formats
from raf.cassettes import load
from raf.dialects.sniff import sniff
from raf.formats.cohere_v2 import strategies
from raf.framing.sse import ServerSentEvent
from raf.model import updates
from raf.model.canonical import to_canonical
from raf.model.messages import ChatMessage, MessageRole
from raf.model.request import Conversation
from raf.model.updates import AgentResponseUpdate
from raf.pipeline import UpdateDecoder, respond
from tests.conformance.reader_cohere_v2 import read_updates
from tests.conformance.test_golden_review import without_messages
from tests.properties.support import summary

NAME = "cohere_v2"
ROOT = Path(__file__).resolve().parents[2]


def frame(payload: Any, event: str | None = None) -> bytes:
    data = payload if isinstance(payload, str) else json.dumps(payload)
    name = (
        event if event is not None else (payload.get("type") if isinstance(payload, dict) else None)
    )
    return (f"event: {name}\n" if name else "").encode() + f"data: {data}\n\n".encode()


START = {"id": "m-1", "type": "message-start", "delta": {"message": {"role": "assistant"}}}


def text_start(index: int = 0) -> dict[str, Any]:
    return {
        "type": "content-start",
        "index": index,
        "delta": {"message": {"content": {"type": "text", "text": ""}}},
    }


def text(index: int, value: str, key: str = "text") -> dict[str, Any]:
    return {
        "type": "content-delta",
        "index": index,
        "delta": {"message": {"content": {key: value}}},
    }


def call_start(index: int, call_id: str, name: str, arguments: str = "") -> dict[str, Any]:
    function = {"name": name, "arguments": arguments}
    call = {"id": call_id, "type": "function", "function": function}
    return {"type": "tool-call-start", "index": index, "delta": {"message": {"tool_calls": call}}}


def call_delta(index: int, arguments: str) -> dict[str, Any]:
    fragment = {"function": {"arguments": arguments}}
    return {
        "type": "tool-call-delta",
        "index": index,
        "delta": {"message": {"tool_calls": fragment}},
    }


def end(reason: str = "COMPLETE", usage: Any = None, **more: Any) -> dict[str, Any]:
    delta: dict[str, Any] = {"finish_reason": reason, **more}
    if usage is not None:
        delta["usage"] = usage
    return {"type": "message-end", "delta": delta}


def body(*payloads: Any, done: bool = True) -> list[bytes]:
    return [frame(p) for p in payloads] + ([b"data: [DONE]\n\n"] if done else [])


def feed(*payloads: Any, done: bool = True) -> list[AgentResponseUpdate]:
    dialect = dialects.create(NAME)
    out: list[AgentResponseUpdate] = []
    for payload in payloads:
        data = payload if isinstance(payload, str) else json.dumps(payload)
        out += dialect.feed(ServerSentEvent(event="message", data=data))
    if done:
        out += dialect.feed(ServerSentEvent(event="message", data="[DONE]"))
    return out + dialect.close()


def codes(out: list[AgentResponseUpdate]) -> list[str]:
    return [u.error_code for u in out if isinstance(u, updates.Error)]


def test_a_text_stream_reads_as_text_with_the_id_and_tokens_usage() -> None:
    usage = {
        "billed_units": {"input_tokens": 4, "output_tokens": 2},
        "tokens": {"input_tokens": 70, "output_tokens": 3},
        "cached_tokens": 60,
    }
    response = respond(
        body(START, text_start(), text(0, "Hi"), text(0, " there"), end("COMPLETE", usage)), NAME
    )
    assert (response.id, response.model, response.text) == ("m-1", None, "Hi there")
    assert response.finish_reason == "stop"
    assert response.usage is not None
    assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (70, 3)
    assert (response.usage.prompt_cache_hit_tokens, response.usage.prompt_cache_miss_tokens) == (
        60,
        10,
    )
    assert response.errors == ()


def test_billed_units_are_read_only_without_tokens_and_an_empty_usage_is_no_usage() -> None:
    billed = {"billed_units": {"input_tokens": 4, "output_tokens": 2}}
    response = respond(body(START, text(0, "a"), end("COMPLETE", billed)), NAME)
    assert response.usage is not None
    assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (4, 2)
    assert respond(body(START, text(0, "a"), end("COMPLETE", {})), NAME).usage is None


def test_finish_reasons_follow_the_table_and_unknown_ones_are_kept_verbatim() -> None:
    for wire, ours in [
        ("COMPLETE", "stop"),
        ("STOP_SEQUENCE", "stop"),
        ("MAX_TOKENS", "length"),
        ("TOOL_CALL", "tool_calls"),
        ("TIMEOUT", "TIMEOUT"),
        ("SOMETHING_NEW", "SOMETHING_NEW"),
    ]:
        response = respond(body(START, text(0, "a"), end(wire)), NAME)
        assert response.finish_reason == ours, wire
        assert response.errors == ()


def test_an_error_end_is_a_provider_error_with_its_text_and_type_and_no_finish() -> None:
    response = respond(
        body(
            START,
            {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "I will look."}}},
            end("ERROR", {}, error="invalid tool generation", error_type="INVALID_TOOL_GENERATION"),
        ),
        NAME,
    )
    assert response.reasoning_text == "I will look."
    assert response.finish_reason is None
    assert response.usage is None
    assert [e.error_code for e in response.errors] == ["provider_error"]
    assert "invalid tool generation" in response.errors[0].message
    assert "INVALID_TOOL_GENERATION" in response.errors[0].message


def test_thinking_and_tool_plan_are_reasoning_never_text() -> None:
    out = feed(
        START,
        {
            "type": "content-start",
            "index": 0,
            "delta": {"message": {"content": {"type": "thinking", "thinking": ""}}},
        },
        text(0, "hmm", key="thinking"),
        {"type": "content-end", "index": 0},
        {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": " plan"}}},
        text_start(1),
        text(1, "answer"),
        {"type": "content-end", "index": 1},
        end(),
    )
    assert [type(u).__name__ for u in out] == [
        "ResponseMetadata",
        "ReasoningDelta",
        "ReasoningDelta",
        "TextDelta",
        "Finish",
    ]


def test_parallel_calls_are_routed_by_their_index_not_by_recency() -> None:
    response = respond(
        body(
            START,
            call_start(0, "weather_1", "weather"),
            call_start(1, "attractions_2", "attractions"),
            call_delta(0, '{"location": '),
            call_delta(1, '{"city": '),
            call_delta(0, '"Paris"}'),
            call_delta(1, '"Rome"}'),
            {"type": "tool-call-end", "index": 0},
            {"type": "tool-call-end", "index": 1},
            end("TOOL_CALL"),
        ),
        NAME,
    )
    calls = [(c.id, c.name, c.arguments) for c in response.tool_calls]
    assert calls == [
        ("weather_1", "weather", {"location": "Paris"}),
        ("attractions_2", "attractions", {"city": "Rome"}),
    ]
    assert response.finish_reason == "tool_calls"
    assert response.errors == ()


def test_a_call_with_no_delta_has_the_arguments_of_its_start_or_none() -> None:
    out = feed(
        START,
        call_start(0, "a", "ping"),
        {"type": "tool-call-end", "index": 0},
        call_start(1, "b", "echo", '{"x": 1}'),
        {"type": "tool-call-end", "index": 1},
        end("TOOL_CALL"),
    )
    assert [u for u in out if isinstance(u, updates.ToolCallArgs)] == [
        updates.ToolCallArgs(id="b", args_delta='{"x": 1}')
    ]
    assert codes(out) == []


def test_fragments_of_calls_that_do_not_fit_are_protocol_violations_and_reading_goes_on() -> None:
    out = feed(
        START,
        call_delta(3, "{}"),  # never started
        call_start(0, "a", "ping"),
        call_start(0, "b", "pong"),  # started twice
        {"type": "tool-call-end", "index": 0},
        call_delta(0, "{}"),  # after its end
        {"type": "content-end", "index": 5},  # a block never started
        text(0, "still read"),
        end(),
    )
    assert codes(out) == ["protocol_violation"] * 4
    assert updates.TextDelta(delta="still read") in out
    assert isinstance(out[-1], updates.Finish)


def test_done_before_message_end_is_a_truncation_and_message_end_makes_it_clean() -> None:
    assert codes(feed(START, text(0, "Hi"))) == ["stream_truncated"]
    assert codes(feed(START, text(0, "Hi"), done=False)) == ["stream_truncated"]
    assert codes(feed(START, text(0, "Hi"), end(), done=False)) == []


def test_a_citation_is_kept_whole_as_a_raw_item_and_changes_no_text() -> None:
    citation = {"start": 0, "end": 2, "text": "Hi", "sources": [], "type": "TEXT_CONTENT"}
    out = feed(
        START,
        text(0, "Hi"),
        {"type": "citation-start", "index": 0, "delta": {"message": {"citations": citation}}},
        {"type": "citation-end", "index": 0},
        {"type": "debug", "prompt": "..."},
        end(),
    )
    assert updates.RawItem(item=citation) in out
    assert codes(out) == []
    assert [u.delta for u in out if isinstance(u, updates.TextDelta)] == ["Hi"]


def test_fields_of_a_wrong_type_are_named_and_the_rest_still_counts() -> None:
    out = feed(
        START,
        {"type": "content-delta", "index": "0", "delta": {"message": {"content": {"text": "a"}}}},
        end(),
    )
    assert codes(out) == ["invalid_chunk"]
    assert updates.TextDelta(delta="a") in out


def test_auto_sniffs_the_format_and_chat_completions_names_it() -> None:
    stream = b"".join(body(START, text_start(), text(0, "Hi"), end()))
    assert sniff(stream) == NAME
    assert respond([stream], "auto").text == "Hi"
    (error,) = respond([stream], "openai_chat").errors
    assert error.error_code == "unrecognised_format"
    assert "use --dialect cohere_v2" in error.message


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "type",
                    "index",
                    "delta",
                    "message",
                    "content",
                    "text",
                    "thinking",
                    "tool_calls",
                    "function",
                    "arguments",
                    "id",
                    "name",
                    "tool_plan",
                    "finish_reason",
                    "usage",
                    "tokens",
                    "error",
                    "citations",
                ]
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)
_TYPES = st.sampled_from(
    [
        "message-start",
        "content-start",
        "content-delta",
        "content-end",
        "tool-plan-delta",
        "tool-call-start",
        "tool-call-delta",
        "tool-call-end",
        "citation-start",
        "citation-end",
        "message-end",
        "debug",
    ]
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(_TYPES, st.dictionaries(st.sampled_from(["index", "delta", "id"]), _JSON)),
        max_size=8,
    )
)
def test_the_dialect_never_raises_nor_reports_an_internal_error(events: list[Any]) -> None:
    payloads = [{**rest, "type": kind} for kind, rest in events]
    assert "internal_error" not in codes(feed(*payloads))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(_TYPES, st.dictionaries(st.sampled_from(["index", "delta", "id"]), _JSON)),
        max_size=8,
    ),
    st.booleans(),
)
def test_the_documented_reader_agrees_with_the_dialect_on_any_events(
    events: list[Any], done: bool
) -> None:
    """The reader written from docs/dialects.md alone gives the dialect's updates (messages
    aside) on event sequences of every kind, well-formed or not."""
    stream = b"".join(frame({**rest, "type": kind}) for kind, rest in events)
    stream += b"data: [DONE]\n\n" if done else b""
    decoder = UpdateDecoder(NAME)
    ours = [
        {**u, "message": ""} if u.get("type") == "error" else u
        for u in to_canonical(decoder.feed(stream) + decoder.close())
    ]
    assert ours == [
        {**u, "message": ""} if u.get("type") == "error" else u
        for u in read_updates(200, "OK", stream)
    ]


@pytest.mark.parametrize("profile", sorted(strategies.PROFILES))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_drawn_streams_of_each_profile_aggregate_to_the_ground_truth(
    profile: str, data: st.DataObject
) -> None:
    stream = data.draw(strategies.streams(profile))
    assert summary(respond(list(stream.chunks), NAME)) == summary(stream.response)
    assert summary(respond(list(stream.chunks), "auto")) == summary(stream.response)
    assert respond(list(stream.chunks), NAME).id == stream.response.id
    decoder = UpdateDecoder(NAME)
    ours = to_canonical(
        [u for chunk in stream.chunks for u in decoder.feed(chunk)] + decoder.close()
    )
    assert without_messages(read_updates(200, "OK", stream.body)) == without_messages(ours)


def test_the_follow_up_sends_the_tool_plan_calls_and_citations_back_as_cohere_takes_them() -> None:
    fmt = formats.get(NAME)
    assert fmt.build_request is not None
    assert fmt.read_request is not None
    first = load(ROOT / "cassettes" / NAME / "tool_plan_then_parallel_calls.yaml").interactions[0]
    asked = fmt.read_request(json.loads(first.request.body or "{}"))
    turn = respond([first.response.body], NAME).turn_transcript
    results = tuple(
        ChatMessage(role=MessageRole.TOOL, content="sunny", tool_call_id=call.id)
        for call in respond([first.response.body], NAME).tool_calls
    )
    body = fmt.build_request(
        Conversation(
            messages=(*asked.messages, *turn, *results), tools=asked.tools, options=asked.options
        )
    )
    assistant, *tools = body["messages"][1:]
    assert assistant["tool_plan"].startswith("I will use the weather tool")
    assert "content" not in assistant  # a turn of only a plan and calls has no text
    assert [c["id"] for c in assistant["tool_calls"]] == [
        "weather_e8p4pn45zt0t",
        "cityAttractions_pyxssbwnq9fq",
    ]
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {
        "location": "San Francisco"
    }
    assert [(t["role"], t["tool_call_id"]) for t in tools] == [
        ("tool", "weather_e8p4pn45zt0t"),
        ("tool", "cityAttractions_pyxssbwnq9fq"),
    ]
    cited = load(ROOT / "cassettes" / NAME / "citation_after_text.yaml").interactions[0]
    (answer,) = respond([cited.response.body], NAME).turn_transcript
    (wire,) = fmt.build_request(Conversation(messages=(answer,)))["messages"]
    assert wire["content"] == "The key benefits are automation of tasks."
    assert [c["text"] for c in wire["citations"]] == ["automation of tasks"]
