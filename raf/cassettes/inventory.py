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

import importlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

import msgspec

from raf import dialects, formats, framing
from raf.errors import RafError
from raf.formats.fields import EventFields, FieldTable, shape_name, split_path

__all__ = [
    "Unread",
    "UnreadEvent",
    "UnreadField",
    "WireEvent",
    "event_type",
    "field_table",
    "iter_wire_events",
    "json_type",
    "merge",
    "unread",
    "unread_lines",
    "wire_events",
]


@dataclass(frozen=True, slots=True)
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


_FEED = 1 << 16
"""The size of the pieces :func:`wire_events` feeds a body to its framer in (the framer is
made for network reads; fed a whole body of megabytes at once it takes more than linear
time)."""


def wire_events(dialect: str, body: bytes) -> list[WireEvent]:
    """The frames of ``body`` read as ``dialect`` frames it, each with its JSON parsed.

    Never raises: an unknown dialect or a framing limit ends the list where it stopped.
    ``type`` comes from the format's field table (:func:`event_type`).
    """
    return list(iter_wire_events(dialect, body))


def iter_wire_events(dialect: str, body: bytes) -> Iterator[WireEvent]:
    """:func:`wire_events` one by one, the body framed a piece at a time: a caller that does
    not keep them holds the parsed payloads of one piece at a time, not of the whole body
    (nor does the collector scan them again and again). Never raises."""
    try:
        made = dialects.create(dialect)
        framer = framing.create(made.framing)
    except RafError:
        return
    index = 0
    start, size = 0, len(body)
    while True:
        stop = False
        try:
            if start < size:  # fed as reads: one huge feed costs the framer more
                frames = framer.feed(body[start : start + _FEED])
                start += _FEED
            else:
                frames, stop = framer.close(), True
        except RafError as exc:  # a size limit: the frames before it
            frames, stop = list(getattr(exc, "events", ())), True
        for frame in frames:
            data = (
                frame.data
                if isinstance(frame.data, str)
                else bytes(frame.data).decode("utf-8", "replace")
            )
            payload = _parse(data)
            yield WireEvent(
                index, frame.event, event_type(dialect, frame.event, payload), payload, data
            )
            index += 1
        if stop:
            return


def event_type(dialect: str, name: str, payload: Any) -> str | None:
    """What kind of event a frame is in ``dialect``, as its field table tells
    (:mod:`raf.formats.fields`): for typed formats the payload's ``type`` (else the SSE event
    name, ``None`` for ``message``); for formats without types ``None`` for the usual chunk,
    ``error`` for an error, and another format's object named by its shape. Never raises."""
    table = field_table(dialect)
    if table is None:
        return _typed(name, payload)
    try:
        return table.event_type(name, payload)
    except Exception:  # a table's bug: never the reader's problem
        return _typed(name, payload)


def _typed(name: str, payload: Any) -> str | None:
    if isinstance(payload, dict):
        kind = payload.get("type")
        if isinstance(kind, str):
            return kind
    return None if name == "message" else name


_TABLES: dict[str, FieldTable | None] = {}


def field_table(dialect: str) -> FieldTable | None:
    """The field table of a built-in format (``raf/formats/<name>/fields.py``), or ``None``
    for a dialect that has none."""
    if dialect in _TABLES:
        return _TABLES[dialect]
    table = None
    if dialect in formats.names():
        try:
            module = importlib.import_module(f"raf.formats.{dialect}.fields")
        except ImportError:
            module = None
        found = getattr(module, "TABLE", None)
        table = found if isinstance(found, FieldTable) else None
    _TABLES[dialect] = table
    return table


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


def unread(dialect: str, body: bytes, *, events: Iterable[WireEvent] | None = None) -> Unread:
    """What raf did not read of ``body`` read as ``dialect``: the events of types it does not
    read (unrecognised or skipped, counted, with the first one's index) and, in the events it
    reads, each field its table does not say it reads (known or unknown, counted by the events
    that have it; a field is named once, not the fields under it). Frames that are not JSON
    objects are not counted (``[DONE]``, keep-alives: raf reads them, or reports them as
    errors). A dialect without a field table gives ``Unread()``. Never raises; the time is
    linear in the size of the body.

    ``events``: the body's wire events (:func:`wire_events`, :func:`iter_wire_events`), when
    the caller frames it already (the body is then not framed again); read once, in order."""
    try:
        return _unread(dialect, iter_wire_events(dialect, body) if events is None else events)
    except Exception:  # a bug here must not break a show, a lint or a report
        return Unread()


def _unread(dialect: str, frames: Iterable[WireEvent]) -> Unread:
    table = field_table(dialect)
    if table is None:
        return Unread()
    events: dict[str, list[Any]] = {}  # type -> [count, first, why]
    fields: dict[tuple[str | None, str, bool], int] = {}
    tries: dict[str | None, _Node] = {}
    for event in frames:
        payload = event.payload
        if not isinstance(payload, dict):
            continue
        kind = event.type
        why = table.why(kind)
        if why is not None:
            name = shape_name(payload) if kind is None else kind  # untyped: named by its keys
            seen = events.get(name)
            if seen is None:
                events[name] = [1, event.index, why]
            else:
                seen[0] += 1
            continue
        spec = table.events[kind]
        if spec.whole_event or event.name == "error":
            continue
        trie = tries.get(kind)
        if trie is None:
            trie = tries[kind] = _compile(spec)
        for path, known in set(_unread_paths(trie, payload)):
            key = (kind, path, known)
            fields[key] = fields.get(key, 0) + 1
    return Unread(
        tuple(
            UnreadEvent(name, count, first, why)
            for name, (count, first, why) in sorted(events.items(), key=lambda kv: kv[1][1])
        ),
        tuple(
            UnreadField(path, kind, count, known)
            for (kind, path, known), count in sorted(
                fields.items(), key=lambda kv: (str(kv[0][0]), kv[0][1])
            )
        ),
    )


_READ, _WHOLE, _KNOWN = 0, 1, 2


class _Node:
    """A node of a compiled table: how a field is read, and the fields under it."""

    __slots__ = ("children", "how")

    def __init__(self, how: int = _READ) -> None:
        self.how = how
        self.children: dict[str, _Node] = {}


def _compile(spec: EventFields) -> _Node:
    root = _Node()
    for paths, how in ((spec.read, _READ), (spec.whole, _WHOLE), (spec.known, _KNOWN)):
        for path in paths:
            node = root
            for key in split_path(path):
                node = node.children.setdefault(key, _Node())
            if how != _READ:
                node.how = how
    return root


def _unread_paths(root: _Node, payload: dict[str, Any]) -> Iterator[tuple[str, bool]]:
    """(path, known) of every field of ``payload`` the table does not read, the topmost one
    of each unread subtree. Iterative, and only objects the table reads are entered (so the
    work is bounded by the payload's size, whatever its nesting)."""
    stack: list[tuple[_Node, str, Any]] = [(root, "", payload)]
    while stack:
        node, prefix, value = stack.pop()
        if isinstance(value, list):
            if not prefix.endswith("[][][][]"):  # arrays of arrays: a few levels, no more
                stack.extend((node, prefix + "[]", item) for item in value)
            continue
        if not isinstance(value, dict):
            continue
        children = node.children
        for key, item in value.items():
            child = children.get(key)
            if child is None:
                yield (f"{prefix}.{key}" if prefix else str(key)), False
            elif child.how == _KNOWN:
                yield (f"{prefix}.{key}" if prefix else str(key)), True
            elif child.how == _READ and isinstance(item, dict | list):  # a leaf is read
                stack.append((child, f"{prefix}.{key}" if prefix else str(key), item))


def _events(count: int) -> str:
    return f"{count} event" + ("" if count == 1 else "s")


def merge(parts: Iterable[Unread]) -> Unread:
    """What raf did not read of several streams (a cassette's interactions) as one: counts
    added; an event type's ``first`` is its index in the first stream that had it."""
    events: dict[tuple[str, str], list[int]] = {}
    fields: dict[tuple[str | None, str, bool], int] = {}
    for part in parts:
        for e in part.events:
            seen = events.get((e.type, e.why))
            if seen is None:
                events[e.type, e.why] = [e.count, e.first]
            else:
                seen[0] += e.count
        for f in part.fields:
            key = (f.event_type, f.path, f.known)
            fields[key] = fields.get(key, 0) + f.count
    return Unread(
        tuple(
            UnreadEvent(kind, count, first, why)  # type: ignore[arg-type]
            for (kind, why), (count, first) in events.items()
        ),
        tuple(
            UnreadField(path, kind, count, known)
            for (kind, path, known), count in sorted(
                fields.items(), key=lambda kv: (str(kv[0][0]), kv[0][1])
            )
        ),
    )


def unread_lines(seen: Unread, *, known: int = 6) -> list[str]:
    """What raf did not read, one line each, for people: each event type not read (with why
    and how many), each unknown field (with the type of the events that had it), and the
    known fields left aside on one line (the ``known`` most frequent, then how many more).
    Empty when raf read everything."""
    lines = [
        f"event type {e.type}: {e.why}, {_events(e.count)} (first #{e.first})"
        if e.why == "unrecognised"
        else f"event type {e.type}: {e.why}, {_events(e.count)}"
        for e in seen.events
    ]
    lines += [
        f"unknown field {f.path}"
        + ("" if f.event_type is None else f" in {f.event_type}")
        + f": {_events(f.count)}"
        for f in seen.unknown_fields
    ]
    left: dict[str, int] = {}
    for f in seen.fields:
        if f.known:
            left[f.path] = left.get(f.path, 0) + f.count
    if left:
        ranked = sorted(left.items(), key=lambda kv: (-kv[1], kv[0]))
        shown = ", ".join(f"{path} ({count})" for path, count in ranked[:known])
        more = len(ranked) - known
        lines.append(
            f"known fields left aside: {shown}" + (f", and {more} more" if more > 0 else "")
        )
    return lines
