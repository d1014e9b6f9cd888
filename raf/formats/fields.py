"""What a format's dialect reads of each event, as data: the field tables.

Each built-in format has one, ``raf/formats/<name>/fields.py`` (``TABLE``). A table says which
event types the dialect reads (with, per type, the field paths it reads), which it skips on
purpose, how an event's type is told, and which documented fields it leaves aside on purpose
(``known``). :func:`raf.cassettes.inventory.unread` measures a recording against it; the tests
check every table against its dialect over the bundled cassettes (removing what the table
says is not read changes nothing raf makes of them).

Paths are dotted, ``[]`` marking the items of an array (``choices[].delta.content``). A path
in ``read`` is read (its parents are read as the objects that hold it); a path in ``whole``
is read with everything under it (an arguments object, a usage object read through a usage
table, an error object quoted whole); a path in ``known`` is a documented field left aside,
with everything under it. A field under a read object that none of them names is unknown.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["EventFields", "FieldTable", "shape_name", "split_path"]


@dataclass(frozen=True)
class EventFields:
    """What the dialect reads of one event type.

    ``whole_event`` is true when the event is read whole (an error event, quoted as it came)."""

    read: tuple[str, ...] = ()
    whole: tuple[str, ...] = ()
    known: tuple[str, ...] = ()
    whole_event: bool = False


def _type_field(name: str, payload: Any) -> str | None:
    """The payload's ``type`` when it is a string, else the SSE event name (``None`` for
    ``message``): how typed formats (Anthropic, Responses) tell their events."""
    if isinstance(payload, dict):
        kind = payload.get("type")
        if isinstance(kind, str):
            return kind
    return None if name == "message" else name


@dataclass(frozen=True)
class FieldTable:
    """A format's field table.

    Attributes:
        events: per event type the dialect reads, what it reads of it.
        skipped: event types the dialect knows and skips on purpose.
        skipped_prefixes: the same, by prefix (``response.``: the format's own events).
        event_type: the type of an event, from its SSE event name and its parsed JSON
            (``None``: the usual event of a format without types).
        note: how this format's events are typed, for the documentation.
    """

    events: Mapping[str | None, EventFields]
    skipped: frozenset[str] = frozenset()
    skipped_prefixes: tuple[str, ...] = ()
    event_type: Callable[[str, Any], str | None] = field(default=_type_field)
    note: str = ""

    def why(self, kind: str | None) -> str | None:
        """``None`` when the dialect reads events of this type, else ``skipped`` or
        ``unrecognised``."""
        if kind in self.events:
            return None
        if kind is not None and (kind in self.skipped or kind.startswith(self.skipped_prefixes)):
            return "skipped"
        return "unrecognised"


def shape_name(payload: Any) -> str:
    """A name for an object of no type raf knows: its ``type`` or ``object`` when a non-empty
    string, else its keys (sorted, at most six: ``{created_at,done,model,response}``)."""
    if not isinstance(payload, dict):
        return "(not an object)"
    for key in ("type", "object"):
        value = payload.get(key)
        if isinstance(value, str) and value:
            return value
    keys = sorted(str(k) for k in payload)
    shown = ",".join(k[:40] for k in keys[:6])
    return "{" + shown + (",…" if len(keys) > 6 else "") + "}"


def split_path(path: str) -> tuple[str, ...]:
    """The keys of a path, array markers dropped (``choices[].delta`` -> choices, delta)."""
    return tuple(part.replace("[]", "") for part in path.split(".")) if path else ()
