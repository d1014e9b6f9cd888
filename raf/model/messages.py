"""Chat messages and tool calls (raf-spec 1.7 and 1.8). No IO."""

from __future__ import annotations

from enum import StrEnum

from raf.model._base import JSONValue, Record
from raf.model.blocks import Block


class MessageRole(StrEnum):
    """Author of a chat message."""

    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"


class MessageSource(StrEnum):
    """Where a message came from.

    Canonical JSON uses these snake_case values; RAF's serde form is camelCase
    (``chatHistory``...). See docs/deviations.md.
    """

    EXTERNAL = "external"
    CHAT_HISTORY = "chat_history"
    CONTEXT_PROVIDER = "context_provider"
    TOOL_RESULT = "tool_result"


class ToolCall(Record, frozen=True, kw_only=True):
    """A complete tool call: the provider's call id, the tool name and its JSON arguments."""

    id: str
    name: str
    arguments: JSONValue


class HostedCall(Record, frozen=True, kw_only=True):
    """A tool the provider ran itself, with what it returned (raf's addition to
    :class:`~raf.model.AgentResponse`): the call id, the tool, its input as JSON, and the
    ``output`` (``None`` until a result arrived; the last one when several did) or the
    ``error`` text of its result. The client must not run it."""

    id: str
    name: str
    arguments: JSONValue = None
    output: JSONValue = None
    error: str | None = None


class ApprovalRequest(Record, frozen=True, kw_only=True):
    """A tool call waiting for a person's approval (raf's addition to
    :class:`~raf.model.AgentResponse`): answer it by ``call_id``."""

    call_id: str
    name: str
    arguments: JSONValue
    description: str = ""


class ToolApprovalResponse(Record, frozen=True, kw_only=True):
    """A person's answer to an :class:`ApprovalRequest` (raf-spec 1.8): the ``call_id`` it
    answers, whether the call is ``approved``, and an optional ``reason`` (a rejected call's
    tool message says it)."""

    call_id: str
    approved: bool
    reason: str | None = None


class ChatMessage(Record, frozen=True, kw_only=True):
    """One message of a conversation.

    Use the constructors (:meth:`system`, :meth:`user`, :meth:`assistant`,
    :meth:`assistant_with_tools`, :meth:`tool`) rather than filling fields by hand.

    ``content`` is the text view RAF has; ``blocks`` (raf's addition,
    :mod:`raf.model.blocks`) holds the message's typed parts in order, with everything a
    provider requires back (signatures, reasoning items, call ids). A message built from a
    stream or read from a request has both; ``content`` is then the text of its text blocks.
    """

    role: MessageRole
    content: str
    name: str | None = None
    tool_calls: tuple[ToolCall, ...] | None = None
    tool_call_id: str | None = None
    source: MessageSource | None = None
    blocks: tuple[Block, ...] = ()

    @classmethod
    def system(cls, text: str) -> ChatMessage:
        """A system message."""
        return cls(role=MessageRole.SYSTEM, content=text)

    @classmethod
    def user(cls, text: str) -> ChatMessage:
        """A user message."""
        return cls(role=MessageRole.USER, content=text)

    @classmethod
    def assistant(cls, text: str) -> ChatMessage:
        """A plain assistant message."""
        return cls(role=MessageRole.ASSISTANT, content=text)

    @classmethod
    def assistant_with_tools(
        cls, text: str, tool_calls: tuple[ToolCall, ...] | list[ToolCall]
    ) -> ChatMessage:
        """An assistant message that requests tool calls."""
        return cls(role=MessageRole.ASSISTANT, content=text, tool_calls=tuple(tool_calls))

    @classmethod
    def tool(cls, content: str, tool_call_id: str) -> ChatMessage:
        """The result of one tool call, answering ``tool_call_id``."""
        return cls(role=MessageRole.TOOL, content=content, tool_call_id=tool_call_id)
