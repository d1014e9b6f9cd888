"""What changed between two recordings of one scenario (``raf cassette diff``). No IO.

:func:`diff` compares an OLD and a NEW cassette interaction by interaction, in order, and
returns a :class:`Drift`: a list of :class:`Change`, each of one kind of :data:`KINDS` with
that kind's severity (``notice``, ``warning``, ``error``). It looks at the recordings as raf
reads them:

* the response's status and headers (date- and id-like headers left aside: :data:`IGNORED_HEADERS`);
* the framing of the body: line endings, comment lines, ``event:`` names, a byte order mark,
  the ``[DONE]`` marker, ``content-type`` and ``content-encoding``;
* the events, framed as the format frames them (:func:`raf.cassettes.inventory.wire_events`):
  which event types came, how many of each, in which order, and which fields each event type
  carried with which JSON types (aggregated per event type and field path, so the comparison
  is linear in the size of the recordings);
* raf's reading of each, the aggregated response of raf's reference pipeline: text, reasoning,
  tool calls (names and arguments; ids differ between any two recordings and are not
  compared), finish reason, usage, errors;
* what raf did not read in each (:func:`raf.cassettes.inventory.unread`): an event type or a
  field NEW has that raf does not read and OLD did not have is a warning, so that a new
  event type is never silent;
* the network reads and their timing, when the cassettes recorded them.

Nothing here raises on any body (not JSON, empty, cut short, not decoding from its
``content-encoding``): what cannot be read is itself a change.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

import msgspec

from raf import dialects
from raf.cassettes.coding import BodyNotDecoded
from raf.cassettes.format import Cassette, Interaction
from raf.cassettes.importers import guess_dialect
from raf.cassettes.inventory import Unread, WireEvent, iter_wire_events, json_type, unread
from raf.collect import collect_agent_response
from raf.errors import RafError
from raf.model.canonical import to_canonical
from raf.pipeline import Pipeline, http_error, run
from raf.shared.doc_block import DocBlock, rewrite_files

__all__ = [
    "BEGIN",
    "END",
    "IGNORED_HEADERS",
    "KINDS",
    "SEVERITIES",
    "Change",
    "Drift",
    "Kind",
    "Severity",
    "diff",
    "render_table",
    "table",
]

Severity = Literal["notice", "warning", "error"]

SEVERITIES: Final[tuple[Severity, ...]] = ("notice", "warning", "error")
"""From the least to the most severe."""

_RANK: Final = {name: rank for rank, name in enumerate(SEVERITIES)}


@dataclass(frozen=True)
class Kind:
    """One kind of change: its name (``Change.kind``), its severity, what it is, and why
    it has that severity."""

    name: str
    severity: Severity
    what: str
    why: str


KINDS: Final[tuple[Kind, ...]] = (
    # -- the recording as a whole ----------------------------------------------------------
    Kind(
        "dialect_changed",
        "error",
        "the cassettes' formats (`raf.dialect`) differ",
        "a client reads the two with different readers; every other comparison is between "
        "unlike things",
    ),
    Kind(
        "interaction_count_changed",
        "error",
        "the cassettes hold different numbers of interactions (the pairs are compared in order)",
        "a replay of NEW answers a different number of requests than the scenario makes",
    ),
    Kind(
        "request_changed",
        "notice",
        "the requests differ (the top-level fields of their JSON bodies, the method or the "
        "path): the other changes may come from the request, not the provider",
        "a re-recording may ask for another model on purpose; the diff says so, so that a "
        "reader does not blame the provider for it",
    ),
    Kind(
        "status_changed",
        "error",
        "the response's HTTP status differs",
        "an error status is not read as a stream at all",
    ),
    Kind(
        "body_not_read",
        "error",
        "a body does not decode from its `content-encoding` (the other comparisons of its "
        "body are left out)",
        "no client can read it",
    ),
    # -- raf's reading ---------------------------------------------------------------------
    Kind(
        "meaning_changed",
        "error",
        "raf's reading differs: text, reasoning, tool calls (names, arguments), hosted tool "
        "calls, approval requests, finish reason, usage or error codes of the aggregated "
        "response",
        "this is what an application gets: the same question answered differently by raf",
    ),
    Kind(
        "notices_changed",
        "warning",
        "the deviations raf noticed and read around differ (notice codes of the aggregated "
        "response, as `unrecognised_chunks`)",
        "the response is the same, but the stream deviates in a new way that raf only just "
        "coped with",
    ),
    # -- events and fields -----------------------------------------------------------------
    Kind(
        "event_type_added",
        "notice",
        "an event type NEW has and OLD did not",
        "readers skip event types they do not know; what raf makes of it is a separate "
        "change (`unread_event_type`, `meaning_changed`)",
    ),
    Kind(
        "event_type_removed",
        "warning",
        "an event type OLD had and NEW has not",
        "a client that waits for it, or reads something only from it, loses it",
    ),
    Kind(
        "event_count_changed",
        "notice",
        "the number of events of one type differs",
        "a longer or shorter answer, cut into as many deltas as the provider likes",
    ),
    Kind(
        "event_order_changed",
        "warning",
        "the order in which the event types first come differs",
        "a client written as a state machine over the event order can be caught out",
    ),
    Kind(
        "field_added",
        "notice",
        "a field (path) events of one type carry in NEW and not in OLD",
        "readers ignore fields they do not know",
    ),
    Kind(
        "field_removed",
        "warning",
        "a field (path) events of one type carried in OLD and not in NEW (only the outermost "
        "is named, with how many fields under it went with it)",
        "a client that reads it gets nothing",
    ),
    Kind(
        "field_type_changed",
        "error",
        "a field has a JSON type in NEW it never had in OLD (`integer` for whole numbers, "
        "`number` otherwise; `null` counts)",
        "a typed client fails to decode the event",
    ),
    Kind(
        "field_type_narrowed",
        "notice",
        "a field no longer has some of the JSON types it had in OLD, and has no new one (a "
        "field that was sometimes `null` and is not any more)",
        "a reader that accepted every type of OLD accepts NEW",
    ),
    # -- what raf did not read -------------------------------------------------------------
    Kind(
        "unread_event_type",
        "warning",
        "an event type raf does not recognise in NEW that OLD did not have",
        "raf skips it, so whatever it carries is lost without a word: a new event type is "
        "never silent",
    ),
    Kind(
        "unread_field",
        "warning",
        "a field of events raf reads that raf does not know, in NEW and not in OLD",
        "it may carry what raf should read (a renamed or moved field)",
    ),
    # -- framing ---------------------------------------------------------------------------
    Kind(
        "line_endings_changed",
        "warning",
        "the body's line endings (LF, CRLF, CR or a mix) differ",
        "SSE allows all three and raf reads them, but many hand-written readers split on "
        "`\\n\\n` only",
    ),
    Kind(
        "comments_changed",
        "notice",
        "the number of comment lines (`: ...`, keep-alives) differs",
        "a reader ignores comments by the SSE rules",
    ),
    Kind(
        "event_names_changed",
        "warning",
        "`event:` lines are present in one and not the other",
        "clients that dispatch on the event name (or on `message` events only) see another stream",
    ),
    Kind(
        "bom_changed",
        "warning",
        "a byte order mark starts one body and not the other",
        "SSE strips it, but a reader that does not sees `\\ufeffdata:` as an unknown field "
        "and loses the first event",
    ),
    Kind(
        "done_marker_changed",
        "warning",
        "a `[DONE]` event ends one body and not the other",
        "clients that wait for it report a cut stream without it; clients that do not "
        "expect it try to parse it as JSON",
    ),
    Kind(
        "content_type_changed",
        "warning",
        "the response's `content-type` differs",
        "clients choose their reader by it (an SDK refuses a stream that is not "
        "`text/event-stream`)",
    ),
    Kind(
        "content_encoding_changed",
        "notice",
        "the response's `content-encoding` differs (the bodies are compared decoded)",
        "HTTP clients decode it for the reader",
    ),
    # -- transport -------------------------------------------------------------------------
    Kind(
        "header_added",
        "notice",
        "a response header NEW has and OLD had not (date- and id-like headers left aside)",
        "clients do not depend on headers they did not know",
    ),
    Kind(
        "header_removed",
        "notice",
        "a response header OLD had and NEW has not (date- and id-like headers left aside)",
        "rate-limit and routing headers come and go; status and content-type have their own kinds",
    ),
    Kind(
        "chunking_changed",
        "notice",
        "the network reads differ: how many, their sizes (min/median/max), or which of the "
        "two recorded them",
        "a correct reader gives the same response under any cut",
    ),
    Kind(
        "timing_changed",
        "notice",
        "the delays between reads differ: median, 95th percentile, total (milliseconds)",
        "latency, not meaning; a reader's timeouts are the only thing it can break",
    ),
)
"""Every kind of change, with its severity: the one table the diff, its JSON form and
docs/recording.md take them from."""

_SEVERITY: Final = {kind.name: kind.severity for kind in KINDS}

IGNORED_HEADERS: Final[tuple[str, ...]] = (
    "date",
    "age",
    "expires",
    "last-modified",
    "etag",
    "set-cookie",
    "content-length",
    "transfer-encoding",
    "connection",
    "keep-alive",
    "cf-ray",
    "server-timing",
    "via",
    "*-id",
    "*-requestid",
    "x-ratelimit-*",
    "anthropic-ratelimit-*",
    "*-processing-ms",
    "*-service-time",
    "x-amz*",
    "x-goog-*",
    "alt-svc",
    "content-type",
    "content-encoding",
)
"""Response headers the diff does not compare: dates, ids, rate-limit counters and timings
differ between any two recordings (``*`` matches any text); ``content-type`` and
``content-encoding`` have their own kinds."""

_IGNORED = re.compile(
    "|".join(re.escape(name).replace(r"\*", ".*") for name in IGNORED_HEADERS), re.I
)


@dataclass(frozen=True)
class Change:
    """One difference between OLD and NEW.

    Attributes:
        severity: the severity of its kind (:data:`KINDS`).
        kind: the name of its kind.
        where: what it is about: ``interactions[0]`` and then an event type, a field path, a
            header, a field of raf's reading (``interactions[0] response.text``).
        old: what OLD had there (shortened), or ``None``.
        new: what NEW has there (shortened), or ``None``.
        message: the change in words.
    """

    severity: Severity
    kind: str
    where: str
    old: Any
    new: Any
    message: str

    def to_json(self) -> dict[str, Any]:
        return {
            "severity": self.severity,
            "kind": self.kind,
            "where": self.where,
            "old": self.old,
            "new": self.new,
            "message": self.message,
        }


@dataclass(frozen=True)
class Drift:
    """All the changes between two recordings, most severe first, then in the order found.

    ``old_interactions`` and ``new_interactions`` are how many interactions each cassette
    holds; ``compared`` the indexes of the pairs compared."""

    changes: tuple[Change, ...] = ()
    old_interactions: int = 0
    new_interactions: int = 0
    compared: tuple[int, ...] = field(default=())

    @property
    def worst(self) -> Severity | None:
        """The most severe change's severity, ``None`` when nothing changed."""
        if not self.changes:
            return None
        return max((c.severity for c in self.changes), key=_RANK.__getitem__)

    def counts(self) -> dict[Severity, int]:
        """How many changes of each severity."""
        counted = Counter(c.severity for c in self.changes)
        return {name: counted[name] for name in SEVERITIES}

    def at_least(self, severity: Severity) -> tuple[Change, ...]:
        """The changes of ``severity`` or more severe."""
        return tuple(c for c in self.changes if _RANK[c.severity] >= _RANK[severity])

    def summary(self) -> str:
        """``2 errors, 1 warning, 0 notices``."""
        counts = self.counts()
        return ", ".join(
            f"{counts[name]} {name}{'' if counts[name] == 1 else 's'}"
            for name in reversed(SEVERITIES)
        )

    def to_json(self) -> dict[str, Any]:
        """The JSON form (docs/recording.md)."""
        return {
            "worst": self.worst,
            "counts": self.counts(),
            "interactions": {
                "old": self.old_interactions,
                "new": self.new_interactions,
                "compared": list(self.compared),
            },
            "changes": [c.to_json() for c in self.changes],
        }


def diff(old: Cassette, new: Cassette, *, interaction: int | None = None) -> Drift:
    """The changes from ``old`` to ``new``, two recordings of one scenario.

    The interactions are compared pairwise in order (the first with the first...), or only
    the pair at index ``interaction``. Never raises on what the cassettes hold.

    Raises:
        ValueError: ``interaction`` is not the index of an interaction of both cassettes.
    """
    old_count, new_count = len(old.interactions), len(new.interactions)
    if interaction is not None and not (
        0 <= interaction < old_count and 0 <= interaction < new_count
    ):
        raise ValueError(
            f"no interaction {interaction} in both cassettes (OLD has {old_count}, NEW has "
            f"{new_count}; the first is 0)"
        )
    found: list[Change] = []
    old_dialect, new_dialect = _dialect(old), _dialect(new)
    if old_dialect != new_dialect:
        found.append(
            _change(
                "dialect_changed",
                "raf.dialect",
                old_dialect,
                new_dialect,
                f"format {old_dialect} -> {new_dialect}",
            )
        )
    if old_count != new_count:
        found.append(
            _change(
                "interaction_count_changed",
                "interactions",
                old_count,
                new_count,
                f"{old_count} interaction(s) -> {new_count}; compared the first "
                f"{min(old_count, new_count)} pairwise",
            )
        )
    pairs = [interaction] if interaction is not None else list(range(min(old_count, new_count)))
    for index in pairs:
        found.extend(
            _interaction(
                f"interactions[{index}]",
                old.interactions[index],
                new.interactions[index],
                old_dialect,
                new_dialect,
            )
        )
    ordered = sorted(enumerate(found), key=lambda pair: (-_RANK[pair[1].severity], pair[0]))
    return Drift(tuple(change for _, change in ordered), old_count, new_count, tuple(pairs))


# -- helpers ---------------------------------------------------------------------------------


def _dialect(cassette: Cassette) -> str:
    """The cassette's format: its ``raf.dialect``; for a plain vcrpy cassette, the format its
    request URI speaks, else ``openai_chat``."""
    if cassette.info is not None:
        return cassette.info.dialect
    uri = cassette.interactions[-1].request.uri if cassette.interactions else ""
    guessed = guess_dialect(uri)
    return guessed if guessed in dialects.names() else "openai_chat"


def _change(kind: str, where: str, old: Any, new: Any, message: str) -> Change:
    return Change(_SEVERITY[kind], kind, where, old, new, message)


def _short(value: Any, width: int = 80) -> str:
    text = value if isinstance(value, str) else _json(value)
    text = text.replace("\n", "\\n").replace("\r", "\\r")
    return text if len(text) <= width else text[: width - 1] + "…"


def _json(value: Any) -> str:
    try:
        return msgspec.json.encode(value, order="sorted").decode()
    except (TypeError, ValueError, OverflowError):
        return repr(value)


def _interaction(
    where: str, old: Interaction, new: Interaction, old_dialect: str, new_dialect: str
) -> Iterator[Change]:
    yield from _request(where, old, new)
    yield from _status(where, old, new)
    yield from _headers(where, old, new)
    old_body, old_problem = _content(old)
    new_body, new_problem = _content(new)
    for side, problem in (("OLD", old_problem), ("NEW", new_problem)):
        if problem is not None:
            yield _change(
                "body_not_read",
                f"{where} response.body",
                problem if side == "OLD" else None,
                problem if side == "NEW" else None,
                f"{side}'s body is not read: {problem}",
            )
    yield from _timing(where, old, new)
    if old_body is None or new_body is None:
        return
    yield from _framing(where, old_body, new_body, old_dialect, new_dialect)
    before, after = _survey(old_dialect, old_body), _survey(new_dialect, new_body)
    yield from _events(where, before.kinds, after.kinds)
    yield from _fields(where, before.fields, after.fields)
    yield from _meaning(
        where,
        _reading(old, old_body, old_dialect),
        _reading(new, new_body, new_dialect),
    )
    yield from _unread(where, before.unread, after.unread)


@dataclass(frozen=True)
class _Survey:
    """What the diff compares of one body's events: the type of each, in order; per type,
    each field path and its JSON types; what raf did not read."""

    kinds: list[str]
    fields: dict[str, dict[str, set[str]]]
    unread: Unread


def _survey(dialect: str, body: bytes) -> _Survey:
    """One pass over ``body``'s wire events, none of them kept once looked at (so the
    collector never scans a growing list of parsed payloads: linear in the body)."""
    kinds: list[str] = []
    shapes: dict[str, _Shape] = {}

    def each() -> Iterator[WireEvent]:
        for event in iter_wire_events(dialect, body):
            kind = _kind_of(event)
            kinds.append(kind)
            if isinstance(event.payload, dict):
                shape = shapes.get(kind)
                if shape is None:
                    shape = shapes[kind] = {}
                _merge(shape, event.payload)
            yield event

    events = each()
    seen = unread(dialect, body, events=events)
    for _ in events:  # what unread left, had it stopped early
        pass
    return _Survey(kinds, {kind: _flatten(shape) for kind, shape in shapes.items()}, seen)


def _content(interaction: Interaction) -> tuple[bytes | None, str | None]:
    try:
        return interaction.response.content(), None
    except BodyNotDecoded as exc:
        return None, str(exc)


def _request_parts(interaction: Interaction) -> dict[str, Any]:
    """The method, the path (no host, no query: keys live there) and the top-level fields
    of the JSON body of a request."""
    request = interaction.request
    parts: dict[str, Any] = {
        "method": request.method.upper(),
        "path": "/" + request.uri.split("://", 1)[-1].partition("/")[2].split("?", 1)[0],
    }
    body = request.body
    if body:
        try:
            parsed = msgspec.json.decode(body)
        except (msgspec.DecodeError, ValueError, RecursionError):
            parsed = None
        if isinstance(parsed, dict):
            parts.update({f"body.{key}": value for key, value in parsed.items()})
    return parts


def _request(where: str, old: Interaction, new: Interaction) -> Iterator[Change]:
    before, after = _request_parts(old), _request_parts(new)
    differ = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    if differ:
        yield _change(
            "request_changed",
            f"{where} request",
            {k: _value(before.get(k)) for k in differ},
            {k: _value(after.get(k)) for k in differ},
            "the requests differ in " + ", ".join(differ),
        )


def _status(where: str, old: Interaction, new: Interaction) -> Iterator[Change]:
    before, after = old.response.status, new.response.status
    if before != after:
        yield _change(
            "status_changed",
            f"{where} response.status",
            before,
            after,
            f"HTTP status {before} {old.response.reason} -> {after} {new.response.reason}",
        )


def _header_names(interaction: Interaction) -> set[str]:
    return {
        name.lower()
        for name in interaction.response.headers
        if not _IGNORED.fullmatch(name.lower())
    }


def _headers(where: str, old: Interaction, new: Interaction) -> Iterator[Change]:
    before, after = _header_names(old), _header_names(new)
    for name in sorted(after - before):
        yield _change(
            "header_added",
            f"{where} response.headers.{name}",
            None,
            _short(new.response.header(name) or ""),
            f"response header {name} added",
        )
    for name in sorted(before - after):
        yield _change(
            "header_removed",
            f"{where} response.headers.{name}",
            _short(old.response.header(name) or ""),
            None,
            f"response header {name} removed",
        )
    for header, kind in (
        ("content-type", "content_type_changed"),
        ("content-encoding", "content_encoding_changed"),
    ):
        a = _normal(old.response.header(header))
        b = _normal(new.response.header(header))
        if a != b:
            yield _change(
                kind,
                f"{where} response.headers.{header}",
                a,
                b,
                f"{header} {a or '(none)'} -> {b or '(none)'}",
            )


def _normal(value: str | None) -> str | None:
    return None if value is None else " ".join(value.lower().split())


# -- framing ---------------------------------------------------------------------------------

_BOM: Final = b"\xef\xbb\xbf"


def _line_endings(body: bytes) -> str:
    crlf = body.count(b"\r\n")
    cr = body.count(b"\r") - crlf
    lf = body.count(b"\n") - crlf
    used = [name for name, count in (("LF", lf), ("CRLF", crlf), ("CR", cr)) if count]
    if not used:
        return "none"
    return used[0] if len(used) == 1 else "mixed (" + ", ".join(used) + ")"


def _lines(body: bytes) -> list[bytes]:
    return body.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")


def _framing(
    where: str, old: bytes, new: bytes, old_dialect: str, new_dialect: str
) -> Iterator[Change]:
    a, b = _line_endings(old), _line_endings(new)
    if a != b:
        yield _change("line_endings_changed", f"{where} body", a, b, f"line endings {a} -> {b}")
    if _framing_of(old_dialect) == "sse" or _framing_of(new_dialect) == "sse":
        old_lines, new_lines = _lines(old), _lines(new)
        a_comments = sum(1 for line in old_lines if line.startswith(b":"))
        b_comments = sum(1 for line in new_lines if line.startswith(b":"))
        if a_comments != b_comments:
            yield _change(
                "comments_changed",
                f"{where} body",
                a_comments,
                b_comments,
                f"comment lines {a_comments} -> {b_comments}",
            )
        a_names = any(line.startswith(b"event:") for line in old_lines)
        b_names = any(line.startswith(b"event:") for line in new_lines)
        if a_names != b_names:
            yield _change(
                "event_names_changed",
                f"{where} body",
                a_names,
                b_names,
                "`event:` names " + ("dropped" if a_names else "added"),
            )
    a_bom, b_bom = old.startswith(_BOM), new.startswith(_BOM)
    if a_bom != b_bom:
        yield _change(
            "bom_changed",
            f"{where} body",
            a_bom,
            b_bom,
            "byte order mark " + ("dropped" if a_bom else "added"),
        )


def _framing_of(dialect: str) -> str:
    try:
        return dialects.create(dialect).framing
    except RafError:
        return "sse"


# -- events and fields -----------------------------------------------------------------------

_DONE: Final = "[DONE]"


def _kind_of(event: WireEvent) -> str:
    """An event's type for the diff: its format's type, else its payload's ``object`` (the
    Chat Completions chunks), else ``[DONE]``, ``(not JSON)`` or ``(untyped)``."""
    if event.type is not None:
        return event.type
    payload = event.payload
    if isinstance(payload, dict):
        kind = payload.get("object")
        return kind if isinstance(kind, str) and kind else "(untyped)"
    if event.data.strip() == _DONE:
        return _DONE
    return "(not JSON)" if payload is None else "(untyped)"


def _events(where: str, old_kinds: list[str], new_kinds: list[str]) -> Iterator[Change]:
    a, b = Counter(old_kinds), Counter(new_kinds)
    a_done, b_done = _DONE in a, _DONE in b
    if a_done != b_done:
        yield _change(
            "done_marker_changed",
            f"{where} body",
            a_done,
            b_done,
            "[DONE] marker " + ("dropped" if a_done else "added"),
        )
    for kind in _first_seen(new_kinds):
        if kind not in a and kind != _DONE:
            first = new_kinds.index(kind)
            yield _change(
                "event_type_added",
                f"{where} event {kind}",
                None,
                b[kind],
                f"event type {kind} added ({b[kind]} event(s), the first #{first})",
            )
    for kind in _first_seen(old_kinds):
        if kind not in b and kind != _DONE:
            yield _change(
                "event_type_removed",
                f"{where} event {kind}",
                a[kind],
                None,
                f"event type {kind} removed (OLD had {a[kind]})",
            )
    for kind in _first_seen(old_kinds):
        if kind in b and a[kind] != b[kind] and kind != _DONE:
            yield _change(
                "event_count_changed",
                f"{where} event {kind}",
                a[kind],
                b[kind],
                f"{kind} events {a[kind]} -> {b[kind]}",
            )
    common = set(a) & set(b)
    a_order = [k for k in _first_seen(old_kinds) if k in common]
    b_order = [k for k in _first_seen(new_kinds) if k in common]
    if a_order != b_order:
        yield _change(
            "event_order_changed",
            f"{where} events",
            a_order,
            b_order,
            "order of event types (first of each) "
            + _short(", ".join(a_order), 200)
            + " -> "
            + _short(", ".join(b_order), 200),
        )


def _first_seen(kinds: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(kinds))


_MAX_DEPTH: Final = 32


_TYPES: Final[dict[type, str]] = {
    type(None): "null",
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
}
"""The JSON type of each type the JSON decoder makes (:func:`json_type` for the others)."""

_CONTAINERS: Final = frozenset({"object", "array"})

_Shape = dict[str | None, tuple[set[str], "_Shape"]]
"""The fields of the events of one type, as a tree: per key (``None`` for the items of an
array), the JSON types found there and the fields under it."""


def _merge(shape: _Shape, payload: dict[str, Any]) -> None:
    """Add ``payload``'s fields to ``shape``: the work is one step per value, no path text
    (the paths are written once per type, by :func:`_flatten`). Stops at a depth of
    :data:`_MAX_DEPTH` (the values there are counted, not entered)."""
    stack: list[tuple[_Shape, Any, int]] = [(shape, payload, 0)]
    types = _TYPES
    while stack:
        node, value, depth = stack.pop()
        items = value.items() if isinstance(value, dict) else ((None, item) for item in value)
        for key, item in items:
            entry = node.get(key)
            if entry is None:
                entry = node[key] = (set(), {})
            kind = types.get(type(item)) or json_type(item)
            entry[0].add(kind)
            if item and depth + 1 < _MAX_DEPTH and kind in _CONTAINERS:
                stack.append((entry[1], item, depth + 1))


def _flatten(shape: _Shape) -> dict[str, set[str]]:
    """Each field path of ``shape`` (dotted, ``[]`` for the items of an array) and its
    JSON types."""
    out: dict[str, set[str]] = {}
    stack: list[tuple[str, _Shape]] = [("", shape)]
    while stack:
        prefix, node = stack.pop()
        for key, (kinds, children) in node.items():
            path = prefix + "[]" if key is None else f"{prefix}.{key}" if prefix else key
            if path:  # a top-level key "" has no path of its own
                out.setdefault(path, set()).update(kinds)
            if children:
                stack.append((path, children))
    return out


def _outermost(paths: Iterable[str]) -> list[tuple[str, int]]:
    """The paths none of whose parents are among them, each with how many of the others
    lie under it, sorted."""
    chosen = set(paths)
    below: dict[str, int] = {}
    for path in chosen:
        top = next((p for p in _parents(path) if p in chosen), None)
        if top is None:
            below.setdefault(path, 0)
        else:
            below[top] = below.get(top, 0) + 1
    return sorted(below.items())


def _parents(path: str) -> Iterator[str]:
    """The paths above ``path``, the outermost first: ``a``, ``a.b`` for ``a.b[].c``."""
    for index, char in enumerate(path):
        if char in ".[" and index:
            parent = path[:index]
            if not parent.endswith("["):
                yield parent


def _fields(
    where: str, a: dict[str, dict[str, set[str]]], b: dict[str, dict[str, set[str]]]
) -> Iterator[Change]:
    for kind in sorted(set(a) & set(b)):
        before, after = a[kind], b[kind]
        for path, below in _outermost(set(after) - set(before)):
            types = "|".join(sorted(after[path]))
            yield _change(
                "field_added",
                f"{where} {kind} {path}",
                None,
                types,
                f"field {path} ({types}) added to {kind} events"
                + (f", with {below} field(s) under it" if below else ""),
            )
        for path, below in _outermost(set(before) - set(after)):
            types = "|".join(sorted(before[path]))
            yield _change(
                "field_removed",
                f"{where} {kind} {path}",
                types,
                None,
                f"field {path} ({types}) removed from {kind} events"
                + (f", with {below} field(s) under it" if below else ""),
            )
        for path in sorted(set(before) & set(after)):
            if before[path] != after[path]:
                was, now = "|".join(sorted(before[path])), "|".join(sorted(after[path]))
                yield _change(
                    "field_type_narrowed" if after[path] < before[path] else "field_type_changed",
                    f"{where} {kind} {path}",
                    was,
                    now,
                    f"field {path} of {kind} events: {was} -> {now}",
                )


# -- raf's reading ---------------------------------------------------------------------------


def _reading(interaction: Interaction, body: bytes, dialect: str) -> dict[str, Any]:
    """The parts of raf's aggregated response the diff compares (canonical JSON)."""
    response = interaction.response
    try:
        if not 200 <= response.status < 300:
            results = Pipeline(dialect).fail(http_error(response.status, response.reason, body))
        else:
            results = list(run([body], dialect))
        canonical = to_canonical(collect_agent_response(results))
    except RafError as exc:  # an unknown dialect
        return {"errors": [f"not read: {exc}"]}
    return {
        "text": canonical.get("text", ""),
        "reasoning": canonical.get("reasoning_text"),
        "tool_calls": [
            {"name": c.get("name"), "arguments": c.get("arguments")}
            for c in canonical.get("tool_calls", ())
        ],
        "hosted_tool_calls": [
            {
                "name": c.get("name"),
                "arguments": c.get("arguments"),
                "answered": c.get("output") is not None or c.get("error") is not None,
            }
            for c in canonical.get("hosted_tool_calls", ())
        ],
        "approval_requests": [
            {"name": c.get("name"), "arguments": c.get("arguments")}
            for c in canonical.get("approval_requests", ())
        ],
        "finish_reason": canonical.get("finish_reason"),
        "usage": canonical.get("usage"),
        "errors": [e.get("error_code") for e in canonical.get("errors", ())],
        "notices": [e.get("error_code") for e in canonical.get("notices", ())],
    }


def _meaning(where: str, old: dict[str, Any], new: dict[str, Any]) -> Iterator[Change]:
    for name in (
        "text",
        "reasoning",
        "tool_calls",
        "hosted_tool_calls",
        "approval_requests",
        "finish_reason",
        "usage",
        "errors",
        "notices",
    ):
        before, after = old.get(name), new.get(name)
        if before == after:
            continue
        was, now = _value(before), _value(after)
        how = ""
        if before and not after:
            how = " (lost)"
        elif after and not before:
            how = " (new)"
        calls = _calls(before, after)
        if calls is not None:
            what = calls
        elif isinstance(before, dict) and isinstance(after, dict):
            what = ", ".join(
                f"{key} {_short(before.get(key), 30)} -> {_short(after.get(key), 30)}"
                for key in sorted(set(before) | set(after))
                if before.get(key) != after.get(key)
            )
        else:
            what = f"{_shown(before)} -> {_shown(after)}{how}"
        yield _change(
            "notices_changed" if name == "notices" else "meaning_changed",
            f"{where} response.{name}",
            was,
            now,
            f"raf reads {name}: {what}",
        )


def _calls(before: Any, after: Any) -> str | None:
    """For two lists of calls: their names, or where the names agree, the first call whose
    arguments (or outcome) differ; else ``None``."""
    if not (isinstance(before, list) and isinstance(after, list)):
        return None
    if not all(isinstance(c, dict) and "name" in c for c in before + after):
        return None
    names = [[str(c["name"]) for c in side] for side in (before, after)]
    if names[0] != names[1]:
        return f"[{', '.join(names[0])}] -> [{', '.join(names[1])}]"
    for number, (was, now) in enumerate(zip(before, after, strict=True)):
        if was != now:
            keys = sorted(k for k in set(was) | set(now) if was.get(k) != now.get(k))
            return f"call {number} ({was['name']}): " + ", ".join(
                f"{key} {_short(was.get(key), 60)} -> {_short(now.get(key), 60)}" for key in keys
            )
    return None


def _value(value: Any) -> Any:
    """``value`` for a change's ``old`` or ``new``: itself when its JSON is short, else its
    JSON shortened to 200 characters (a 200 KB argument stays out of the report)."""
    if value is None or len(_json(value)) <= 200:
        return value
    return _short(value, 200)


def _shown(value: Any) -> str:
    if value is None:
        return "none"
    return repr(_short(value)) if isinstance(value, str) else _short(value)


# -- what raf did not read -------------------------------------------------------------------


def _unread(where: str, before: Unread, after: Unread) -> Iterator[Change]:
    known = {e.type for e in before.unrecognised_events}
    for event in after.unrecognised_events:
        if event.type not in known:
            yield _change(
                "unread_event_type",
                f"{where} event {event.type}",
                None,
                event.count,
                f"raf does not read event type {event.type} ({event.count} event(s), the "
                f"first #{event.first})",
            )
    fields = {(f.event_type, f.path) for f in before.unknown_fields}
    for item in after.unknown_fields:
        if (item.event_type, item.path) not in fields:
            of = f" of {item.event_type} events" if item.event_type else ""
            yield _change(
                "unread_field",
                f"{where} {item.event_type} {item.path}"
                if item.event_type
                else f"{where} {item.path}",
                None,
                item.count,
                f"raf does not read field {item.path}{of} ({item.count} event(s))",
            )


# -- chunking and timing ---------------------------------------------------------------------


def _p95(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, -(-95 * len(ordered) // 100) - 1))]


def _timing(where: str, old: Interaction, new: Interaction) -> Iterator[Change]:
    a, b = old.timing, new.timing
    if a is None and b is None:
        return
    if a is None or b is None:
        yield _change(
            "chunking_changed",
            f"{where} timing",
            None if a is None else len(a),
            None if b is None else len(b),
            "network reads recorded only in " + ("NEW" if a is None else "OLD"),
        )
        return
    if len(a) != len(b):
        yield _change(
            "chunking_changed",
            f"{where} timing.reads",
            len(a),
            len(b),
            f"network reads {len(a)} -> {len(b)}",
        )
    sizes = [_size_stats(a), _size_stats(b)]
    if sizes[0] != sizes[1]:
        yield _change(
            "chunking_changed",
            f"{where} timing.sizes",
            sizes[0],
            sizes[1],
            f"read sizes (min/median/max bytes) {_triple(sizes[0])} -> {_triple(sizes[1])}",
        )
    delays = [_delay_stats(a), _delay_stats(b)]
    if delays[0] != delays[1]:
        yield _change(
            "timing_changed",
            f"{where} timing.delays",
            delays[0],
            delays[1],
            f"delays (median/p95/total ms) {_triple(delays[0])} -> {_triple(delays[1])}",
        )


def _size_stats(timing: Sequence[tuple[int, float]]) -> list[float]:
    sizes = [size for size, _ in timing]
    if not sizes:
        return [0, 0, 0]
    return [min(sizes), statistics.median(sizes), max(sizes)]


def _delay_stats(timing: Sequence[tuple[int, float]]) -> list[float]:
    delays = [float(ms) for _, ms in timing]
    if not delays:
        return [0.0, 0.0, 0.0]
    return [
        round(statistics.median(delays), 1),
        round(_p95(delays), 1),
        round(sum(delays), 1),
    ]


def _triple(values: Sequence[float]) -> str:
    return "/".join(f"{v:g}" for v in values)


# -- the table of docs/recording.md ----------------------------------------------------------

BLOCK: Final = DocBlock("diff: kinds", "the table of kinds")
"""The generated table's place in a document."""
BEGIN: Final = BLOCK.begin
END: Final = BLOCK.end


def table() -> str:
    """:data:`KINDS` as a Markdown table, in its order."""
    lines = ["| kind | severity | what | why this severity |", "|---|---|---|---|"]
    for kind in KINDS:
        cells = (f"`{kind.name}`", kind.severity, kind.what, kind.why)
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def render_table(text: str) -> str:
    """``text`` with its table of kinds (between ``<!-- diff: kinds -->`` and
    ``<!-- /diff -->``) rendered afresh.

    Raises:
        ValueError: ``text`` has no such block, or more than one.
    """
    return BLOCK.fill(text, table())


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m raf.cassettes.diff [--check] FILE...``: rewrite the table of kinds of
    each file (``--check``: only say whether it is current); exit statuses as
    :func:`raf.shared.doc_block.rewrite_files`."""
    return rewrite_files(argv, module="raf.cassettes.diff", what=BLOCK.what, render=render_table)


if __name__ == "__main__":
    raise SystemExit(main())
