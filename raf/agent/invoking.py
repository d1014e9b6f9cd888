"""The tool loop's shells (RAF's ``FunctionInvokingChatClient``): chat-client decorators that
drive a :class:`raf.agent.loop.ToolLoop`, calling the wrapped client for each model round and
running the round's tools, sync (a thread pool) or async (tasks). Every decision is the loop's;
these only do the IO and watch for cancellation. docs/agent.md, "The tool loop".
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import AsyncIterator, Callable, Generator, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from typing import Any

from raf.agent.chat_client import (
    AsyncChatClient,
    AsyncChatClientDecorator,
    ChatClient,
    ChatClientDecorator,
)
from raf.agent.errors import ChatClientError
from raf.agent.loop import (
    DEFAULT_MAX_ROUNDS,
    Action,
    Begin,
    CallModel,
    Cancel,
    Done,
    Emit,
    Fail,
    InnerEnded,
    InnerUpdate,
    Invocation,
    ModelCallFailed,
    Outcome,
    Raised,
    Returned,
    RunTools,
    State,
    ToolLoop,
    ToolsDone,
)
from raf.agent.options import Cancellation, ChatOptions
from raf.agent.tools import Tool, ToolRegistry, ToolResult, ToolText
from raf.model.messages import ChatMessage
from raf.model.updates import AgentResponseUpdate

__all__ = ["AsyncFunctionInvokingChatClient", "FunctionInvokingChatClient"]


def _registry(tools: ToolRegistry | Iterable[Tool]) -> ToolRegistry:
    return tools if isinstance(tools, ToolRegistry) else ToolRegistry(tools)


def _prepare(
    registry: ToolRegistry,
    messages: Sequence[ChatMessage],
    options: ChatOptions | None,
    max_rounds: int,
) -> tuple[ToolLoop, ChatOptions, Cancellation | None]:
    """The loop of one call, the options the wrapped client gets (the tool definitions: the
    caller's when it set them, else the registry's; no provider tools, no approval
    responses: the loop handles those) and the cancellation flag."""
    options = options or ChatOptions()
    merged = registry.merged(options.provider_tools)
    loop = ToolLoop(
        messages,
        merged,
        max_rounds=max_rounds,
        approval_responses=options.tool_approval_responses,
    )
    inner = replace(
        options,
        tools=options.tools or merged.specs(),
        provider_tools=(),
        tool_approval_responses=(),
    )
    return loop, inner, options.cancellation


_Returned = ToolResult | ToolText | str


def _outcome(done: Future[_Returned] | asyncio.Future[_Returned]) -> Outcome:
    """What a finished tool invocation (a thread's future or a task) gave."""
    if done.cancelled():
        return Raised(asyncio.CancelledError("the tool was cancelled"))
    error = done.exception()
    return Returned(done.result()) if error is None else Raised(error)


class FunctionInvokingChatClient(ChatClientDecorator):
    """The tool loop over a synchronous chat client.

    Args:
        inner: the client that streams each model round.
        tools: the tools it runs (a :class:`ToolRegistry` or tools; names must be unique).
        max_rounds: model calls per run at most (10; 0 never calls the model).
        max_concurrency: tools of one round run at once at most (default: all of them).

    All calls of a round run concurrently in a thread pool; their results are reported in call
    order. ``ChatOptions.cancellation`` is checked before each model round, between the
    updates of a round and while tools run: the run then stops waiting, reports
    ``Error(cancelled)`` and ends (a tool still running in its thread finishes there and its
    result is discarded).
    """

    def __init__(
        self,
        inner: ChatClient,
        tools: ToolRegistry | Iterable[Tool] = (),
        *,
        max_rounds: int = DEFAULT_MAX_ROUNDS,
        max_concurrency: int | None = None,
    ) -> None:
        super().__init__(inner)
        if max_concurrency is not None and max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        self.registry = _registry(tools)
        self.max_rounds = max_rounds
        self.max_concurrency = max_concurrency

    def loop(
        self, messages: Sequence[ChatMessage], options: ChatOptions | None = None
    ) -> tuple[ToolLoop, Iterator[AgentResponseUpdate]]:
        """The loop of one run and its updates (the loop's ``transcript`` holds what the run
        added to the conversation)."""
        loop, inner_options, cancellation = _prepare(
            self.registry, messages, options, self.max_rounds
        )
        return loop, self._drive(loop, inner_options, cancellation)

    def stream(
        self, messages: Sequence[ChatMessage], options: ChatOptions | None = None
    ) -> Iterator[AgentResponseUpdate]:
        """Run the tool loop over ``messages``."""
        return self.loop(messages, options)[1]

    def _drive(
        self, loop: ToolLoop, options: ChatOptions, cancellation: Cancellation | None
    ) -> Iterator[AgentResponseUpdate]:
        def cancelled() -> bool:
            return cancellation is not None and cancellation.cancelled

        queue: deque[Action] = deque(loop.feed(Begin()))
        while queue:
            action = queue.popleft()
            if isinstance(action, Emit):
                yield action.update
            elif isinstance(action, CallModel):
                if cancelled():
                    queue.extend(loop.feed(Cancel()))
                    continue
                queue.extend((yield from self._round(loop, action, options, cancelled)))
            elif isinstance(action, RunTools):
                outcomes = self._run_tools(action.invocations, cancellation)
                queue.extend(loop.feed(Cancel() if outcomes is None else ToolsDone(outcomes)))
            elif isinstance(action, Fail):
                raise action.error
            elif isinstance(action, Done):
                return

    def _round(
        self,
        loop: ToolLoop,
        action: CallModel,
        options: ChatOptions,
        cancelled: Callable[[], bool],
    ) -> Generator[AgentResponseUpdate, None, list[Action]]:
        """Stream one model round; returns the loop's next actions."""
        try:
            iterator = iter(self.inner_client.stream(action.messages, options))
        except ChatClientError as exc:
            return loop.feed(ModelCallFailed(exc))
        try:
            for update in iterator:
                for next_action in loop.feed(InnerUpdate(update)):
                    if isinstance(next_action, Emit):
                        yield next_action.update
                if cancelled():
                    return loop.feed(Cancel())
        except ChatClientError as exc:
            return loop.feed(ModelCallFailed(exc))
        finally:
            close = getattr(iterator, "close", None)
            if close is not None:
                close()
        return loop.feed(InnerEnded())

    def _run_tools(
        self, invocations: Sequence[Invocation], cancellation: Cancellation | None
    ) -> tuple[Outcome, ...] | None:
        """The outcomes of the invocations in order, or ``None`` when cancelled first."""
        progress = threading.Event()  # set when a tool finishes or the run is cancelled
        stop_watching = cancellation.add_callback(progress.set) if cancellation else None
        workers = min(len(invocations), self.max_concurrency or len(invocations))
        pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="raf-tool")
        try:
            futures: list[Future[ToolResult | ToolText | str]] = []
            for invocation in invocations:
                future = pool.submit(invocation.tool.invoke, invocation.arguments)
                future.add_done_callback(lambda _f: progress.set())
                futures.append(future)
            while not all(f.done() for f in futures):
                if cancellation is not None and cancellation.cancelled:
                    return None
                progress.wait()
                progress.clear()
            return tuple(_outcome(f) for f in futures)
        finally:
            if stop_watching is not None:
                stop_watching()
            pool.shutdown(wait=False, cancel_futures=True)


class AsyncFunctionInvokingChatClient(AsyncChatClientDecorator):
    """The tool loop over an asynchronous chat client (see :class:`FunctionInvokingChatClient`).

    The calls of a round run as tasks (``max_concurrency`` at once at most), a sync tool in a
    thread. Cancelling the task that iterates the stream cancels the running tools and the
    ``CancelledError`` propagates; ``ChatOptions.cancellation`` ends the run with
    ``Error(cancelled)`` as in the sync client.
    """

    def __init__(
        self,
        inner: AsyncChatClient,
        tools: ToolRegistry | Iterable[Tool] = (),
        *,
        max_rounds: int = DEFAULT_MAX_ROUNDS,
        max_concurrency: int | None = None,
    ) -> None:
        super().__init__(inner)
        if max_concurrency is not None and max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        self.registry = _registry(tools)
        self.max_rounds = max_rounds
        self.max_concurrency = max_concurrency

    def loop(
        self, messages: Sequence[ChatMessage], options: ChatOptions | None = None
    ) -> tuple[ToolLoop, AsyncIterator[AgentResponseUpdate]]:
        """The loop of one run and its updates."""
        loop, inner_options, cancellation = _prepare(
            self.registry, messages, options, self.max_rounds
        )
        return loop, self._drive(loop, inner_options, cancellation)

    def stream(
        self, messages: Sequence[ChatMessage], options: ChatOptions | None = None
    ) -> AsyncIterator[AgentResponseUpdate]:
        """Run the tool loop over ``messages``."""
        return self.loop(messages, options)[1]

    async def _drive(
        self, loop: ToolLoop, options: ChatOptions, cancellation: Cancellation | None
    ) -> AsyncIterator[AgentResponseUpdate]:
        try:
            async for update in self._steps(loop, options, cancellation):
                yield update
        except asyncio.CancelledError:
            if loop.state is not State.DONE:
                loop.feed(Cancel())  # the run is over; nothing more can be emitted
            raise

    async def _steps(
        self, loop: ToolLoop, options: ChatOptions, cancellation: Cancellation | None
    ) -> AsyncIterator[AgentResponseUpdate]:
        def cancelled() -> bool:
            return cancellation is not None and cancellation.cancelled

        queue: deque[Action] = deque(loop.feed(Begin()))
        while queue:
            action = queue.popleft()
            if isinstance(action, Emit):
                yield action.update
            elif isinstance(action, CallModel):
                if cancelled():
                    queue.extend(loop.feed(Cancel()))
                    continue
                try:
                    stream = self.inner_client.stream(action.messages, options)
                except ChatClientError as exc:
                    queue.extend(loop.feed(ModelCallFailed(exc)))
                    continue
                ended: list[Action] | None = None
                try:
                    async for update in stream:
                        for next_action in loop.feed(InnerUpdate(update)):
                            if isinstance(next_action, Emit):
                                yield next_action.update
                        if cancelled():
                            ended = loop.feed(Cancel())
                            break
                except ChatClientError as exc:
                    ended = loop.feed(ModelCallFailed(exc))
                finally:
                    aclose = getattr(stream, "aclose", None)
                    if aclose is not None:
                        await aclose()
                queue.extend(ended if ended is not None else loop.feed(InnerEnded()))
            elif isinstance(action, RunTools):
                outcomes = await self._run_tools(action.invocations, cancellation)
                queue.extend(loop.feed(Cancel() if outcomes is None else ToolsDone(outcomes)))
            elif isinstance(action, Fail):
                raise action.error
            elif isinstance(action, Done):
                return

    async def _run_tools(
        self, invocations: Sequence[Invocation], cancellation: Cancellation | None
    ) -> tuple[Outcome, ...] | None:
        limit = asyncio.Semaphore(self.max_concurrency or len(invocations))

        async def run(invocation: Invocation) -> ToolResult | ToolText | str:
            async with limit:
                return await invocation.tool.ainvoke(invocation.arguments)

        tasks = [asyncio.ensure_future(run(i)) for i in invocations]
        # The cancellation may come from any thread: it wakes this loop through its own event.
        woken = asyncio.Event()
        event_loop = asyncio.get_running_loop()

        def wake() -> None:
            event_loop.call_soon_threadsafe(woken.set)

        stop_watching = cancellation.add_callback(wake) if cancellation is not None else None
        waiter = asyncio.ensure_future(woken.wait())
        try:
            pending: set[asyncio.Future[Any]] = set(tasks)
            while pending:
                if cancellation is not None and cancellation.cancelled:
                    return None
                _, pending = await asyncio.wait(
                    pending | {waiter}, return_when=asyncio.FIRST_COMPLETED
                )
                pending.discard(waiter)
            return tuple(_outcome(t) for t in tasks)
        finally:
            if stop_watching is not None:
                stop_watching()
            waiter.cancel()
            running = [t for t in tasks if not t.done()]
            for task in running:
                task.cancel()
            if running:
                await asyncio.gather(*running, return_exceptions=True)
