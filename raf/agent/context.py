"""Context providers (RAF's ``IContextProvider``): code of the caller's that runs around each
agent run, adding to the request before it and seeing the outcome after it.

Before the model is called, each provider's ``on_invoking`` gets an :class:`InvokingContext`
(the request as the providers before it left it) and returns a :class:`Context`: text added
to the instructions, ``messages`` added to the request's history, ``tools`` offered for this
run, or ``replace_messages``, a whole new history (a summary in place of old turns, say). The
providers run in order, each seeing what the previous ones added. After the run (its end, its
failure or its interruption), each provider's ``on_invoked`` gets an :class:`InvokedContext`:
the request sent, the caller's new messages, the response, the error, the session.

Sync or async: :class:`ContextProvider` has plain methods, :class:`AsyncContextProvider`
coroutine methods of the same names. A :class:`~raf.agent.agent.ChatClientAgent` takes the
former; an :class:`~raf.agent.agent.AsyncChatClientAgent` takes either (it awaits what a
method returns when that is awaitable), so a provider without IO, such as
:class:`InMemoryHistoryProvider`, serves both.

Where messages come from is marked on them (``ChatMessage.source``, RAF's
:class:`~raf.model.MessageSource`): the caller's are ``external``, a history provider's
``chat_history``, other providers' ``context_provider`` (when they set none), tool results
``tool_result``. A history provider stores by source, so no message is stored twice.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import msgspec

from raf.agent.options import ChatOptions
from raf.agent.session import AgentSession
from raf.agent.tools import Tool
from raf.model.messages import ChatMessage, MessageRole, MessageSource
from raf.model.response import AgentResponse

__all__ = [
    "AsyncContextProvider",
    "Context",
    "ContextProvider",
    "InMemoryHistoryProvider",
    "InvokedContext",
    "InvokingContext",
    "with_source",
]


@dataclass(frozen=True, kw_only=True)
class Context:
    """What a provider adds to a run (RAF's ``AIContext``).

    Attributes:
        instructions: text added to the agent's instructions (joined by a blank line; all
            of them are the request's first message, a system message).
        messages: messages added to the request's history, after what is there and before
            the caller's new messages; those without a source are marked
            ``context_provider``.
        tools: tools offered to the model and run by the tool loop for this run.
        replace_messages: when set, the request's whole history (everything before the
            caller's new messages) becomes these messages, before ``messages`` are added.
    """

    instructions: str | None = None
    messages: tuple[ChatMessage, ...] = ()
    tools: tuple[Tool, ...] = ()
    replace_messages: tuple[ChatMessage, ...] | None = None


@dataclass(frozen=True, kw_only=True)
class InvokingContext:
    """What a provider sees before the run.

    Attributes:
        messages: the request so far: the history (as the providers before left it), then
            the caller's new messages.
        new_messages: the caller's messages of this run.
        instructions: the instructions so far (``None`` when there are none).
        tools: the tools offered so far (the agent's, the options', earlier providers').
        session: the run's session, if any.
        options: the caller's options of the run.
        agent_id: the agent's id.
    """

    messages: tuple[ChatMessage, ...]
    new_messages: tuple[ChatMessage, ...]
    instructions: str | None
    tools: tuple[Tool, ...]
    session: AgentSession | None
    options: ChatOptions
    agent_id: str


@dataclass(frozen=True, kw_only=True)
class InvokedContext:
    """What a provider sees after the run.

    Attributes:
        request_messages: the messages the model was sent (the system message of the
            instructions first, when there are any).
        new_messages: the caller's messages of this run (marked ``external`` unless the
            caller marked them).
        response: the run's response: complete, or what arrived before it failed or was
            interrupted (``None`` when the run failed before the model was called).
        error: what ended the run early: a :class:`~raf.agent.errors.ChatClientError`
            (the run then ended with an ``Error`` result instead of raising), any other
            exception the client raised, or the interruption (``KeyboardInterrupt``,
            ``asyncio.CancelledError``, ``GeneratorExit`` when the caller stopped reading
            the results before the end); ``None`` for a run that ended.
        session: the run's session, if any.
        agent_id: the agent's id.
    """

    request_messages: tuple[ChatMessage, ...]
    new_messages: tuple[ChatMessage, ...]
    response: AgentResponse | None
    error: BaseException | None
    session: AgentSession | None
    agent_id: str

    @property
    def completed(self) -> bool:
        """Whether the run ended as runs end: nothing raised and the response has a finish
        reason (the model's, or the tool loop's ``awaiting_approval`` or ``max_rounds``). A
        run cut short (a dropped connection, a truncated stream, a cancellation) has
        none."""
        return (
            self.error is None
            and self.response is not None
            and self.response.finish_reason is not None
        )


@runtime_checkable
class ContextProvider(Protocol):
    """A synchronous context provider."""

    def on_invoking(self, context: InvokingContext) -> Context:
        """What to add to the run, before the model is called."""
        ...

    def on_invoked(self, context: InvokedContext) -> None:
        """See the run's outcome."""
        ...


@runtime_checkable
class AsyncContextProvider(Protocol):
    """An asynchronous context provider (for :class:`~raf.agent.agent.AsyncChatClientAgent`)."""

    async def on_invoking(self, context: InvokingContext) -> Context:
        """What to add to the run, before the model is called."""
        ...

    async def on_invoked(self, context: InvokedContext) -> None:
        """See the run's outcome."""
        ...


def with_source(messages: Iterable[ChatMessage], source: MessageSource) -> list[ChatMessage]:
    """``messages``, those without a source marked ``source`` (a set source is kept)."""
    return [
        message if message.source is not None else msgspec.structs.replace(message, source=source)
        for message in messages
    ]


_NOT_STORED = frozenset({MessageSource.CHAT_HISTORY, MessageSource.CONTEXT_PROVIDER})


class InMemoryHistoryProvider:
    """Keeps the conversation (RAF's ``InMemoryHistoryProvider``): adds the stored history to
    each run and stores what the run added.

    The history is the session's ``messages`` when the run has a session (so a session store
    keeps it), else this provider's own :attr:`messages`.

    * ``on_invoking`` adds the stored messages, marked ``chat_history``.
    * ``on_invoked`` stores, when the run completed (:attr:`InvokedContext.completed`), the
      caller's new messages (not those marked ``chat_history`` or ``context_provider``: they
      are stored already, or are not the conversation's) and then the response's
      ``turn_transcript``: each round's assistant message with its blocks (reasoning,
      signatures, reasoning items: what the provider needs back next time), and the tool
      messages. A run that failed or was interrupted stores nothing, so the caller can run
      the same messages again. A run paused for approval ends on the assistant message with
      its calls, which a resumed run (``ChatOptions.tool_approval_responses``) answers: the
      tool messages of that resume are stored right after it, before the caller's new
      messages of the resumed run, as the tool loop sent them.

    Args:
        messages: the history to start from, for runs without a session.
    """

    def __init__(self, messages: Iterable[ChatMessage] = ()) -> None:
        self.messages: list[ChatMessage] = list(messages)

    def history(self, session: AgentSession | None) -> list[ChatMessage]:
        """The stored messages a run with ``session`` reads and extends."""
        return session.messages if session is not None else self.messages

    def on_invoking(self, context: InvokingContext) -> Context:
        """The stored history, marked ``chat_history``."""
        stored = self.history(context.session)
        return Context(
            messages=tuple(
                msgspec.structs.replace(message, source=MessageSource.CHAT_HISTORY)
                for message in stored
            )
        )

    def on_invoked(self, context: InvokedContext) -> None:
        """Store the caller's new messages and the run's transcript, when it completed."""
        if not context.completed or context.response is None:
            return
        stored = self.history(context.session)
        transcript = context.response.turn_transcript
        # Tool messages before the run's first assistant message answer calls of the stored
        # history (a resumed approval): they go right after it, before the caller's new
        # messages, where the tool loop put them in the request.
        answers = 0
        while answers < len(transcript) and transcript[answers].role == MessageRole.TOOL:
            answers += 1
        stored.extend(transcript[:answers])
        stored.extend(m for m in context.new_messages if m.source not in _NOT_STORED)
        stored.extend(transcript[answers:])
