"""openai_responses dialect: Responses API events -> updates (docs/dialects.md, section openai_responses).

Expected updates are written by hand from the spec fragment; every stream is also checked
under whole, 1-byte and random network chunking, and a property test feeds arbitrary bytes.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from raf.dialects import create, names, register
from raf.formats.openai_responses.dialect import (
    FINISH_REASONS,
    USAGE,
    OpenAIResponsesDialect,
    parse_usage,
)
from raf.framing.sse import SSEDecoder
from raf.model import Usage, updates
from raf.model.updates import AgentResponseUpdate, DeltaBatch
from raf.pipeline import UpdateDecoder, respond
from tests.helpers import (
    CHUNKINGS,
    feed_all,
    read_with_and_without_usual,
    split,
    taken_by_usual,
)

if "openai_responses" not in names():  # the built-in table may be edited elsewhere meanwhile
    register("openai_responses", OpenAIResponsesDialect)

RID = "resp_0a1b2c"
MODEL = "gpt-5.1-2025-11-13"
RM = updates.ResponseMetadata(id=RID, model=MODEL)
USAGE_RAW = {
    "input_tokens": 20,
    "input_tokens_details": {"cached_tokens": 8},
    "output_tokens": 30,
    "output_tokens_details": {"reasoning_tokens": 12},
    "total_tokens": 50,
}
U = Usage(
    prompt_tokens=20,
    completion_tokens=30,
    total_tokens=50,
    prompt_cache_hit_tokens=8,
    prompt_cache_miss_tokens=12,
    reasoning_tokens=12,
)


def response(status: str = "in_progress", **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": RID,
        "object": "response",
        "created_at": 1741290958,
        "status": status,
        "model": MODEL,
        "output": [],
        "usage": None,
        "error": None,
        "incomplete_details": None,
    }
    body.update(extra)
    return body


def created(**extra: Any) -> dict[str, Any]:
    return {"type": "response.created", "response": response(**extra)}


def completed(usage: Any = USAGE_RAW, **extra: Any) -> dict[str, Any]:
    return {"type": "response.completed", "response": response("completed", usage=usage, **extra)}


def added(item: dict[str, Any], index: int) -> dict[str, Any]:
    return {"type": "response.output_item.added", "output_index": index, "item": item}


def done(item: dict[str, Any], index: int) -> dict[str, Any]:
    return {"type": "response.output_item.done", "output_index": index, "item": item}


def msg(item_id: str = "msg_1") -> dict[str, Any]:
    return {
        "type": "message",
        "id": item_id,
        "role": "assistant",
        "status": "in_progress",
        "content": [],
    }


def text_delta(delta: str, item_id: str = "msg_1", index: int = 0, ci: int = 0) -> dict[str, Any]:
    return {
        "type": "response.output_text.delta",
        "item_id": item_id,
        "output_index": index,
        "content_index": ci,
        "delta": delta,
        "logprobs": [],
        "obfuscation": "xYz",
    }


def text_done(text: str, item_id: str = "msg_1", index: int = 0, ci: int = 0) -> dict[str, Any]:
    return {
        "type": "response.output_text.done",
        "item_id": item_id,
        "output_index": index,
        "content_index": ci,
        "text": text,
    }


def fc(
    item_id: str, call_id: str, name: str = "get_weather", arguments: str = ""
) -> dict[str, Any]:
    return {
        "type": "function_call",
        "id": item_id,
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
        "status": "in_progress",
    }


def args_delta(item_id: str, delta: str, index: int) -> dict[str, Any]:
    return {
        "type": "response.function_call_arguments.delta",
        "item_id": item_id,
        "output_index": index,
        "delta": delta,
    }


def args_done(item_id: str, arguments: str, index: int) -> dict[str, Any]:
    return {
        "type": "response.function_call_arguments.done",
        "item_id": item_id,
        "output_index": index,
        "arguments": arguments,
    }


def sse(events: list[Any], *, named: bool = True, done_marker: bool = False) -> bytes:
    """A body: ``event: <type>`` + ``data: <json>`` (``named``), or data lines only."""
    lines = []
    seq = 0
    for event in events:
        if isinstance(event, str):
            lines.append(f"data: {event}\n\n")
            continue
        payload = event
        if "sequence_number" not in payload and "type" in payload:
            payload = {**payload, "sequence_number": seq}
        seq += 1
        data = json.dumps(payload, separators=(",", ":"))
        name = f"event: {payload.get('type')}\n" if named and "type" in payload else ""
        lines.append(f"{name}data: {data}\n\n")
    if done_marker:
        lines.append("data: [DONE]\n\n")
    return "".join(lines).encode()


def run(body: bytes, how: str = "whole") -> list[AgentResponseUpdate]:
    decoder = UpdateDecoder("openai_responses")
    return feed_all(decoder.feed, decoder.close, split(body, how))


def decode(events: list[Any], **kw: Any) -> list[AgentResponseUpdate]:
    body = sse(events, **kw)
    results = [run(body, how) for how in CHUNKINGS]
    assert results[1] == results[0]
    assert results[2] == results[0]
    return results[0]


def codes(out: list[AgentResponseUpdate]) -> list[str]:
    return [u.error_code for u in out if isinstance(u, updates.Error)]


def without_errors(out: list[AgentResponseUpdate]) -> list[AgentResponseUpdate]:
    return [u for u in out if not isinstance(u, updates.Error)]


# -- the basics ---------------------------------------------------------------------------------


def test_registered_and_attributes() -> None:
    dialect = create("openai_responses")
    assert isinstance(dialect, OpenAIResponsesDialect)
    assert dialect.name == "openai_responses"
    assert dialect.framing == "sse"
    assert FINISH_REASONS["max_output_tokens"] == "length"


def test_plain_text() -> None:
    out = decode(
        [
            created(),
            {"type": "response.in_progress", "response": response()},
            added(msg(), 0),
            {
                "type": "response.content_part.added",
                "item_id": "msg_1",
                "output_index": 0,
                "content_index": 0,
                "part": {"type": "output_text", "text": ""},
            },
            text_delta("Hel"),
            text_delta("lo"),
            text_done("Hello"),
            done(
                {
                    **msg(),
                    "status": "completed",
                    "content": [{"type": "output_text", "text": "Hello"}],
                },
                0,
            ),
            completed(),
        ]
    )
    assert out == [
        RM,
        updates.TextDelta(delta="Hel"),
        updates.TextDelta(delta="lo"),
        updates.Finish(finish_reason="stop", usage=U),
    ]


@pytest.mark.parametrize("named", [True, False])
@pytest.mark.parametrize("marker", [True, False])
def test_framing_variants(named: bool, marker: bool) -> None:
    """event: lines or data only (OpenRouter); [DONE] or no end marker (OpenAI)."""
    out = decode(
        [created(), added(msg(), 0), text_delta("4"), completed()], named=named, done_marker=marker
    )
    assert out == [RM, updates.TextDelta(delta="4"), updates.Finish(finish_reason="stop", usage=U)]


def test_crlf_framing() -> None:
    body = sse([created(), added(msg(), 0), text_delta("a"), completed()]).replace(b"\n", b"\r\n")
    for how in CHUNKINGS:
        assert run(body, how) == [
            RM,
            updates.TextDelta(delta="a"),
            updates.Finish(finish_reason="stop", usage=U),
        ]


def test_metadata_from_every_lifecycle_event_only_on_change() -> None:
    out = decode(
        [
            {"type": "response.queued", "response": response("queued")},
            created(),
            {"type": "response.in_progress", "response": response()},
            completed(model="gpt-5.1-other"),
        ]
    )
    assert out[0] == RM
    assert updates.ResponseMetadata(id=RID, model="gpt-5.1-other") in out
    assert codes(out) == []


def test_refusal_is_text() -> None:
    out = decode(
        [
            created(),
            added(msg(), 0),
            {
                "type": "response.refusal.delta",
                "item_id": "msg_1",
                "output_index": 0,
                "content_index": 0,
                "delta": "I can't",
            },
            {
                "type": "response.refusal.done",
                "item_id": "msg_1",
                "output_index": 0,
                "content_index": 0,
                "refusal": "I can't",
            },
            completed(),
        ]
    )
    assert without_errors(out)[1:-1] == [updates.TextDelta(delta="I can't")]
    assert codes(out) == []


def test_refusal_done_without_deltas() -> None:
    out = decode(
        [
            created(),
            added(msg(), 0),
            {
                "type": "response.refusal.done",
                "item_id": "msg_1",
                "output_index": 0,
                "content_index": 0,
                "refusal": "No.",
            },
            completed(),
        ]
    )
    assert updates.TextDelta(delta="No.") in out


def reasoning_item(item_id: str = "rs_1") -> dict[str, Any]:
    return {"type": "reasoning", "id": item_id, "summary": [], "encrypted_content": "gAAAA=="}


def summary_delta(delta: str, si: int, item_id: str = "rs_1", index: int = 0) -> dict[str, Any]:
    return {
        "type": "response.reasoning_summary_text.delta",
        "item_id": item_id,
        "output_index": index,
        "summary_index": si,
        "delta": delta,
    }


def test_reasoning_summaries_joined_with_blank_line() -> None:
    out = decode(
        [
            created(),
            added(reasoning_item(), 0),
            summary_delta("First ", 0),
            summary_delta("part.", 0),
            {
                "type": "response.reasoning_summary_text.done",
                "item_id": "rs_1",
                "output_index": 0,
                "summary_index": 0,
                "text": "First part.",
            },
            summary_delta("Second.", 1),
            done(reasoning_item(), 0),
            added(reasoning_item("rs_2"), 1),
            summary_delta("Third.", 0, "rs_2", 1),
            completed(),
        ]
    )
    assert [u.delta for u in out if isinstance(u, updates.ReasoningDelta)] == [
        "First ",
        "part.",
        "\n\n",
        "Second.",
        "\n\n",
        "Third.",
    ]
    assert codes(out) == []


def test_raw_reasoning_text_openrouter_interleaved_with_message() -> None:
    """OpenRouter / gpt-oss: reasoning_text deltas; the message item opens and closes while
    the reasoning item is still open; no event names, [DONE] at the end."""
    out = decode(
        [
            {
                "type": "response.created",
                "response": response(id="gen-1", model="openai/gpt-oss-20b"),
            },
            added({"type": "reasoning", "id": "rs_tmp_a", "summary": []}, 0),
            {
                "type": "response.reasoning_text.delta",
                "item_id": "rs_tmp_a",
                "output_index": 0,
                "content_index": 0,
                "delta": "Think",
            },
            added({"type": "message", "id": "msg_tmp_b", "content": []}, 1),
            text_delta("4", "msg_tmp_b", 1),
            done({"type": "message", "id": "msg_tmp_b", "content": []}, 1),
            {
                "type": "response.reasoning_text.done",
                "item_id": "rs_tmp_a",
                "output_index": 0,
                "content_index": 0,
                "text": "Think",
            },
            done({"type": "reasoning", "id": "rs_tmp_a", "summary": []}, 0),
            {
                "type": "response.completed",
                "response": response(
                    "completed", id="gen-1", model="openai/gpt-oss-20b", usage=USAGE_RAW
                ),
            },
        ],
        named=False,
        done_marker=True,
    )
    assert without_errors(out)[1:] == [
        updates.ReasoningItem(item_id="rs_tmp_a"),
        updates.ReasoningDelta(delta="Think"),
        updates.TextDelta(delta="4"),
        updates.ReasoningItem(item_id="rs_tmp_a"),
        updates.Finish(finish_reason="stop", usage=U),
    ]
    assert codes(out) == []


def test_reasoning_text_done_only() -> None:
    out = decode(
        [
            created(),
            added(reasoning_item(), 0),
            {
                "type": "response.reasoning_text.done",
                "item_id": "rs_1",
                "output_index": 0,
                "content_index": 0,
                "text": "All at once.",
            },
            completed(),
        ]
    )
    assert updates.ReasoningDelta(delta="All at once.") in out


def test_text_done_without_deltas_is_the_text() -> None:
    out = decode([created(), added(msg(), 0), text_done("Whole"), completed()])
    assert out[1] == updates.TextDelta(delta="Whole")
    assert codes(out) == []


def test_text_done_differs_from_deltas_keeps_deltas() -> None:
    out = decode(
        [created(), added(msg(), 0), text_delta("Hello"), text_done("Hello world"), completed()]
    )
    assert [u for u in out if isinstance(u, updates.TextDelta)] == [
        updates.TextDelta(delta="Hello")
    ]
    assert codes(out) == ["protocol_notice"]


def test_empty_delta_does_not_block_done_text() -> None:
    out = decode([created(), added(msg(), 0), text_delta(""), text_done("Hi"), completed()])
    assert [u for u in out if isinstance(u, updates.TextDelta)] == [updates.TextDelta(delta="Hi")]


# -- tool calls -----------------------------------------------------------------------------------


def test_function_call() -> None:
    out = decode(
        [
            created(),
            added(fc("fc_1", "call_abc"), 0),
            args_delta("fc_1", '{"city":', 0),
            args_delta("fc_1", '"Paris"}', 0),
            args_done("fc_1", '{"city":"Paris"}', 0),
            done(fc("fc_1", "call_abc", arguments='{"city":"Paris"}'), 0),
            completed(),
        ]
    )
    assert out == [
        RM,
        updates.ToolCallStart(id="call_abc", name="get_weather"),
        updates.ToolCallItem(call_id="call_abc", item_id="fc_1"),
        updates.ToolCallArgs(id="call_abc", args_delta='{"city":'),
        updates.ToolCallArgs(id="call_abc", args_delta='"Paris"}'),
        updates.ToolCallEnd(id="call_abc"),
        updates.Finish(finish_reason="tool_calls", usage=U),
    ]


def test_interleaved_calls_routed_by_item_id_not_output_index_order() -> None:
    out = decode(
        [
            created(),
            added(fc("fc_1", "call_a", "f"), 0),
            added(fc("fc_2", "call_b", "g"), 1),
            args_delta("fc_2", '{"y"', 1),
            args_delta("fc_1", '{"x"', 0),
            args_delta("fc_1", ":1}", 0),
            args_delta("fc_2", ":2}", 1),
            done(fc("fc_1", "call_a", "f", '{"x":1}'), 0),
            done(fc("fc_2", "call_b", "g", '{"y":2}'), 1),
            completed(),
        ]
    )
    assert codes(out) == []
    r = respond(
        [
            sse(
                [
                    created(),
                    added(fc("fc_1", "call_a", "f"), 0),
                    added(fc("fc_2", "call_b", "g"), 1),
                    args_delta("fc_2", '{"y"', 1),
                    args_delta("fc_1", '{"x"', 0),
                    args_delta("fc_1", ":1}", 0),
                    args_delta("fc_2", ":2}", 1),
                    completed(),
                ]
            )
        ],
        "openai_responses",
    )
    assert [(c.id, c.name, c.arguments) for c in r.tool_calls] == [
        ("call_a", "f", {"x": 1}),
        ("call_b", "g", {"y": 2}),
    ]
    assert next(u for u in out if isinstance(u, updates.ToolCallArgs)) == updates.ToolCallArgs(
        id="call_b", args_delta='{"y"'
    )


def test_arguments_only_in_done_events() -> None:
    out = decode(
        [
            created(),
            added(fc("fc_1", "call_a"), 0),
            args_done("fc_1", '{"a":1}', 0),
            done(fc("fc_1", "call_a", arguments='{"a":1}'), 0),
            completed(),
        ]
    )
    assert updates.ToolCallArgs(id="call_a", args_delta='{"a":1}') in out
    assert codes(out) == []


def test_arguments_only_in_output_item_done() -> None:
    out = decode(
        [
            created(),
            added(fc("fc_1", "call_a"), 0),
            done(fc("fc_1", "call_a", arguments="{}"), 0),
            completed(),
        ]
    )
    assert updates.ToolCallArgs(id="call_a", args_delta="{}") in out


def test_arguments_on_added_item_count_as_arrived() -> None:
    out = decode(
        [
            created(),
            added(fc("fc_1", "call_a", arguments='{"q":1}'), 0),
            done(fc("fc_1", "call_a", arguments='{"q":1}'), 0),
            completed(),
        ]
    )
    assert [u for u in out if isinstance(u, updates.ToolCallArgs)] == [
        updates.ToolCallArgs(id="call_a", args_delta='{"q":1}')
    ]
    assert codes(out) == []


def test_arguments_done_disagrees_keeps_deltas() -> None:
    out = decode(
        [
            created(),
            added(fc("fc_1", "call_a"), 0),
            args_delta("fc_1", '{"a":1}', 0),
            args_done("fc_1", '{"a":2}', 0),
            done(fc("fc_1", "call_a", arguments='{"a":2}'), 0),
            completed(),
        ]
    )
    assert codes(out) == ["protocol_violation", "protocol_violation"]
    r = respond(
        [
            sse(
                [
                    created(),
                    added(fc("fc_1", "call_a"), 0),
                    args_delta("fc_1", '{"a":1}', 0),
                    args_done("fc_1", '{"a":2}', 0),
                    completed(),
                ]
            )
        ],
        "openai_responses",
    )
    assert r.tool_calls[0].arguments == {"a": 1}


def test_zero_argument_call_aggregates_to_empty_object() -> None:
    r = respond(
        [
            sse(
                [
                    created(),
                    added(fc("fc_1", "call_a", "now"), 0),
                    done(fc("fc_1", "call_a", "now"), 0),
                    completed(),
                ]
            )
        ],
        "openai_responses",
    )
    assert r.tool_calls[0].arguments == {}
    assert r.errors == ()


def test_item_id_changes_between_added_and_done() -> None:
    out = decode(
        [
            created(),
            added(fc("fc_1", "call_a"), 0),
            args_delta("fc_1", "{}", 0),
            done(fc("fc_XX", "call_a", arguments="{}"), 0),
            completed(),
        ]
    )
    assert codes(out) == ["protocol_notice"]
    assert updates.ToolCallEnd(id="call_a") in out


def test_delta_with_changed_item_id_routed_by_output_index() -> None:
    out = decode(
        [
            created(),
            added(fc("fc_1", "call_a"), 0),
            args_delta("fc_other", "{}", 0),
            args_delta("fc_other", " ", 0),
            completed(),
        ]
    )
    assert codes(out) == ["protocol_notice"]
    assert updates.ToolCallArgs(id="call_a", args_delta="{}") in out


def test_output_index_collision_keeps_both() -> None:
    out = decode(
        [
            created(),
            added(fc("fc_1", "call_a", "f"), 0),
            added(fc("fc_2", "call_b", "g"), 0),
            args_delta("fc_1", "{}", 0),
            args_delta("fc_2", '{"z":0}', 0),
            completed(),
        ]
    )
    assert codes(out) == ["protocol_violation"]
    assert updates.ToolCallArgs(id="call_a", args_delta="{}") in out
    assert updates.ToolCallArgs(id="call_b", args_delta='{"z":0}') in out


def test_item_added_twice() -> None:
    out = decode(
        [created(), added(fc("fc_1", "call_a"), 0), added(fc("fc_1", "call_a"), 0), completed()]
    )
    assert codes(out) == ["protocol_violation"]
    assert sum(isinstance(u, updates.ToolCallStart) for u in out) == 1


def test_delta_for_item_never_added_is_buffered_then_claimed() -> None:
    out = decode(
        [
            created(),
            args_delta("fc_9", '{"k":', 3),
            args_delta("fc_9", "1}", 3),
            done(fc("fc_9", "call_9", "h", '{"k":1}'), 3),
            completed(),
        ]
    )
    assert codes(out) == ["protocol_violation", "protocol_violation"]
    assert without_errors(out)[1:] == [
        updates.ToolCallStart(id="call_9", name="h"),
        updates.ToolCallItem(call_id="call_9", item_id="fc_9"),
        updates.ToolCallArgs(id="call_9", args_delta='{"k":1}'),
        updates.ToolCallEnd(id="call_9"),
        updates.Finish(finish_reason="tool_calls", usage=U),
    ]


def test_orphan_arguments_never_claimed_reported_at_close() -> None:
    out = decode([created(), args_delta("fc_9", '{"k":1}', 3), completed()])
    assert codes(out) == ["protocol_violation", "protocol_violation"]
    assert out[-1].raw == '{"k":1}'  # type: ignore[union-attr]


def test_resumed_stream_starting_mid_response_is_not_a_violation() -> None:
    """GET /v1/responses/<id>?stream=true&starting_after=N: no response.created."""
    out = decode(
        [
            {"type": "response.in_progress", "response": response(), "sequence_number": 5},
            text_delta("tail", "msg_1", 0) | {"sequence_number": 6},
            args_delta("fc_2", "{}", 1) | {"sequence_number": 7},
            done(fc("fc_2", "call_2", "f", "{}"), 1) | {"sequence_number": 8},
            completed() | {"sequence_number": 9},
        ]
    )
    assert codes(out) == []
    assert updates.TextDelta(delta="tail") in out
    assert updates.ToolCallStart(id="call_2", name="f") in out


def test_function_call_without_name_at_added_starts_at_done() -> None:
    item = fc("fc_1", "call_a")
    del item["name"]
    out = decode(
        [
            created(),
            added(item, 0),
            args_delta("fc_1", "{}", 0),
            done(fc("fc_1", "call_a", "late", "{}"), 0),
            completed(),
        ]
    )
    assert without_errors(out)[1:5] == [
        updates.ToolCallArgs(id="call_a", args_delta="{}"),
        updates.ToolCallStart(id="call_a", name="late"),
        updates.ToolCallItem(call_id="call_a", item_id="fc_1"),
        updates.ToolCallEnd(id="call_a"),
    ]


def test_call_id_or_name_changed_at_done() -> None:
    out = decode(
        [
            created(),
            added(fc("fc_1", "call_a", "f"), 0),
            done(fc("fc_1", "call_b", "g", "{}"), 0),
            completed(),
        ]
    )
    assert codes(out) == ["protocol_notice", "protocol_violation"]  # call_id, name
    assert updates.ToolCallEnd(id="call_a") in out


def test_missing_call_id_uses_item_id() -> None:
    item = fc("fc_1", "x")
    del item["call_id"]
    out = decode([created(), added(item, 0), completed()])
    assert updates.ToolCallStart(id="fc_1", name="get_weather") in out


def test_reused_call_id_across_concatenated_responses_is_renamed() -> None:
    """Bedrock mantle numbers call_0 per response; two responses in one body never merge."""
    r1 = [
        created(),
        added(fc("fc_1", "call_0", "first_tool"), 0),
        args_delta("fc_1", "{}", 0),
        done(fc("fc_1", "call_0", "first_tool", "{}"), 0),
        completed(),
    ]
    r2 = [
        {"type": "response.created", "response": response(id="resp_2")},
        added(fc("fc_2", "call_0", "second_tool"), 0),
        args_delta("fc_2", "{}", 0),
        done(fc("fc_2", "call_0", "second_tool", "{}"), 0),
        completed(id="resp_2"),
    ]
    out = decode(r1 + r2)
    assert codes(out) == []
    assert updates.ToolCallStart(id="call_0#2", name="second_tool") in out
    r = respond([sse(r1 + r2)], "openai_responses")
    assert [c.id for c in r.tool_calls] == ["call_0", "call_0#2"]


def test_reused_call_id_in_one_response_is_a_violation() -> None:
    out = decode(
        [
            created(),
            added(fc("fc_1", "call_0", "a"), 0),
            added(fc("fc_2", "call_0", "b"), 1),
            completed(),
        ]
    )
    assert codes(out) == ["protocol_violation"]
    assert updates.ToolCallStart(id="call_0#2", name="b") in out


def test_custom_tool_call_input_as_json_object() -> None:
    item = {
        "type": "custom_tool_call",
        "id": "ctc_1",
        "call_id": "call_c",
        "name": "code_exec",
        "input": "",
    }
    out = decode(
        [
            created(),
            added(item, 0),
            {
                "type": "response.custom_tool_call_input.delta",
                "item_id": "ctc_1",
                "output_index": 0,
                "delta": 'print("hi")\n',
            },
            {
                "type": "response.custom_tool_call_input.done",
                "item_id": "ctc_1",
                "output_index": 0,
                "input": 'print("hi")\n',
            },
            done({**item, "input": 'print("hi")\n'}, 0),
            completed(),
        ]
    )
    args = "".join(u.args_delta for u in out if isinstance(u, updates.ToolCallArgs))
    assert json.loads(args) == {"input": 'print("hi")\n'}
    assert codes(out) == []


def test_custom_tool_call_without_input() -> None:
    item = {
        "type": "custom_tool_call",
        "id": "ctc_1",
        "call_id": "call_c",
        "name": "noop",
        "input": "",
    }
    out = decode([created(), added(item, 0), done(item, 0), completed()])
    assert updates.ToolCallArgs(id="call_c", args_delta='{"input":""}') in out


def test_client_tool_search_call_is_a_call_server_one_is_not() -> None:
    client = {
        "type": "tool_search_call",
        "id": "tsc_1",
        "call_id": "call_t",
        "execution": "client",
        "arguments": {},
    }
    server = {"type": "tool_search_call", "id": "tsc_2", "execution": "server", "arguments": {}}
    out = decode(
        [
            created(),
            added(client, 0),
            done({**client, "arguments": {"queries": ["fx"]}}, 0),
            added(server, 1),
            done(server, 1),
            completed(),
        ]
    )
    assert without_errors(out)[1:] == [
        updates.ToolCallStart(id="call_t", name="tool_search"),
        updates.ToolCallItem(call_id="call_t", item_id="tsc_1"),
        updates.ToolCallArgs(id="call_t", args_delta='{"queries":["fx"]}'),
        updates.ToolCallEnd(id="call_t"),
        updates.HostedToolCall(
            call_id="tsc_2",
            name="tool_search",
            arguments={},
            item={"type": "tool_search_call", "id": "tsc_2", "execution": "server"},
        ),
        updates.Finish(finish_reason="tool_calls", usage=U),
    ]


@pytest.mark.parametrize(
    ("kind", "field", "name"),
    [
        ("computer_call", "action", "computer"),
        ("local_shell_call", "action", "local_shell"),
        ("shell_call", "action", "shell"),
        ("apply_patch_call", "operation", "apply_patch"),
    ],
)
def test_whole_item_client_calls(kind: str, field: str, name: str) -> None:
    item = {"type": kind, "id": "it_1", "call_id": "call_w", field: {"type": "x"}}
    out = decode([created(), added(item, 0), done(item, 0), completed()])
    assert without_errors(out)[1:5] == [
        updates.ToolCallStart(id="call_w", name=name),
        updates.ToolCallItem(call_id="call_w", item_id="it_1"),
        updates.ToolCallArgs(id="call_w", args_delta='{"type":"x"}'),
        updates.ToolCallEnd(id="call_w"),
    ]


@pytest.mark.parametrize(
    ("kind", "name", "extra", "arguments", "output"),
    [
        ("web_search_call", "web_search", {"action": {"query": "q"}}, {"query": "q"}, None),
        ("file_search_call", "file_search", {"queries": ["q"], "results": [1]}, ["q"], [1]),
        ("code_interpreter_call", "code_interpreter", {"code": "1+1", "outputs": []}, "1+1", []),
        ("image_generation_call", "image_generation", {"result": "aGk="}, None, "aGk="),
        ("mcp_call", "ask", {"name": "ask", "arguments": '{"q":1}', "output": "a"}, {"q": 1}, "a"),
        ("mcp_list_tools", "mcp_list_tools", {"tools": []}, None, []),
        ("future_tool_call", "future_tool", {"query": "q"}, None, None),
    ],
)
def test_item_11_builtin_server_tools_are_hosted_calls_not_client_calls(
    kind: str, name: str, extra: dict[str, Any], arguments: Any, output: Any
) -> None:
    item = {"type": kind, "id": "x_1", "status": "in_progress"}
    out = decode(
        [
            created(),
            added(item, 0),
            {"type": f"response.{kind}.in_progress", "item_id": "x_1", "output_index": 0},
            {
                "type": "response.mcp_call_arguments.delta",
                "item_id": "x_1",
                "output_index": 0,
                "delta": "{}",
            },
            {
                "type": "response.code_interpreter_call_code.delta",
                "item_id": "x_1",
                "output_index": 0,
                "delta": "1+1",
            },
            done({**item, **extra, "status": "completed"}, 0),
            added(msg(), 1),
            text_delta("ok", "msg_1", 1),
            completed(),
        ]
    )
    hosted = [u for u in out if isinstance(u, updates.HostedToolCall)]
    assert [(h.call_id, h.name, h.arguments) for h in hosted] == [("x_1", name, arguments)]
    assert hosted[0].item["status"] == "completed"  # the rest of the item is kept
    results = [u for u in out if isinstance(u, updates.HostedToolResult)]
    assert [(r.call_id, r.output) for r in results] == ([] if output is None else [("x_1", output)])
    assert not [u for u in out if isinstance(u, updates.ToolCallStart | updates.ToolCallArgs)]
    assert out[-1] == updates.Finish(finish_reason="stop", usage=U)


def test_a_compaction_item_is_kept_whole_at_its_done() -> None:
    item = {"type": "compaction", "id": "cmp_1", "encrypted_content": "x"}
    out = decode([created(), added(item, 0), done(item, 0), completed()])
    assert out == [RM, updates.RawItem(item=item), updates.Finish(finish_reason="stop", usage=U)]


def test_a_reasoning_item_gives_its_id_when_added_and_its_data_when_done() -> None:
    added_item = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "e0"}
    done_item = {
        "type": "reasoning",
        "id": "rs_1",
        "summary": [{"type": "summary_text", "text": "a"}, {"type": "summary_text", "text": "b"}],
        "encrypted_content": "e1",
    }
    out = decode([created(), added(added_item, 0), done(done_item, 0), completed()])
    assert out[1:-1] == [
        updates.ReasoningItem(item_id="rs_1", encrypted_content="e0"),
        updates.ReasoningItem(item_id="rs_1", encrypted_content="e1", summary=("a", "b")),
    ]


def test_a_reasoning_item_without_id_or_data_gives_nothing() -> None:
    item = {"type": "reasoning", "summary": []}
    out = decode([created(), added(item, 0), done(item, 0), completed()])
    assert out == [RM, updates.Finish(finish_reason="stop", usage=U)]


HOSTED_SHELL = {
    "type": "shell_call",
    "id": "sh_1",
    "call_id": "call_sh",
    "action": {"commands": ["uname -a"], "timeout_ms": None},
    "environment": {"type": "container_reference", "container_id": "cntr_1"},
}
SHELL_OUTPUT = {
    "type": "shell_call_output",
    "id": "sho_1",
    "call_id": "call_sh",
    "output": [{"stdout": "Linux\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}],
}


def test_item_11_hosted_shell_call_with_its_output_is_not_a_client_call() -> None:
    out = decode(
        [
            created(),
            added({**HOSTED_SHELL, "action": {"commands": []}, "status": "in_progress"}, 0),
            {
                "type": "response.shell_call_command.delta",
                "output_index": 0,
                "command_index": 0,
                "delta": "uname",
            },
            done({**HOSTED_SHELL, "status": "completed"}, 0),
            added({**SHELL_OUTPUT, "output": []}, 1),
            done(SHELL_OUTPUT, 1),
            completed(),
        ]
    )
    assert without_errors(out)[1:] == [
        updates.HostedToolCall(
            call_id="call_sh",
            name="shell",
            arguments={"commands": ["uname -a"], "timeout_ms": None},
            item={
                "type": "shell_call",
                "id": "sh_1",
                "call_id": "call_sh",
                "environment": {"type": "container_reference", "container_id": "cntr_1"},
                "status": "completed",
            },
        ),
        updates.HostedToolResult(
            call_id="call_sh",
            name="shell_call_output",
            output=SHELL_OUTPUT["output"],
            item={"type": "shell_call_output", "id": "sho_1", "call_id": "call_sh"},
        ),
        updates.Finish(finish_reason="stop", usage=U),
    ]
    assert codes(out) == []


@pytest.mark.parametrize("environment", [None, {"type": "local"}])
def test_shell_call_without_a_hosted_environment_is_a_client_call(environment: Any) -> None:
    item = {**HOSTED_SHELL, "environment": environment}
    out = decode([created(), added(item, 0), done(item, 0), completed()])
    assert updates.ToolCallStart(id="call_sh", name="shell") in out
    assert out[-1] == updates.Finish(finish_reason="tool_calls", usage=U)


def test_server_tool_search_output_without_call_id_answers_the_last_hosted_call() -> None:
    call = {"type": "tool_search_call", "id": "tsc_1", "execution": "server", "arguments": {}}
    result = {"type": "tool_search_output", "id": "tso_1", "call_id": None, "tools": [1]}
    out = decode([created(), added(call, 0), done(call, 0), added(result, 1), done(result, 1)])
    (answer,) = [u for u in out if isinstance(u, updates.HostedToolResult)]
    assert (answer.call_id, answer.name, answer.output) == ("tsc_1", "tool_search_output", [1])


def test_mcp_call_error_is_the_result_error() -> None:
    item = {"type": "mcp_call", "id": "mcp_1", "name": "ask", "arguments": "x", "error": "down"}
    out = decode([created(), added(item, 0), done(item, 0), completed()])
    hosted = [u for u in out if isinstance(u, updates.HostedToolCall | updates.HostedToolResult)]
    assert hosted == [
        updates.HostedToolCall(
            call_id="mcp_1",
            name="ask",
            arguments="x",
            item={"type": "mcp_call", "id": "mcp_1", "name": "ask"},
        ),
        updates.HostedToolResult(call_id="mcp_1", name="mcp_call", error="down"),
    ]


def test_item_12_mcp_approval_request_is_an_approval_request_and_awaits_approval() -> None:
    item = {
        "type": "mcp_approval_request",
        "id": "mcpr_1",
        "server_label": "deepwiki",
        "name": "ask",
        "arguments": '{"q":"x"}',
    }
    out = decode([created(), added(item, 0), done(item, 0), completed()])
    assert without_errors(out)[1:] == [
        updates.ToolApprovalRequest(
            call_id="mcpr_1", name="ask", arguments={"q": "x"}, description="deepwiki"
        ),
        updates.Finish(finish_reason="awaiting_approval", usage=U),
    ]
    response = respond(
        [sse([created(), added(item, 0), done(item, 0), completed()])], "openai_responses"
    )
    assert response.text == ""
    assert [r.call_id for r in response.approval_requests] == ["mcpr_1"]


# -- terminal events, usage, errors ---------------------------------------------------------------


def test_usage_table() -> None:
    assert parse_usage(USAGE_RAW) == U
    assert USAGE.parse({"input_tokens": 5, "output_tokens": 2}) == Usage(
        prompt_tokens=5, completion_tokens=2, total_tokens=7
    )
    # A Chat-style usage object with the count at the top level (SGLang-based servers).
    assert USAGE.parse({"prompt_tokens": 5, "completion_tokens": 9, "reasoning_tokens": 4}) == (
        Usage(prompt_tokens=5, completion_tokens=9, total_tokens=14, reasoning_tokens=4)
    )


def test_completed_usage_null_or_empty() -> None:
    assert decode([created(), completed(usage=None)])[-1] == updates.Finish(
        finish_reason="stop", usage=None
    )
    assert decode([created(), completed(usage={})])[-1] == updates.Finish(
        finish_reason="stop", usage=None
    )


@pytest.mark.parametrize(
    ("details", "reason"),
    [
        ({"reason": "max_output_tokens"}, "length"),
        ({"reason": "content_filter"}, "content_filter"),
        ({"reason": "other_x"}, "other_x"),
        (None, "incomplete"),
    ],
)
def test_incomplete(details: Any, reason: str) -> None:
    out = decode(
        [
            created(),
            {
                "type": "response.incomplete",
                "response": response("incomplete", usage=USAGE_RAW, incomplete_details=details),
            },
        ]
    )
    assert out[-1] == updates.Finish(finish_reason=reason, usage=U)
    assert codes(out) == []


def test_failed_is_provider_error_with_usage_and_clean_end() -> None:
    out = decode(
        [
            created(),
            {
                "type": "response.failed",
                "response": response(
                    "failed",
                    usage=USAGE_RAW,
                    error={"code": "server_error", "message": "The model crashed"},
                ),
            },
        ]
    )
    assert codes(out) == ["provider_error"]
    assert "The model crashed" in out[1].message  # type: ignore[union-attr]
    assert out[-1] == updates.Usage(usage=U)


def test_failed_without_error_object() -> None:
    out = decode([created(), {"type": "response.failed", "response": response("failed")}])
    assert codes(out) == ["provider_error"]


@pytest.mark.parametrize(
    "event",
    [
        {
            "type": "error",
            "code": "server_error",
            "message": "The server had an error",
            "param": None,
        },
        {"type": "error", "error": {"type": "rate_limit", "message": "slow down"}},
        {"type": "error", "message": "top-level message only"},
    ],
)
@pytest.mark.parametrize("named", [True, False])
def test_error_event_then_end_is_not_truncation(event: dict[str, Any], named: bool) -> None:
    out = decode([created(), added(msg(), 0), text_delta("partial"), event], named=named)
    assert codes(out) == ["provider_error"]
    assert updates.TextDelta(delta="partial") in out


def test_truncated_without_terminal_event() -> None:
    out = decode([created(), added(msg(), 0), text_delta("cut")])
    assert codes(out) == ["stream_truncated"]


def test_done_marker_without_terminal_event_is_truncation() -> None:
    out = decode([created(), added(msg(), 0), text_delta("cut")], done_marker=True)
    assert codes(out) == ["stream_truncated"]


def test_nothing_read_after_done_marker() -> None:
    body = sse([created(), completed()], done_marker=True) + sse([text_delta("late")])
    for how in CHUNKINGS:
        assert updates.TextDelta(delta="late") not in run(body, how)
    body = sse([created()], done_marker=True) + sse([text_delta("late"), completed()])
    assert codes(run(body)) == ["stream_truncated"]


def test_unfinished_last_event_is_truncation() -> None:
    body = sse([created(), completed()]) + b'data: {"type":"response.rate_li'
    assert codes(run(body)) == ["stream_truncated"]


def test_ignored_events_before_and_after() -> None:
    out = decode(
        [
            {"type": "codex.rate_limits", "plan": "pro"},
            created(),
            {"type": "response.keep_alive"},
            added(msg(), 0),
            text_delta("x"),
            {"type": "response.output_text.annotation.added", "item_id": "msg_1", "annotation": {}},
            completed(),
            {"type": "response.rate_limits.updated", "rate_limits": []},
            "",
        ]
    )
    assert out == [RM, updates.TextDelta(delta="x"), updates.Finish(finish_reason="stop", usage=U)]


def test_concatenated_responses_read_as_one_turn() -> None:
    second = {"type": "response.created", "response": response(id="resp_2")}
    out = decode(
        [
            created(),
            added(msg(), 0),
            text_delta("a"),
            completed(),
            second,
            added(msg("msg_2"), 0),
            text_delta("b", "msg_2"),
            completed(id="resp_2"),
        ]
    )
    assert codes(out) == []
    assert (
        updates.ResponseMetadata(id="resp_2", model=None) in out
        or updates.ResponseMetadata(id="resp_2", model=MODEL) in out
    )
    assert [u.delta for u in out if isinstance(u, updates.TextDelta)] == ["a", "b"]


def test_second_response_truncated_is_reported() -> None:
    out = decode(
        [
            created(),
            completed(),
            {"type": "response.created", "response": response(id="resp_2")},
            added(msg(), 0),
        ]
    )
    assert codes(out) == ["stream_truncated"]


def test_created_before_previous_ended() -> None:
    out = decode(
        [created(), {"type": "response.created", "response": response(id="resp_2")}, completed()]
    )
    assert codes(out) == ["protocol_violation"]


def test_sequence_number_not_increasing() -> None:
    out = decode(
        [
            created() | {"sequence_number": 0},
            added(msg(), 0) | {"sequence_number": 1},
            text_delta("a") | {"sequence_number": 2},
            text_delta("b") | {"sequence_number": 2},
            completed() | {"sequence_number": 3},
        ]
    )
    assert codes(out) == ["protocol_violation"]
    assert [u.delta for u in out if isinstance(u, updates.TextDelta)] == ["a", "b"]


def test_wrong_field_types_are_invalid_chunk_rest_counts() -> None:
    out = decode(
        [
            created(),
            added(msg(), 0),
            {**text_delta("x"), "content_index": "0"},
            {**text_delta(5)},  # type: ignore[arg-type]  # a number where the text goes
            completed(),
        ]
    )
    assert codes(out) == ["invalid_chunk", "invalid_chunk"]
    assert updates.TextDelta(delta="x") in out


def test_not_json_and_not_object() -> None:
    out = decode([created(), "{not json", "[1,2]", completed()])
    assert codes(out) == ["sse_parse_error", "invalid_chunk"]


def test_event_name_used_when_json_has_no_type() -> None:
    body = b'event: response.created\ndata: {"response":{"id":"r","model":"m"}}\n\nevent: response.completed\ndata: {"response":{"id":"r","model":"m"}}\n\n'
    assert run(body) == [
        updates.ResponseMetadata(id="r", model="m"),
        updates.Finish(finish_reason="stop"),
    ]


def test_sniff_auto() -> None:
    body = sse([created(), added(msg(), 0), text_delta("hi"), completed()])
    r = respond([body], "auto")
    assert r.text == "hi"


# -- never raises, chunking invariance -------------------------------------------------------------

_events = st.sampled_from(
    [
        created(),
        completed(),
        added(msg(), 0),
        added(fc("fc_1", "call_a"), 1),
        added(fc("fc_2", "call_a"), 1),
        text_delta("é🎉"),
        text_done("x"),
        args_delta("fc_1", '{"a"', 1),
        args_delta("fc_2", ":1}", 0),
        args_done("fc_1", "{}", 1),
        done(fc("fc_1", "call_a", arguments="{}"), 1),
        done(fc("fc_3", "call_z"), 2),
        summary_delta("r", 0),
        summary_delta("s", 1),
        {"type": "error", "message": "boom"},
        {"type": "response.incomplete", "response": {"incomplete_details": {"reason": 5}}},
        {"type": "response.failed", "response": None},
        {"type": "response.output_item.added", "item": "x", "output_index": "y"},
        {"type": "response.output_item.done", "item": {"type": 3, "id": []}},
        {"type": "response.custom_tool_call_input.delta", "item_id": "fc_1", "delta": "\\"},
        "[DONE]",
        "",
        "{",
    ]
)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_events, max_size=14), st.randoms(use_true_random=False))
def test_any_event_sequence_is_chunking_invariant(events: list[Any], rnd: Any) -> None:
    body = sse(events)
    whole = run(body)
    assert run(body, "bytewise") == whole
    cuts = sorted(rnd.sample(range(len(body) + 1), min(5, len(body) + 1)))
    pieces = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
    decoder = UpdateDecoder("openai_responses")
    assert feed_all(decoder.feed, decoder.close, pieces) == whole
    respond([body], "openai_responses")  # the converter never raises on it either


@given(st.binary(max_size=400))
def test_arbitrary_bytes_never_raise(data: bytes) -> None:
    out = run(b"event: response.created\ndata: " + data)
    assert all(u.error_code != "internal_error" for u in out if isinstance(u, updates.Error))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "type",
                    "item",
                    "item_id",
                    "output_index",
                    "delta",
                    "response",
                    "call_id",
                    "name",
                    "arguments",
                    "id",
                    "usage",
                    "error",
                    "text",
                    "sequence_number",
                ]
            ),
            inner,
            max_size=5,
        )
    ),
    max_leaves=20,
)


@given(
    st.lists(
        st.dictionaries(
            st.sampled_from(
                [
                    "type",
                    "item",
                    "item_id",
                    "output_index",
                    "delta",
                    "response",
                    "text",
                    "arguments",
                    "sequence_number",
                ]
            ),
            json_values,
            max_size=5,
        ),
        max_size=8,
    ),
    st.sampled_from(sorted(OpenAIResponsesDialect.handlers)),
)
def test_arbitrary_json_never_raises(payloads: list[dict[str, Any]], kind: str) -> None:
    events = [{**p, "type": kind if i % 2 else p.get("type", kind)} for i, p in enumerate(payloads)]
    body = sse(events)
    out = run(body)
    assert all(u.error_code != "internal_error" for u in out if isinstance(u, updates.Error))
    respond([body], "openai_responses")


# -- the fast path of the usual events -------------------------------------------------------


_TEXT = text_delta("plain")
_ARGS = args_delta("fc_1", '{"city":', 1)
USUAL_VARIANTS: list[Any] = [
    _TEXT,
    {**_TEXT, "delta": ""},
    {**_TEXT, "delta": None},
    {**_TEXT, "delta": 7},
    {**_TEXT, "content_index": 2},
    {**_TEXT, "content_index": True},
    {**_TEXT, "output_index": "one"},
    {**_TEXT, "output_index": 5},
    {**_TEXT, "item_id": "msg_unknown"},
    {**_TEXT, "item_id": ""},
    {k: v for k, v in _TEXT.items() if k != "item_id"},
    {**_TEXT, "item_id": "fc_1"},  # text for a function call item
    {**_TEXT, "logprobs": [{"token": "x", "logprob": 0.5}]},  # 1e400 below
    {**_TEXT, "obfuscation": 3},
    {**_TEXT, "sequence_number": 0},  # does not increase
    {**_TEXT, "sequence_number": 10**6},
    {**_TEXT, "sequence_number": True},
    {**_TEXT, "extra": 0},  # 1e400 below
    {**_TEXT, "delta": "lone \ud800"},
    _ARGS,
    {**_ARGS, "item_id": "msg_1"},  # arguments for a message item
    {**_ARGS, "item_id": "fc_never_added"},
    {**_ARGS, "delta": ""},
    {**_ARGS, "obfuscation": "abc"},
    {**_TEXT, "type": "response.refusal.delta"},
    {**_TEXT, "type": "response.reasoning_text.delta"},
    {**_TEXT, "content_index": -1},
    {**_TEXT, "content_index": 10**30},
    {**_TEXT, "summary_index": 1},
    {**_TEXT, "type": "response.reasoning_summary_text.delta", "summary_index": 1},
]


class _SharedOnly(OpenAIResponsesDialect):
    """The dialect with its ``usual`` fast path switched off (in a subclass: a compiled
    dialect's attributes cannot be set from outside)."""

    usual = None  # type: ignore[assignment]


def _one_by_one(chunks: list[bytes], usual: bool = False) -> list[Any]:
    """The updates of the events of ``chunks`` fed one by one: the shared path only, or with
    the ``usual`` fast path of single events."""
    decoder = SSEDecoder()
    dialect = OpenAIResponsesDialect() if usual else _SharedOnly()
    out: list[Any] = []
    for piece in chunks:
        out.extend(dialect.feed_events(decoder.feed(piece)))
    return out + dialect.close()


def _by_runs(chunks: list[bytes], batch: bool) -> list[Any]:
    """The updates of ``chunks`` read as the pipeline reads them: runs of events, each run
    through ``feed_run`` (with ``batch``: its deltas as DeltaBatch values, expanded here)."""
    decoder, dialect = SSEDecoder(), OpenAIResponsesDialect()
    out: list[Any] = []
    for piece in chunks:
        out.extend(dialect.feed_frames(decoder.feed_runs(piece), batch=batch))
    out.extend(dialect.close())
    return out


def _expanded(out: list[Any]) -> list[Any]:
    return [u for x in out for u in (x.updates() if isinstance(x, DeltaBatch) else [x])]


def _same_three_ways(body: bytes) -> None:
    """Events one by one (the shared path), runs, and runs in batches give the same."""
    for size in (len(body), 64, 7):
        chunks = [body[i : i + size] for i in range(0, len(body), size)]
        shared = _one_by_one(chunks)
        assert _one_by_one(chunks, usual=True) == shared
        assert _by_runs(chunks, batch=False) == shared
        batched = _by_runs(chunks, batch=True)
        assert sorted(map(repr, _expanded(batched))) == sorted(map(repr, shared))


@pytest.mark.parametrize("variant", USUAL_VARIANTS)
def test_the_usual_events_fast_path_reads_as_the_shared_path(variant: dict[str, Any]) -> None:
    # Before the items are added, while they stream, after they are done, and in a resumed
    # stream (no response.created).
    message, call = msg(), fc("fc_1", "call_1")
    events: list[Any] = [
        variant, created(), variant, added(message, 0), added(call, 1),
        variant, variant, done(message, 0), done(call, 1), variant, completed(),
    ]  # fmt: skip
    for body in (sse(events), sse(events[3:]), sse(events, named=False)):
        fast, shared = read_with_and_without_usual("openai_responses", body)
        assert fast == shared
        _same_three_ways(body)
        # Events outside runs (an id line ends a run) take the usual path one by one.
        _same_three_ways(body.replace(b"\ndata: ", b"\nid: 1\ndata: "))
    # What json.dumps cannot write: a number out of range, a lone surrogate escape, invalid
    # UTF-8, an event named otherwise than its type.
    body = sse(events)
    for raw in (
        body.replace(b"0.5", b"1e400").replace(b'"extra":0', b'"extra":1e400'),
        body.replace(b'"plain"', b'"lone \\ud800"'),
        body.replace(b'"plain"', b'"\xffplain"'),
        body.replace(b"event: response.output_text.delta", b"event: error"),
        body.replace(b"event: response.output_text.delta", b"event: response.refusal.delta"),
    ):
        fast, shared = read_with_and_without_usual("openai_responses", raw)
        assert fast == shared
        _same_three_ways(raw)


def _text_done_event(text: str, ci: int = 0) -> dict[str, Any]:
    return {**text_done(text, ci=ci), "logprobs": []}


MIXED_STREAMS: dict[str, list[Any]] = {
    # Deltas after the part's done event (the done event replaces what the part kept), and a
    # second done event that differs: what arrived after the first one counts.
    "text after its done": [
        created(), added(msg(), 0), text_delta("a"), text_delta("b"), _text_done_event("ab"),
        text_delta("c"), text_delta("d"), _text_done_event("abcd"), text_delta("e"),
        _text_done_event("abce"), completed(),
    ],
    "arguments after their done": [
        created(), added(fc("fc_1", "call_1"), 0), args_delta("fc_1", '{"a"', 0),
        args_delta("fc_1", ":1", 0), args_done("fc_1", '{"a":1', 0), args_delta("fc_1", "}", 0),
        args_delta("fc_1", "", 0), args_done("fc_1", '{"a":1}', 0),
        done(fc("fc_1", "call_1", arguments='{"a":2}'), 0), args_delta("fc_1", " ", 0),
        completed(),
    ],
    # Parts that take turns, reasoning parts (a blank line between them), reasoning after
    # text, text in a reasoning item and reasoning in a message (routed by the item).
    "parts taking turns": [
        created(), added(reasoning_item(), 0), summary_delta("s0", 0), summary_delta("s1", 1),
        summary_delta("s0'", 0), added(msg(), 1), text_delta("t0", index=1),
        text_delta("t1", index=1, ci=1), text_delta("t0'", index=1), summary_delta("s1'", 1),
        text_delta("r", item_id="rs_1"), summary_delta("m", 0, item_id="msg_1"),
        {**text_delta("x", index=1), "type": "response.refusal.delta"},
        {**text_delta("y", index=1), "type": "response.reasoning_text.delta"},
        {**text_delta("y'", index=1), "type": "response.reasoning_text.delta"},
        text_delta("t0''", index=1), _text_done_event("t0t0'"), completed(),
    ],
    # Calls whose fragments interleave, a call added in the middle, a second response
    # (response.created clears what routes by index, not by id).
    "interleaved calls and two responses": [
        created(), added(fc("fc_1", "call_1"), 0), added(fc("fc_2", "call_2"), 1),
        args_delta("fc_1", "{", 0), args_delta("fc_2", "[", 1), args_delta("fc_1", "}", 0),
        added(fc("fc_3", "call_3"), 2), args_delta("fc_3", "1", 2), args_delta("fc_2", "]", 1),
        completed(), created(), args_delta("fc_1", " ", 0), added(msg("msg_2"), 0),
        text_delta("new", item_id="msg_2"), args_delta("fc_2", "x", 1), completed(),
    ],
}  # fmt: skip


@pytest.mark.parametrize("name", MIXED_STREAMS)
def test_runs_read_mixed_streams_as_the_shared_path(name: str) -> None:
    events = MIXED_STREAMS[name]
    for body in (sse(events), sse(events, named=False), sse(events, done_marker=True)):
        _same_three_ways(body)
        spaced = b"".join(
            b"data: " + json.dumps(json.loads(line[6:])).encode() + b"\n"
            if line.startswith(b"data: {")
            else line
            for line in body.splitlines(keepends=True)
        )
        assert spaced != body
        _same_three_ways(spaced)
        a, b = respond([spaced], "openai_responses"), respond([body], "openai_responses")
        assert (a.text, a.reasoning_text, a.tool_calls) == (b.text, b.reasoning_text, b.tool_calls)
        assert [e.error_code for e in a.errors] == [e.error_code for e in b.errors]


def test_the_fast_path_takes_the_usual_events() -> None:
    message, call = msg(), fc("fc_1", "call_1")
    body = sse([
        created(), added(message, 0), added(call, 1), text_delta("a"), text_delta("b"),
        args_delta("fc_1", "{}", 1), done(message, 0), done(call, 1), completed(),
    ])  # fmt: skip
    # Alone (an id line each: no runs), each event takes the usual path.
    assert len(taken_by_usual(OpenAIResponsesDialect(), body.replace(b"\nd", b"\nid: 1\nd"))) == 3
    # In runs, as the pipeline reads them, the deltas are read by the typed decoder.
    dialect = OpenAIResponsesDialect()
    decoder = UpdateDecoder(dialect)
    feed_all(decoder.feed, decoder.close, [body])
    assert dialect.fast_path_counts() == {"typed": 3, "full": 6}
