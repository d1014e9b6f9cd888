"""What ``cohere_v2`` reads of each Cohere v2 Chat event (:mod:`raf.formats.fields`).

Event types: the payload's ``type`` (else the SSE event name), as the dialect dispatches.
``debug`` is skipped on purpose.
"""

from __future__ import annotations

from raf.formats.fields import EventFields, FieldTable

__all__ = ["TABLE"]

TABLE = FieldTable(
    events={
        "message-start": EventFields(
            read=("type", "id"),
            known=("delta",),  # an empty assistant message: role, content, tool_plan, ...
        ),
        "content-start": EventFields(
            read=(
                "type",
                "index",
                "delta",
                "delta.message",
                "delta.message.content",
                "delta.message.content.text",
                "delta.message.content.thinking",
            ),
            known=("delta.message.content.type",),
        ),
        "content-delta": EventFields(
            read=(
                "type",
                "index",
                "delta",
                "delta.message",
                "delta.message.content",
                "delta.message.content.text",
                "delta.message.content.thinking",
            ),
            known=("logprobs",),
        ),
        "content-end": EventFields(read=("type", "index")),
        "tool-plan-delta": EventFields(
            read=("type", "delta", "delta.message", "delta.message.tool_plan"),
        ),
        "tool-call-start": EventFields(
            read=(
                "type",
                "index",
                "delta",
                "delta.message",
                "delta.message.tool_calls",
                "delta.message.tool_calls.id",
                "delta.message.tool_calls.function",
                "delta.message.tool_calls.function.name",
                "delta.message.tool_calls.function.arguments",
            ),
            known=("delta.message.tool_calls.type",),
        ),
        "tool-call-delta": EventFields(
            read=(
                "type",
                "index",
                "delta",
                "delta.message",
                "delta.message.tool_calls",
                "delta.message.tool_calls.function",
                "delta.message.tool_calls.function.arguments",
            ),
        ),
        "tool-call-end": EventFields(read=("type", "index")),
        "citation-start": EventFields(
            read=("type", "delta", "delta.message"),
            whole=("delta.message.citations",),
            known=("index",),
        ),
        "citation-end": EventFields(read=("type",), known=("index",)),
        "message-end": EventFields(
            read=(
                "type",
                "id",
                "delta",
                "delta.finish_reason",
                "delta.error",
                "delta.error_type",
            ),
            whole=("delta.usage",),
        ),
    },
    skipped=frozenset({"debug"}),
    note="the payload's `type` (else the SSE event name)",
)
