"""AgentResponseConverter: every row of raf-spec 3.3, the tool-call identity rules, and the
converter-related bugs of peers.md Part 2 as named cases.

Expected contents are written by hand. ``run`` returns, per consumed update, the contents it
produced (metadata stripped), and the final result's contents last.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import msgspec
import pytest

from raf.collect import ResponseCollector
from raf.converter import AgentResponseConverter
from raf.model import (
    AgentResponseResult,
    ApprovalRequest,
    HostedCall,
    Usage,
    contents,
    events,
    updates,
)
from raf.model.contents import Content
from raf.model.updates import AgentResponseUpdate

T0 = datetime(2026, 11, 29, 12, 0, 0, tzinfo=UTC)

Start = contents.ToolCallStart
Args = contents.ToolCallArgs
Parsed = contents.ToolCallArgsParsed
Progress = contents.ToolCallArgsProgress
End = contents.ToolCallEnd
Calling = contents.ToolCalling
Delta = updates.ToolCallDelta


def strip(items: list[Content]) -> list[Content]:
    return [msgspec.structs.replace(c, meta=None) for c in items]


def run(
    stream: Sequence[AgentResponseUpdate], finish: str | None = "tool_calls", **options: Any
) -> tuple[list[list[Content]], list[Content]]:
    converter = AgentResponseConverter(clock=lambda: T0, **options)
    steps = [strip(converter.consume(u)[0]) for u in stream]
    final = converter.finalize(finish)
    return steps, strip(list(final.contents))


def flat(stream: Sequence[AgentResponseUpdate], finish: str | None = "tool_calls") -> list[Content]:
    steps, final = run(stream, finish)
    return [c for step in steps for c in step] + final


def callings(
    stream: Sequence[AgentResponseUpdate], finish: str | None = "tool_calls"
) -> list[tuple[str, str, Any]]:
    return [
        (c.call_id, c.name, c.arguments) for c in flat(stream, finish) if isinstance(c, Calling)
    ]


def errors(
    stream: list[AgentResponseUpdate], finish: str | None = "tool_calls"
) -> list[contents.Error]:
    return [c for c in flat(stream, finish) if isinstance(c, contents.Error)]


# -- raf-spec 3.3, row by row --------------------------------------------------------------


def test_text_and_reasoning_deltas_empty_ones_produce_nothing() -> None:
    steps, _ = run(
        [
            updates.TextDelta(delta="Hi"),
            updates.TextDelta(delta=""),
            updates.ReasoningDelta(delta="hm"),
            updates.ReasoningDelta(delta=""),
        ]
    )
    assert steps == [[contents.Text(delta="Hi")], [], [contents.Reasoning(delta="hm")], []]


def test_usage_and_finish_with_usage_become_usage_contents_finish_alone_nothing() -> None:
    usage = Usage(prompt_tokens=3, completion_tokens=4, total_tokens=7)
    steps, _ = run(
        [
            updates.Usage(usage=usage),
            updates.Finish(finish_reason="stop", usage=usage),
            updates.Finish(finish_reason="stop"),
        ]
    )
    assert steps == [[contents.Usage(usage=usage)], [contents.Usage(usage=usage)], []]


def test_error_update_keeps_its_code_and_raw_input() -> None:
    steps, _ = run(
        [updates.Error(error_code="sse_parse_error", message="data is not JSON: '{x'", raw="{x")]
    )
    assert steps == [
        [contents.Error(error_code="sse_parse_error", message="data is not JSON: '{x'", raw="{x")]
    ]


def test_response_metadata_produces_nothing_and_fills_the_final_result() -> None:
    converter = AgentResponseConverter(clock=lambda: T0)
    assert converter.consume(updates.ResponseMetadata(id="r1", model="m1")) == ([], [])
    assert converter.consume(updates.ResponseMetadata(id=None, model=None)) == (
        [],
        [],
    )  # absent values never clear
    final = converter.finalize("stop")
    assert (final.id, final.model, final.finish_reason, final.contents) == ("r1", "m1", "stop", ())
    assert converter.finalize(None).id is None  # taken and cleared


def test_explicit_lifecycle_start_args_end() -> None:
    steps, final = run(
        [
            updates.ToolCallStart(id="t1", name="read"),
            updates.ToolCallArgs(id="t1", args_delta='{"path":"/a"}'),
            updates.ToolCallArgs(id="t1", args_delta=""),
            updates.ToolCallEnd(id="t1"),
            updates.ToolCallEnd(id="t1"),
        ]
    )
    assert steps == [
        [Start(call_id="t1", name="read")],
        [
            Args(call_id="t1", args_delta='{"path":"/a"}'),
            Parsed(call_id="t1", name="path", value="/a"),
        ],
        [],
        [End(call_id="t1")],
        [],  # a repeated end is a no-op
    ]
    assert final == [Calling(call_id="t1", name="read", arguments={"path": "/a"})]


def test_repeated_explicit_start_is_not_duplicated() -> None:
    steps, _ = run(
        [updates.ToolCallStart(id="t1", name="read"), updates.ToolCallStart(id="t1", name="read")]
    )
    assert steps == [[Start(call_id="t1", name="read")], []]


def test_tool_called_completes_the_lifecycle_once() -> None:
    # RAF deletes the call's state on ToolCalled, so an executed call never gets End or
    # ToolCalling (raf-spec 3.7 C [quirk]); raf completes the lifecycle first, exactly once.
    steps, final = run(
        [
            updates.ToolCallStart(id="c1", name="get"),
            updates.ToolCallArgs(id="c1", args_delta="{}"),
            updates.ToolCalled(id="c1", result='{"ok":true}'),
            updates.ToolCalled(id="c1", result="again"),
        ],
        finish="stop",
    )
    assert steps[2] == [
        End(call_id="c1"),
        Calling(call_id="c1", name="get", arguments={}),
        contents.ToolCalled(call_id="c1", result='{"ok":true}'),
    ]
    assert steps[3] == [contents.ToolCalled(call_id="c1", result="again")]
    assert final == []


def test_tool_called_for_an_unknown_call_is_passed_through() -> None:
    steps, _ = run([updates.ToolCalled(id="x", error="boom")])
    assert steps == [[contents.ToolCalled(call_id="x", error="boom")]]


def test_item_12_approval_request_is_a_content_of_its_own_never_text() -> None:
    converter = AgentResponseConverter(clock=lambda: T0)
    produced, evs = converter.consume(
        updates.ToolApprovalRequest(
            call_id="c9", name="rm", arguments={"z": 1, "a": "x"}, description="Delete a file"
        )
    )
    assert strip(produced) == [
        contents.ToolApprovalRequest(
            call_id="c9", name="rm", arguments={"z": 1, "a": "x"}, description="Delete a file"
        )
    ]
    assert evs == []
    collector = ResponseCollector()
    collector.add(AgentResponseResult(contents=tuple(produced)))
    response = collector.response()
    assert response.text == ""
    assert response.approval_requests == (
        ApprovalRequest(
            call_id="c9", name="rm", arguments={"z": 1, "a": "x"}, description="Delete a file"
        ),
    )
    assert response.tool_calls == ()


def test_item_11_hosted_call_and_result_are_contents_never_a_client_call() -> None:
    converter = AgentResponseConverter(clock=lambda: T0)
    item = {"type": "shell_call", "id": "sh_1", "call_id": "call_1", "status": "completed"}
    results = converter.results(
        [
            updates.HostedToolCall(
                call_id="call_1", name="shell", arguments={"commands": ["ls"]}, item=item
            ),
            updates.HostedToolResult(
                call_id="call_1", name="shell_call_output", output=[{"stdout": "a\n"}]
            ),
            updates.Finish(finish_reason="stop"),
        ]
    )
    final = converter.finalize("stop")
    produced = [c for r in results for c in r.contents]
    assert strip(produced) == [
        contents.HostedToolCall(
            call_id="call_1", name="shell", arguments={"commands": ["ls"]}, item=item
        ),
        contents.HostedToolResult(
            call_id="call_1", name="shell_call_output", output=[{"stdout": "a\n"}]
        ),
    ]
    assert final.contents == ()  # no ToolCallEnd, no ToolCalling
    collector = ResponseCollector()
    for result in [*results, final]:
        collector.add(result)
    response = collector.response()
    assert response.tool_calls == ()
    assert response.finish_reason == "stop"
    assert response.hosted_tool_calls == (
        HostedCall(
            id="call_1", name="shell", arguments={"commands": ["ls"]}, output=[{"stdout": "a\n"}]
        ),
    )


def test_hosted_result_without_its_call_gets_an_entry_named_after_the_result() -> None:
    collector = ResponseCollector()
    collector.add(
        AgentResponseResult(
            contents=(
                contents.HostedToolResult(call_id="x", name="web_search_tool_result", error="e"),
            )
        )
    )
    assert collector.response().hosted_tool_calls == (
        HostedCall(id="x", name="web_search_tool_result", error="e"),
    )


def test_metadata_on_every_content() -> None:
    converter = AgentResponseConverter(
        agent_id="agent-7", executor_id="exec-1", properties={"run": "r-1"}, clock=lambda: T0
    )
    converter.consume(updates.ResponseMetadata(id="r", model="gpt-4o"))
    produced = converter.consume(Delta(index=0, id="c1", name="f", arguments_delta='{"a":1}'))[0]
    produced += converter.consume(updates.TextDelta(delta="x"))[0]
    produced += list(converter.finalize("tool_calls").contents)
    assert len(produced) == 6
    for content in produced:
        assert content.meta is not None
        assert (content.meta.agent_id, content.meta.model_id, content.meta.executor_id) == (
            "agent-7",
            "gpt-4o",
            "exec-1",
        )
        assert content.meta.timestamp == T0
        assert content.meta.properties == {"run": "r-1"}


def test_model_id_is_none_before_the_stream_names_a_model() -> None:
    converter = AgentResponseConverter(clock=lambda: T0)
    (text,), _ = converter.consume(updates.TextDelta(delta="x"))
    assert text.meta is not None
    assert text.meta.model_id is None


# -- legacy deltas: identity ----------------------------------------------------------------


def test_openai_style_single_call_spec_2_6() -> None:
    steps, final = run(
        [
            Delta(index=0, id="call_a", name="get", arguments_delta=""),
            Delta(index=0, arguments_delta='{"q":'),
            Delta(index=0, arguments_delta="1}"),
        ]
    )
    assert steps == [
        [Start(call_id="call_a", name="get")],
        [Args(call_id="call_a", args_delta='{"q":')],  # the number is not terminated yet
        [Args(call_id="call_a", args_delta="1}"), Parsed(call_id="call_a", name="q", value=1)],
    ]
    assert final == [
        End(call_id="call_a"),
        Calling(call_id="call_a", name="get", arguments={"q": 1}),
    ]


def test_interleaved_parallel_calls_each_keep_their_arguments__peers30() -> None:
    stream = [
        Delta(index=0, id="A", name="fa"),
        Delta(index=1, id="B", name="fb"),
        Delta(index=0, arguments_delta='{"x":'),
        Delta(index=2, id="C", name="fc"),
        Delta(index=1, arguments_delta='{"y":'),
        Delta(index=0, arguments_delta="1}"),
        Delta(index=2, arguments_delta="{}"),
        Delta(index=1, arguments_delta='"b"}'),
    ]
    assert callings(stream) == [("A", "fa", {"x": 1}), ("B", "fb", {"y": "b"}), ("C", "fc", {})]
    _, final = run(stream)
    assert final[:3] == [End(call_id="A"), End(call_id="B"), End(call_id="C")]  # first-seen order


@pytest.mark.parametrize(
    "name",
    [
        "ollama_index_zero__peers37",
        "sglang_dynamo_index_zero__peers38",
        "litellm_responses_bridge__peers24",
        "groq_one_chunk_per_call__peers22",
        "bedrock_shared_index__peers13",
    ],
)
def test_same_index_with_a_new_id_starts_a_new_call(name: str) -> None:
    stream = [
        Delta(index=0, id="call_1", name="read_file", arguments_delta='{"path":"a"}'),
        Delta(index=0, id="call_2", name="search_text", arguments_delta='{"q":'),
        Delta(
            index=0, arguments_delta='"x"}'
        ),  # id-less continuation: the most recent id of index 0
    ]
    assert callings(stream) == [
        ("call_1", "read_file", {"path": "a"}),
        ("call_2", "search_text", {"q": "x"}),
    ]


def test_gemini_parallel_calls_at_position_zero_are_all_kept__peers16() -> None:
    stream = [
        Delta(
            index=0, id="function-call-1", name="get_weather", arguments_delta='{"city":"Paris"}'
        ),
        Delta(index=0, id="function-call-2", name="get_weather", arguments_delta='{"city":"Rome"}'),
    ]
    assert callings(stream, finish="stop") == [
        ("function-call-1", "get_weather", {"city": "Paris"}),
        ("function-call-2", "get_weather", {"city": "Rome"}),
    ]


def test_missing_index_goes_to_the_call_with_its_id_else_the_active_call__peers2_14() -> None:
    stream = [
        Delta(id="c1", name="f", arguments_delta='{"a":'),
        Delta(arguments_delta="1}"),  # no index, no id: the active call
        Delta(id="c2", name="g", arguments_delta='{"b":'),
        Delta(id="c1", arguments_delta=""),  # routed by id, adds nothing
        Delta(id="c2", arguments_delta="2}"),
    ]
    assert callings(stream) == [("c1", "f", {"a": 1}), ("c2", "g", {"b": 2})]


def test_null_index_and_finish_stop_keep_the_calls__peers39() -> None:
    assert callings([Delta(id="c1", name="f", arguments_delta="{}")], finish="stop") == [
        ("c1", "f", {})
    ]


def test_repeated_id_and_name_on_every_delta_are_no_ops__peers25_41() -> None:
    stream = [
        Delta(index=0, id="call_9", name="read_file", arguments_delta='{"pa'),
        Delta(index=0, id="call_9", name="read_file", arguments_delta='th":"x"}'),
        Delta(index=0, id="call_9", name="read_file"),
    ]
    steps, final = run(stream)
    assert [c for c in steps[0] if isinstance(c, Start)] == [
        Start(call_id="call_9", name="read_file")
    ]
    assert not [c for step in steps[1:] for c in step if isinstance(c, Start)]
    assert final[-1] == Calling(call_id="call_9", name="read_file", arguments={"path": "x"})


def test_duplicate_call_with_the_same_id_is_one_call__peers31() -> None:
    stream = [
        Delta(index=0, id="c1", name="f", arguments_delta='{"a":1}'),
        Delta(index=1, id="c1", name="f"),
    ]
    assert callings(stream) == [("c1", "f", {"a": 1})]


def test_missing_ids_are_synthesized_deterministically__peers36() -> None:
    stream = [
        Delta(index=0, name="f", arguments_delta="{}"),
        Delta(index=1, name="g", arguments_delta='{"x":1}'),
        Delta(index=0, arguments_delta=""),
    ]
    assert callings(stream) == [("__tc_0", "f", {}), ("__tc_1", "g", {"x": 1})]


def test_synthetic_ids_count_calls_not_indices() -> None:
    # An index-less server: ordinals keep ids unique where RAF's __tc_<index> would collide.
    stream: list[AgentResponseUpdate] = [
        Delta(name="f", arguments_delta="{}"),
        updates.ToolCallEnd(id="__tc_0"),
        Delta(name="f", arguments_delta='{"n":2}'),
    ]
    assert callings(stream) == [("__tc_0", "f", {}), ("__tc_1", "f", {"n": 2})]


def test_same_index_different_name_without_id_is_a_new_call() -> None:
    stream = [
        Delta(index=0, name="read", arguments_delta="{}"),
        Delta(index=0, name="write", arguments_delta='{"a":1}'),
    ]
    assert callings(stream) == [("__tc_0", "read", {}), ("__tc_1", "write", {"a": 1})]


def test_id_arriving_after_the_first_fragment_does_not_split_the_call() -> None:
    converter = AgentResponseConverter(clock=lambda: T0)
    first, _ = converter.consume(Delta(index=0, name="get", arguments_delta='{"q":'))
    late, evs = converter.consume(Delta(index=0, id="call_late", arguments_delta='"x"'))
    more, _ = converter.consume(Delta(id="call_late", arguments_delta="}"))
    final = strip(list(converter.finalize("tool_calls").contents))
    assert strip(first)[0] == Start(call_id="__tc_0", name="get")
    assert strip(late)[0] == Args(call_id="__tc_0", args_delta='"x"')
    assert strip(more)[0] == Args(call_id="__tc_0", args_delta="}")
    assert [msgspec.structs.replace(e, meta=None) for e in evs] == [
        events.Custom(
            event_type="tool_call_provider_id",
            payload={"call_id": "__tc_0", "provider_id": "call_late"},
        )
    ]
    assert final == [
        End(call_id="__tc_0"),
        Calling(call_id="__tc_0", name="get", arguments={"q": "x"}),
    ]


def test_id_before_the_name_is_the_call_id() -> None:
    assert callings(
        [
            Delta(index=0, arguments_delta='{"a"'),
            Delta(index=0, id="c7"),
            Delta(index=0, name="f", arguments_delta=":1}"),
        ]
    ) == [("c7", "f", {"a": 1})]


def test_arguments_before_the_name_are_kept_then_emitted_and_parsed() -> None:
    steps, final = run(
        [
            Delta(index=0, id="c1", arguments_delta='{"a":"x",'),
            Delta(index=0, arguments_delta='"b":'),
            Delta(index=0, name="f", arguments_delta="2}"),
        ]
    )
    assert steps == [
        [],
        [],
        [
            Start(call_id="c1", name="f"),
            Args(call_id="c1", args_delta='{"a":"x","b":'),
            Parsed(call_id="c1", name="a", value="x"),
            Args(call_id="c1", args_delta="2}"),
            Parsed(call_id="c1", name="b", value=2),
        ],
    ]
    assert final[-1] == Calling(call_id="c1", name="f", arguments={"a": "x", "b": 2})


def test_two_entries_for_one_index_in_one_chunk__peers1() -> None:
    # The dialect passes both entries on; the converter merges them by index.
    assert callings(
        [
            Delta(index=0, id="call_x", name="f"),
            Delta(index=0, arguments_delta='{"a":'),
            Delta(index=0, arguments_delta="1}"),
        ]
    ) == [("call_x", "f", {"a": 1})]


def test_index_starting_at_one() -> None:
    assert callings(
        [
            Delta(index=1, id="toolu_1", name="f", arguments_delta='{"a":'),
            Delta(index=1, arguments_delta="1}"),
        ]
    ) == [("toolu_1", "f", {"a": 1})]


def test_rechunked_parallel_calls_keep_their_identity__peers26() -> None:
    stream = [
        Delta(index=0, id="a", name="f"),
        Delta(index=1, id="b", name="g"),
        Delta(index=1, arguments_delta="{}"),
        Delta(index=0, arguments_delta="{}"),
    ]
    assert callings(stream) == [("a", "f", {}), ("b", "g", {})]


# -- explicit and legacy updates for the same call -------------------------------------------


def test_explicit_start_then_legacy_deltas_one_start_one_call() -> None:
    # RAF's Anthropic stream sends both (raf-spec 2.7, 5.9).
    stream: list[AgentResponseUpdate] = [
        updates.ToolCallStart(id="toolu_1", name="f"),
        Delta(index=1, id="toolu_1", name="f", arguments_delta='{"a":'),
        Delta(index=1, id="toolu_1", name="f", arguments_delta="1}"),
    ]
    steps, final = run(stream)
    assert [c for step in steps for c in step if isinstance(c, Start)] == [
        Start(call_id="toolu_1", name="f")
    ]
    assert final == [
        End(call_id="toolu_1"),
        Calling(call_id="toolu_1", name="f", arguments={"a": 1}),
    ]


def test_legacy_delta_then_explicit_start_and_end_no_duplicates() -> None:
    stream: list[AgentResponseUpdate] = [
        Delta(index=0, id="c1", name="f", arguments_delta="{}"),
        updates.ToolCallStart(id="c1", name="f"),
        updates.ToolCallEnd(id="c1"),
    ]
    steps, final = run(stream)
    assert steps[1] == []
    assert steps[2] == [End(call_id="c1")]
    assert final == [Calling(call_id="c1", name="f", arguments={})]


def test_explicit_parallel_interleaved_calls() -> None:
    # RAF's tool loop loses A's later arguments here (raf-spec 5.9); the converter must not.
    stream: list[AgentResponseUpdate] = [
        updates.ToolCallStart(id="A", name="f"),
        updates.ToolCallStart(id="B", name="g"),
        updates.ToolCallArgs(id="A", args_delta='{"a":'),
        updates.ToolCallArgs(id="B", args_delta="{}"),
        updates.ToolCallArgs(id="A", args_delta="1}"),
        updates.ToolCallEnd(id="A"),
        updates.ToolCallEnd(id="B"),
    ]
    assert callings(stream) == [("A", "f", {"a": 1}), ("B", "g", {})]


# -- finalize ----------------------------------------------------------------------------------


def test_empty_arguments_mean_an_empty_object() -> None:
    assert callings([Delta(index=0, id="c1", name="get_time", arguments_delta="")]) == [
        ("c1", "get_time", {})
    ]


def test_truncated_arguments_are_an_error_not_a_call__peers15_44() -> None:
    stream = [
        Delta(index=0, id="c1", name="write", arguments_delta='{"text":"abc'),
        Delta(index=1, id="c2", name="ok", arguments_delta='{"n":1}'),
    ]
    out = flat(stream, finish="length")
    (error,) = [c for c in out if isinstance(c, contents.Error)]
    assert error.error_code == "invalid_tool_arguments"
    assert error.call_id == "c1"
    assert error.raw == '{"text":"abc'
    assert "write" in error.message
    assert "finish_reason 'length'" in error.message
    assert [c for c in out if isinstance(c, Calling)] == [
        Calling(call_id="c2", name="ok", arguments={"n": 1})
    ]  # unaffected
    assert End(call_id="c1") in out  # the started call is still ended


def test_garbage_arguments_name_the_tool__peers32() -> None:
    (error,) = errors([Delta(index=0, id="toolu_01", name="search", arguments_delta='{"q": "x"}}')])
    assert (error.error_code, error.call_id, error.raw) == (
        "invalid_tool_arguments",
        "toolu_01",
        '{"q": "x"}}',
    )
    assert "search" in error.message


def test_concatenated_second_call_on_the_same_index_is_flagged__peers40() -> None:
    (error,) = errors(
        [
            Delta(index=0, id="c1", name="f", arguments_delta='{"a":1}'),
            Delta(index=0, arguments_delta='{"a":2}'),
        ]
    )
    assert error.raw == '{"a":1}{"a":2}'


def test_arguments_are_complete_only_at_finalize__peers34() -> None:
    steps, final = run(
        [
            Delta(index=0, id="c1", name="search", arguments_delta='{"query":"test"'),
            Delta(index=0, arguments_delta=',"limit":10}'),
        ]
    )
    assert not [c for step in steps for c in step if isinstance(c, Calling)]
    assert final[-1] == Calling(
        call_id="c1", name="search", arguments={"query": "test", "limit": 10}
    )


def test_stream_cut_inside_arguments_is_reported_with_the_raw_text() -> None:
    (error,) = errors([Delta(index=0, id="c1", name="f", arguments_delta='{"a":[1,2')], finish=None)
    assert "without a finish reason" in error.message
    assert error.raw == '{"a":[1,2'


def test_call_that_never_got_a_name_is_reported() -> None:
    (error,) = errors([Delta(index=0, id="c1", arguments_delta='{"a":1}')])
    assert (error.error_code, error.call_id, error.raw) == ("invalid_tool_call", "c1", '{"a":1}')


def test_finalize_for_any_finish_reason_and_is_idempotent_per_turn__peers42() -> None:
    converter = AgentResponseConverter(clock=lambda: T0)
    converter.consume(Delta(index=0, id="c1", name="f", arguments_delta="{}"))
    converter.consume(updates.Finish(finish_reason="tool_calls"))
    converter.consume(
        updates.Finish(finish_reason="tool_calls", usage=Usage(total_tokens=3))
    )  # OpenRouter's second finish
    first = converter.finalize("content_filter")
    assert [type(c) for c in first.contents] == [End, Calling]
    assert converter.finalize("stop").contents == ()


def test_synthetic_ids_stay_unique_across_turns() -> None:
    converter = AgentResponseConverter(clock=lambda: T0)
    converter.consume(Delta(index=0, name="f", arguments_delta="{}"))
    first = converter.finalize("tool_calls")
    converter.consume(Delta(index=0, name="f", arguments_delta="{}"))
    second = converter.finalize("tool_calls")
    assert first.contents[-1].call_id == "__tc_0"  # type: ignore[union-attr]
    assert second.contents[-1].call_id == "__tc_1"  # type: ignore[union-attr]


def test_argument_size_limit() -> None:
    steps, final = run(
        [
            Delta(index=0, id="c1", name="f", arguments_delta='{"a":"' + "x" * 50),
            Delta(index=0, arguments_delta="x" * 50 + '"}'),
            Delta(index=1, id="c2", name="g", arguments_delta="{}"),
        ],
        max_arguments_chars=100,
    )
    out = [c for step in steps for c in step] + final
    converter_errors = [c for c in out if isinstance(c, contents.Error)]
    assert [e.error_code for e in converter_errors] == ["tool_arguments_too_large"]
    assert [c.call_id for c in out if isinstance(c, Calling)] == ["c2"]


def test_argument_size_limit_is_configurable() -> None:
    steps, _ = run(
        [Delta(index=0, id="c1", name="f", arguments_delta="x" * 11)], max_arguments_chars=10
    )
    assert steps[0][-1].error_code == "tool_arguments_too_large"  # type: ignore[union-attr]


def test_tool_call_count_limit() -> None:
    stream: list[AgentResponseUpdate] = [
        Delta(index=i, id=f"c{i}", name="f", arguments_delta="{}") for i in range(5)
    ]
    steps, final = run(stream, max_tool_calls=3)
    assert [c.error_code for step in steps for c in step if isinstance(c, contents.Error)] == [
        "too_many_tool_calls"
    ]
    assert [c.call_id for c in final if isinstance(c, Calling)] == ["c0", "c1", "c2"]


# -- the parser inside the converter ----------------------------------------------------------


def test_progress_reports_new_text_and_received_count() -> None:
    steps, _ = run(
        [
            Delta(index=0, id="c1", name="write", arguments_delta='{"text":"Hel'),
            Delta(index=0, arguments_delta="lo W"),
            Delta(index=0, arguments_delta='orld"}'),
        ]
    )
    assert steps[0][-1] == Progress(call_id="c1", name="text", received=3, value="Hel")
    assert steps[1][-1] == Progress(call_id="c1", name="text", received=7, value="lo W")
    assert steps[2][-1] == Parsed(call_id="c1", name="text", value="Hello World")


# -- a call's life: the state table (CallState) --------------------------------------------


def test_a_call_ended_before_its_name_still_starts_once_and_is_called_but_never_ended_again() -> (
    None
):
    stream: list[AgentResponseUpdate] = [
        updates.ToolCallArgs(id="c1", args_delta='{"q": 1}'),
        updates.ToolCallEnd(id="c1"),  # before the name: nothing to end yet
        updates.ToolCallStart(id="c1", name="search"),
    ]
    steps, final = run(stream)
    assert steps[1] == []
    assert [type(c) for c in steps[2]] == [Start, Args, Parsed]
    assert final == [Calling(call_id="c1", name="search", arguments={"q": 1})]  # no End


def test_an_executed_call_is_neither_ended_nor_called_again() -> None:
    stream: list[AgentResponseUpdate] = [
        Delta(index=0, id="c1", name="f", arguments_delta="{}"),
        updates.ToolCalled(id="c1", result="ok"),
        updates.ToolCallEnd(id="c1"),
        updates.ToolCalled(id="c1", result="again"),
    ]
    kinds = [type(c) for c in flat(stream)]
    assert kinds.count(End) == 1
    assert kinds.count(Calling) == 1
    assert kinds.count(contents.ToolCalled) == 2


# -- a converter used for more than one turn (or round) -------------------------------------


def test_every_turn_names_its_model_also_when_it_is_the_model_of_the_turn_before() -> None:
    # "ResponseMetadata(id, model): the id and model go into the final result", and after
    # finalize "The converter is then ready for another turn" (docs/converter.md).
    converter = AgentResponseConverter(clock=lambda: T0)
    finals = []
    for turn in ("r1", "r2"):
        converter.consume(updates.ResponseMetadata(id=turn, model="m"))
        converter.consume(updates.TextDelta(delta="x"))
        finals.append(converter.finalize("stop"))
    assert [(final.id, final.model) for final in finals] == [("r1", "m"), ("r2", "m")]


def test_a_round_and_the_turn_after_it_name_the_same_model() -> None:
    converter = AgentResponseConverter(clock=lambda: T0)
    converter.consume(updates.ResponseMetadata(id="r1", model="m"))
    closed = converter.results(
        [
            Delta(index=0, id="c1", name="f", arguments_delta="{}"),
            updates.RoundFinished(round=0, finish_reason="tool_calls"),
            updates.ToolCalled(id="c1", result="ok"),
            updates.ResponseMetadata(id="r2", model="m"),
            updates.TextDelta(delta="done"),
        ]
    )
    final = converter.finalize("stop")
    assert [(r.id, r.model) for r in closed if r.id is not None] == [("r1", "m")]
    assert (final.id, final.model) == ("r2", "m")


@pytest.mark.parametrize(
    "again",
    [
        Delta(index=None, id="c1", name=None, arguments_delta='{"a":2}'),
        updates.ToolCallArgs(id="c1", args_delta='{"a":2}'),
    ],
    ids=["legacy_delta", "explicit_args"],
)
def test_an_id_that_comes_again_after_its_call_ran_names_another_call(
    again: AgentResponseUpdate,
) -> None:
    # A called call is final (docs/converter.md, the state table) and "A call id reused in a
    # later round is another call" (docs/agent.md): its text and parser are gone, so the id
    # starts a new call, never an internal error.
    steps, final = run(
        [
            Delta(index=0, id="c1", name="f", arguments_delta='{"a":1}'),
            updates.ToolCalled(id="c1", result="ok"),
            again,
            updates.ToolCallStart(id="c1", name="g"),
        ]
    )
    errors = [c for step in steps for c in step if isinstance(c, contents.Error)]
    assert errors == []
    assert steps[-1] == [
        Start(call_id="c1", name="g"),
        Args(call_id="c1", args_delta='{"a":2}'),
        Parsed(call_id="c1", name="a", value=2),
    ]
    assert final == [End(call_id="c1"), Calling(call_id="c1", name="g", arguments={"a": 2})]
