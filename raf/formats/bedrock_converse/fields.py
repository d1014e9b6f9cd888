"""What ``bedrock_converse`` reads of each ConverseStream message (:mod:`raf.formats.fields`).

Event types: the message's name (``:event-type``; ``:exception-type`` for an exception
message): the payloads carry no type. Every payload's ``p`` (random-length padding) is left
aside. The exception messages are read whole (quoted in a ``provider_error``).
"""

from __future__ import annotations

from typing import Any

from raf.formats.bedrock_converse.dialect import EXCEPTIONS
from raf.formats.fields import EventFields, FieldTable

__all__ = ["TABLE"]

_PADDING = ("p",)


def _event_type(name: str, payload: Any) -> str | None:
    """The message's name: ConverseStream payloads have no type of their own."""
    return name or None


_DELTA_READ = (
    "contentBlockIndex",
    "delta",
    "delta.text",
    "delta.reasoningContent",
    "delta.reasoningContent.text",
    "delta.reasoningContent.signature",
    "delta.reasoningContent.redactedContent",
    "delta.toolUse",
    "delta.toolUse.input",
)

TABLE = FieldTable(
    events={
        "messageStart": EventFields(read=("role",), known=_PADDING),
        "contentBlockStart": EventFields(
            read=(
                "contentBlockIndex",
                "start",
                "start.toolUse",
                "start.toolUse.toolUseId",
                "start.toolUse.name",
                "start.toolUse.type",
                "start.toolResult",
                "start.toolResult.toolUseId",
                "start.toolResult.type",
                "start.toolResult.status",
            ),
            # The whole start object is kept as the hosted call's or result's item.
            known=(*_PADDING, "start.image"),
        ),
        "contentBlockDelta": EventFields(
            read=_DELTA_READ,
            whole=("delta.toolResult",),  # a hosted tool's output, kept as it came
            known=(*_PADDING, "delta.citation", "delta.image"),
        ),
        "contentBlockStop": EventFields(read=("contentBlockIndex",), known=_PADDING),
        "messageStop": EventFields(
            read=("stopReason",), known=(*_PADDING, "additionalModelResponseFields")
        ),
        "metadata": EventFields(
            read=(
                "usage",
                "usage.inputTokens",
                "usage.outputTokens",
                "usage.totalTokens",
                "usage.cacheReadInputTokens",
                "usage.cacheWriteInputTokens",
            ),
            known=(
                *_PADDING,
                "metrics",
                "trace",
                "performanceConfig",
                "serviceTier",
                "usage.serverToolUsage",
                "usage.cacheDetails",
            ),
        ),
        **{name: EventFields(whole_event=True) for name in EXCEPTIONS},
    },
    event_type=_event_type,
    note="the message's name (`:event-type`, or `:exception-type` for an exception)",
)
