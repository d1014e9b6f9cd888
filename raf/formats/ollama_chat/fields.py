"""What ``ollama_chat`` reads of an ``/api/chat`` line (:mod:`raf.formats.fields`).

Event types: lines have no ``type``. A ``ChatResponse`` (a line with ``message`` or
``error``, or ``done`` without ``response``) is of type ``None``, or ``error`` when it carries
an ``error`` and no ``message``. Any other object (an ``/api/generate`` line, another
format's) is unrecognised, named by its keys.
"""

from __future__ import annotations

from typing import Any

from raf.formats.fields import EventFields, FieldTable, shape_name

__all__ = ["TABLE"]


def event_type(name: str, payload: Any) -> str | None:
    del name
    if not isinstance(payload, dict):
        return None
    if not (
        "message" in payload
        or "error" in payload
        or ("done" in payload and "response" not in payload)
    ):
        return shape_name(payload)
    if payload.get("error") is not None and "message" not in payload:
        return "error"
    return None


_LINE = EventFields(
    read=(
        "model",
        "message",
        "message.content",
        "message.thinking",
        "message.tool_calls",
        "message.tool_calls[].id",
        "message.tool_calls[].function",
        "message.tool_calls[].function.name",
        "done",
        "done_reason",
        "prompt_eval_count",
        "eval_count",
    ),
    whole=("message.tool_calls[].function.arguments", "error"),
    known=(
        "created_at",
        "message.role",
        "message.images",
        "message.tool_calls[].type",
        "message.tool_calls[].function.index",
        "total_duration",
        "load_duration",
        "prompt_eval_duration",
        "eval_duration",
    ),
)

TABLE = FieldTable(
    events={None: _LINE, "error": _LINE},
    event_type=event_type,
    note=(
        "lines have no type: a `ChatResponse` is `None`, one with an `error` and no "
        "`message` is `error`; any other object is another format's, named by its keys"
    ),
)
