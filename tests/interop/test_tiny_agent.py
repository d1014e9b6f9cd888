"""tiny-agent: the items are exactly what serde writes for the crate's types (checked against
the JSON Schema written from them), the decoder reads tiny-agent's own lines, and what cannot
be read is reported, never raised."""

from __future__ import annotations

import itertools
import json
from typing import Any

import jsonschema
import pytest

from raf.chunking import STANDARD_CHUNKINGS
from raf.collect import collect_agent_response
from raf.interop import decode_all, encode_all, frame, get, roundtrip
from raf.interop.tiny_agent import MODEL, TinyAgentDecoder, TinyAgentEncoder, schema, transcript
from raf.model import blocks, contents, events
from raf.model.canonical import to_canonical, to_json
from raf.model.codes import ErrorCode
from raf.model.messages import MessageRole
from raf.model.response import AgentResponse, AgentResponseResult
from raf.model.usage import Usage
from tests.interop.support import (
    Stream,
    agent_runs,
    bundled_streams,
    results_of,
    stream_id,
)

VALIDATOR = jsonschema.Draft202012Validator(schema())

# tiny-agent's own lines, one per MessageKind variant (serde_json's output for tiny-agent 0.3.0).
EXAMPLE = [
    '{"session_id":"s1","at":1750000000000,"type":"user_message","text":"What\'s the weather in Paris?"}',
    '{"session_id":"s1","at":1750000000001,"type":"reasoning_started"}',
    '{"session_id":"s1","at":1750000000002,"type":"partial_assistant_message","delta":"Check"}',
    '{"session_id":"s1","at":1750000000003,"type":"partial_tool_call","call_id":"call_0","name":"get_weather","delta":"{\\"city\\":"}',
    '{"session_id":"s1","at":1750000000004,"type":"assistant_message","blocks":[{"Thinking":{"text":"Need weather."}},{"Text":{"text":"Checking."}},{"ToolUse":{"id":"call_0","name":"get_weather","input":{"city":"Paris"}}}]}',
    '{"session_id":"s1","at":1750000000005,"type":"tool_call","call_id":"call_0","name":"get_weather","arguments":{"city":"Paris"}}',
    '{"session_id":"s1","at":1750000000006,"type":"tool_output","chunk":"fetching...\\n"}',
    '{"session_id":"s1","at":1750000000007,"type":"tool_response","call_id":"call_0","output":[{"Text":{"text":"22°C, sunny"}}],"is_error":false}',
]


def _result(*items: contents.Content, **fields: Any) -> AgentResponseResult:
    return AgentResponseResult(contents=items, **fields)


# The example's turn as raf's results: reasoning, text in two deltas, a call streamed in two
# fragments, the round's end, the tool's result.
EXAMPLE_RESULTS = (
    _result(contents.Reasoning(delta="Need weather.")),
    _result(contents.Text(delta="Check"), contents.Text(delta="ing.")),
    _result(
        contents.ToolCallStart(call_id="call_0", name="get_weather"),
        contents.ToolCallArgs(call_id="call_0", args_delta='{"city":'),
        contents.ToolCallArgsParsed(call_id="call_0", name="city", value="Paris"),
        contents.ToolCallArgs(call_id="call_0", args_delta='"Paris"}'),
    ),
    _result(
        contents.ToolCallEnd(call_id="call_0"),
        contents.ToolCalling(call_id="call_0", name="get_weather", arguments={"city": "Paris"}),
        contents.Usage(usage=Usage(total_tokens=3)),
        contents.RoundFinished(round=0, finish_reason="tool_calls"),
    ),
    _result(contents.ToolCalled(call_id="call_0", result="22°C, sunny")),
)


def _invalid(item: Any) -> list[str]:
    return [error.message for error in VALIDATOR.iter_errors(item)]


def _valid_all(items: list[Any]) -> None:
    for i, item in enumerate(items):
        problems = _invalid(item)
        assert not problems, f"item {i} {item!r}: {problems}"


def test_the_schema_is_a_valid_draft_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(schema())


def _distinct_results(stream: Stream) -> list[tuple[AgentResponseResult, ...]]:
    """``stream``'s results under every standard chunking, one per distinct canonical form."""
    seen: dict[str, tuple[AgentResponseResult, ...]] = {}
    for chunking in STANDARD_CHUNKINGS:
        results = results_of(stream, chunking)
        seen.setdefault(to_json(list(results)), results)
    return list(seen.values())


@pytest.mark.parametrize("stream", bundled_streams(), ids=stream_id)
def test_every_item_of_a_bundled_stream_under_every_chunking_is_a_tiny_agent_message(
    stream: Stream,
) -> None:
    for results in _distinct_results(stream):
        _valid_all(list(encode_all(MODEL, results)))


def test_every_item_of_every_agent_run_is_a_tiny_agent_message() -> None:
    for name, results in agent_runs():
        items = list(encode_all(MODEL, results))
        assert items, name
        _valid_all(items)


def test_tiny_agents_own_lines_are_valid_and_framed_byte_for_byte() -> None:
    for line in EXAMPLE:
        item = json.loads(line)
        assert _invalid(item) == [], line
        assert frame(MODEL, item) == (line + "\n").encode()


@pytest.mark.parametrize(
    ("item", "why"),
    [
        (
            {
                "session_id": "s",
                "at": 0,
                "type": "ToolCall",
                "call_id": "c",
                "name": "f",
                "arguments": {},
            },
            "the tag is snake_case, not the variant's name",
        ),
        (
            {"session_id": "s", "at": 0, "type": "tool_call", "name": "f", "arguments": {}},
            "call_id is not an Option",
        ),
        (
            {
                "session_id": "s",
                "at": 0,
                "type": "assistant_message",
                "blocks": [{"type": "text", "text": "hi"}],
            },
            'a block is externally tagged: {"Text": {"text": ...}}',
        ),
        (
            {
                "session_id": "s",
                "at": 0,
                "type": "assistant_message",
                "blocks": [{"text": {"text": "hi"}}],
            },
            "the block's key is PascalCase",
        ),
        (
            {
                "session_id": "s",
                "at": 0,
                "type": "assistant_message",
                "blocks": [{"Thinking": {"text": "t", "signature": "S"}}],
            },
            "Thinking has no signature (serde reads the block and ignores it)",
        ),
        (
            {"session_id": "s", "at": -1, "type": "reasoning_started"},
            "at is a u64",
        ),
        (
            {"at": 0, "type": "reasoning_started"},
            "session_id is not an Option",
        ),
        (
            {
                "session_id": "s",
                "at": 0,
                "type": "partial_assistant_message",
                "delta": "x",
                "kind": {"type": "x"},
            },
            "the kind is flattened into the envelope (serde ignores the field)",
        ),
        (
            {
                "session_id": "s",
                "at": 0,
                "type": "tool_response",
                "call_id": "c",
                "output": "22°C",
                "is_error": False,
            },
            "output is a list of blocks",
        ),
        (
            {
                "session_id": "s",
                "at": 0,
                "type": "tool_response",
                "call_id": "c",
                "output": [
                    {
                        "ToolResult": {
                            "tool_use_id": "c",
                            "content": [{"Text": {}}],
                            "is_error": False,
                        }
                    }
                ],
                "is_error": False,
            },
            "a nested block is checked too",
        ),
    ],
)
def test_wrong_shapes_are_rejected_by_the_schema_and_the_decoder(item: Any, why: str) -> None:
    assert _invalid(item), why
    back = collect_agent_response(decode_all(MODEL, [item]))
    serde_reads_it = "serde" in why  # an unknown field: ignored, as tiny-agent ignores it
    expected = [] if serde_reads_it else [ErrorCode.INVALID_CHUNK]
    assert [e.error_code for e in back.errors] == expected, why


def test_the_decoder_reads_tiny_agents_own_lines_into_raf_s_response() -> None:
    response = collect_agent_response(decode_all(MODEL, [json.loads(line) for line in EXAMPLE]))
    assert response.text == "Checking."  # the formed message decides, not the partials
    assert response.reasoning_text == "Need weather."
    assert [(c.id, c.name, c.arguments) for c in response.tool_calls] == [
        ("call_0", "get_weather", {"city": "Paris"})
    ]
    assert [(m.tool_call_id, m.content) for m in response.tool_messages] == [
        ("call_0", "22°C, sunny")
    ]
    assistant, tool = response.turn_transcript
    assert assistant.role == MessageRole.ASSISTANT
    assert assistant.blocks == (
        blocks.Reasoning(text="Need weather."),
        blocks.Text(text="Checking."),
        blocks.ToolCall(id="call_0", name="get_weather", arguments={"city": "Paris"}),
    )
    assert tool.blocks == (
        blocks.ToolResult(call_id="call_0", content="22°C, sunny", name="get_weather"),
    )
    assert response.errors == ()
    (notice,) = response.notices  # user_message and tool_output have no place in raf
    assert notice.error_code == ErrorCode.UNRECOGNISED_CHUNKS
    assert "user_message" in notice.message
    assert "tool_output" in notice.message


def test_the_encoder_writes_what_tiny_agent_writes_for_the_same_turn() -> None:
    encoder = TinyAgentEncoder(session_id="s1", at=1750000000001)
    items = [item for r in EXAMPLE_RESULTS for item in encoder.feed(r)] + encoder.close()
    lines = [json.dumps(item, ensure_ascii=False, separators=(",", ":")) for item in items]
    assert lines == [
        '{"session_id":"s1","at":1750000000001,"type":"reasoning_started"}',
        '{"session_id":"s1","at":1750000000002,"type":"partial_assistant_message","delta":"Check"}',
        '{"session_id":"s1","at":1750000000003,"type":"partial_assistant_message","delta":"ing."}',
        '{"session_id":"s1","at":1750000000004,"type":"partial_tool_call","call_id":"call_0","name":"get_weather","delta":"{\\"city\\":"}',
        '{"session_id":"s1","at":1750000000005,"type":"partial_tool_call","call_id":"call_0","name":"get_weather","delta":"\\"Paris\\"}"}',
        '{"session_id":"s1","at":1750000000006,"type":"tool_call","call_id":"call_0","name":"get_weather","arguments":{"city":"Paris"}}',
        '{"session_id":"s1","at":1750000000007,"type":"assistant_message","blocks":[{"Thinking":{"text":"Need weather."}},{"Text":{"text":"Checking."}},{"ToolUse":{"id":"call_0","name":"get_weather","input":{"city":"Paris"}}}]}',
        '{"session_id":"s1","at":1750000000008,"type":"tool_response","call_id":"call_0","output":[{"Text":{"text":"22°C, sunny"}}],"is_error":false}',
    ]


def test_by_default_items_are_numbered_from_0_and_a_clock_can_be_given() -> None:
    default = list(encode_all(MODEL, EXAMPLE_RESULTS))
    assert [item["at"] for item in default] == list(range(len(default)))
    assert {item["session_id"] for item in default} == {"raf"}
    assert list(encode_all(MODEL, EXAMPLE_RESULTS)) == default  # reproducible
    ticks = iter(range(1000, 2000, 10))
    encoder = TinyAgentEncoder(session_id="chat-7", at=lambda: next(ticks))
    timed = [item for r in EXAMPLE_RESULTS for item in encoder.feed(r)] + encoder.close()
    assert [item["at"] for item in timed] == list(range(1000, 1000 + 10 * len(timed), 10))
    assert {item["session_id"] for item in timed} == {"chat-7"}


def test_a_failed_tool_is_an_error_response_and_comes_back_as_one() -> None:
    results = (
        _result(contents.ToolCalling(call_id="c1", name="f", arguments={})),
        _result(contents.RoundFinished(round=0)),
        _result(contents.ToolCalled(call_id="c1", error="boom")),
    )
    items = list(encode_all(MODEL, results))
    assert items[-1]["type"] == "tool_response"
    assert items[-1]["output"] == [{"Text": {"text": "boom"}}]
    assert items[-1]["is_error"] is True
    (message,) = roundtrip(MODEL, results).tool_messages
    assert message.content == "boom"
    assert message.blocks[0].is_error  # type: ignore[union-attr]


def test_reasoning_is_only_in_the_thinking_block_of_the_rounds_message() -> None:
    results = (
        _result(contents.Reasoning(delta="Let me "), contents.Reasoning(delta="think.")),
        _result(contents.Text(delta="Hi.")),
    )
    items = list(encode_all(MODEL, results))
    assert [item["type"] for item in items] == [
        "reasoning_started",
        "partial_assistant_message",
        "assistant_message",
    ]
    assert items[-1]["blocks"] == [
        {"Thinking": {"text": "Let me think."}},
        {"Text": {"text": "Hi."}},
    ]


def test_each_round_is_started_and_ends_with_its_message_tool_responses_between() -> None:
    for name, results in agent_runs():
        kinds = [item["type"] for item in encode_all(MODEL, results)]
        starts = [i for i, k in enumerate(kinds) if k == "reasoning_started"]
        ends = [i for i, k in enumerate(kinds) if k == "assistant_message"]
        assert len(starts) == len(ends), name
        assert all(s < e for s, e in zip(starts, ends, strict=True)), name
        assert all(e < s for e, s in zip(ends, starts[1:], strict=False)), name
        for i, kind in enumerate(kinds):  # a tool runs between rounds, never inside one
            if kind == "tool_response":
                assert sum(1 for s in starts if s < i) == sum(1 for e in ends if e < i), name


def _block_kinds(response: AgentResponse) -> list[str]:
    return [type(b).__name__ for m in response.turn_transcript for b in m.blocks]


def test_a_tool_the_provider_ran_is_never_written_as_a_call_to_run() -> None:
    hosted = [
        s
        for s in bundled_streams()
        if collect_agent_response(results_of(s, "whole")).hosted_tool_calls
    ]
    assert hosted
    for stream in hosted:
        response = collect_agent_response(results_of(stream, "whole"))
        ids = {call.id for call in response.hosted_tool_calls}
        for item in encode_all(MODEL, results_of(stream, "whole")):
            if item["type"] in ("tool_call", "partial_tool_call"):
                assert item["call_id"] not in ids, stream.name
            for block in item.get("blocks", ()):
                assert block.get("ToolUse", {}).get("id") not in ids, stream.name


def _representable(response: AgentResponse) -> bool:
    """Every block of the turn has a tiny-agent block, and none sits next to one of its kind."""
    for message in response.turn_transcript:
        kinds = [type(b) for b in message.blocks]
        if any(k in (blocks.HostedTool, blocks.Raw) for k in kinds):
            return False
        if any(
            a is b and a in (blocks.Text, blocks.Reasoning) for a, b in itertools.pairwise(kinds)
        ):
            return False
    return True


def _turn_blocks(response: AgentResponse) -> Any:
    keep = ("type", "text", "id", "name", "call_id", "content", "is_error")
    return [
        [{k: v for k, v in b.items() if k in keep} for b in m["blocks"]]
        for m in to_canonical(response)["turn_transcript"]
    ]


def test_the_turn_s_blocks_of_every_bundled_stream_come_back_in_order() -> None:
    """Streams whose turn has a hosted tool, a raw item or two adjacent blocks of a kind are
    left out (MODEL.rows says why); the others must all come back block for block."""
    checked = 0
    for stream in bundled_streams():
        results = results_of(stream, "random")
        original = collect_agent_response(results)
        if _representable(original):
            checked += 1
            assert _turn_blocks(roundtrip(MODEL, results)) == _turn_blocks(original), stream.name
    assert checked > 100


def test_the_turn_s_blocks_of_every_agent_run_come_back_in_order() -> None:
    checked = 0
    for name, results in agent_runs():
        original = collect_agent_response(results)
        if _representable(original):
            checked += 1
            assert _turn_blocks(roundtrip(MODEL, results)) == _turn_blocks(original), name
    assert checked > 20


def test_tiny_agents_own_order_a_call_after_the_message_decodes_the_same() -> None:
    items = list(encode_all(MODEL, EXAMPLE_RESULTS))
    calls = [i for i, item in enumerate(items) if item["type"] == "tool_call"]
    message = next(i for i, item in enumerate(items) if item["type"] == "assistant_message")
    native = [item for i, item in enumerate(items) if i not in calls]
    native[message - len(calls) + 1 : message - len(calls) + 1] = [items[i] for i in calls]
    assert [item["type"] for item in native].index("tool_call") > [
        item["type"] for item in native
    ].index("assistant_message")
    back = collect_agent_response(decode_all(MODEL, native))
    assert back == collect_agent_response(decode_all(MODEL, items))
    assert [c.id for c in back.tool_calls] == ["call_0"]


def test_a_stream_cut_before_the_rounds_message_keeps_its_partial_text_and_arguments() -> None:
    items = [json.loads(line) for line in EXAMPLE[1:4]]  # started, "Check", a fragment
    back = collect_agent_response(decode_all(MODEL, items))
    assert back.text == "Check"
    assert back.tool_calls == ()  # never complete: no tool_call came
    (message,) = back.turn_transcript
    assert message.blocks == (
        blocks.Text(text="Check"),
        blocks.ToolCall(id="call_0", name="get_weather"),
    )


def test_the_decoder_reports_bad_items_by_position_and_keeps_everything_else() -> None:
    good = [json.loads(line) for line in EXAMPLE]
    bad: list[Any] = [
        "not an object",
        {"session_id": "s1", "at": True, "type": "reasoning_started"},
        {"session_id": "s1", "at": 1, "type": "thinking_delta", "delta": "x"},
        {"session_id": "s1", "at": 1, "type": "assistant_message", "blocks": [{"Text": "hi"}]},
        {"session_id": "s1", "at": 1, "type": "tool_response", "call_id": "c", "output": []},
    ]
    mixed = good[:3] + bad[:3] + good[3:6] + bad[3:] + good[6:]
    decoder = TinyAgentDecoder()
    results = [r for item in mixed for r in decoder.feed(item)] + decoder.close()
    back = collect_agent_response(results)
    expected = collect_agent_response(decode_all(MODEL, good))
    assert back.text == expected.text
    assert back.reasoning_text == expected.reasoning_text
    assert back.tool_calls == expected.tool_calls
    assert back.tool_messages == expected.tool_messages
    assert [e.error_code for e in back.errors] == [ErrorCode.INVALID_CHUNK] * 5
    positions = [mixed.index(b) for b in bad]
    for error, position, what in zip(
        back.errors,
        positions,
        ["not a JSON object", "no at", "thinking_delta", "Text", "is_error"],
        strict=True,
    ):
        assert error.message.startswith(f"item {position} "), error.message
        assert what in error.message


def test_extra_fields_are_read_as_serde_reads_them() -> None:
    item = json.loads(EXAMPLE[2]) | {"seq": 4}  # serde ignores a field it does not know
    assert _invalid(item)  # raf never writes one: the schema says exactly tiny-agent's fields
    decoder = TinyAgentDecoder()
    assert decoder.feed(item) == []
    assert collect_agent_response(decoder.close()).text == "Check"


def test_events_without_a_model_round_make_no_round() -> None:
    results = (
        _result(contents.ToolCalled(call_id="earlier", result="ok")),
        AgentResponseResult(
            events=(events.Custom(event_type="reasoning_signature", payload={"signature": "S"}),)
        ),
    )
    kinds = [item["type"] for item in encode_all(MODEL, results)]
    # a signature alone is an empty signed thinking block: a round of its own
    assert kinds == ["tool_response", "reasoning_started", "assistant_message"]


def test_the_model_is_registered_and_its_table_names_the_schema() -> None:
    assert get("tiny-agent") is MODEL
    assert "tiny_agent.schema.json" in MODEL.validator


MESSAGE = jsonschema.Draft202012Validator({"$ref": "#/$defs/Message", "$defs": schema()["$defs"]})


def test_the_whole_response_is_tiny_agents_transcript_of_the_turn() -> None:
    response = roundtrip(MODEL, EXAMPLE_RESULTS)
    assert MODEL.aggregate is transcript
    assert transcript(response) == [
        {
            "role": "Assistant",
            "blocks": [
                {"Thinking": {"text": "Need weather."}},
                {"Text": {"text": "Checking."}},
                {"ToolUse": {"id": "call_0", "name": "get_weather", "input": {"city": "Paris"}}},
            ],
        },
        {
            "role": "Tool",
            "blocks": [
                {
                    "ToolResult": {
                        "tool_use_id": "call_0",
                        "content": [{"Text": {"text": "22°C, sunny"}}],
                        "is_error": False,
                    }
                }
            ],
        },
    ]


def test_the_transcript_of_every_stream_and_agent_run_is_valid() -> None:
    runs = [(s.name, results_of(s, "whole")) for s in bundled_streams()] + list(agent_runs())
    for name, results in runs:
        messages = transcript(collect_agent_response(results))
        for message in messages:
            problems = [e.message for e in MESSAGE.iter_errors(message)]
            assert not problems, (name, message, problems)
    assert any(len(transcript(collect_agent_response(r))) > 2 for _, r in agent_runs())


def _round_calling_tc_0(n: int) -> list[AgentResponseResult]:
    return [
        _result(contents.Text(delta=f"round {n}")),
        _result(
            contents.ToolCallStart(call_id="__tc_0", name="f"),
            contents.ToolCallArgs(call_id="__tc_0", args_delta=f'{{"n":{n}}}'),
            contents.ToolCallEnd(call_id="__tc_0"),
            contents.ToolCalling(call_id="__tc_0", name="f", arguments={"n": n}),
            contents.RoundFinished(round=n),
        ),
        _result(contents.ToolCalled(call_id="__tc_0", result=str(n))),
    ]


def test_a_call_id_used_again_in_a_later_round_is_a_call_of_that_round() -> None:
    results = (*_round_calling_tc_0(0), *_round_calling_tc_0(1), _result(contents.Text(delta="ok")))
    back = roundtrip(MODEL, results)
    assert [c.arguments for c in back.tool_calls] == [{"n": 0}, {"n": 1}]
    original = collect_agent_response(results)
    assert to_canonical(back)["turn_transcript"] == to_canonical(original)["turn_transcript"]


def test_tiny_agents_serial_tools_a_call_after_anothers_answer_stay_in_their_round() -> None:
    def item(kind: str, **fields: Any) -> dict[str, Any]:
        return {"session_id": "s1", "at": 0, "type": kind, **fields}

    def use(call_id: str) -> dict[str, Any]:
        return {"ToolUse": {"id": call_id, "name": "f", "input": {"x": call_id}}}

    def answer(call_id: str) -> dict[str, Any]:
        output = [{"Text": {"text": call_id + "!"}}]
        return item("tool_response", call_id=call_id, output=output, is_error=False)

    items = [
        item("reasoning_started"),
        item("assistant_message", blocks=[{"Text": {"text": "Two."}}, use("a"), use("b")]),
        item("tool_call", call_id="a", name="f", arguments={"x": "a"}),
        answer("a"),
        item("tool_call", call_id="b", name="f", arguments={"x": "b"}),
        answer("b"),
        item("reasoning_started"),
        item("assistant_message", blocks=[{"Text": {"text": "Done."}}]),
    ]
    assert all(not _invalid(i) for i in items)
    back = collect_agent_response(decode_all(MODEL, items))
    assert [(m.role, m.content, m.tool_call_id) for m in back.turn_transcript] == [
        (MessageRole.ASSISTANT, "Two.", None),
        (MessageRole.TOOL, "a!", "a"),
        (MessageRole.TOOL, "b!", "b"),
        (MessageRole.ASSISTANT, "Done.", None),
    ]
    assert [c.id for c in back.turn_transcript[0].tool_calls or ()] == ["a", "b"]
    assert back.text == "Two.Done."


def test_an_event_that_makes_no_block_starts_no_round() -> None:
    results = (
        _result(contents.ToolCalled(call_id="earlier", result="ok")),
        AgentResponseResult(
            events=(events.Custom(event_type="tool_call_item", payload={"call_id": "x"}),)
        ),
    )
    assert [item["type"] for item in encode_all(MODEL, results)] == ["tool_response"]


def _mutations(value: Any) -> list[Any]:
    """``value`` with one field removed or given a wrong type, everywhere in it."""
    out: list[Any] = []
    wrong: list[Any] = [None, 0, -1, 1.5, True, "x", [], {}, [{}], {"Text": None}]
    if isinstance(value, dict):
        for key in value:
            out.append({k: v for k, v in value.items() if k != key})
            out.extend({**value, key: w} for w in wrong)
            out.extend({**value, key: m} for m in _mutations(value[key]))
    elif isinstance(value, list):
        for i, element in enumerate(value):
            out.extend([*value[:i], m, *value[i + 1 :]] for m in _mutations(element))
    return out


def test_the_decoder_never_raises_and_reads_on_after_any_broken_item() -> None:
    good = [json.loads(line) for line in EXAMPLE]
    expected = collect_agent_response(decode_all(MODEL, good))
    mutations = [m for item in good for m in _mutations(item)]
    assert len(mutations) > 300
    for broken in mutations:
        back = collect_agent_response(decode_all(MODEL, [broken, *good]))
        # what the schema rejects, the decoder reports (and only that), and reads on
        assert bool(_invalid(broken)) == bool(back.errors), broken
        if back.errors:
            assert [e.error_code for e in back.errors] == [ErrorCode.INVALID_CHUNK]
            assert back.errors[0].message.startswith("item 0 ")
            assert back.text == expected.text, broken
            assert back.tool_calls == expected.tool_calls, broken
