"""What a dialect is, and the shared machinery most dialects are built on. No IO.

A dialect is a sans-IO map from the frames of one wire format (:class:`ServerSentEvent`
values, from the framing the dialect names) to ``AgentResponseUpdate`` values. The protocol
(:class:`Dialect`) is small: ``feed``, ``close``, ``done``, ``name`` and ``framing``. The faster
ways in (``feed_events``, ``feed_frames``, ``flush``) are optional accelerators, each a typed
protocol (:class:`EventFeeder`, :class:`FrameFeeder`, :class:`Flusher`) that a dialect declares
in ``accelerators`` (:class:`Accelerated`); :func:`accelerators_of` checks the declaration
once per class and gives the pipeline the declared methods.

:class:`JSONEventDialect` implements the protocol for every format whose frames carry one
JSON object each. It does the generic work once, for every dialect built on it:

* the frame loop, and ``feed_events`` (many frames per call, as the pipeline feeds them);
* end markers (``[DONE]``, also with JSON whitespace around it) and keep-alives (empty data,
  JSON whitespace only);
* the depth limit (``json_too_deep``), checked by a linear scan before decoding;
* decoding, with repairs (a number out of range is read as ``null``, a lone surrogate escape
  as U+FFFD, both named in an ``invalid_chunk`` error) and ``sse_parse_error`` for data that
  is not JSON, ``invalid_chunk`` for JSON that is not an object;
* ``event: error`` frames and in-band error objects (``provider_error``);
* truncation at ``close`` (``stream_truncated``) when the format's terminal event never came;
* ``ResponseMetadata`` only when the id or model changes;
* a guard that turns a bug of raf on one frame into ``internal_error`` and goes on.

* chunks the dialect does not recognise: counted, and reported once at ``close``: a notice
  (``unrecognised_chunks``) when others were read, ``unrecognised_format`` (naming what was
  seen and the likely format, :mod:`raf.dialects.unread`) when none was; an end marker does
  not make such a stream look finished.

A dialect built on it is a table, :attr:`JSONEventDialect.handlers`, from the payload's type
(by default its ``"type"`` field, else the SSE event name) to a handler, plus the format's
knowledge in those handlers. A type not in the table is skipped: silently when
:attr:`JSONEventDialect.ignored` or :attr:`JSONEventDialect.ignored_prefixes` name it (the
format's own events the dialect has no use for), else counted as unrecognised.
docs/dialects.md ("Writing a dialect") walks through one.
"""

from __future__ import annotations

import builtins
import difflib
import inspect
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar, NamedTuple, TypeVar, cast

import msgspec

from raf import safe_json
from raf._mypyc import mypyc_attr
from raf.dialects import unread
from raf.dialects._protocol import (
    ACCELERATORS,
    Accelerated,
    Accelerator,
    Dialect,
    EventFeeder,
    Flusher,
    FrameFeeder,
)
from raf.errors import DialectError, excerpt, internal_error_message, raw_excerpt
from raf.framing.sse import DataRun, EventOrRun, ServerSentEvent
from raf.limits import DEFAULT_MAX_JSON_DEPTH, DEFAULT_MAX_RAW_CHARS, check_json_depth
from raf.model import updates
from raf.model.codes import ErrorCode
from raf.model.updates import AgentResponseUpdate, DeltaBatch

__all__ = [
    "ACCELERATORS",
    "JSON_WHITESPACE",
    "Accelerated",
    "Accelerator",
    "Accelerators",
    "Dialect",
    "EventFeeder",
    "Flusher",
    "Frame",
    "FrameFeeder",
    "Handler",
    "JSONEventDialect",
    "accelerator_problems",
    "accelerators_of",
]

JSON_WHITESPACE = " \t\r\n"
"""The whitespace JSON allows around a value."""


_PROTOCOLS: dict[str, type] = {
    "feed_events": EventFeeder,
    "feed_frames": FrameFeeder,
    "flush": Flusher,
}


class Accelerators(NamedTuple):
    """The declared accelerators of one dialect object, bound (``None``: not offered)."""

    feed_events: Callable[[Iterable[ServerSentEvent]], list[AgentResponseUpdate]] | None
    feed_frames: Callable[[Iterable[EventOrRun], bool], list[Any]] | None
    flush: Callable[[], list[Any]] | None


def _declared(cls: type) -> frozenset[str]:
    """What a dialect class declares in ``accelerators`` (the nearest class that sets it)."""
    for klass in cls.__mro__:
        if "accelerators" in vars(klass):
            return frozenset(vars(klass)["accelerators"])
    return frozenset()


def _shape(function: Callable[..., Any]) -> list[tuple[str, Any, bool]]:
    """The parameters of a function after ``self``, as the pipeline passes them: kind, has
    a default, and the name of one with a default (positional ones may be named freely)."""
    parameters = list(inspect.signature(function).parameters.values())[1:]
    return [
        (p.name if p.default is not p.empty else "", p.kind, p.default is not p.empty)
        for p in parameters
    ]


def _helpers() -> frozenset[str]:
    """Public methods of :class:`JSONEventDialect` that are not accelerators (never flagged
    as misspelt ones)."""
    return frozenset(
        name
        for name in vars(JSONEventDialect)
        if not name.startswith("_") and name not in ACCELERATORS
    )


def accelerator_problems(cls: type) -> list[str]:
    """What is wrong with the accelerators a dialect class declares (empty: nothing).

    * a declared name that is not one of :data:`ACCELERATORS`;
    * a declared accelerator the class does not define, or defines with other parameters
      than its protocol (:class:`EventFeeder`, :class:`FrameFeeder`, :class:`Flusher`);
    * an accelerator the class defines but does not declare (it would never be used);
    * a method whose name is close to an accelerator's (a misspelling: it would never be used).
    """
    declared = _declared(cls)
    known = ", ".join(ACCELERATORS)
    problems = [
        f"declares {name!r}, which is not an accelerator ({known})"
        for name in sorted(declared - set(ACCELERATORS))
    ]
    for name in ACCELERATORS:
        method = getattr(cls, name, None)
        if name in declared:
            wanted = _shape(getattr(_PROTOCOLS[name], name))
            if not callable(method):
                problems.append(f"declares {name!r} but does not define it")
            elif _shape(method) != wanted:
                protocol = _PROTOCOLS[name].__name__
                problems.append(f"{name} has other parameters than {protocol}.{name}")
        elif callable(method):
            problems.append(f"defines {name!r} but does not declare it in accelerators")
    helpers = _helpers()
    for other in sorted(dir(cls)):
        if other.startswith("_") or other in ACCELERATORS or other in helpers:
            continue
        if not callable(getattr(cls, other, None)):
            continue
        close = difflib.get_close_matches(other, ACCELERATORS, n=1, cutoff=0.8)
        if close:
            problems.append(f"defines {other!r}: a misspelling of the accelerator {close[0]!r}?")
    return problems


_CHECKED: dict[type, frozenset[str]] = {}


def accelerators_of(dialect: Dialect) -> Accelerators:
    """The accelerators ``dialect`` declares, bound; its class is checked the first time
    (:func:`accelerator_problems`).

    Raises:
        DialectError: the declaration is wrong; the message names every problem.
    """
    cls = type(dialect)
    declared = _CHECKED.get(cls)
    if declared is None:
        problems = accelerator_problems(cls)
        if problems:
            raise DialectError(
                f"dialect {dialect.name!r} ({cls.__qualname__}): {'; '.join(problems)}"
            )
        declared = _CHECKED[cls] = _declared(cls)
    return Accelerators(
        cast(EventFeeder, dialect).feed_events if "feed_events" in declared else None,
        cast(FrameFeeder, dialect).feed_frames if "feed_frames" in declared else None,
        cast(Flusher, dialect).flush if "flush" in declared else None,
    )


class Frame:
    """What a handler gets besides the payload: the frame and where its updates go.

    Attributes:
        event: the frame (its SSE event name, data, id).
        data: the frame's data (the payload's JSON text).
        out: the list the frame's updates are appended to, in order.
        problems: fields that were dropped (named in one ``invalid_chunk`` error after the
            frame's updates); add to it with :meth:`problem`.
    """

    __slots__ = ("data", "event", "out", "problems")

    def __init__(self, event: ServerSentEvent, out: list[AgentResponseUpdate]) -> None:
        self.event = event
        self.data = event.data
        self.out = out
        self.problems: builtins.list[builtins.str] | None = None

    def problem(self, text: builtins.str) -> None:
        """Name a field that was wrong and skipped; the rest of the frame still counts."""
        if self.problems is None:
            self.problems = []
        self.problems.append(text)

    # Typed field access: a field of the wrong type is a problem and reads as None. (The
    # annotations say ``builtins.str``... because the methods shadow those names here.)
    def get(
        self,
        obj: Mapping[builtins.str, Any],
        key: builtins.str,
        kind: type | tuple[type, ...],
        where: builtins.str = "",
    ) -> Any:
        """``obj[key]`` if it is of ``kind`` (``None`` when absent, ``null`` or of another
        type; the last is named as a problem). Booleans are never integers here."""
        value = obj.get(key)
        if value is None or (isinstance(value, kind) and not isinstance(value, bool)):
            return value
        self.problem(f"{where}{key} is {type(value).__name__}")
        return None

    def str(
        self, obj: Mapping[builtins.str, Any], key: builtins.str, where: builtins.str = ""
    ) -> builtins.str | None:
        """A string field (see :meth:`get`)."""
        return self.get(obj, key, builtins.str, where)  # type: ignore[no-any-return]

    def int(
        self, obj: Mapping[builtins.str, Any], key: builtins.str, where: builtins.str = ""
    ) -> builtins.int | None:
        """An integer field (see :meth:`get`; a boolean is not one)."""
        return self.get(obj, key, builtins.int, where)  # type: ignore[no-any-return]

    def dict(
        self, obj: Mapping[builtins.str, Any], key: builtins.str, where: builtins.str = ""
    ) -> builtins.dict[builtins.str, Any] | None:
        """An object field (see :meth:`get`)."""
        return self.get(obj, key, builtins.dict, where)  # type: ignore[no-any-return]

    def list(
        self, obj: Mapping[builtins.str, Any], key: builtins.str, where: builtins.str = ""
    ) -> builtins.list[Any] | None:
        """An array field (see :meth:`get`)."""
        return self.get(obj, key, builtins.list, where)  # type: ignore[no-any-return]


Handler = Callable[[Any, Any, Frame], None]
"""A handler: ``handler(dialect, payload, frame)`` appends the payload's updates to
``frame.out``. It may raise nothing on purpose; should it fail, the frame costs one
``internal_error`` and the stream goes on."""

_decode_generic = msgspec.json.decode
T = TypeVar("T")
_NO_EVENT = ServerSentEvent()
_UNRECOGNISED_KEPT = 4  # payloads of unrecognised chunks kept to describe them
_UNRECOGNISED_CHARS = 2048  # characters kept of each

# What one frame of each framing is called in the truncation message (``auto`` is decided per
# body, so its frames are named for both).
_FRAME_NAMES = {
    "sse": "SSE event",
    "json_array": "JSON value",
    "json_lines": "JSON line",
    "auto": "frame (an SSE event or a JSON value)",
    "aws_eventstream": "event stream message",
}


@mypyc_attr(allow_interpreted_subclasses=True)
class JSONEventDialect:
    """The shared machinery of dialects whose frames each carry one JSON object.

    Subclasses set the class attributes and write handlers; see the module docstring.

    Args:
        max_json_depth: deepest nesting accepted in a payload (``json_too_deep`` past it).
        max_raw_chars: longest ``raw`` excerpt an error keeps of an offending payload.
    """

    name: ClassVar[str] = ""
    framing: ClassVar[str] = "sse"
    accelerators: ClassVar[frozenset[Accelerator]] = frozenset(
        {"feed_events", "feed_frames", "flush"}
    )
    """The optional methods it offers (:class:`Accelerated`): all three."""
    end_markers: ClassVar[frozenset[str]] = frozenset()
    """Data values that end the stream (``[DONE]``), also with JSON whitespace around."""
    handlers: ClassVar[Mapping[str, Handler]] = {}
    """Payload type -> handler. Types not in the table are skipped (see :meth:`unknown`)."""
    ignored: ClassVar[frozenset[str]] = frozenset()
    """Payload types of the format that the dialect skips on purpose (not unrecognised)."""
    ignored_prefixes: ClassVar[tuple[str, ...]] = ()
    """Prefixes of payload types that are the format's own (``"response."``): a type with one
    of them that the table does not list is skipped on purpose, not unrecognised (formats add
    event types)."""
    recognises_by_type: ClassVar[bool] = True
    """A payload whose type has a handler is recognised. ``False`` for a dialect whose
    payloads all have one type (a chunk format): its handler then decides, calling
    :meth:`recognise` or :meth:`unrecognised`."""
    sniff: ClassVar[tuple[bytes, ...]] = ()
    """Byte patterns (regular expressions) that identify the format near the start of a body,
    for ``--dialect auto`` (:mod:`raf.dialects.sniff`)."""
    fast_decode: ClassVar[Callable[..., Any] | None] = None
    """Optional: a decoder of the usual payload (e.g. a typed msgspec decoder) tried first,
    whose result is a payload of type :attr:`fast_kind`; when it raises a msgspec error,
    :meth:`decode` reads the frame instead (to salvage or report it)."""
    fast_kind: ClassVar[str] = ""
    usual: Callable[[ServerSentEvent, list[AgentResponseUpdate]], bool] | None = None
    """Optional: a fast path for the format's usual frame, tried before :meth:`feed_event`:
    it maps the frame (appending its updates) and returns ``True``, or returns ``False``
    having done nothing, and the frame takes the shared path."""
    payload_name: ClassVar[str] = "event"
    """What one payload is called in error messages (``not a <payload_name>``)."""
    truncation_message: ClassVar[str] = "stream ended before the format's terminal event"
    """What ``stream_truncated`` says when the terminal event never came."""

    def __init__(
        self,
        *,
        max_json_depth: int = DEFAULT_MAX_JSON_DEPTH,
        max_raw_chars: int = DEFAULT_MAX_RAW_CHARS,
    ) -> None:
        if max_raw_chars < 1:
            raise ValueError("max_raw_chars must be positive")
        self.max_json_depth = check_json_depth(max_json_depth)
        self.max_raw_chars = max_raw_chars
        self._done = False
        self._stopped = False  # an end marker came before the terminal event
        self.finished = False
        """The format's terminal event (or a finish reason) arrived: a clean end."""
        self.provider_error = False
        """The provider reported an error: it ended the stream on purpose."""
        self._last_id: str | None = None
        self._last_model: str | None = None
        self._marker_length = max(map(len, self.end_markers), default=-1)
        self.recognised = False
        """A chunk of the format was read (see :meth:`unrecognised`)."""
        self._unrecognised = 0
        self._unrecognised_seen: list[str] = []  # the data of the first few, for the report
        self._unrecognised_raw: str | None = None  # the first one's, as an error's raw
        self.fast_stats: Counter[str] = Counter()
        """What the fast paths did, counted (never timed): ``"template"``, payloads read
        through a template (:mod:`raf.dialects.templates`); ``"typed"``, payloads decoded by
        a typed decoder of the usual payload; ``"full"``, payloads decoded as generic JSON by
        the shared path. Dialects count in bulk (per run) where counting per payload costs;
        :meth:`fast_path_counts` gives the totals."""

    def fast_path_counts(self) -> dict[str, int]:
        """How this stream's payloads were read so far (see :attr:`fast_stats`): how many
        through a template, by a typed decoder, decoded in full. Tests and ``bench/`` use it
        to show that a workload takes the fast paths; it costs nothing to read."""
        return dict(self.fast_stats)

    # -- the protocol ----------------------------------------------------------------------

    @property
    def done(self) -> bool:
        """An end marker was received; nothing after it is read."""
        return self._done or self._stopped

    def _end_marker(self) -> None:
        if self.end_marker_is_clean():
            self._done = True
        else:
            self._stopped = True

    def feed(self, event: ServerSentEvent) -> list[AgentResponseUpdate]:
        """Map one frame to updates. Never raises on bad input."""
        return self.feed_events((event,))

    def feed_events(self, events: Iterable[ServerSentEvent]) -> list[AgentResponseUpdate]:
        """Map frames to updates, in order; frames after an end marker are ignored.

        Never raises: whatever a frame holds, the updates of the frames before it are
        returned with the error it caused.
        """
        out: list[AgentResponseUpdate] = []
        frame = Frame(_NO_EVENT, out)  # one Frame serves every event of the call
        feed_event = self.feed_event
        usual = self._usual_path()
        for event in events:
            if self._done:
                break
            if usual is not None and usual(event, out):
                continue
            if feed_event(event, frame):
                break
        return out

    def feed_frames(
        self, frames: Iterable[EventOrRun], batch: bool = False
    ) -> list[AgentResponseUpdate | DeltaBatch]:
        """:meth:`feed_events` for what :meth:`raf.framing.sse.SSEDecoder.feed_runs` gives:
        events and runs of events (:class:`DataRun`), each run mapped by :meth:`feed_run`.

        Args:
            frames: events and runs, in order.
            batch: the caller only aggregates the updates; a dialect may then give a run's
                usual deltas as one :class:`raf.model.updates.DeltaBatch`.
        """
        out: list[Any] = []  # updates, and DeltaBatch values when batch
        frame = Frame(_NO_EVENT, out)
        feed_event = self.feed_event
        usual = self._usual_path()
        for item in frames:
            if self._done:
                break
            if isinstance(item, DataRun):
                if self.feed_run(item, frame, batch):
                    break
                continue
            out.extend(self.flush())  # what a run left open comes before this event
            if usual is not None and usual(item, out):
                continue
            if feed_event(item, frame):
                break
        return out

    def flush(self) -> list[Any]:
        """The updates held back so far, handed on now: with ``batch``, a dialect may leave the
        batch of a run open for the next run (the pipeline calls this before any update of
        its own, and :meth:`close` before its own). The default holds nothing back."""
        return []

    def feed_run(self, run: DataRun, frame: Frame, batch: bool) -> bool:
        """Map a run of events, appending their updates to ``frame.out``; ``True`` when one
        was an end marker. The default maps each of :meth:`DataRun.events` as
        :meth:`feed_events` does; a dialect may decode the payloads straight from bytes, and
        when ``batch`` give its usual deltas as a ``DeltaBatch``. Never raises."""
        return self.feed_payloads(run.payloads, run.id, frame, run.names)

    def feed_payloads(
        self,
        payloads: list[bytes],
        event_id: str,
        frame: Frame,
        names: list[str] | None = None,
        start: int = 0,
    ) -> bool:
        """Map the payloads of a run with ID ``event_id`` (and event types ``names``, else
        ``message``) one by one from ``payloads[start]``, as events; ``True`` when one was an
        end marker."""
        out = frame.out
        usual = self._usual_path()
        feed_event = self.feed_event
        for position in range(start, len(payloads)):
            if self._done:
                return False
            event = ServerSentEvent(
                event="message" if names is None else names[position],
                data=payloads[position].decode("utf-8", "replace"),
                id=event_id,
            )
            if usual is not None and usual(event, out):
                continue
            if feed_event(event, frame):
                return True
        return False

    def _usual_path(self) -> Callable[[ServerSentEvent, list[AgentResponseUpdate]], bool] | None:
        """:attr:`usual` as the dialect's class defines it (a method or ``None``), looked up by
        name: compiled (docs/compiled.md), ``self.usual`` would read the attribute declared
        here, never a subclass's method."""
        usual: Callable[[ServerSentEvent, list[AgentResponseUpdate]], bool] | None
        usual = getattr(self, "usual", None)
        return usual

    def typed_usual(self, event: ServerSentEvent, decode: Callable[[str], T]) -> T | None:
        """For a :attr:`usual` fast path: ``event``'s data read by ``decode`` (a typed msgspec
        decoder of the format's usual payload), or ``None`` when the shared path must read
        it: an ``error`` event, data that is not a JSON object, data long enough to nest
        deeper than ``max_json_depth`` (the shared path counts its brackets first), or data
        ``decode`` refuses."""
        data = event.data
        if event.event == "error" or data[:1] != "{" or len(data) > 2 * self.max_json_depth + 1:
            return None
        try:
            return decode(data)
        except (msgspec.ValidationError, msgspec.DecodeError):
            return None

    def feed_event(self, event: ServerSentEvent, frame: Frame) -> bool:
        """Map one frame to updates appended to ``frame.out``; ``True`` when it was an end
        marker (the frames after it are not read). Never raises."""
        out = frame.out
        data = event.data
        try:
            if event.event == "error":
                self.provider_error = True
                self.error_frame(data, out)
                return False
            stripped = data.strip(JSON_WHITESPACE)
            # (The length test first: hashing every payload to look it up costs more.)
            if len(stripped) <= self._marker_length and stripped in self.end_markers:
                self._end_marker()
                return True
            if not stripped:
                return False  # empty (or JSON whitespace only) data is a keep-alive
            # The depth limit, before decoding: a document deeper than max_depth needs
            # more than 2 * max_depth characters, so shorter payloads skip the count.
            max_depth = self.max_json_depth
            if (
                len(data) > 2 * max_depth + 1
                and data.count("{") + data.count("[") > max_depth
                and safe_json.too_deep(data, max_depth)
            ):
                out.append(
                    self.error(
                        ErrorCode.JSON_TOO_DEEP, f"data {safe_json.depth_detail(max_depth)}", data
                    )
                )
                return False
            frame.event = event
            frame.data = data
            fast = self.fast_decode
            kind: str | None = None
            if fast is not None:
                try:
                    payload = fast(data)
                    kind = self.fast_kind
                    self.fast_stats["typed"] += 1
                except (msgspec.ValidationError, msgspec.DecodeError):
                    pass
            if kind is None:
                self.fast_stats["full"] += 1
                decoded = self.decode(frame)
                if decoded is not None:
                    kind, payload = decoded
            if kind is not None:
                handler = self.handlers.get(kind)
                if handler is None:
                    self.unknown(kind, payload, frame)
                else:
                    if self.recognises_by_type:
                        self.recognised = True
                    handler(self, payload, frame)
            if frame.problems is not None:
                problems, frame.problems = frame.problems, None
                out.append(
                    self.error(
                        ErrorCode.INVALID_CHUNK,
                        f"chunk fields ignored: {'; '.join(problems)}",
                        data,
                    )
                )
        except RecursionError:
            frame.problems = None
            out.append(
                self.error(
                    ErrorCode.JSON_TOO_DEEP,
                    "data nests deeper than the interpreter's stack allows",
                    data,
                )
            )
        except Exception as exc:  # a bug in raf: report it, skip the frame, go on
            frame.problems = None
            out.append(self.internal_error(exc, data))
        return False

    def internal_error(self, exc: Exception, data: str) -> updates.Error:
        """The update that reports a bug of raf met while mapping the frame ``data``."""
        return updates.Error(
            error_code=ErrorCode.INTERNAL_ERROR,
            message=internal_error_message(exc, "an event"),
            raw=raw_excerpt(data, self.max_raw_chars),
        )

    def close(self, *, truncated: bool = False) -> list[AgentResponseUpdate]:
        """Report a stream that ended inside a frame, or before its terminal event (unless a
        provider error explained why). :meth:`at_close` runs first, after a clean end marker
        too (so a dialect can hand on what it still holds)."""
        out: list[AgentResponseUpdate] = self.flush()
        self.at_close(out)
        if self._unrecognised:
            if not self.recognised:  # another format: nothing of it was read
                out.append(self._unrecognised_format())
                return out
            out.append(self._unrecognised_chunks())
        if self._done:
            return out
        if truncated and not self._stopped:
            out.append(
                updates.Error(
                    error_code=ErrorCode.STREAM_TRUNCATED,
                    message=f"stream ended inside an unfinished "
                    f"{_FRAME_NAMES.get(self.framing, 'frame')}; its data was discarded",
                )
            )
        elif not self.finished and not self.provider_error:
            out.append(
                updates.Error(
                    error_code=ErrorCode.STREAM_TRUNCATED, message=self.truncation_message
                )
            )
        return out

    # -- hooks -----------------------------------------------------------------------------

    def decode(self, frame: Frame) -> tuple[str, Any] | None:
        """The payload's type and value, or ``None`` when the frame was reported unusable.

        The default decodes a JSON object (with the repairs of :mod:`raf.safe_json`, named as
        problems) and takes its type from :meth:`kind_of`.
        """
        data = frame.data
        try:
            payload = _decode_generic(data)
        except (msgspec.ValidationError, msgspec.DecodeError):
            try:
                decoded = safe_json.decode(data, max_depth=self.max_json_depth)
            except safe_json.UnusableJSON as unusable:
                frame.out.append(self.error(unusable.code, f"data {unusable.detail}", data))
                return None
            payload = decoded.value
            for repair in decoded.repairs:
                frame.problem(repair)
        if not isinstance(payload, dict):
            frame.out.append(
                self.error(
                    ErrorCode.INVALID_CHUNK,
                    f"not a {self.payload_name} (a JSON {type(payload).__name__}, "
                    "expected an object)",
                    data,
                )
            )
            return None
        return self.kind_of(frame.event, payload), payload

    def kind_of(self, event: ServerSentEvent, payload: dict[str, Any]) -> str:
        """The payload's type: its ``"type"`` field when it is a string, else the SSE event
        name (the JSON's own type wins, as in raf-spec 2.7)."""
        kind = payload.get("type")
        return kind if isinstance(kind, str) else event.event

    def unknown(self, kind: str, payload: Any, frame: Frame) -> None:
        """A payload of a type the table does not list: skipped, and recognised when
        :attr:`ignored` or :attr:`ignored_prefixes` name the type, else unrecognised."""
        if kind in self.ignored or kind.startswith(self.ignored_prefixes):
            self.recognised = True
        else:
            self.unrecognised(frame)

    def recognise(self) -> None:
        """Note that a chunk of the format was read (for a dialect that does not recognise
        by type, :attr:`recognises_by_type`)."""
        self.recognised = True

    def unrecognised(self, frame: Frame) -> None:
        """Count the frame's payload as one the dialect does not recognise (it produced no
        update); :meth:`close` reports the count once (docs/dialects.md, "Chunks a dialect
        does not recognise")."""
        self._unrecognised += 1
        if len(self._unrecognised_seen) < _UNRECOGNISED_KEPT:
            if not self._unrecognised_seen:
                self._unrecognised_raw = raw_excerpt(frame.data, self.max_raw_chars)
            self._unrecognised_seen.append(frame.data[:_UNRECOGNISED_CHARS])

    def _unrecognised_format(self) -> updates.Error:
        seen = self._unrecognised_seen
        body = "\n".join(seen).encode("utf-8", "replace")
        # Late: sniffing reads the formats' descriptors, which are built on this module.
        from raf.dialects import sniff  # noqa: PLC0415

        other = sniff.sniff(body)
        found = unread.guess(body)
        if other is not None and other != self.name:
            likely = f"it looks like {other}, which raf reads: use --dialect {other} (or auto)"
        elif found is not None:
            likely = f"it looks like {found.title} ({found.name}), which raf does not read"
        else:
            likely = "raf knows no format like it (docs/dialects.md lists the ones it reads)"
        return updates.Error(
            error_code=ErrorCode.UNRECOGNISED_FORMAT,
            message=f"no {self.payload_name} in this stream ({self.name}): "
            f"{self._unrecognised} JSON object(s) of another shape ({_shapes(seen)}); {likely}",
            raw=self._unrecognised_raw,
        )

    def _unrecognised_chunks(self) -> updates.Error:
        seen = self._unrecognised_seen
        return updates.Error(
            error_code=ErrorCode.UNRECOGNISED_CHUNKS,
            message=f"{self._unrecognised} chunk(s) of no kind the {self.name} dialect reads "
            f"were skipped ({_shapes(seen[:1])})",
            raw=self._unrecognised_raw,
        )

    def at_close(self, out: list[AgentResponseUpdate]) -> None:
        """Called by :meth:`close` before truncation is judged, also after a clean end marker
        (e.g. to hand on or report what is still open)."""

    def end_marker_is_clean(self) -> bool:
        """Whether an end marker arriving now ends the stream cleanly (the default). A format
        whose own terminal event must come first says no until it came; reading stops either
        way, and :meth:`close` then reports ``stream_truncated``."""
        return True

    def error_frame(self, data: str, out: list[AgentResponseUpdate]) -> None:
        """An SSE event of type ``error``: ``provider_error`` with the provider's message."""
        try:
            body = safe_json.decode(data, max_depth=self.max_json_depth).value if data else None
        except safe_json.UnusableJSON:
            body = None
        if isinstance(body, dict):
            detail = error_message(body.get("error", body))
        else:
            detail = excerpt(data) if data else "(no data)"
        out.append(
            updates.Error(
                error_code=ErrorCode.PROVIDER_ERROR,
                message=f"provider sent an error event: {detail}",
                raw=raw_excerpt(data, self.max_raw_chars) if data else None,
            )
        )

    # -- helpers for handlers ----------------------------------------------------------------

    def error(self, code: str, message: str, data: str | None = None) -> updates.Error:
        """An error update; ``data`` (the offending payload) is quoted in the message and
        kept, bounded, in ``raw``."""
        if data is None:
            return updates.Error(error_code=code, message=message)
        return updates.Error(
            error_code=code,
            message=f"{message}: {excerpt(data)}",
            raw=raw_excerpt(data, self.max_raw_chars),
        )

    def provider_error_update(
        self, error: Any, data: str, where: str = "in stream"
    ) -> updates.Error:
        """``provider_error`` for an in-band error object, and remember that one came."""
        self.provider_error = True
        return updates.Error(
            error_code=ErrorCode.PROVIDER_ERROR,
            message=f"provider error {where}: {error_message(error)}",
            raw=raw_excerpt(data, self.max_raw_chars),
        )

    def metadata(
        self, response_id: str | None, model: str | None, out: list[AgentResponseUpdate]
    ) -> None:
        """Emit ``ResponseMetadata`` when the id or model differs from the last ones emitted;
        empty strings count as absent, and an absent value is not a change."""
        response_id = response_id or None
        model = model or None
        if (response_id is not None and response_id != self._last_id) or (
            model is not None and model != self._last_model
        ):
            if response_id is not None:
                self._last_id = response_id
            if model is not None:
                self._last_model = model
            out.append(updates.ResponseMetadata(id=response_id, model=model))


def error_message(error: Any) -> str:
    """A provider's error object as one line: its message, with its code or type."""
    if isinstance(error, dict):
        message = error.get("message")
        code = error.get("code") or error.get("type")
        if isinstance(message, str) and message:
            return f"{message} (code {code})" if code is not None else message
    if isinstance(error, str) and error:
        return error
    return excerpt(msgspec.json.encode(error))


def _shapes(seen: list[str]) -> str:
    """What unrecognised payloads looked like: the keys of each distinct shape (and its
    ``type``), e.g. ``keys id, object, choices; keys type=content-delta, index, delta``."""
    shown: list[str] = []
    for data in seen:
        try:
            value = msgspec.json.decode(data)
        except (msgspec.DecodeError, RecursionError):  # cut to _UNRECOGNISED_CHARS
            value = None
        if not isinstance(value, dict):
            what = f"data {excerpt(data, 60)}"
        else:
            keys = []
            for key, item in list(value.items())[:8]:
                if key == "type" and isinstance(item, str):
                    keys.append(f"type={excerpt(item, 40)[1:-1]}")
                elif isinstance(item, list) and item and isinstance(item[0], dict):
                    inner = ",".join(list(item[0])[:4])
                    keys.append(f"{key}[].{{{inner}}}")
                else:
                    keys.append(key)
            what = "keys " + ", ".join(keys) if keys else "an empty object"
        if what not in shown:
            shown.append(what)
    return "; ".join(shown) if shown else "nothing"
