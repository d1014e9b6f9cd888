"""Canonical JSON: exact shape of hand-written examples, round trips of every model type,
agreement with the published JSON Schemas."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jsonschema
import msgspec
import pytest
from hypothesis import given

from raf.cli import schema_files
from raf.model import (
    AgentResponse,
    AgentResponseResult,
    AgentResponseUpdate,
    ChatMessage,
    Content,
    Event,
    FinishReason,
    ResponseMetadata,
    ToolCall,
    Usage,
    contents,
    events,
    updates,
)
from raf.model.canonical import (
    _encode_iteratively,
    encode_json,
    from_canonical,
    from_json,
    to_canonical,
    to_json,
)
from raf.schema import SCHEMA_ROOTS, json_schemas
from raf.sse import ServerSentEvent
from tests.model.strategies import values_of

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "conformance" / "schema"
ROOTS = list(SCHEMA_ROOTS.items())


def test_update_tags_are_rafs_twelve_variants_then_rafs_own_in_snake_case() -> None:
    assert [cls.__struct_config__.tag for cls in updates.VARIANTS] == [
        "text_delta",
        "reasoning_delta",
        "tool_call_delta",
        "tool_call_start",
        "tool_call_args",
        "tool_call_end",
        "tool_called",
        "tool_approval_request",
        "usage",
        "finish",
        "error",
        "response_metadata",
        "reasoning_signature",
        "hosted_tool_call",
        "hosted_tool_result",
        "part_signature",
        "redacted_reasoning",
        "reasoning_item",
        "tool_call_item",
        "raw_item",
        "round_finished",
    ]


def test_content_tags_are_rafs_twelve_variants_then_rafs_own_in_snake_case() -> None:
    assert [cls.__struct_config__.tag for cls in contents.VARIANTS] == [
        "text",
        "reasoning",
        "uri",
        "tool_call_start",
        "tool_call_args",
        "tool_call_args_parsed",
        "tool_call_args_progress",
        "tool_call_end",
        "tool_calling",
        "tool_called",
        "usage",
        "error",
        "hosted_tool_call",
        "hosted_tool_result",
        "tool_approval_request",
        "round_finished",
    ]
    assert [cls.__struct_config__.tag for cls in events.VARIANTS] == [
        "executor_invoking",
        "executor_invoked",
        "custom",
    ]


def test_hand_written_examples() -> None:
    assert (
        to_json(contents.ToolCallStart(call_id="call_1", name="get"))
        == '{"type":"tool_call_start","call_id":"call_1","name":"get"}'
    )
    assert to_json(updates.TextDelta(delta="Hi")) == '{"type":"text_delta","delta":"Hi"}'
    assert (
        to_json(updates.ToolCallDelta(index=0, arguments_delta="{"))
        == '{"type":"tool_call_delta","index":0,"id":null,"name":null,"arguments_delta":"{"}'
    )
    assert (
        to_json(updates.Finish(finish_reason=FinishReason.TOOL_CALLS))
        == '{"type":"finish","finish_reason":"tool_calls","usage":null}'
    )
    assert (
        to_json(ToolCall(id="c", name="n", arguments={"q": [1, "é"]}))
        == '{"id":"c","name":"n","arguments":{"q":[1,"é"]}}'
    )


def test_metadata_is_left_out_unless_asked_for() -> None:
    meta = ResponseMetadata(
        agent_id="agent",
        model_id="m",
        timestamp=datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=UTC),
        properties={"run": 1},
    )
    text = contents.Text(delta="x", meta=meta)
    assert to_canonical(text) == {"type": "text", "delta": "x"}
    assert to_canonical(text, include_meta=True)["meta"] == {
        "agent_id": "agent",
        "model_id": "m",
        "executor_id": None,
        "timestamp": "2026-01-02T03:04:05.678000Z",
        "properties": {"run": 1},
    }


def test_meta_key_inside_a_json_payload_is_kept() -> None:
    event = events.Custom(event_type="x", payload={"meta": 1})
    assert to_canonical(event) == {"type": "custom", "event_type": "x", "payload": {"meta": 1}}


def test_chat_message_constructors() -> None:
    call = ToolCall(id="c1", name="f", arguments={})
    assert ChatMessage.system("s").role == "system"
    assert ChatMessage.user("u").role == "user"
    assert ChatMessage.assistant("a").tool_calls is None
    assert ChatMessage.assistant_with_tools("", [call]).tool_calls == (call,)
    tool = ChatMessage.tool("result", "c1")
    assert (tool.role, tool.tool_call_id, tool.name) == ("tool", "c1", None)


def test_finish_reason_keeps_unknown_strings() -> None:
    assert FinishReason.parse("stop") is FinishReason.STOP
    assert FinishReason.parse("Stop") == "Stop"
    assert FinishReason.parse("function_call") == "function_call"


@pytest.mark.parametrize(
    ("usage", "ratio", "hit", "miss", "available"),
    [
        (
            Usage(prompt_tokens=1000, prompt_cache_hit_tokens=600, prompt_cache_miss_tokens=400),
            0.6,
            600,
            400,
            True,
        ),
        (Usage(prompt_tokens=1000, prompt_cache_hit_tokens=800), 0.8, 800, 200, True),
        (Usage(prompt_tokens=10), 0.0, 0, 10, False),
        (Usage(prompt_tokens=0, prompt_cache_hit_tokens=5), 0.0, 5, 0, True),
        (Usage(prompt_tokens=10, prompt_cache_miss_tokens=10), 0.0, 0, 10, True),
    ],
)
def test_usage_derived_values(
    usage: Usage, ratio: float, hit: int, miss: int, available: bool
) -> None:
    assert usage.cache_hit_ratio == pytest.approx(ratio)
    assert (usage.cache_hit_tokens, usage.cache_miss_tokens, usage.cache_stats_available) == (
        hit,
        miss,
        available,
    )


ALL_TYPES: list[Any] = [
    AgentResponseUpdate,
    Content,
    Event,
    AgentResponseResult,
    AgentResponse,
    ChatMessage,
    ToolCall,
    Usage,
    ResponseMetadata,
    ServerSentEvent,
]


@pytest.mark.parametrize("type_", ALL_TYPES, ids=lambda t: getattr(t, "__name__", str(t)))
def test_every_type_round_trips(type_: Any) -> None:
    @given(values_of(type_))
    def check(value: Any) -> None:
        assert from_json(to_json(value, include_meta=True), type_) == value
        assert from_canonical(to_canonical(value, include_meta=True), type_) == value
        assert from_json(to_json(value, include_meta=True, indent=2), type_) == value

    check()


@pytest.mark.parametrize(("name", "type_"), ROOTS, ids=[r[0] for r in ROOTS])
def test_canonical_output_validates_against_the_published_schema(name: str, type_: Any) -> None:
    schema = json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)

    @given(values_of(type_))
    def check(value: Any) -> None:
        validator.validate(to_canonical(value))
        validator.validate(to_canonical(value, include_meta=True))

    check()


def test_schema_rejects_a_missing_field_and_an_unknown_tag() -> None:
    validator = jsonschema.Draft202012Validator(json_schemas()["update"])
    assert not validator.is_valid({"type": "tool_call_delta", "index": 0})
    assert not validator.is_valid({"type": "text_deltaa", "delta": "x"})
    assert validator.is_valid({"type": "text_delta", "delta": "x"})


def test_published_schemas_are_current() -> None:
    """If this fails, run `raf schema --write conformance/schema` and review the diff."""
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in SCHEMA_DIR.glob("*.schema.json")}
    assert on_disk == schema_files()


def test_values_of_any_depth_convert_and_encode_without_recursing() -> None:
    value: list[object] = []
    for _ in range(20_000):  # 20x the interpreter's recursion limit
        value = [value]
    deep_call = contents.ToolCalling(call_id="c", name="f", arguments={"a": value})
    canonical = to_canonical(deep_call)
    text = encode_json(canonical)
    assert text == '{"type":"tool_calling","call_id":"c","name":"f","arguments":{"a":' + (
        "[" * 20_001 + "]" * 20_001 + "}}"
    )
    indented = encode_json({"a": [[1, {}], []], "b": "é"}, indent=2)
    assert (
        indented
        == msgspec.json.format(
            msgspec.json.encode({"a": [[1, {}], []], "b": "é"}), indent=2
        ).decode()
    )


def test_the_iterative_encoder_writes_what_msgspec_writes() -> None:
    samples = [
        {
            "a": [1, 2.5, -0.0, 1e100, 10**40, None, True, False],
            "b": {},
            "c": [],
            "d": "x\n\u2028é",
        },
        [],
        {},
        "s",
        [[[]], {"k": {"l": [{}]}}],
    ]
    for sample in samples:
        for indent in (None, 2, 4):
            expected = msgspec.json.encode(sample)
            if indent is not None:
                expected = msgspec.json.format(expected, indent=indent)
            assert _encode_iteratively(sample, indent) == expected.decode()
