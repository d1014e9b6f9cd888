"""One run of an agent, sans-IO: the request built from the caller's messages and the context
providers' contexts, then the client's updates turned into results (raf-spec 3.6), then what
the providers see after it. :mod:`raf.agent.agent` is the shell that calls the providers and
the client.

The request: the instructions (the agent's, then each provider's) as one system message
first; then the history (what providers added, in order; ``replace_messages`` replaces it);
then the caller's new messages. The options the client gets are the caller's, with the
definitions of every tool the run offers added to ``tools`` (those of the agent's tools, the
options' ``provider_tools`` and the providers' tools whose names are not there yet) and the
providers' tools added to ``provider_tools``.

The results: one per update that produced contents or events, then the final result once
(``finalize``), as RAF's agent; every result also goes to the run's collector (and to the
caller's, :meth:`AgentTurn.keep`). A run that cannot go on is closed as :mod:`raf.transport`
closes a turn: :meth:`AgentTurn.fail` with the error (its result, then the final result, in
which calls still streaming are reported ``tool_call_incomplete``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from raf.agent.context import Context, InvokedContext, InvokingContext, with_source
from raf.agent.errors import ChatClientError, HttpStatusError
from raf.agent.options import ChatOptions
from raf.agent.session import AgentSession
from raf.agent.tools import Tool
from raf.collect import ResponseCollector
from raf.converter import AgentResponseConverter
from raf.errors import excerpt, raw_excerpt
from raf.limits import DEFAULT_MAX_RAW_CHARS
from raf.model import updates
from raf.model.codes import ErrorCode
from raf.model.messages import ChatMessage, MessageRole, MessageSource, ToolCall
from raf.model.request import ToolSpec
from raf.model.response import AgentResponse, AgentResponseResult
from raf.model.updates import AgentResponseUpdate
from raf.pipeline import cancelled_error

__all__ = ["AgentTurn", "as_messages", "client_error", "pending_calls", "tool_spec"]

# Error codes after which a turn ended abnormally (what UpdateDecoder counts as interrupted):
# calls still streaming then are incomplete, not complete calls with made-up arguments.
_INTERRUPTING = frozenset(
    {
        ErrorCode.STREAM_TRUNCATED,
        ErrorCode.TRANSPORT_ERROR,
        ErrorCode.CANCELLED,
        ErrorCode.HTTP_ERROR,
    }
)


def as_messages(messages: str | ChatMessage | Sequence[ChatMessage]) -> tuple[ChatMessage, ...]:
    """The caller's messages: a string is one user message; those without a source are
    marked ``external``."""
    if isinstance(messages, str):
        found: Sequence[ChatMessage] = (ChatMessage.user(messages),)
    elif isinstance(messages, ChatMessage):
        found = (messages,)
    else:
        found = messages
    return tuple(with_source(found, MessageSource.EXTERNAL))


def tool_spec(tool: Tool) -> ToolSpec:
    """The definition of a tool sent to the model."""
    return ToolSpec(name=tool.name, description=tool.description, parameters=dict(tool.parameters))


def client_error(exc: ChatClientError) -> updates.Error:
    """The update that reports a chat client's error: ``http_error`` with the status and the
    provider's message (else the start of the body), ``transport_error`` otherwise."""
    attempts = f" (after {exc.attempts} attempts)" if exc.attempts > 1 else ""
    if isinstance(exc, HttpStatusError):
        reason = f" {exc.reason}" if exc.reason else ""
        detail = exc.provider_message or (excerpt(exc.body, 300) if exc.body else "(empty body)")
        return updates.Error(
            error_code=ErrorCode.HTTP_ERROR,
            message=f"HTTP {exc.status}{reason}: {detail}{attempts}",
            raw=raw_excerpt(exc.body, DEFAULT_MAX_RAW_CHARS) if exc.body else None,
        )
    return updates.Error(error_code=ErrorCode.TRANSPORT_ERROR, message=f"{exc.message}{attempts}")


def pending_calls(messages: Sequence[ChatMessage]) -> tuple[ToolCall, ...]:
    """The calls of the last assistant message that made some (raf-spec 5.7): those a
    resumed approval answers."""
    for message in reversed(messages):
        if message.role == MessageRole.ASSISTANT and message.tool_calls:
            return message.tool_calls
    return ()


class AgentTurn:
    """The state of one agent run.

    Args:
        agent_id: the agent's id (in every content's metadata, and the executor id).
        messages: the caller's messages.
        session: the run's session.
        options: the caller's options.
        instructions: the agent's instructions.
        tools: the agent's tools.
    """

    def __init__(
        self,
        *,
        agent_id: str,
        messages: str | ChatMessage | Sequence[ChatMessage],
        session: AgentSession | None = None,
        options: ChatOptions | None = None,
        instructions: str | None = None,
        tools: Sequence[Tool] = (),
    ) -> None:
        self.agent_id = agent_id
        self.session = session
        self.options = options if options is not None else ChatOptions()
        self.new_messages = as_messages(messages)
        self._history: list[ChatMessage] = []
        self._instructions: list[str] = [instructions] if instructions else []
        self._tools: list[Tool] = [*tools, *self.options.provider_tools]
        self._added_tools: list[Tool] = []
        self.request_messages: tuple[ChatMessage, ...] = ()
        self.request_options: ChatOptions = self.options
        self.collector = ResponseCollector()
        self._collectors: list[ResponseCollector] = [self.collector]
        self._converter = AgentResponseConverter(
            agent_id=agent_id, executor_id=agent_id, properties=self.options.properties
        )
        self._interrupted = False
        self._closed = False

    # -- the request -------------------------------------------------------------------------

    def invoking_context(self) -> InvokingContext:
        """What the next provider sees."""
        return InvokingContext(
            messages=(*self._history, *self.new_messages),
            new_messages=self.new_messages,
            instructions="\n\n".join(self._instructions) or None,
            tools=tuple(self._tools),
            session=self.session,
            options=self.options,
            agent_id=self.agent_id,
        )

    def apply(self, context: Context) -> None:
        """Take a provider's context into account."""
        if context.replace_messages is not None:
            self._history = with_source(context.replace_messages, MessageSource.CONTEXT_PROVIDER)
        self._history.extend(with_source(context.messages, MessageSource.CONTEXT_PROVIDER))
        if context.instructions:
            self._instructions.append(context.instructions)
        self._tools.extend(context.tools)
        self._added_tools.extend(context.tools)

    def request(self) -> tuple[tuple[ChatMessage, ...], ChatOptions]:
        """The messages and options the client gets (module docstring)."""
        instructions = "\n\n".join(self._instructions)
        system = (ChatMessage.system(instructions),) if instructions else ()
        self.request_messages = (*system, *self._history, *self.new_messages)
        options = self.options
        offered = {spec.name for spec in options.tools}
        specs = list(options.tools)
        for tool in self._tools:
            if tool.name not in offered:
                offered.add(tool.name)
                specs.append(tool_spec(tool))
        self.request_options = dataclasses.replace(
            options,
            tools=tuple(specs),
            provider_tools=(*options.provider_tools, *self._added_tools),
        )
        if options.tool_approval_responses:
            pending = pending_calls(self.request_messages)
            for collector in self._collectors:
                collector.add_pending_calls(pending)
        return self.request_messages, self.request_options

    @property
    def run_tools(self) -> tuple[Tool, ...]:
        """The tools of this run beyond the agent's (the options' and the providers')."""
        return self.request_options.provider_tools

    # -- the results ---------------------------------------------------------------------------

    def keep(self, collector: ResponseCollector) -> None:
        """Also add every result to ``collector`` (the caller's), and the calls a resumed
        approval answers."""
        if collector not in self._collectors:
            collector.add_pending_calls(self.collector.pending_calls)
            self._collectors.append(collector)

    def feed(self, update: AgentResponseUpdate) -> list[AgentResponseResult]:
        """The results of one update of the client."""
        if type(update) is updates.Error and update.error_code in _INTERRUPTING:
            self._interrupted = True
        elif type(update) is updates.RoundFinished:
            self._interrupted = False
        return self._kept(self._converter.results((update,)))

    def close(self) -> AgentResponseResult | None:
        """The final result (``None`` when the run was already closed)."""
        if self._closed:
            return None
        self._closed = True
        converter = self._converter
        (final,) = self._kept(
            [converter.finalize(converter.finish_reason, interrupted=self._interrupted)]
        )
        return final

    def fail(self, error: updates.Error) -> list[AgentResponseResult]:
        """End the run with ``error``: its result, then the final result."""
        if self._closed:
            return []
        self._interrupted = True
        out = self.feed(error)
        final = self.close()
        return out if final is None else [*out, final]

    def interrupted(self, exc: BaseException) -> None:
        """The run was interrupted by ``exc`` (a cancellation, the caller stopping): the turn
        is closed with a ``cancelled`` error into the collectors; nothing is returned, the
        caller is gone."""
        self.fail(cancelled_error(exc))

    @property
    def response(self) -> AgentResponse:
        """The response so far."""
        return self.collector.response()

    def invoked_context(self, error: BaseException | None) -> InvokedContext:
        """What the providers see after the run."""
        return InvokedContext(
            request_messages=self.request_messages,
            new_messages=self.new_messages,
            response=self.response,
            error=error,
            session=self.session,
            agent_id=self.agent_id,
        )

    def _kept(self, results: list[AgentResponseResult]) -> list[AgentResponseResult]:
        for collector in self._collectors:
            for result in results:
                collector.add(result)
        return results
