"""What ``gemini_interactions`` reads of each Interactions API event
(:mod:`raf.formats.fields`).

Event types: the payload's ``event_type`` (else the SSE event name), as the dialect
dispatches. ``interaction.status_update`` is skipped on purpose. Step objects differ by their
``type``; the paths below are the union over the step types the dialect reads.
"""

from __future__ import annotations

from typing import Any

from raf.formats.fields import EventFields, FieldTable

__all__ = ["TABLE"]


def _event_type(name: str, payload: Any) -> str | None:
    """The payload's ``event_type`` when it is a string, else the SSE event name."""
    if isinstance(payload, dict):
        kind = payload.get("event_type")
        if isinstance(kind, str):
            return kind
    return None if name == "message" else name


_ANY = ("event_id",)  # the resume token every event may carry

TABLE = FieldTable(
    events={
        "interaction.created": EventFields(
            read=("event_type", "interaction", "interaction.id", "interaction.model"),
            known=(*_ANY, "interaction.status", "interaction.object"),
        ),
        "step.start": EventFields(
            read=(
                "event_type",
                "index",
                "step",
                "step.type",
                "step.id",
                "step.call_id",
                "step.name",
                "step.signature",
                "step.is_error",
                "step.summary",
                "step.summary[].type",
                "step.summary[].text",
                "step.content",
                "step.content[].type",
                "step.content[].text",
            ),
            whole=("step.arguments", "step.result"),
            known=_ANY,
        ),
        "step.delta": EventFields(
            read=(
                "event_type",
                "index",
                "delta",
                "delta.type",
                "delta.text",
                "delta.signature",
                "delta.content",
                "delta.content.text",
                "delta.is_error",
            ),
            whole=("delta.arguments", "delta.result", "delta.annotations"),
            known=(
                *_ANY,
                "delta.content.type",
                "delta.mime_type",
                "delta.data",
                "delta.uri",
                "metadata",
            ),
        ),
        "step.stop": EventFields(
            read=("event_type", "index"), known=(*_ANY, "usage", "step_usage")
        ),
        "interaction.completed": EventFields(
            read=(
                "event_type",
                "interaction",
                "interaction.id",
                "interaction.model",
                "interaction.status",
            ),
            whole=("interaction.usage", "interaction.error", "interaction.errors"),
            known=(
                *_ANY,
                "interaction.created",
                "interaction.updated",
                "interaction.service_tier",
                "interaction.object",
                "interaction.role",
                "interaction.continuation_token",
            ),
        ),
        "error": EventFields(whole_event=True),
    },
    skipped=frozenset(
        {"interaction.status_update", "interaction.in_progress", "interaction.requires_action"}
    ),
    event_type=_event_type,
    note="the payload's `event_type` (else the SSE event name)",
)
