"""The agent side of RAF (raf-spec sections 1, 5 and 6): chat clients (a leaf that speaks a
wire format over httpx, and decorators around it), the tool loop with approval
(``FunctionInvokingChatClient``), tools, and the agent with sessions and context providers.

The decisions are sans-IO (:mod:`raf.agent.loop` is the tool loop as a state machine fed values
and returning values; :mod:`raf.agent.retry` the retry policy); the modules that do IO (HTTP,
threads, tasks, files) are thin shells over them. docs/agent.md describes the whole.
"""

from __future__ import annotations

from raf.agent.agent import AgentRun, AsyncAgentRun, AsyncChatClientAgent, ChatClientAgent
from raf.agent.chat_client import (
    AsyncChatClient,
    AsyncChatClientDecorator,
    ChatClient,
    ChatClientDecorator,
    innermost,
)
from raf.agent.context import (
    AsyncContextProvider,
    Context,
    ContextProvider,
    InMemoryHistoryProvider,
    InvokedContext,
    InvokingContext,
)
from raf.agent.errors import ChatClientError, HttpStatusError, RequestFailedError
from raf.agent.options import Cancellation, ChatOptions
from raf.agent.session import (
    AgentSession,
    CorruptSessionError,
    FileSystemSessionStore,
    InMemorySessionStore,
    NotASessionFileError,
    SessionStore,
    SessionStoreError,
    UnknownSchemaVersionError,
)

__all__ = [
    "AgentRun",
    "AgentSession",
    "AsyncAgentRun",
    "AsyncChatClient",
    "AsyncChatClientAgent",
    "AsyncChatClientDecorator",
    "AsyncContextProvider",
    "Cancellation",
    "ChatClient",
    "ChatClientAgent",
    "ChatClientDecorator",
    "ChatClientError",
    "ChatOptions",
    "Context",
    "ContextProvider",
    "CorruptSessionError",
    "FileSystemSessionStore",
    "HttpStatusError",
    "InMemoryHistoryProvider",
    "InMemorySessionStore",
    "InvokedContext",
    "InvokingContext",
    "NotASessionFileError",
    "RequestFailedError",
    "SessionStore",
    "SessionStoreError",
    "UnknownSchemaVersionError",
    "innermost",
]
