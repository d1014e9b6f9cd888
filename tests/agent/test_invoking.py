"""The tool loop's shells: the options the wrapped client gets, tools run concurrently and
answered in call order, cancellation between rounds, while a round streams and while tools
run (sync and async), errors of the wrapped client. Hangs are detected by events with
generous timeouts that only fire on a real hang; nothing measures time."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator, Sequence

import pytest

from raf.agent.errors import HttpStatusError
from raf.agent.invoking import AsyncFunctionInvokingChatClient, FunctionInvokingChatClient
from raf.agent.loop import State
from raf.agent.options import Cancellation, ChatOptions
from raf.agent.tools import tool
from raf.model import updates
from raf.model.messages import ChatMessage, ToolApprovalResponse
from raf.model.request import ToolSpec
from raf.model.updates import AgentResponseUpdate
from tests.agent.fakes import AsyncScriptedClient, ScriptedClient, call_turn, text_turn

HANG = 10.0  # seconds: only a real hang waits this long
USER = (ChatMessage.user("hi"),)
CANCELLED = updates.Error(error_code="cancelled", message="Agent run cancelled")


@tool
def echo(x: int) -> str:
    """Echo x."""
    return f"echo {x}"


def called(out: Sequence[AgentResponseUpdate]) -> list[updates.ToolCalled]:
    return [u for u in out if isinstance(u, updates.ToolCalled)]


def test_the_wrapped_client_gets_the_registrys_definitions_unless_the_caller_set_them() -> None:
    provider = tool(name="extra")(lambda y: y)
    client = ScriptedClient(
        [call_turn(("c1", "extra", '{"y": 1}')), text_turn("a"), text_turn("b")]
    )
    fi = FunctionInvokingChatClient(client, [echo])
    responses = (ToolApprovalResponse(call_id="zz", approved=True),)
    out = list(fi.stream(USER, ChatOptions(provider_tools=(provider,))))
    assert called(out) == [updates.ToolCalled(id="c1", result='{"ok":true,"data":1}')]
    sent = client.options[0]
    assert sent is not None
    assert [t.name for t in sent.tools] == ["echo", "extra"]
    assert sent.provider_tools == ()
    assert sent.tool_approval_responses == ()
    recorded = (ToolSpec(name="echo", description="as recorded", parameters={"type": "object"}),)
    list(fi.stream(USER, ChatOptions(tools=recorded, tool_approval_responses=responses)))
    assert client.options[2] is not None
    assert client.options[2].tools == recorded  # sent exactly as given


def test_the_calls_of_a_round_run_concurrently_and_are_answered_in_call_order() -> None:
    # Call k finishes only after call k+1 did: the reverse of call order, which only
    # concurrent execution can achieve; a sequential run would hang and fail on HANG.
    done = [threading.Event() for _ in range(3)]

    @tool
    def step(k: int) -> str:
        if k + 1 < len(done):
            assert done[k + 1].wait(HANG), "the calls did not run concurrently"
        done[k].set()
        return f"step {k}"

    calls = [(f"c{k}", "step", f'{{"k":{k}}}') for k in range(3)]
    client = ScriptedClient([call_turn(*calls), text_turn("ok")])
    out = list(FunctionInvokingChatClient(client, [step]).stream(USER))
    assert [(c.id, c.result) for c in called(out)] == [(f"c{k}", f"step {k}") for k in range(3)]
    assert [m.tool_call_id for m in client.requests[1][2:]] == ["c0", "c1", "c2"]


def test_max_concurrency_bounds_the_tools_running_at_once() -> None:
    lock = threading.Lock()
    running = [0, 0]  # now, most

    @tool
    def count(k: int) -> str:
        with lock:
            running[0] += 1
            running[1] = max(running[1], running[0])
        with lock:
            running[0] -= 1
        return str(k)

    calls = [(f"c{k}", "count", f'{{"k":{k}}}') for k in range(4)]
    client = ScriptedClient([call_turn(*calls), text_turn("ok")])
    out = list(FunctionInvokingChatClient(client, [count], max_concurrency=1).stream(USER))
    assert [c.result for c in called(out)] == ["0", "1", "2", "3"]
    assert running[1] == 1


def test_an_async_tool_runs_in_the_sync_client() -> None:
    @tool
    async def later(x: int) -> str:
        await asyncio.sleep(0)
        return f"later {x}"

    client = ScriptedClient([call_turn(("c1", "later", '{"x":2}')), text_turn("ok")])
    out = list(FunctionInvokingChatClient(client, [later]).stream(USER))
    assert called(out) == [updates.ToolCalled(id="c1", result="later 2")]


def test_cancellation_between_rounds_stops_before_the_next_model_call() -> None:
    cancellation = Cancellation()
    client = ScriptedClient([call_turn(("c1", "echo", '{"x":1}')), text_turn("never")])
    out: list[AgentResponseUpdate] = []
    stream = FunctionInvokingChatClient(client, [echo]).stream(
        USER, ChatOptions(cancellation=cancellation)
    )
    for update in stream:
        out.append(update)
        if isinstance(update, updates.ToolCalled):
            cancellation.cancel()
    assert out[-2:] == [updates.ToolCalled(id="c1", result="echo 1"), CANCELLED]
    assert len(client.requests) == 1


def test_cancellation_while_a_round_streams_stops_forwarding_it() -> None:
    cancellation = Cancellation()
    turn = [updates.TextDelta(delta="a"), updates.TextDelta(delta="b"), *text_turn("c")]
    out: list[AgentResponseUpdate] = []
    client = ScriptedClient([turn])
    for update in FunctionInvokingChatClient(client, [echo]).stream(
        USER, ChatOptions(cancellation=cancellation)
    ):
        out.append(update)
        cancellation.cancel()
    assert out == [updates.TextDelta(delta="a"), CANCELLED]


def test_cancellation_while_a_slow_tool_runs_stops_waiting_for_it() -> None:
    cancellation = Cancellation()
    release, finished = threading.Event(), threading.Event()

    @tool
    def slow() -> str:
        try:
            cancellation.cancel()
            assert release.wait(HANG)
            return "too late"
        finally:
            finished.set()

    client = ScriptedClient([call_turn(("c1", "slow", "{}"), ("c2", "echo", '{"x":1}'))])
    try:
        out = list(
            FunctionInvokingChatClient(client, [slow, echo]).stream(
                USER, ChatOptions(cancellation=cancellation)
            )
        )
    finally:
        release.set()
        assert finished.wait(HANG)  # the tool's thread is done: nothing outlives the test
    assert isinstance(out[-2], updates.RoundFinished)
    assert out[-1] == CANCELLED  # no ToolCalled: the slow tool's result is discarded
    assert len(client.requests) == 1


def test_a_client_error_before_any_update_is_raised_and_a_later_one_is_in_band() -> None:
    error = HttpStatusError("Chat API returned 429", status=429)

    class Failing(ScriptedClient):
        def stream(
            self, messages: Sequence[ChatMessage], options: ChatOptions | None = None
        ) -> Iterator[AgentResponseUpdate]:
            if len(self.requests) == len(self.script):
                raise error
            return super().stream(messages, options)

    with pytest.raises(HttpStatusError):
        list(FunctionInvokingChatClient(Failing([]), [echo]).stream(USER))
    out = list(
        FunctionInvokingChatClient(Failing([call_turn(("c1", "echo", '{"x":1}'))]), [echo]).stream(
            USER
        )
    )
    assert out[-1] == updates.Error(error_code="http_error", message="Chat API returned 429")


# -- async ---------------------------------------------------------------------------------


async def collect(stream: AsyncIterator[AgentResponseUpdate]) -> list[AgentResponseUpdate]:
    return [update async for update in stream]


def test_the_async_client_runs_a_round_like_the_sync_one() -> None:
    script = [
        call_turn(("c1", "echo", '{"x":1}'), ("c2", "nope", "{}"), text="Hi"),
        text_turn("ok"),
    ]
    sync_out = list(FunctionInvokingChatClient(ScriptedClient(script), [echo]).stream(USER))
    client = AsyncScriptedClient(script)
    async_out = asyncio.run(collect(AsyncFunctionInvokingChatClient(client, [echo]).stream(USER)))
    assert async_out == sync_out
    assert len(client.requests) == 2


def test_the_async_cancellation_flag_cancels_a_slow_tool() -> None:
    cancellation = Cancellation()
    seen: list[str] = []

    @tool
    async def slow() -> str:
        cancellation.cancel()
        try:
            await asyncio.Event().wait()  # never set: only cancellation ends it
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise
        return "never"

    client = AsyncScriptedClient([call_turn(("c1", "slow", "{}"))])
    fi = AsyncFunctionInvokingChatClient(client, [slow])
    out = asyncio.run(
        asyncio.wait_for(collect(fi.stream(USER, ChatOptions(cancellation=cancellation))), HANG)
    )
    assert out[-1] == CANCELLED
    assert seen == ["cancelled"]


def test_cancelling_the_task_cancels_the_tools_and_propagates() -> None:
    seen: list[str] = []

    async def main() -> None:
        started = asyncio.Event()

        @tool
        async def slow() -> str:
            started.set()
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                seen.append("tool cancelled")
                raise
            return "never"

        client = AsyncScriptedClient([call_turn(("c1", "slow", "{}"))])
        loop, stream = AsyncFunctionInvokingChatClient(client, [slow]).loop(USER)
        task = asyncio.create_task(collect(stream))
        await asyncio.wait_for(started.wait(), HANG)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert loop.state is State.DONE

    asyncio.run(main())
    assert seen == ["tool cancelled"]


def test_a_sync_tool_in_the_async_client_runs_in_a_thread() -> None:
    loop_thread: list[int] = []
    tool_thread: list[int] = []

    @tool
    def where() -> str:
        tool_thread.append(threading.get_ident())
        return "here"

    async def main() -> list[AgentResponseUpdate]:
        loop_thread.append(threading.get_ident())
        client = AsyncScriptedClient([call_turn(("c1", "where", "{}")), text_turn("ok")])
        return await collect(AsyncFunctionInvokingChatClient(client, [where]).stream(USER))

    out = asyncio.run(main())
    assert called(out) == [updates.ToolCalled(id="c1", result="here")]
    assert tool_thread != loop_thread


def test_a_cancellation_calls_each_callback_once_and_at_once_when_already_cancelled() -> None:
    """What wakes a shell waiting for tools: a callback registered before the cancellation
    runs once when it comes (from the cancelling thread); one registered after runs at once;
    a removed one never runs."""
    cancellation = Cancellation()
    calls: list[str] = []
    cancellation.add_callback(lambda: calls.append("first"))
    remove = cancellation.add_callback(lambda: calls.append("removed"))
    remove()
    other = threading.Thread(target=cancellation.cancel)
    other.start()
    other.join()
    cancellation.cancel()  # a second cancel calls nothing again
    assert calls == ["first"]
    cancellation.add_callback(lambda: calls.append("late"))
    assert calls == ["first", "late"]
    assert cancellation.cancelled
