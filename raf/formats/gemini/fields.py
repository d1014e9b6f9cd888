"""What ``gemini`` reads of a ``GenerateContentResponse`` (:mod:`raf.formats.fields`).

Event types: responses have no ``type``. A response (an object with any of ``candidates``,
``promptFeedback``, ``usageMetadata``, ``error``, ``responseId``, ``modelVersion``) is of type
``None``, or ``error`` when it carries an ``error`` and no ``candidates`` (an SSE ``event:
error`` is ``error`` too, read whole). Any other object is of another format, unrecognised,
named by its keys.
"""

from __future__ import annotations

from typing import Any

from raf.formats.fields import EventFields, FieldTable, shape_name

__all__ = ["TABLE"]

_RESPONSE_KEYS = frozenset(
    {"candidates", "promptFeedback", "usageMetadata", "error", "responseId", "modelVersion"}
)


def event_type(name: str, payload: Any) -> str | None:
    if name == "error":
        return "error"
    if not isinstance(payload, dict):
        return None
    if _RESPONSE_KEYS.isdisjoint(payload):
        return shape_name(payload)
    if payload.get("error") is not None and not payload.get("candidates"):
        return "error"
    return None


_PART = "candidates[].content.parts[]."

_RESPONSE = EventFields(
    read=(
        "responseId",
        "modelVersion",
        "candidates",
        "candidates[].index",
        "candidates[].finishReason",
        "candidates[].content",
        "candidates[].content.parts",
        _PART + "text",
        _PART + "thought",
        _PART + "thoughtSignature",
        _PART + "functionCall",
        _PART + "functionCall.id",
        _PART + "functionCall.name",
        _PART + "functionCall.willContinue",
        "promptFeedback",
        "promptFeedback.blockReason",
        "promptFeedback.blockReasonMessage",
    ),
    whole=(
        _PART + "functionCall.args",
        _PART + "functionCall.partialArgs",
        _PART + "executableCode",
        _PART + "codeExecutionResult",
        _PART + "toolCall",
        _PART + "toolResponse",
        "usageMetadata",
        "error",
    ),
    known=(
        "createTime",
        "candidates[].content.role",
        "candidates[].finishMessage",
        "candidates[].safetyRatings",
        "candidates[].citationMetadata",
        "candidates[].groundingMetadata",
        "candidates[].urlContextMetadata",
        "candidates[].avgLogprobs",
        "candidates[].logprobsResult",
        "candidates[].tokenCount",
        _PART + "inlineData",
        _PART + "fileData",
        _PART + "videoMetadata",
        _PART + "partMetadata",
        "promptFeedback.safetyRatings",
    ),
)

TABLE = FieldTable(
    events={None: _RESPONSE, "error": _RESPONSE},
    event_type=event_type,
    note=(
        "responses have no type: a `GenerateContentResponse` is `None`, one with an `error` "
        "and no `candidates` (or an SSE `event: error`) is `error`; any other object is "
        "another format's, named by its keys"
    ),
)
