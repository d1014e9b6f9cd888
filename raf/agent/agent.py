"""The agent (RAF's ``ChatClientAgent``): a chat client, instructions, tools and context
providers; ``run`` streams the results of one run, ``run_to_response`` collects them.

A run (:class:`raf.agent.turn.AgentTurn` holds its decisions; this module is the shell that
calls the providers and the client):

1. each context provider's ``on_invoking``, in order, builds the request (docs/agent.md);
2. the client streams the model's turn; with tools, the client is wrapped in the tool loop
   (:class:`raf.agent.invoking.FunctionInvokingChatClient`), which runs them between
   rounds; without tools (the agent's, the options' or the providers'), it is not;
3. each update becomes a result (raf-spec 3.6): one per update that produced contents or
   events, then the final result once;
4. each provider's ``on_invoked`` sees the request, the response and the error, before the
   final result is given, so a caller that stops reading at the final result misses none.

How a run ends: normally, with the final result. A
:class:`~raf.agent.errors.ChatClientError` (the client could not start the stream: an HTTP
error status, a failed connection) ends it with an ``Error`` result (``http_error`` with the
status and the provider's message, ``transport_error``) and the final result: ``run`` does
not raise. Any other exception of the client propagates; a ``KeyboardInterrupt``, an
``asyncio.CancelledError`` or the caller closing the iterator interrupts the run. Then the
turn is first closed into the run's collector (and a collector given to
``collect_agent_response``, as :mod:`raf.transport` does): a ``transport_error`` or a
``cancelled`` error, calls still streaming reported ``tool_call_incomplete``; the providers'
``on_invoked`` get that partial response and the exception; then it propagates.

Nothing happens until the first result is asked for: ``run`` returns an iterator, and the
providers and the client are called when it is first read.
"""

from __future__ import annotations

import inspect
import uuid
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Awaitable,
    Generator,
    Iterator,
    Sequence,
)
from typing import Any, TypeVar

from raf.agent.chat_client import AsyncChatClient, ChatClient
from raf.agent.context import AsyncContextProvider, ContextProvider
from raf.agent.errors import ChatClientError
from raf.agent.invoking import AsyncFunctionInvokingChatClient, FunctionInvokingChatClient
from raf.agent.options import ChatOptions
from raf.agent.session import AgentSession
from raf.agent.tools import Tool
from raf.agent.turn import AgentTurn, client_error
from raf.collect import ResponseCollector, acollect_agent_response, collect_agent_response
from raf.model.messages import ChatMessage
from raf.model.response import AgentResponse, AgentResponseResult
from raf.pipeline import transport_error

__all__ = ["AgentRun", "AsyncAgentRun", "AsyncChatClientAgent", "ChatClientAgent"]

Messages = str | ChatMessage | Sequence[ChatMessage]
"""What ``run`` takes: a user message's text, a message, or messages."""

T = TypeVar("T")


def _is_async(provider: object) -> bool:
    return inspect.iscoroutinefunction(
        getattr(provider, "on_invoking", None)
    ) or inspect.iscoroutinefunction(getattr(provider, "on_invoked", None))


async def _resolved(value: T | Awaitable[T]) -> T:
    """``value``, awaited when a provider's method returned something awaitable."""
    if inspect.isawaitable(value):
        return await value
    return value


class _Agent:
    """What both agents share: their configuration."""

    def __init__(
        self,
        *,
        name: str | None,
        id: str | None,
        instructions: str | None,
        tools: Sequence[Tool],
        max_rounds: int,
    ) -> None:
        if max_rounds < 0:
            raise ValueError("max_rounds must not be negative")
        self.id = id if id is not None else uuid.uuid4().hex
        self.name = name
        self.instructions = instructions
        self.tools = tuple(tools)
        self.max_rounds = max_rounds

    def _turn(
        self, messages: Messages, session: AgentSession | None, options: ChatOptions | None
    ) -> AgentTurn:
        return AgentTurn(
            agent_id=self.id,
            messages=messages,
            session=session,
            options=options,
            instructions=self.instructions,
            tools=self.tools,
        )


class ChatClientAgent(_Agent):
    """An agent over a synchronous chat client.

    Args:
        client: the chat client (a leaf or decorated one).
        name: the agent's name, for people.
        id: the agent's id, in every content's metadata (default: a new random one).
        instructions: the system message of every run (providers may add to it).
        tools: tools the model may call; the client is then wrapped in the tool loop.
        context_providers: run around each run, in order (synchronous ones: see
            :mod:`raf.agent.context`).
        max_rounds: the tool loop's limit of model rounds per run.
    """

    def __init__(
        self,
        client: ChatClient,
        *,
        name: str | None = None,
        id: str | None = None,
        instructions: str | None = None,
        tools: Sequence[Tool] = (),
        context_providers: Sequence[ContextProvider] = (),
        max_rounds: int = 10,
    ) -> None:
        super().__init__(
            name=name, id=id, instructions=instructions, tools=tools, max_rounds=max_rounds
        )
        for provider in context_providers:
            if _is_async(provider):
                raise TypeError(
                    f"{type(provider).__name__} is an async context provider: "
                    "use AsyncChatClientAgent"
                )
        self.client = client
        self.context_providers = tuple(context_providers)
        self.chat_client: ChatClient = self._loop(self.tools) if self.tools else client
        """The client runs go through: ``client``, wrapped in the tool loop with tools."""

    def _loop(self, tools: Sequence[Tool]) -> ChatClient:
        loop: ChatClient = FunctionInvokingChatClient(
            self.client, tools=tools, max_rounds=self.max_rounds
        )
        return loop

    def run(
        self,
        messages: Messages,
        session: AgentSession | None = None,
        options: ChatOptions | None = None,
    ) -> AgentRun:
        """Stream the results of one run (module docstring)."""
        turn = self._turn(messages, session, options)
        return AgentRun(self._results(turn), turn)

    def run_to_response(
        self,
        messages: Messages,
        session: AgentSession | None = None,
        options: ChatOptions | None = None,
        *,
        raise_on_error: bool = False,
        collector: ResponseCollector | None = None,
    ) -> AgentResponse:
        """The response of one run (``collect_agent_response`` of :meth:`run`: with
        ``collector``, an interrupted run's partial response is in it; an exception of the
        client is raised as :class:`raf.errors.AgentResponseError` holding the response so
        far)."""
        run = self.run(messages, session, options)
        return collect_agent_response(
            run,
            raise_on_error=raise_on_error,
            collector=run.collector if collector is None else collector,
        )

    def _results(self, turn: AgentTurn) -> Generator[AgentResponseResult, None, None]:
        for provider in self.context_providers:
            turn.apply(provider.on_invoking(turn.invoking_context()))
        messages, options = turn.request()
        client = self.chat_client
        if turn.run_tools and not self.tools:
            client = self._loop(())
        stream: Iterator[Any] | None = None
        try:
            stream = iter(client.stream(messages, options))
            for update in stream:
                yield from turn.feed(update)
        except ChatClientError as exc:
            _close(stream)
            ended = turn.fail(client_error(exc))
            self._invoked(turn, exc)
            yield from ended
            return
        except BaseException as exc:
            _close(stream)
            if isinstance(exc, Exception):
                turn.fail(transport_error(exc))
            else:
                turn.interrupted(exc)
            self._invoked(turn, exc)
            raise
        final = turn.close()
        self._invoked(turn, None)
        if final is not None:
            yield final

    def _invoked(self, turn: AgentTurn, error: BaseException | None) -> None:
        context = turn.invoked_context(error)
        for provider in self.context_providers:
            provider.on_invoked(context)


class AsyncChatClientAgent(_Agent):
    """An agent over an asynchronous chat client: :class:`ChatClientAgent`'s twin, whose
    ``run`` is an async iterator; context providers may be sync or async."""

    def __init__(
        self,
        client: AsyncChatClient,
        *,
        name: str | None = None,
        id: str | None = None,
        instructions: str | None = None,
        tools: Sequence[Tool] = (),
        context_providers: Sequence[ContextProvider | AsyncContextProvider] = (),
        max_rounds: int = 10,
    ) -> None:
        super().__init__(
            name=name, id=id, instructions=instructions, tools=tools, max_rounds=max_rounds
        )
        self.client = client
        self.context_providers = tuple(context_providers)
        self.chat_client: AsyncChatClient = self._loop(self.tools) if self.tools else client
        """The client runs go through: ``client``, wrapped in the tool loop with tools."""

    def _loop(self, tools: Sequence[Tool]) -> AsyncChatClient:
        loop: AsyncChatClient = AsyncFunctionInvokingChatClient(
            self.client, tools=tools, max_rounds=self.max_rounds
        )
        return loop

    def run(
        self,
        messages: Messages,
        session: AgentSession | None = None,
        options: ChatOptions | None = None,
    ) -> AsyncAgentRun:
        """Stream the results of one run (see :class:`ChatClientAgent`)."""
        turn = self._turn(messages, session, options)
        return AsyncAgentRun(self._results(turn), turn)

    async def run_to_response(
        self,
        messages: Messages,
        session: AgentSession | None = None,
        options: ChatOptions | None = None,
        *,
        raise_on_error: bool = False,
        collector: ResponseCollector | None = None,
    ) -> AgentResponse:
        """The response of one run (see :meth:`ChatClientAgent.run_to_response`)."""
        run = self.run(messages, session, options)
        return await acollect_agent_response(
            run,
            raise_on_error=raise_on_error,
            collector=run.collector if collector is None else collector,
        )

    async def _results(self, turn: AgentTurn) -> AsyncGenerator[AgentResponseResult, None]:
        for provider in self.context_providers:
            turn.apply(await _resolved(provider.on_invoking(turn.invoking_context())))
        messages, options = turn.request()
        client = self.chat_client
        if turn.run_tools and not self.tools:
            client = self._loop(())
        stream: AsyncIterator[Any] | None = None
        try:
            stream = aiter(client.stream(messages, options))
            async for update in stream:
                for result in turn.feed(update):
                    yield result
        except ChatClientError as exc:
            await _aclose(stream)
            ended = turn.fail(client_error(exc))
            await self._invoked(turn, exc)
            for result in ended:
                yield result
            return
        except BaseException as exc:
            await _aclose(stream)
            if isinstance(exc, Exception):
                turn.fail(transport_error(exc))
            else:
                turn.interrupted(exc)
            await self._invoked(turn, exc)
            raise
        final = turn.close()
        await self._invoked(turn, None)
        if final is not None:
            yield final

    async def _invoked(self, turn: AgentTurn, error: BaseException | None) -> None:
        context = turn.invoked_context(error)
        for provider in self.context_providers:
            await _resolved(provider.on_invoked(context))


def _close(stream: object) -> None:
    close = getattr(stream, "close", None)
    if callable(close):
        close()


async def _aclose(stream: object) -> None:
    close = getattr(stream, "aclose", None)
    if callable(close):
        await close()


class AgentRun:
    """The results of one run of a :class:`ChatClientAgent` (an iterator).

    ``collect_agent_response(run, collector=c)`` has every result added to ``c`` as it is
    produced, and an interrupted run closed into it (:class:`raf.collect.CollectsInto`).
    """

    def __init__(
        self, results: Generator[AgentResponseResult, None, None], turn: AgentTurn
    ) -> None:
        self._results = results
        self._turn = turn
        self._started = False

    def __iter__(self) -> Iterator[AgentResponseResult]:
        return self

    def __next__(self) -> AgentResponseResult:
        self._started = True
        return next(self._results)

    def close(self) -> None:
        """Stop the run (an interruption, when it had started)."""
        self._results.close()

    @property
    def response(self) -> AgentResponse:
        """The response so far."""
        return self._turn.response

    @property
    def collector(self) -> ResponseCollector:
        """The run's own collector (what the context providers' response comes from)."""
        return self._turn.collector

    def collect_into(self, collector: ResponseCollector) -> bool:
        """Add every result to ``collector`` as it is produced (only before the first);
        whether the results now go there."""
        if collector is self._turn.collector:
            return True
        if self._started:
            return False
        self._turn.keep(collector)
        return True


class AsyncAgentRun:
    """The results of one run of an :class:`AsyncChatClientAgent` (an async iterator); see
    :class:`AgentRun`."""

    def __init__(self, results: AsyncGenerator[AgentResponseResult, None], turn: AgentTurn) -> None:
        self._results = results
        self._turn = turn
        self._started = False

    def __aiter__(self) -> AsyncIterator[AgentResponseResult]:
        return self

    async def __anext__(self) -> AgentResponseResult:
        self._started = True
        return await anext(self._results)

    async def aclose(self) -> None:
        """Stop the run (an interruption, when it had started)."""
        await self._results.aclose()

    @property
    def response(self) -> AgentResponse:
        """The response so far."""
        return self._turn.response

    @property
    def collector(self) -> ResponseCollector:
        """The run's own collector (what the context providers' response comes from)."""
        return self._turn.collector

    def collect_into(self, collector: ResponseCollector) -> bool:
        """See :meth:`AgentRun.collect_into`."""
        if collector is self._turn.collector:
            return True
        if self._started:
            return False
        self._turn.keep(collector)
        return True
