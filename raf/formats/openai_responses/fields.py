"""What ``openai_responses`` reads of each Responses API event (:mod:`raf.formats.fields`).

Event types: the payload's ``type`` (else the SSE event name), as the dialect dispatches. The
dialect skips every ``response.*`` or ``codex.*`` type it has no handler for; the table names
the documented ones it skips on purpose (``response.content_part.*``,
``response.web_search_call.*``, ``codex.*``...), so that a ``response.*`` type of none of
those families is reported as unrecognised: a new event type, which the dialect passes over
silently. An ``error`` event is read whole.
"""

from __future__ import annotations

from raf.formats.fields import EventFields, FieldTable

__all__ = ["TABLE"]

_RESPONSE_KNOWN = (
    "sequence_number",
    "response.object",
    "response.created_at",
    "response.completed_at",
    "response.status",
    "response.background",
    "response.instructions",
    "response.max_output_tokens",
    "response.max_tool_calls",
    "response.metadata",
    "response.output",
    "response.parallel_tool_calls",
    "response.previous_response_id",
    "response.prompt",
    "response.prompt_cache_key",
    "response.prompt_cache_retention",
    "response.reasoning",
    "response.safety_identifier",
    "response.service_tier",
    "response.store",
    "response.temperature",
    "response.text",
    "response.tool_choice",
    "response.tools",
    "response.top_logprobs",
    "response.top_p",
    "response.truncation",
    "response.user",
    "response.conversation",
    "response.content_filters",
    "response.billing",
    "response.error",
    "response.incomplete_details",
)


def _lifecycle(*whole: str) -> EventFields:
    """response.created, .in_progress, .completed...: the response's id, model and usage."""
    return EventFields(
        read=("type", "response", "response.id", "response.model"),
        whole=("response.usage", *whole),
        known=tuple(k for k in _RESPONSE_KNOWN if k not in whole),
    )


_ITEM = EventFields(
    read=("type", "output_index"),
    whole=("item",),  # kept whole (hosted calls, items to send back)
    known=("sequence_number",),
)


def _delta(*read: str) -> EventFields:
    return EventFields(
        read=("type", "item_id", "output_index", *read),
        known=("sequence_number", "obfuscation", "logprobs"),
    )


TABLE = FieldTable(
    events={
        "response.created": _lifecycle(),
        "response.queued": _lifecycle(),
        "response.in_progress": _lifecycle(),
        "response.completed": _lifecycle(),
        "response.incomplete": _lifecycle("response.incomplete_details"),
        "response.failed": _lifecycle("response.error"),
        "error": EventFields(whole_event=True),
        "response.output_item.added": _ITEM,
        "response.output_item.done": _ITEM,
        "response.output_text.delta": _delta("content_index", "delta"),
        "response.output_text.done": _delta("content_index", "text"),
        "response.refusal.delta": _delta("content_index", "delta"),
        "response.refusal.done": _delta("content_index", "refusal"),
        "response.reasoning_summary_text.delta": _delta("summary_index", "delta"),
        "response.reasoning_summary_text.done": _delta("summary_index", "text"),
        "response.reasoning_text.delta": _delta("content_index", "delta"),
        "response.reasoning_text.done": _delta("content_index", "text"),
        "response.function_call_arguments.delta": _delta("delta"),
        "response.function_call_arguments.done": _delta("arguments", "name"),
        "response.custom_tool_call_input.delta": _delta("delta"),
        "response.custom_tool_call_input.done": _delta("input"),
    },
    # The dialect skips every other response.* and codex.* type; the table names the
    # documented families it skips, so that a type of none of them is reported (a new one).
    skipped=frozenset({"response.rate_limits.updated", "response.keep_alive"}),
    skipped_prefixes=(
        "response.content_part.",
        "response.reasoning_summary_part.",
        "response.output_text.annotation.",
        "response.web_search_call.",
        "response.file_search_call.",
        "response.code_interpreter_call",
        "response.image_generation_call.",
        "response.mcp_",
        "response.shell_call_command.",
        "response.shell_call_output_content.",
        "codex.",
    ),
    note=(
        "the payload's `type` (else the SSE event name). The dialect passes over every "
        "`response.*` and `codex.*` type it has no use for; the table names the documented "
        "ones, so that a `response.*` type outside them is reported as unrecognised (new)"
    ),
)
