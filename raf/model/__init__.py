"""raf's data model, with the names of the RAF design (raf-spec section 1). No IO.

Variant families are namespaced by module, the way Rust namespaces enum variants:
``updates.TextDelta`` (an ``AgentResponseUpdate``), ``contents.Text`` (a ``Content``),
``events.Custom`` (an ``Event``). Canonical JSON lives in :mod:`raf.model.canonical`.
"""

from raf.model import blocks, contents, events, updates
from raf.model.codes import NOTICE_CODES, ErrorCode
from raf.model.contents import Content
from raf.model.events import Event
from raf.model.messages import (
    ApprovalRequest,
    ChatMessage,
    HostedCall,
    MessageRole,
    MessageSource,
    ToolApprovalResponse,
    ToolCall,
)
from raf.model.metadata import ResponseMetadata
from raf.model.request import Conversation, RequestOptions, ToolSpec
from raf.model.response import AgentResponse, AgentResponseResult, Round
from raf.model.updates import AgentResponseUpdate
from raf.model.usage import FinishReason, Usage

__all__ = [
    "NOTICE_CODES",
    "AgentResponse",
    "AgentResponseResult",
    "AgentResponseUpdate",
    "ApprovalRequest",
    "ChatMessage",
    "Content",
    "Conversation",
    "ErrorCode",
    "Event",
    "FinishReason",
    "HostedCall",
    "MessageRole",
    "MessageSource",
    "RequestOptions",
    "ResponseMetadata",
    "Round",
    "ToolApprovalResponse",
    "ToolCall",
    "ToolSpec",
    "Usage",
    "blocks",
    "contents",
    "events",
    "updates",
]
