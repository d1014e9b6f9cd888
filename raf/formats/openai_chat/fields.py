"""What ``openai_chat`` reads of a Chat Completions chunk (:mod:`raf.formats.fields`).

Event types: chunks have no ``type``. A chat completion chunk (as the dialect tells one: an
``object`` starting with ``chat.completion``, or ``choices``, ``usage``, ``error`` or
``x_groq``) is of type ``None``; a chunk carrying an ``error`` and no ``choices`` is
``error``; an SSE ``event: error`` frame is ``error``, read whole. Any other JSON object is of
another format, unrecognised, named by its ``type`` or ``object`` or its keys
(:func:`raf.formats.fields.shape_name`).
"""

from __future__ import annotations

from typing import Any

from raf.formats.fields import EventFields, FieldTable, shape_name

__all__ = ["TABLE"]


def _is_chunk(payload: dict[str, Any]) -> bool:
    kind = payload.get("object")
    if isinstance(kind, str) and kind:
        return kind.startswith("chat.completion")
    choices = payload.get("choices")
    if isinstance(choices, list) and (
        not choices
        or any(not isinstance(c, dict) or "delta" in c or "text" not in c for c in choices)
    ):
        return True
    return any(payload.get(key) is not None for key in ("usage", "error", "x_groq"))


def event_type(name: str, payload: Any) -> str | None:
    if name == "error":
        return "error"
    if not isinstance(payload, dict):
        return None
    if not _is_chunk(payload):
        return shape_name(payload)
    if payload.get("error") is not None and not payload.get("choices"):
        return "error"
    return None


_CHUNK = EventFields(
    read=(
        "id",
        "object",
        "model",
        "choices",
        "choices[].index",
        "choices[].delta",
        "choices[].delta.reasoning_content",
        "choices[].delta.reasoning",
        "choices[].delta.tool_calls",
        "choices[].delta.tool_calls[].index",
        "choices[].delta.tool_calls[].id",
        "choices[].delta.tool_calls[].function",
        "choices[].delta.tool_calls[].function.name",
        "choices[].finish_reason",
        "choices[].text",
        "x_groq",
    ),
    whole=(
        "choices[].delta.content",  # a string, or a list of parts (Mistral)
        "choices[].delta.reasoning_details",  # OpenRouter's signatures and encrypted data
        "choices[].delta.tool_calls[].function.arguments",  # text, or an object some send
        "usage",
        "x_groq.usage",
        "error",
    ),
    known=(
        "created",
        "system_fingerprint",
        "service_tier",
        "obfuscation",
        "provider",
        "prompt_filter_results",
        "prompt_token_ids",
        "moderation",
        "x_groq.id",
        "x_groq.seed",
        "choices[].logprobs",
        "choices[].content_filter_results",
        "choices[].content_filter_offsets",
        "choices[].native_finish_reason",
        "choices[].matched_stop",
        "choices[].stop_reason",
        "choices[].token_ids",
        "choices[].delta.role",
        "choices[].delta.refusal",
        "choices[].delta.channel",
        "choices[].delta.tool_calls[].type",
    ),
)

TABLE = FieldTable(
    events={None: _CHUNK, "error": _CHUNK},
    event_type=event_type,
    note=(
        "chunks have no type: a chat completion chunk is `None`, one with an `error` and no "
        "`choices` (or an SSE `event: error`) is `error`; any other object is another "
        "format's, named by its `type`, `object` or keys"
    ),
)
