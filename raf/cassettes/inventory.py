"""What a recorded stream holds, event by event, and what raf did not read of it. No IO.

:func:`wire_events` frames a body as its dialect does and parses each frame's JSON, so that
two recordings can be compared event by event (:mod:`raf.cassettes.diff`). :func:`unread`
lists what raf's reading of the body left aside: event types it did not recognise (a new
event type of the provider), event types it skips on purpose (``ping``), and fields of the
events it did read that it never looks at, each known (the format documents it and raf
has no use for it) or unknown (new to raf). Nothing here raises on any input.

Field paths are dotted, with ``[]`` for the items of an array: ``choices[].delta.content``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import msgspec

from raf import dialects, framing
from raf.errors import RafError

__all__ = [
    "Unread",
    "UnreadEvent",
    "UnreadField",
    "WireEvent",
    "json_type",
    "unread",
    "wire_events",
]


@dataclass(frozen=True)
class WireEvent:
    """One frame of a stream as it came.

    Attributes:
        index: its place in the stream, from 0.
        name: its SSE ``event:`` name (``"message"`` when it had none, and for framings
            without event names).
        type: what kind of event it is in its format (the payload's ``type``, an
            ``event:`` name, or what the format's field table derives), or ``None`` for a
            format whose events are all of one kind.
        payload: its JSON, parsed (``None`` when the data is not JSON, as ``[DONE]``).
        data: its data as it came.
    """

    index: int
    name: str
    type: str | None
    payload: Any
    data: str


JSONType = Literal["object", "array", "string", "integer", "number", "boolean", "null"]


def json_type(value: Any) -> JSONType:
    """The JSON type of a parsed value (``integer`` for whole numbers written without a
    fraction or exponent)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


_decode = msgspec.json.Decoder().decode


def _parse(data: str) -> Any:
    try:
        return _decode(data)
    except (msgspec.DecodeError, ValueError, RecursionError):
        return None


def wire_events(dialect: str, body: bytes) -> list[WireEvent]:
    """The frames of ``body`` read as ``dialect`` frames it, each with its JSON parsed.

    Never raises: an unknown dialect or a framing limit ends the list where it stopped.
    ``type`` comes from the format's field table (:func:`event_type`).
    """
    try:
        made = dialects.create(dialect)
        framer = framing.create(made.framing)
    except RafError:
        return []
    frames = []
    try:
        frames.extend(framer.feed(body))
        frames.extend(framer.close())
    except RafError as exc:  # a size limit: the frames before it
        frames.extend(getattr(exc, "events", ()))
    out: list[WireEvent] = []
    for frame in frames:
        data = (
            frame.data
            if isinstance(frame.data, str)
            else bytes(frame.data).decode("utf-8", "replace")
        )
        payload = _parse(data)
        out.append(
            WireEvent(
                len(out), frame.event, event_type(dialect, frame.event, payload), payload, data
            )
        )
    return out


def event_type(dialect: str, name: str, payload: Any) -> str | None:
    """What kind of event a frame is in ``dialect``: the payload's ``type`` when it has one,
    else the SSE event name when it is not ``message``, else ``None``."""
    del dialect
    if isinstance(payload, dict):
        kind = payload.get("type")
        if isinstance(kind, str):
            return kind
    return None if name == "message" else name


@dataclass(frozen=True)
class UnreadEvent:
    """An event type raf did not read, with how many events of it came.

    ``why`` is ``unrecognised`` (raf does not know it: a new event type) or ``skipped`` (raf
    knows it and has no use for it, as Anthropic's ``ping``); ``first`` is the index of the
    first such event."""

    type: str
    count: int
    first: int
    why: Literal["unrecognised", "skipped"]


@dataclass(frozen=True)
class UnreadField:
    """A field raf did not read, in the events of one type, with how many events had it.

    ``known`` is true for a field the format documents that raf leaves aside on purpose
    (``system_fingerprint``), false for one raf does not know (a new field)."""

    path: str
    event_type: str | None
    count: int
    known: bool


@dataclass(frozen=True)
class Unread:
    """What raf did not read of one stream."""

    events: tuple[UnreadEvent, ...] = ()
    fields: tuple[UnreadField, ...] = ()

    @property
    def unrecognised_events(self) -> tuple[UnreadEvent, ...]:
        return tuple(e for e in self.events if e.why == "unrecognised")

    @property
    def unknown_fields(self) -> tuple[UnreadField, ...]:
        return tuple(f for f in self.fields if not f.known)

    def to_json(self) -> dict[str, Any]:
        """A JSON form, for reports."""
        return {
            "events": [
                {"type": e.type, "count": e.count, "first": e.first, "why": e.why}
                for e in self.events
            ],
            "fields": [
                {"path": f.path, "event_type": f.event_type, "count": f.count, "known": f.known}
                for f in self.fields
            ],
        }


def unread(dialect: str, body: bytes) -> Unread:
    """What raf did not read of ``body`` read as ``dialect``. Never raises."""
    del dialect, body
    return Unread()
