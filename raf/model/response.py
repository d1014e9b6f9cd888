"""Streamed results and the aggregated response (raf-spec 1.5 and 1.6). No IO."""

from __future__ import annotations

from raf.model import contents
from raf.model._base import Record, Value
from raf.model.contents import Content
from raf.model.events import Event
from raf.model.messages import ApprovalRequest, ChatMessage, HostedCall, ToolCall
from raf.model.usage import Usage


class AgentResponseResult(Value, frozen=True, kw_only=True):
    """One streamed chunk of an agent run: contents and events, and at the end the finish."""

    id: str | None = None
    model: str | None = None
    finish_reason: str | None = None
    contents: tuple[Content, ...] = ()
    events: tuple[Event, ...] = ()


class Round(Record, frozen=True, kw_only=True):
    """One model round of a tool loop (raf's addition): the provider's finish reason and the
    usage of that round (``None`` when it sent none)."""

    finish_reason: str | None = None
    usage: Usage | None = None


class AgentResponse(Value, frozen=True, kw_only=True):
    """Everything an agent run produced, aggregated.

    ``errors`` (not in RAF) holds the run's error contents in order, so a caller sees what
    went wrong without losing the text and calls that arrived; ``notices`` (not in RAF) holds,
    in order, the Error contents whose code is a notice's (:data:`raf.model.codes.NOTICE_CODES`:
    a harmless deviation of the stream, nothing lost), which are not errors.
    ``hosted_tool_calls`` (not in RAF) holds the tools the provider ran itself, each with its
    output, and ``approval_requests`` (not in RAF) the calls that wait for a person's approval;
    neither is a call the client runs.

    ``rounds`` (not in RAF) holds, for a run of the tool loop, one entry per model call in
    order, each with its finish reason and usage (a run that paused for approval, ran out of
    rounds or was cancelled between rounds ends with its last tool round); ``usage`` is
    then their sum (:func:`raf.model.usage.add_usage`), and ``tool_messages`` the tool
    messages the loop sent back, in order. A run without a tool round has no ``rounds`` and its
    ``usage`` is the turn's (docs/agent.md).
    """

    id: str | None = None
    model: str | None = None
    text: str = ""
    reasoning_text: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    hosted_tool_calls: tuple[HostedCall, ...] = ()
    approval_requests: tuple[ApprovalRequest, ...] = ()
    tool_messages: tuple[ChatMessage, ...] = ()
    turn_transcript: tuple[ChatMessage, ...] = ()
    finish_reason: str | None = None
    usage: Usage | None = None
    source_agent_id: str | None = None
    errors: tuple[contents.Error, ...] = ()
    notices: tuple[contents.Error, ...] = ()
    rounds: tuple[Round, ...] = ()

    @classmethod
    def from_text(cls, text: str) -> AgentResponse:
        """A response holding only ``text``."""
        return cls(text=text)
