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
from raf.agent.http_client import AsyncHttpChatClient, HttpChatClient
from raf.agent.invoking import AsyncFunctionInvokingChatClient, FunctionInvokingChatClient
from raf.agent.loop import DEFAULT_MAX_ROUNDS, ToolLoop
from raf.agent.middleware import AsyncLoggingChatClient, CallReport, LoggingChatClient
from raf.agent.options import Cancellation, ChatOptions
from raf.agent.retry import RetryPolicy
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
from raf.agent.tools import (
    ApprovalRequiredTool,
    FunctionTool,
    Tool,
    ToolRegistry,
    ToolResult,
    ToolSchemaError,
    ToolText,
    tool,
)

__all__ = [
    "DEFAULT_MAX_ROUNDS",
    "AgentRun",
    "AgentSession",
    "ApprovalRequiredTool",
    "AsyncAgentRun",
    "AsyncChatClient",
    "AsyncChatClientAgent",
    "AsyncChatClientDecorator",
    "AsyncContextProvider",
    "AsyncFunctionInvokingChatClient",
    "AsyncHttpChatClient",
    "AsyncLoggingChatClient",
    "CallReport",
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
    "FunctionInvokingChatClient",
    "FunctionTool",
    "HttpChatClient",
    "HttpStatusError",
    "InMemoryHistoryProvider",
    "InMemorySessionStore",
    "InvokedContext",
    "InvokingContext",
    "LoggingChatClient",
    "NotASessionFileError",
    "RequestFailedError",
    "RetryPolicy",
    "SessionStore",
    "SessionStoreError",
    "Tool",
    "ToolLoop",
    "ToolRegistry",
    "ToolResult",
    "ToolSchemaError",
    "ToolText",
    "UnknownSchemaVersionError",
    "innermost",
    "tool",
]
