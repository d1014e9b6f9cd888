"""raf: a reference implementation of an agent framework's streaming pipeline.

SSE bytes -> :mod:`raf.sse` -> a dialect (:mod:`raf.dialects`) -> ``AgentResponseUpdate``
values (:mod:`raf.model.updates`). The core does no IO; :mod:`raf.pipeline` drives it over
byte chunks and :mod:`raf.cli` is the command line.
"""

from raf.errors import DialectError, RafError, SSEError, SSELimitExceeded, StateError
from raf.model import (
    AgentResponse,
    AgentResponseResult,
    AgentResponseUpdate,
    ChatMessage,
    Content,
    ErrorCode,
    Event,
    FinishReason,
    MessageRole,
    MessageSource,
    ResponseMetadata,
    ToolCall,
    Usage,
    contents,
    events,
    updates,
)
from raf.pipeline import UpdateDecoder, aiter_updates, iter_updates
from raf.sse import ServerSentEvent, SSEDecoder

__version__ = "0.1.0"

__all__ = [
    "AgentResponse",
    "AgentResponseResult",
    "AgentResponseUpdate",
    "ChatMessage",
    "Content",
    "DialectError",
    "ErrorCode",
    "Event",
    "FinishReason",
    "MessageRole",
    "MessageSource",
    "RafError",
    "ResponseMetadata",
    "SSEDecoder",
    "SSEError",
    "SSELimitExceeded",
    "ServerSentEvent",
    "StateError",
    "ToolCall",
    "UpdateDecoder",
    "Usage",
    "__version__",
    "aiter_updates",
    "contents",
    "events",
    "iter_updates",
    "updates",
]
