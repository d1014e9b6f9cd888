"""What ``collect_agent_response`` makes of a run of the tool loop: the rounds with their finish
reasons and usages, the summed usage, the tool messages and the conversation the loop had with
the provider (docs/agent.md, "Agent, sessions and context providers").

The streams are the updates the loop emits (the brief's contract, docs/agent.md): a round's
updates, ``RoundFinished``, one ``ToolCalled`` per call; the final round's updates and its
``Finish``. They go through the real converter, as an agent run does.
"""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import event, given
from hypothesis import strategies as st

from raf.collect import ResponseCollector, collect_agent_response
from raf.converter import AgentResponseConverter
from raf.model import (
    AgentResponse,
    ChatMessage,
    MessageRole,
    MessageSource,
    Round,
    ToolCall,
    Usage,
    blocks,
    updates,
)
from raf.model.updates import AgentResponseUpdate
from raf.model.usage import add_usage


def usage(prompt: int, completion: int) -> Usage:
    return Usage(
        prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion
    )


def collect(
    stream: Sequence[AgentResponseUpdate], pending: Sequence[ToolCall] = ()
) -> AgentResponse:
    """The response an agent run collects from ``stream``: one result per update, then the
    converter's final result."""
    converter = AgentResponseConverter(agent_id="agent")
    results = [r for update in stream for r in converter.results((update,))]
    results.append(converter.finalize(converter.finish_reason))
    return collect_agent_response(results, collector=ResponseCollector(pending_calls=pending))


def call(call_id: str, name: str, arguments: str) -> list[AgentResponseUpdate]:
    return [
        updates.ToolCallStart(id=call_id, name=name),
        updates.ToolCallArgs(id=call_id, args_delta=arguments),
        updates.ToolCallEnd(id=call_id),
    ]


U0, U1, U2 = usage(100, 20), usage(150, 30), usage(210, 12)

WEATHER_RUN: list[AgentResponseUpdate] = [
    updates.ResponseMetadata(id="resp_0", model="m"),
    updates.ReasoningDelta(delta="Need the weather."),
    updates.ReasoningSignature(signature="SIG"),
    updates.TextDelta(delta="Let me "),
    updates.TextDelta(delta="check."),
    *call("c1", "get_weather", '{"city": "Paris"}'),
    updates.Usage(usage=U0),
    updates.RoundFinished(round=0, finish_reason="tool_calls", usage=U0),
    updates.ToolCalled(id="c1", result='{"ok":true,"data":21}'),
    updates.ResponseMetadata(id="resp_1", model="m"),
    updates.TextDelta(delta="It is 21 degrees."),
    updates.Finish(finish_reason="stop", usage=U1),
]


def test_a_call_then_the_answer_gives_both_rounds_summed_usage_and_the_conversation() -> None:
    response = collect(WEATHER_RUN)
    assert response.rounds == (
        Round(finish_reason="tool_calls", usage=U0),
        Round(finish_reason="stop", usage=U1),
    )
    assert response.usage == usage(250, 50)  # RAF keeps only the last round's
    assert (response.id, response.finish_reason) == ("resp_1", "stop")
    assert response.text == "Let me check.It is 21 degrees."
    the_call = ToolCall(id="c1", name="get_weather", arguments={"city": "Paris"})
    assert response.tool_calls == (the_call,)
    answer = ChatMessage(
        role=MessageRole.TOOL,
        content='{"ok":true,"data":21}',
        tool_call_id="c1",
        source=MessageSource.TOOL_RESULT,
        blocks=(
            blocks.ToolResult(call_id="c1", content='{"ok":true,"data":21}', name="get_weather"),
        ),
    )
    assert response.tool_messages == (answer,)
    first, tool, last = response.turn_transcript
    assert first == ChatMessage(
        role=MessageRole.ASSISTANT,
        content="Let me check.",
        tool_calls=(the_call,),
        blocks=(
            blocks.Reasoning(text="Need the weather.", signature="SIG"),
            blocks.Text(text="Let me check."),
            blocks.ToolCall(id="c1", name="get_weather", arguments={"city": "Paris"}),
        ),
    )
    assert tool == answer
    assert last == ChatMessage(
        role=MessageRole.ASSISTANT,
        content="It is 21 degrees.",
        blocks=(blocks.Text(text="It is 21 degrees."),),
    )


def test_parallel_calls_are_answered_in_call_order_and_a_failed_tool_is_an_error() -> None:
    stream: list[AgentResponseUpdate] = [
        *call("a", "lookup", '{"q": 1}'),
        *call("b", "lookup", '{"q": 2}'),
        updates.RoundFinished(round=0, finish_reason="tool_calls"),
        updates.ToolCalled(id="a", result="one"),
        updates.ToolCalled(id="b", error="Tool 'lookup' failed: boom"),
        updates.TextDelta(delta="Done."),
        updates.Finish(finish_reason="stop"),
    ]
    response = collect(stream)
    assert [m.tool_call_id for m in response.tool_messages] == ["a", "b"]
    assert [m.content for m in response.tool_messages] == ["one", "Tool 'lookup' failed: boom"]
    assert [m.blocks[0].is_error for m in response.tool_messages] == [False, True]  # type: ignore[union-attr]
    roles = [m.role for m in response.turn_transcript]
    assert roles == ["assistant", "tool", "tool", "assistant"]
    assert response.turn_transcript[0].tool_calls is not None
    assert [c.id for c in response.turn_transcript[0].tool_calls] == ["a", "b"]
    # No round sent usage: there is none to sum.
    assert response.rounds == (Round(finish_reason="tool_calls"), Round(finish_reason="stop"))
    assert response.usage is None


def test_a_result_is_preferred_to_an_error_when_a_loop_sets_both() -> None:
    stream: list[AgentResponseUpdate] = [
        *call("a", "f", "{}"),
        updates.RoundFinished(round=0),
        updates.ToolCalled(id="a", result="fine", error="ignored"),
    ]
    (message,) = collect(stream).tool_messages
    assert message.content == "fine"
    assert message.blocks == (blocks.ToolResult(call_id="a", content="fine", name="f"),)


def test_an_approval_pause_ends_on_the_assistant_message_with_its_calls() -> None:
    stream: list[AgentResponseUpdate] = [
        updates.TextDelta(delta="I will delete it."),
        *call("d1", "delete_file", '{"path": "/tmp/x"}'),
        updates.RoundFinished(round=0, finish_reason="tool_calls", usage=U0),
        updates.ToolApprovalRequest(
            call_id="d1", name="delete_file", arguments={"path": "/tmp/x"}, description="rm"
        ),
        updates.Finish(finish_reason="awaiting_approval"),
    ]
    response = collect(stream)
    assert response.finish_reason == "awaiting_approval"
    # The model was not called after the round: no final round, no empty message.
    assert response.rounds == (Round(finish_reason="tool_calls", usage=U0),)
    assert response.usage == U0
    (message,) = response.turn_transcript
    assert message.role == "assistant"
    assert message.tool_calls == (
        ToolCall(id="d1", name="delete_file", arguments={"path": "/tmp/x"}),
    )
    assert [r.call_id for r in response.approval_requests] == ["d1"]
    assert response.tool_messages == ()


def test_max_rounds_ends_after_the_last_rounds_tool_messages() -> None:
    stream: list[AgentResponseUpdate] = []
    for n, u in enumerate((U0, U1)):
        stream += [
            *call(f"c{n}", "again", "{}"),
            updates.RoundFinished(round=n, finish_reason="tool_calls", usage=u),
            updates.ToolCalled(id=f"c{n}", result="more"),
        ]
    stream.append(updates.Finish(finish_reason="max_rounds"))
    response = collect(stream)
    assert response.finish_reason == "max_rounds"
    assert [r.usage for r in response.rounds] == [U0, U1]
    assert response.usage == add_usage(U0, U1)
    assert [m.role for m in response.turn_transcript] == [
        "assistant",
        "tool",
        "assistant",
        "tool",
    ]


def test_a_call_id_reused_in_a_later_round_is_another_call() -> None:
    stream: list[AgentResponseUpdate] = [
        *call("call_0", "f", '{"n": 1}'),
        updates.RoundFinished(round=0, finish_reason="tool_calls"),
        updates.ToolCalled(id="call_0", result="first"),
        *call("call_0", "g", '{"n": 2}'),
        updates.RoundFinished(round=1, finish_reason="tool_calls"),
        updates.ToolCalled(id="call_0", result="second"),
        updates.TextDelta(delta="ok"),
        updates.Finish(finish_reason="stop"),
    ]
    response = collect(stream)
    first, answer1, second, answer2, last = response.turn_transcript
    assert first.blocks == (blocks.ToolCall(id="call_0", name="f", arguments={"n": 1}),)
    assert second.blocks == (blocks.ToolCall(id="call_0", name="g", arguments={"n": 2}),)
    assert [answer1.blocks[0].name, answer2.blocks[0].name] == ["f", "g"]  # type: ignore[union-attr]
    assert last.content == "ok"


def test_a_resumed_approval_answers_the_earlier_call_first() -> None:
    pending = ToolCall(id="d1", name="delete_file", arguments={"path": "/tmp/x"})
    stream: list[AgentResponseUpdate] = [
        updates.ToolCalled(id="d1", result="deleted"),
        updates.TextDelta(delta="Deleted."),
        updates.Finish(finish_reason="stop", usage=U2),
    ]
    response = collect(stream, pending=[pending])
    answer, message = response.turn_transcript
    assert answer.tool_call_id == "d1"
    assert answer.blocks == (
        blocks.ToolResult(call_id="d1", content="deleted", name="delete_file"),
    )
    assert message.content == "Deleted."
    # No tool round in this run: RAF's usage and no rounds.
    assert (response.rounds, response.usage) == ((), U2)


def test_a_stream_without_rounds_is_collected_as_before() -> None:
    stream: list[AgentResponseUpdate] = [
        updates.TextDelta(delta="Hi"),
        updates.Usage(usage=U0),
        updates.Finish(finish_reason="stop", usage=U1),
    ]
    response = collect(stream)
    assert response.rounds == ()
    assert response.usage == U1  # the last usage, not a sum
    (message,) = response.turn_transcript
    assert message.content == "Hi"


def test_a_run_cancelled_between_rounds_has_no_final_round() -> None:
    stream: list[AgentResponseUpdate] = [
        *call("a", "f", "{}"),
        updates.RoundFinished(round=0, finish_reason="tool_calls", usage=U0),
        updates.ToolCalled(id="a", result="x"),
        updates.Error(error_code="cancelled", message="Agent run cancelled"),
    ]
    response = collect(stream)
    assert response.rounds == (Round(finish_reason="tool_calls", usage=U0),)
    assert [m.role for m in response.turn_transcript] == ["assistant", "tool"]
    assert [e.error_code for e in response.errors] == ["cancelled"]


def test_a_round_without_usage_on_its_mark_keeps_the_usage_it_streamed() -> None:
    stream: list[AgentResponseUpdate] = [
        *call("a", "f", "{}"),
        updates.Usage(usage=U0),
        updates.RoundFinished(round=0, finish_reason="tool_calls"),
        updates.ToolCalled(id="a", result="x"),
        updates.Finish(finish_reason="stop", usage=U1),
    ]
    assert collect(stream).rounds == (
        Round(finish_reason="tool_calls", usage=U0),
        Round(finish_reason="stop", usage=U1),
    )


# -- properties ------------------------------------------------------------------------------

_usages = st.none() | st.builds(usage, st.integers(0, 10_000), st.integers(0, 10_000))
_tool_round = st.tuples(
    st.text(max_size=5),  # text before the calls
    st.lists(st.booleans(), min_size=1, max_size=3),  # each call: failed?
    _usages,
)
_runs = st.tuples(
    st.lists(_tool_round, max_size=4),
    st.text(max_size=5),  # the final round's text
    _usages,  # its usage
    st.sampled_from(["stop", "length", "max_rounds"]),
)


@given(_runs)
def test_rounds_sum_and_the_transcript_rebuild_the_loops_conversation(
    run: tuple[list[tuple[str, list[bool], Usage | None]], str, Usage | None, str],
) -> None:
    tool_rounds, final_text, final_usage, end = run
    if end == "max_rounds":  # the loop stops after a tool round without calling the model
        final_text, final_usage = "", None
    event(f"tool rounds: {len(tool_rounds)}")
    event(f"end: {end}")
    stream: list[AgentResponseUpdate] = []
    expected: list[tuple[str, list[str]]] = []  # each round's text and call ids
    failed_calls = [failed for _, failures, _ in tool_rounds for failed in failures]
    n = 0
    for r, (text, failures, u) in enumerate(tool_rounds):
        if text:
            stream.append(updates.TextDelta(delta=text))
        ids = []
        for _ in failures:
            ids.append(f"call_{n}")
            stream += call(f"call_{n}", "tool", "{}")
            n += 1
        if u is not None:
            stream.append(updates.Usage(usage=u))
        stream.append(updates.RoundFinished(round=r, finish_reason="tool_calls", usage=u))
        for call_id, failed in zip(ids, failures, strict=True):
            outcome = {"error": "failed"} if failed else {"result": "ok"}
            stream.append(updates.ToolCalled(id=call_id, **outcome))
        expected.append((text, ids))
    if final_text:
        stream.append(updates.TextDelta(delta=final_text))
    stream.append(updates.Finish(finish_reason=end, usage=final_usage))

    response = collect(stream)

    usages = [u for _, _, u in tool_rounds]
    if tool_rounds:
        final_round = end != "max_rounds"
        assert len(response.rounds) == len(tool_rounds) + final_round
        if final_round:
            usages.append(final_usage)
        assert [r.usage for r in response.rounds] == usages
        total = None
        for u in usages:
            total = add_usage(total, u)
        assert response.usage == total
    else:
        assert response.rounds == ()
        assert response.usage == final_usage
    # The transcript: each round's assistant message with its calls, then one tool message
    # per call in call order answering it, then the final answer.
    transcript = list(response.turn_transcript)
    for text, ids in expected:
        message = transcript.pop(0)
        assert message.role == "assistant"
        assert message.content == text
        assert [c.id for c in message.tool_calls or ()] == ids
        answers = [transcript.pop(0) for _ in ids]
        assert [(m.role, m.tool_call_id) for m in answers] == [("tool", i) for i in ids]
    if final_text:
        (message,) = transcript
        assert (message.role, message.content, message.tool_calls) == (
            "assistant",
            final_text,
            None,
        )
    else:
        assert transcript == []
    assert [m.tool_call_id for m in response.tool_messages] == [
        i for _, ids in expected for i in ids
    ]
    assert [m.blocks[0].is_error for m in response.tool_messages] == failed_calls  # type: ignore[union-attr]
    assert response.text == "".join(t for t, _ in expected) + final_text
