"""raf: a reference implementation of an agent framework's streaming pipeline.

SSE bytes -> :mod:`raf.sse` -> a dialect (:mod:`raf.dialects`) -> ``AgentResponseUpdate``
values -> :mod:`raf.converter` (with :mod:`raf.args_parser`) -> ``AgentResponseResult``
values -> :mod:`raf.collect` -> ``AgentResponse``. The core does no IO; :mod:`raf.pipeline`
drives it over byte chunks, :mod:`raf.transport` over an httpx response, and :mod:`raf.cli`
is the command line. Cassettes, the conformance suite and test support live in
:mod:`raf.cassettes`, :mod:`raf.conformance` and :mod:`raf.testing`.
"""

from raf import _mypyc
from raf.args_parser import StreamingArgsParser
from raf.collect import acollect_agent_response, collect_agent_response
from raf.converter import AgentResponseConverter
from raf.errors import (
    AgentResponseError,
    CassetteError,
    DialectError,
    RafError,
    SSEError,
    SSELimitExceeded,
    StateError,
)
from raf.framing.sse import ServerSentEvent, SSEDecoder
from raf.model import (
    NOTICE_CODES,
    AgentResponse,
    AgentResponseResult,
    AgentResponseUpdate,
    ApprovalRequest,
    ChatMessage,
    Content,
    Conversation,
    ErrorCode,
    Event,
    FinishReason,
    HostedCall,
    MessageRole,
    MessageSource,
    RequestOptions,
    ResponseMetadata,
    Round,
    ToolApprovalResponse,
    ToolCall,
    ToolSpec,
    Usage,
    blocks,
    contents,
    events,
    updates,
)
from raf.pipeline import (
    Pipeline,
    UpdateDecoder,
    aiter_updates,
    arespond,
    arun,
    iter_updates,
    respond,
    run,
)

__version__ = "0.1.0"

# Which build this is: the hot modules compiled by mypyc (the optional compiled wheel), or the
# pure-Python package (the reference, and the fallback). ``raf --version`` says which.
COMPILED_MODULES: tuple[str, ...] = _mypyc.compiled_modules()
"""The modules loaded as compiled extensions (empty in the pure-Python package)."""
COMPILED: bool = bool(COMPILED_MODULES)
"""Whether this is the compiled build."""

__all__ = [
    "COMPILED",
    "COMPILED_MODULES",
    "NOTICE_CODES",
    "AgentResponse",
    "AgentResponseConverter",
    "AgentResponseError",
    "AgentResponseResult",
    "AgentResponseUpdate",
    "ApprovalRequest",
    "CassetteError",
    "ChatMessage",
    "Content",
    "Conversation",
    "DialectError",
    "ErrorCode",
    "Event",
    "FinishReason",
    "HostedCall",
    "MessageRole",
    "MessageSource",
    "Pipeline",
    "RafError",
    "RequestOptions",
    "ResponseMetadata",
    "Round",
    "SSEDecoder",
    "SSEError",
    "SSELimitExceeded",
    "ServerSentEvent",
    "StateError",
    "StreamingArgsParser",
    "ToolApprovalResponse",
    "ToolCall",
    "ToolSpec",
    "UpdateDecoder",
    "Usage",
    "__version__",
    "acollect_agent_response",
    "aiter_updates",
    "arespond",
    "arun",
    "blocks",
    "collect_agent_response",
    "contents",
    "events",
    "iter_updates",
    "respond",
    "run",
    "updates",
]
