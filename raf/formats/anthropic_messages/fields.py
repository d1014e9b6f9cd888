"""What ``anthropic_messages`` reads of each Messages event (:mod:`raf.formats.fields`).

Event types: the payload's ``type`` (else the SSE event name), as the dialect dispatches.
``ping`` is skipped on purpose; an ``error`` event is read whole.
"""

from __future__ import annotations

from raf.formats.fields import EventFields, FieldTable

__all__ = ["TABLE"]

TABLE = FieldTable(
    events={
        "message_start": EventFields(
            read=("type", "message", "message.id", "message.model"),
            whole=("message.usage",),
            known=(
                "message.type",
                "message.role",
                "message.content",
                "message.stop_reason",
                "message.stop_sequence",
                "message.container",
            ),
        ),
        "content_block_start": EventFields(
            read=(
                "type",
                "index",
                "content_block",
                "content_block.type",
                "content_block.id",
                "content_block.name",
                "content_block.text",
                "content_block.thinking",
                "content_block.signature",
                "content_block.data",
                "content_block.tool_use_id",
            ),
            whole=("content_block.input", "content_block.content"),
            known=("content_block.citations",),
        ),
        "content_block_delta": EventFields(
            read=(
                "type",
                "index",
                "delta",
                "delta.type",
                "delta.text",
                "delta.partial_json",
                "delta.thinking",
                "delta.signature",
            ),
            known=("delta.citation",),
        ),
        "content_block_stop": EventFields(read=("type", "index")),
        "message_delta": EventFields(
            read=("type", "delta", "delta.stop_reason"),
            whole=("usage",),
            known=("delta.stop_sequence", "delta.container"),
        ),
        "message_stop": EventFields(read=("type",), known=("amazon-bedrock-invocationMetrics",)),
        "error": EventFields(whole_event=True),
    },
    skipped=frozenset({"ping"}),
    note="the payload's `type` (else the SSE event name)",
)
