"""Middleware: chat clients that wrap another (:class:`raf.agent.chat_client.ChatClientDecorator`).

:class:`LoggingChatClient` (and :class:`AsyncLoggingChatClient`) reports every call once it
has ended: how many messages it sent, the model and tools it asked for, how many updates came
back, the finish reason, the error codes the stream reported, and the error that stopped it
before any update (the leaf's :class:`~raf.agent.errors.HttpStatusError`...). The report goes
to a callback, by default one line on the ``raf.agent`` logger::

    client = LoggingChatClient(HttpChatClient("openai_chat", api_key=KEY, model="gpt-4o"))
    innermost(client)  # the HttpChatClient
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass

from raf.agent.chat_client import (
    AsyncChatClient,
    AsyncChatClientDecorator,
    ChatClient,
    ChatClientDecorator,
)
from raf.agent.options import ChatOptions
from raf.model import updates
from raf.model.messages import ChatMessage
from raf.model.updates import AgentResponseUpdate

__all__ = ["AsyncLoggingChatClient", "CallReport", "LoggingChatClient", "log_call"]

LOGGER = logging.getLogger("raf.agent")


@dataclass(frozen=True)
class CallReport:
    """What one call of a chat client did.

    Attributes:
        messages: how many messages were sent.
        model: the model asked for in the options (``None``: the client's default).
        tools: the names of the tools offered.
        updates: how many updates the stream yielded.
        finish_reason: the last ``Finish`` update's reason (``None``: none arrived).
        error_codes: the codes of the stream's ``Error`` updates, in order.
        failure: the exception that ended the call (raised before the first update, or
            while the caller read the stream); ``None`` when it ended without one.
        completed: the stream was read to its end (``False``: the caller stopped early, or
            it failed).
    """

    messages: int
    model: str | None
    tools: tuple[str, ...]
    updates: int = 0
    finish_reason: str | None = None
    error_codes: tuple[str, ...] = ()
    failure: BaseException | None = None
    completed: bool = False


def log_call(report: CallReport) -> None:
    """The default reporter: one line on the ``raf.agent`` logger, at INFO, or WARNING when
    the call failed or its stream reported errors."""
    failed = report.failure is not None or bool(report.error_codes)
    LOGGER.log(
        logging.WARNING if failed else logging.INFO,
        "chat call: %d messages, model %s, %d tools, %d updates, finish %s, errors %s%s",
        report.messages,
        report.model or "(default)",
        len(report.tools),
        report.updates,
        report.finish_reason,
        ", ".join(report.error_codes) or "none",
        "" if report.failure is None else f", failed: {report.failure}",
    )


class _Tally:
    """The report of one call, as its updates pass."""

    def __init__(self, messages: Sequence[ChatMessage], options: ChatOptions | None) -> None:
        options = options or ChatOptions()
        self.messages = len(messages)
        self.model = options.model
        self.tools = tuple(tool.name for tool in options.tools)
        self.updates = 0
        self.finish_reason: str | None = None
        self.error_codes: list[str] = []
        self.failure: BaseException | None = None
        self.completed = False

    def see(self, update: AgentResponseUpdate) -> None:
        self.updates += 1
        if type(update) is updates.Finish:
            self.finish_reason = update.finish_reason
        elif type(update) is updates.Error:
            self.error_codes.append(update.error_code)

    def report(self) -> CallReport:
        return CallReport(
            messages=self.messages,
            model=self.model,
            tools=self.tools,
            updates=self.updates,
            finish_reason=self.finish_reason,
            error_codes=tuple(self.error_codes),
            failure=self.failure,
            completed=self.completed,
        )


class LoggingChatClient(ChatClientDecorator):
    """Reports each call of the wrapped client to ``report`` (default :func:`log_call`) when
    the call ends: read to its end, failed, or closed early by the caller. Updates pass
    unchanged; an exception is reported, then raised on."""

    def __init__(self, inner: ChatClient, report: Callable[[CallReport], None] = log_call) -> None:
        super().__init__(inner)
        self._report = report

    def stream(
        self, messages: Sequence[ChatMessage], options: ChatOptions | None = None
    ) -> Iterator[AgentResponseUpdate]:
        tally = _Tally(messages, options)
        try:
            for update in self.inner_client.stream(messages, options):
                tally.see(update)
                yield update
            tally.completed = True
        except Exception as exc:
            tally.failure = exc
            raise
        finally:
            self._report(tally.report())


class AsyncLoggingChatClient(AsyncChatClientDecorator):
    """Async twin of :class:`LoggingChatClient`."""

    def __init__(
        self, inner: AsyncChatClient, report: Callable[[CallReport], None] = log_call
    ) -> None:
        super().__init__(inner)
        self._report = report

    async def stream(
        self, messages: Sequence[ChatMessage], options: ChatOptions | None = None
    ) -> AsyncIterator[AgentResponseUpdate]:
        tally = _Tally(messages, options)
        try:
            async for update in self.inner_client.stream(messages, options):
                tally.see(update)
                yield update
            tally.completed = True
        except Exception as exc:
            tally.failure = exc
            raise
        finally:
            self._report(tally.report())
