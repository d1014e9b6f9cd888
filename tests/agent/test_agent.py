"""The agent: its results stream (raf-spec 3.6), the request it sends, and how a run ends when
the client fails, raises or is interrupted. The clients are scripted with the updates a leaf
client, or the tool loop around one, streams (tests/agent/scripted.py); the tool loop itself
is tested with its own module."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import ClassVar

import pytest

from raf.agent import (
    AgentSession,
    AsyncChatClientAgent,
    ChatClientAgent,
    ChatOptions,
    Context,
    HttpStatusError,
    InMemoryHistoryProvider,
    InvokedContext,
    InvokingContext,
    RequestFailedError,
)
from raf.agent.turn import AgentTurn
from raf.collect import ResponseCollector, collect_agent_response
from raf.errors import AgentResponseError
from raf.model import (
    AgentResponseResult,
    ChatMessage,
    MessageSource,
    Round,
    ToolApprovalResponse,
    ToolCall,
    ToolSpec,
    blocks,
    contents,
    updates,
)
from tests.agent.scripted import AsyncScriptedClient, ScriptedClient, answer, call, usage

HANG = 60.0  # seconds: only a hang waits this long


class Recorder:
    """A context provider that adds nothing and records what it saw."""

    def __init__(self) -> None:
        self.invoking: list[InvokingContext] = []
        self.invoked: list[InvokedContext] = []

    def on_invoking(self, context: InvokingContext) -> Context:
        self.invoking.append(context)
        return Context()

    def on_invoked(self, context: InvokedContext) -> None:
        self.invoked.append(context)


def kinds(result: AgentResponseResult) -> list[str]:
    return [type(c).__name__ for c in result.contents]


def test_a_text_run_streams_one_result_per_update_then_the_final_one() -> None:
    client = ScriptedClient(
        [
            [
                updates.ResponseMetadata(id="r1", model="m"),
                updates.TextDelta(delta="Hi"),
                updates.TextDelta(delta=", there"),
                updates.TextDelta(delta=""),  # produces nothing: no result
                updates.Finish(finish_reason="stop", usage=usage(5, 2)),
            ]
        ]
    )
    agent = ChatClientAgent(client, id="agent-7", instructions="Be brief.")
    options = ChatOptions(properties={"trace": "t1"})
    results = list(agent.run("Hello", options=options))
    assert [kinds(r) for r in results] == [["Text"], ["Text"], ["Usage"], []]
    final = results[-1]
    assert (final.id, final.model, final.finish_reason) == ("r1", "m", "stop")
    assert all(r.finish_reason is None for r in results[:-1])
    meta = results[0].contents[0].meta
    assert meta is not None
    assert (meta.agent_id, meta.executor_id, meta.properties) == (
        "agent-7",
        "agent-7",
        {"trace": "t1"},
    )
    # The instructions are the first message; the caller's message is marked external.
    (sent,) = client.calls
    assert sent.messages == (
        ChatMessage.system("Be brief."),
        ChatMessage(role="user", content="Hello", source=MessageSource.EXTERNAL),  # type: ignore[arg-type]
    )
    assert agent.chat_client is client  # no tools: no tool loop


def test_the_loops_stream_becomes_rounds_tool_messages_and_the_transcript() -> None:
    client = ScriptedClient(
        [
            [
                updates.TextDelta(delta="Checking."),
                *call("c1", "get_weather", '{"city": "Paris"}'),
                updates.Usage(usage=usage(100, 20)),
                updates.RoundFinished(round=0, finish_reason="tool_calls", usage=usage(100, 20)),
                updates.ToolCalled(id="c1", result='{"ok":true,"data":21}'),
                *answer("21 degrees.", response_id="r2"),
            ]
        ]
    )
    response = ChatClientAgent(client, id="a").run_to_response("Weather in Paris?")
    assert response.rounds == (
        Round(finish_reason="tool_calls", usage=usage(100, 20)),
        Round(finish_reason="stop", usage=usage(10, 2)),
    )
    assert response.usage == usage(110, 22)
    assert response.source_agent_id == "a"
    assert [m.role for m in response.turn_transcript] == ["assistant", "tool", "assistant"]
    assert response.tool_messages[0].tool_call_id == "c1"


def test_results_can_be_collected_by_the_caller() -> None:
    client = ScriptedClient([answer("Hi")])
    run = ChatClientAgent(client).run([ChatMessage.user("Hello")])
    response = collect_agent_response(run)
    assert response.text == "Hi"
    assert run.response == response


@pytest.mark.parametrize("where", ["on the call", "on the first update"])
def test_an_http_error_ends_the_run_with_an_error_result(where: str) -> None:
    error = HttpStatusError(
        "Chat API returned 429",
        status=429,
        reason="Too Many Requests",
        body='{"error": {"message": "Rate limit reached"}}',
        provider_message="Rate limit reached",
        attempts=3,
    )
    if where == "on the call":
        client = ScriptedClient([], raise_on_call=error)
    else:
        client = ScriptedClient([[error]])
    recorder = Recorder()
    agent = ChatClientAgent(client, context_providers=[recorder])
    results = list(agent.run("Hello"))  # does not raise
    (first,), final = results[0].contents, results[-1]
    assert isinstance(first, contents.Error)
    assert first.error_code == "http_error"
    assert first.message == "HTTP 429 Too Many Requests: Rate limit reached (after 3 attempts)"
    assert first.raw == '{"error": {"message": "Rate limit reached"}}'
    assert final.finish_reason is None
    assert len(results) == 2
    (invoked,) = recorder.invoked
    assert invoked.error is error
    assert invoked.response is not None
    assert invoked.response.errors == (first,)
    assert not invoked.completed


def test_a_failed_connection_is_a_transport_error() -> None:
    client = ScriptedClient([], raise_on_call=RequestFailedError("HTTP request failed: refused"))
    response = ChatClientAgent(client).run_to_response("Hello")
    (error,) = response.errors
    assert (error.error_code, error.message) == ("transport_error", "HTTP request failed: refused")


def test_another_exception_propagates_after_the_providers_saw_it() -> None:
    boom = RuntimeError("boom")
    client = ScriptedClient([[updates.TextDelta(delta="Hal"), boom]])
    recorder = Recorder()
    agent = ChatClientAgent(client, context_providers=[recorder])
    run = agent.run("Hello")
    assert kinds(next(run)) == ["Text"]
    with pytest.raises(RuntimeError, match="boom"):
        next(run)
    (invoked,) = recorder.invoked
    assert invoked.error is boom
    assert invoked.response is not None
    assert invoked.response.text == "Hal"
    assert [e.error_code for e in invoked.response.errors] == ["transport_error"]
    # Collected, the exception is raised with the response so far.
    client = ScriptedClient([[updates.TextDelta(delta="Hal"), boom]])
    with pytest.raises(AgentResponseError) as raised:
        ChatClientAgent(client).run_to_response("Hello")
    assert raised.value.response.text == "Hal"
    assert raised.value.__cause__ is boom


def test_an_interrupt_closes_the_turn_into_the_collector_and_propagates() -> None:
    client = ScriptedClient(
        [
            [
                updates.TextDelta(delta="Part"),
                updates.ToolCallStart(id="c1", name="f"),
                updates.ToolCallArgs(id="c1", args_delta='{"a": '),
                KeyboardInterrupt(),
            ]
        ]
    )
    recorder = Recorder()
    agent = ChatClientAgent(client, context_providers=[recorder])
    collector = ResponseCollector()
    with pytest.raises(KeyboardInterrupt):
        collect_agent_response(agent.run("Hello"), collector=collector)
    partial = collector.response()
    assert partial.text == "Part"
    # The call still streaming is incomplete, never a call with made-up arguments.
    assert [e.error_code for e in partial.errors] == ["cancelled", "tool_call_incomplete"]
    assert partial.tool_calls == ()
    (invoked,) = recorder.invoked
    assert isinstance(invoked.error, KeyboardInterrupt)
    assert invoked.response == partial


def test_a_caller_that_stops_reading_closes_the_clients_stream() -> None:
    client = ScriptedClient(
        [[updates.TextDelta(delta="a"), updates.TextDelta(delta="b"), *answer("c")]]
    )
    recorder = Recorder()
    run = ChatClientAgent(client, context_providers=[recorder]).run("Hello")
    next(run)
    run.close()
    assert client.calls[0].closed
    (invoked,) = recorder.invoked
    assert isinstance(invoked.error, GeneratorExit)


def test_the_providers_see_the_end_before_the_final_result() -> None:
    client = ScriptedClient([answer("Hi")])
    recorder = Recorder()
    results: Iterator[AgentResponseResult] = ChatClientAgent(
        client, context_providers=[recorder]
    ).run("Hello")
    for result in results:
        if result.finish_reason:
            break  # a caller that stops at the final result
    (invoked,) = recorder.invoked
    assert invoked.completed
    assert invoked.error is None


def test_nothing_is_called_before_the_first_result_is_asked_for() -> None:
    client = ScriptedClient([answer("Hi")])
    recorder = Recorder()
    run = ChatClientAgent(client, context_providers=[recorder]).run("Hello")
    assert (client.calls, recorder.invoking) == ([], [])
    list(run)
    assert len(client.calls) == len(recorder.invoking) == 1


def test_the_sync_agent_refuses_an_async_provider() -> None:
    class Async:
        async def on_invoking(self, context: InvokingContext) -> Context:
            return Context()

        async def on_invoked(self, context: InvokedContext) -> None:
            return None

    with pytest.raises(TypeError, match="AsyncChatClientAgent"):
        ChatClientAgent(ScriptedClient([]), context_providers=[Async()])  # type: ignore[list-item]


def test_the_request_offers_every_tool_of_the_run_once() -> None:
    class Echo:
        name = "echo"
        description = "Echo the text."
        parameters: ClassVar[dict[str, object]] = {
            "type": "object",
            "properties": {"text": {"type": "string"}},
        }
        requires_approval = False

        def invoke(self, arguments: object) -> str:
            return str(arguments)

        async def ainvoke(self, arguments: object) -> str:
            return str(arguments)

    given = ToolSpec(name="echo", description="the caller's own definition")
    turn = AgentTurn(
        agent_id="a",
        messages="Hi",
        tools=[Echo()],
        options=ChatOptions(tools=(given, ToolSpec(name="other"))),
    )
    _, options = turn.request()
    assert options.tools == (given, ToolSpec(name="other"))  # the caller's definition wins
    turn = AgentTurn(agent_id="a", messages="Hi", tools=[Echo()])
    _, options = turn.request()
    assert options.tools == (
        ToolSpec(name="echo", description="Echo the text.", parameters=Echo.parameters),
    )
    assert options.provider_tools == ()  # the agent's tools are the loop's own


def test_an_approval_pause_and_its_resume_keep_the_conversation() -> None:
    history = InMemoryHistoryProvider()
    session = AgentSession(id="s1")
    delete = [
        updates.TextDelta(delta="Deleting."),
        *call("d1", "delete_file", '{"path": "/tmp/x"}'),
        updates.RoundFinished(round=0, finish_reason="tool_calls", usage=usage(50, 5)),
        updates.ToolApprovalRequest(
            call_id="d1", name="delete_file", arguments={"path": "/tmp/x"}, description="rm"
        ),
        updates.Finish(finish_reason="awaiting_approval"),
    ]
    # What the loop streams when it resumes: the approved call's result, then the next round.
    resumed = [updates.ToolCalled(id="d1", result="deleted"), *answer("Done.")]
    client = ScriptedClient([delete, resumed])
    agent = ChatClientAgent(client, context_providers=[history])

    paused = agent.run_to_response("Delete /tmp/x", session)
    assert paused.finish_reason == "awaiting_approval"
    assert [r.call_id for r in paused.approval_requests] == ["d1"]
    the_call = ToolCall(id="d1", name="delete_file", arguments={"path": "/tmp/x"})
    assert session.messages[-1].tool_calls == (the_call,)  # what a resume answers

    approve = ChatOptions(
        tool_approval_responses=(ToolApprovalResponse(call_id="d1", approved=True),)
    )
    done = agent.run_to_response([], session, approve)
    assert done.text == "Done."
    assert done.tool_messages[0].blocks == (
        blocks.ToolResult(call_id="d1", content="deleted", name="delete_file"),
    )
    # The resumed run was sent the history, its assistant message with the call last.
    sent = client.calls[1].messages
    assert sent[-1].tool_calls == (the_call,)
    assert {m.source for m in sent} == {MessageSource.CHAT_HISTORY}
    assert client.calls[1].options is not None
    assert client.calls[1].options.tool_approval_responses == approve.tool_approval_responses
    # The conversation: the question, the call, its result (named: Gemini answers by name),
    # the answer.
    assert [m.role for m in session.messages] == ["user", "assistant", "tool", "assistant"]
    answer_message = session.messages[2]
    assert answer_message.tool_call_id == "d1"
    assert answer_message.blocks[0].name == "delete_file"  # type: ignore[union-attr]


def test_a_resume_with_a_new_message_stores_the_answers_right_after_their_calls() -> None:
    history = InMemoryHistoryProvider()
    delete = [
        *call("d1", "delete_file", '{"path": "/tmp/x"}'),
        updates.RoundFinished(round=0, finish_reason="tool_calls"),
        updates.ToolApprovalRequest(call_id="d1", name="delete_file", arguments={}),
        updates.Finish(finish_reason="awaiting_approval"),
    ]
    resumed = [updates.ToolCalled(id="d1", error="Rejected: not now"), *answer("Kept it.")]
    agent = ChatClientAgent(ScriptedClient([delete, resumed]), context_providers=[history])
    agent.run_to_response("Delete /tmp/x")
    reject = ChatOptions(
        tool_approval_responses=(ToolApprovalResponse(call_id="d1", approved=False),)
    )
    agent.run_to_response("Actually, keep it.", options=reject)
    assert [(m.role, m.content) for m in history.messages] == [
        ("user", "Delete /tmp/x"),
        ("assistant", ""),
        ("tool", "Rejected: not now"),
        ("user", "Actually, keep it."),
        ("assistant", "Kept it."),
    ]
    assert history.messages[2].blocks[0].is_error  # type: ignore[union-attr]


# -- async ------------------------------------------------------------------------------------


def test_the_async_agent_streams_the_same_results() -> None:
    async def main() -> list[AgentResponseResult]:
        client = AsyncScriptedClient([answer("Hi", response_id="r1")])
        return [r async for r in AsyncChatClientAgent(client, id="a").run("Hello")]

    results = asyncio.run(main())
    assert [kinds(r) for r in results] == [["Text"], ["Usage"], []]
    assert results[-1].finish_reason == "stop"


def test_the_async_agent_awaits_async_providers_and_calls_sync_ones() -> None:
    class AsyncNotes:
        def __init__(self) -> None:
            self.invoked: list[InvokedContext] = []

        async def on_invoking(self, context: InvokingContext) -> Context:
            await asyncio.sleep(0)
            return Context(instructions="Use the notes.", messages=(ChatMessage.user("note"),))

        async def on_invoked(self, context: InvokedContext) -> None:
            await asyncio.sleep(0)
            self.invoked.append(context)

    notes, history = AsyncNotes(), InMemoryHistoryProvider()
    client = AsyncScriptedClient([answer("Hi")])
    agent = AsyncChatClientAgent(client, context_providers=[notes, history])
    response = asyncio.run(agent.run_to_response("Hello"))
    assert response.text == "Hi"
    sent = client.calls[0].messages
    assert sent[0] == ChatMessage.system("Use the notes.")
    assert sent[1].source == MessageSource.CONTEXT_PROVIDER
    assert len(notes.invoked) == 1
    assert [m.content for m in history.messages] == ["Hello", "Hi"]


def test_cancelling_an_async_run_closes_the_turn_and_propagates() -> None:
    async def main() -> tuple[ResponseCollector, Recorder, AsyncScriptedClient]:
        never = asyncio.Event()  # the stream stalls here until cancelled
        client = AsyncScriptedClient([[updates.TextDelta(delta="Part"), never, *answer("x")]])
        recorder = Recorder()
        agent = AsyncChatClientAgent(client, context_providers=[recorder])
        collector = ResponseCollector()
        first = asyncio.Event()
        run = agent.run("Hello")
        assert run.collect_into(collector)

        async def collect() -> None:
            async for _ in run:
                first.set()

        task = asyncio.create_task(collect())
        await asyncio.wait_for(first.wait(), HANG)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return collector, recorder, client

    collector, recorder, client = asyncio.run(main())
    partial = collector.response()
    assert partial.text == "Part"
    assert [e.error_code for e in partial.errors] == ["cancelled"]
    (invoked,) = recorder.invoked
    assert isinstance(invoked.error, asyncio.CancelledError)
    assert client.calls[0].closed


def test_the_async_agent_ends_a_failed_request_with_an_error_result() -> None:
    async def main() -> list[AgentResponseResult]:
        failed = HttpStatusError("500", status=500, reason="Internal Server Error", body="oops")
        client = AsyncScriptedClient([[failed]])
        return [r async for r in AsyncChatClientAgent(client).run("Hello")]

    results = asyncio.run(main())
    (error,) = results[0].contents
    assert isinstance(error, contents.Error)
    assert (error.error_code, error.message) == (
        "http_error",
        "HTTP 500 Internal Server Error: 'oops'",
    )
    assert results[-1].finish_reason is None
