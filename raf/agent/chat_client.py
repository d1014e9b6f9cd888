"""Chat clients (RAF's ``IChatClient``): a call takes the conversation and options and streams
updates. A leaf speaks a wire format (:mod:`raf.agent.http_client`); a decorator wraps another
client, its ``inner_client`` (the tool loop is one, :mod:`raf.agent.invoking`), so middlewares
compose: ``FunctionInvokingChatClient(LoggingChatClient(HttpChatClient(...)))``.

Sync clients return an iterator, async ones an async iterator; both raise a
:class:`raf.agent.errors.ChatClientError` (before the first update) when no stream could be
had, and report every later problem in-band as ``Error`` updates.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Protocol, TypeVar, runtime_checkable

from raf.agent.options import ChatOptions
from raf.model.messages import ChatMessage
from raf.model.updates import AgentResponseUpdate

__all__ = [
    "AsyncChatClient",
    "AsyncChatClientDecorator",
    "ChatClient",
    "ChatClientDecorator",
    "innermost",
]


@runtime_checkable
class ChatClient(Protocol):
    """A synchronous chat client."""

    @property
    def inner_client(self) -> ChatClient | None:
        """The client this one wraps (``None`` for a leaf)."""
        ...

    def stream(
        self, messages: Sequence[ChatMessage], options: ChatOptions | None = None
    ) -> Iterator[AgentResponseUpdate]:
        """Stream the model's turn for ``messages``."""
        ...


@runtime_checkable
class AsyncChatClient(Protocol):
    """An asynchronous chat client."""

    @property
    def inner_client(self) -> AsyncChatClient | None:
        """The client this one wraps (``None`` for a leaf)."""
        ...

    def stream(
        self, messages: Sequence[ChatMessage], options: ChatOptions | None = None
    ) -> AsyncIterator[AgentResponseUpdate]:
        """Stream the model's turn for ``messages``."""
        ...


class ChatClientDecorator:
    """Base of a synchronous middleware: holds ``inner_client`` and passes calls to it; a
    subclass overrides :meth:`stream` and calls ``self.inner_client.stream`` where it
    wants."""

    def __init__(self, inner: ChatClient) -> None:
        self._inner = inner

    @property
    def inner_client(self) -> ChatClient:
        """The wrapped client."""
        return self._inner

    def stream(
        self, messages: Sequence[ChatMessage], options: ChatOptions | None = None
    ) -> Iterator[AgentResponseUpdate]:
        """Pass the call to the wrapped client."""
        return self._inner.stream(messages, options)


class AsyncChatClientDecorator:
    """Base of an asynchronous middleware (see :class:`ChatClientDecorator`)."""

    def __init__(self, inner: AsyncChatClient) -> None:
        self._inner = inner

    @property
    def inner_client(self) -> AsyncChatClient:
        """The wrapped client."""
        return self._inner

    def stream(
        self, messages: Sequence[ChatMessage], options: ChatOptions | None = None
    ) -> AsyncIterator[AgentResponseUpdate]:
        """Pass the call to the wrapped client."""
        return self._inner.stream(messages, options)


C = TypeVar("C", ChatClient, AsyncChatClient)


def innermost(client: C) -> C:
    """The leaf under every decorator of ``client``."""
    inner = client.inner_client
    while inner is not None:
        client = inner
        inner = client.inner_client
    return client
