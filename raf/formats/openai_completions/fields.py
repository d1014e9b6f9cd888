"""What ``openai_completions`` reads of a legacy Completions chunk (:mod:`raf.formats.fields`).

Event types: chunks have no ``type``. A text completion chunk (an ``object`` starting with
``text_completion``, or ``choices`` that are empty or hold a choice with ``text`` and no
``delta``, or a ``usage`` or an ``error``) is of type ``None``; one with an ``error`` and no
``choices`` is ``error``, as is an SSE ``event: error`` (read whole). Any other object is of
another format, unrecognised, named by its ``type``, ``object`` or keys.
"""

from __future__ import annotations

from typing import Any

from raf.formats.fields import EventFields, FieldTable, shape_name

__all__ = ["TABLE"]


def _is_completion(payload: dict[str, Any]) -> bool:
    kind = payload.get("object")
    if isinstance(kind, str) and kind:
        return kind.startswith("text_completion")
    choices = payload.get("choices")
    if isinstance(choices, list) and (
        not choices
        or any(isinstance(c, dict) and "text" in c and "delta" not in c for c in choices)
    ):
        return True
    return any(payload.get(key) is not None for key in ("usage", "error"))


def event_type(name: str, payload: Any) -> str | None:
    if name == "error":
        return "error"
    if not isinstance(payload, dict):
        return None
    if not _is_completion(payload):
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
        "choices[].text",
        "choices[].finish_reason",
    ),
    whole=("usage", "error"),
    known=(
        "created",
        "system_fingerprint",
        "choices[].logprobs",
        "choices[].stop_reason",
        "choices[].delta",
        "choices[].prompt_logprobs",
        "choices[].token_ids",
        "choices[].matched_stop",
    ),
)

TABLE = FieldTable(
    events={None: _CHUNK, "error": _CHUNK},
    event_type=event_type,
    note=(
        "chunks have no type: a text completion chunk is `None`, one with an `error` and no "
        "`choices` (or an SSE `event: error`) is `error`; any other object is another "
        "format's, named by its `type`, `object` or keys"
    ),
)
