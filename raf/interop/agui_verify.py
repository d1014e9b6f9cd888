"""A verifier of AG-UI event streams: the lifecycle rules of AG-UI's TypeScript verifier, in
Python, reporting every violation with its position instead of stopping at the first. Sans-IO.

    from raf.interop.agui_verify import verify

    for violation in verify(events):          # events: the decoded JSON objects, in order
        print(violation)                      # "3: text_message_end_not_open: Cannot send ..."

:func:`verify` checks a whole stream; :class:`Verifier` is the same check fed one event at a
time (``feed(event)`` and, at the end, ``close()``), each call answering the violations it
found. Neither ever raises: whatever is fed (not a dict, a type AG-UI does not have, an id that
is not a string) is a violation that says so.

The rules are data, ``agui_rules.yaml`` beside this module: each has an id, the sentence it
says, the message a violation gives and its source (the lines of ``verify.ts`` or the section
of AG-UI's documentation). :func:`rules` reads them, :func:`rules_markdown` renders them as a
table. What is checked, in order, for each event:

1. the event is a JSON object with a ``type`` string that AG-UI knows, and the id the rules of
   its type key on (``messageId``, ``toolCallId``, ``stepName``) is a string; an event that
   fails here is reported and changes nothing else;
2. chunk events (``TEXT_MESSAGE_CHUNK``, ``TOOL_CALL_CHUNK``, ``REASONING_MESSAGE_CHUNK``) are
   expanded into the start, content and end events they stand for, as the TypeScript client
   does before it verifies (``transformChunks``); every event expanded from a chunk is checked
   at the chunk's position;
3. the rules of ``verify.ts``, in its order: nothing after ``RUN_ERROR`` but a new
   ``RUN_STARTED``; nothing after ``RUN_FINISHED`` but ``RUN_ERROR`` or a new ``RUN_STARTED``;
   the first event is ``RUN_STARTED`` (or ``RUN_ERROR``); no ``RUN_STARTED`` inside a run;
   then the rules of the event's type (a start of an id already open, a content or end of an
   id not open, ``RUN_FINISHED`` with anything still open), and the same for ``REASONING_*``,
   which ``verify.ts`` does not check yet;
4. at the end (``close``): a stream with no event, or whose last run never ended.

How it goes on after a violation (``verify.ts`` stops at the first): the event that broke a
rule is reported and otherwise ignored, as if it had not been sent, with two exceptions that
keep one mistake from being reported again and again: a first event that is not
``RUN_STARTED`` is reported and then read as the stream's first event all the same, and a
``RUN_FINISHED`` with things still open is reported once per kind still open and then ends the
run. So a content event for a message that never started is reported each time it comes, and
every event after a ``RUN_ERROR`` is reported, each at its position.

A position is the event's index in the stream, from 0 (a violation found at the end has the
position one past the last event).
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import yaml

__all__ = ["Rule", "Verifier", "Violation", "event_types", "rules", "rules_markdown", "verify"]

_RULES_FILE: Final = Path(__file__).with_name("agui_rules.yaml")


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken rule: the event's position (index from 0), the rule's id, the message and
    the event's type (``None`` when the event had no type string, or for the end of the
    stream)."""

    position: int
    rule: str
    message: str
    event_type: str | None

    def __str__(self) -> str:
        return f"{self.position}: {self.rule}: {self.message}"

    def to_json(self) -> dict[str, Any]:
        """The violation as a JSON object (what ``raf agui verify --json`` prints)."""
        return {
            "position": self.position,
            "rule": self.rule,
            "message": self.message,
            "event_type": self.event_type,
        }


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule of ``agui_rules.yaml``: its id, what it says, its message template and where
    it comes from."""

    id: str
    says: str
    message: str
    source: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Data:
    rules: dict[str, Rule]
    event_types: frozenset[str]
    id_fields: dict[str, str]
    chunk_note: str
    sources: dict[str, str]


@functools.cache
def _data() -> _Data:
    document = yaml.safe_load(_RULES_FILE.read_text(encoding="utf-8"))
    found = {
        entry["id"]: Rule(
            id=entry["id"],
            says=entry["says"],
            message=entry["message"],
            source=tuple(str(s) for s in entry["source"]),
        )
        for entry in document["rules"]
    }
    return _Data(
        rules=found,
        event_types=frozenset(document["event_types"]["names"]),
        id_fields=dict(document["id_fields"]["fields"]),
        chunk_note=document["chunk_note"],
        sources={str(k): str(v) for k, v in document["sources"].items()},
    )


def rules() -> dict[str, Rule]:
    """The rules, by id, in the order of ``agui_rules.yaml``."""
    return dict(_data().rules)


def event_types() -> frozenset[str]:
    """The event types the verifier knows (AG-UI's TypeScript ``EventType`` and Python
    ``ag_ui.core.EventType``)."""
    return _data().event_types


def rules_markdown() -> str:
    """The rules as a Markdown table (id, what it says, source), then what the sources'
    abbreviations stand for."""

    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    lines = ["| rule | what it says | source |", "| --- | --- | --- |"]
    lines += [
        f"| `{rule.id}` | {cell(rule.says)} | {cell('; '.join(rule.source))} |"
        for rule in _data().rules.values()
    ]
    lines.append("")
    lines += [f"- {name}: {cell(text)}" for name, text in _data().sources.items()]
    return "\n".join(lines) + "\n"


class _Fields(string.Formatter):
    """``str.format`` that never raises: a field the template names but was not given is
    ``?``."""

    def get_value(self, key: int | str, args: Any, kwargs: Mapping[str, Any]) -> Any:
        return kwargs.get(str(key), "?")


_FORMAT: Final = _Fields()
_UNPRINTABLE: Final = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_SHOWN_CHARS: Final = 120


def _shown(value: object) -> str:
    """A value as a message shows it: control characters escaped, long text cut."""
    text = value if isinstance(value, str) else repr(value)
    if len(text) > _SHOWN_CHARS:
        text = text[: _SHOWN_CHARS - 1] + "…"
    return _UNPRINTABLE.sub(lambda m: f"\\u{ord(m[0]):04x}", text)


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    return f"a {type(value).__name__}"


# The event types of the run, as verify.ts names them.
_RUN_STARTED: Final = "RUN_STARTED"
_RUN_FINISHED: Final = "RUN_FINISHED"
_RUN_ERROR: Final = "RUN_ERROR"

# transformChunks (transform.ts:131-162): the events that close a message or tool call
# opened by chunks before they pass, and those that pass without closing it. The types it
# does not list (SUBAGENT_*) pass too.
_PASS_WITHOUT_CLOSING: Final = frozenset(
    {"RAW", "ACTIVITY_SNAPSHOT", "ACTIVITY_DELTA", "REASONING_ENCRYPTED_VALUE"}
    | {"SUBAGENT_STARTED", "SUBAGENT_FINISHED", "SUBAGENT_ERROR"}
)
# chunk type -> (mode, the type it starts, continues and ends, its id field, what it is)
_CHUNKS: Final = {
    "TEXT_MESSAGE_CHUNK": ("text", "TEXT_MESSAGE", "messageId", "text message"),
    "TOOL_CALL_CHUNK": ("tool", "TOOL_CALL", "toolCallId", "tool call"),
    "REASONING_MESSAGE_CHUNK": ("reasoning", "REASONING_MESSAGE", "messageId", "reasoning message"),
}
_PARTS: Final = {  # (start, content, end) of each chunk family
    "TEXT_MESSAGE": ("TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END"),
    "TOOL_CALL": ("TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END"),
    "REASONING_MESSAGE": (
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_END",
    ),
}

_STARTS: Final = frozenset(start for start, _, _ in _PARTS.values())

# The families keyed by an id: type -> (family, role). A family is a set of open ids.
_KEYED: Final = {
    "TEXT_MESSAGE_START": ("messages", "start"),
    "TEXT_MESSAGE_CONTENT": ("messages", "content"),
    "TEXT_MESSAGE_END": ("messages", "end"),
    "TOOL_CALL_START": ("tool_calls", "start"),
    "TOOL_CALL_ARGS": ("tool_calls", "content"),
    "TOOL_CALL_END": ("tool_calls", "end"),
    "STEP_STARTED": ("steps", "start"),
    "STEP_FINISHED": ("steps", "end"),
    "REASONING_START": ("reasoning", "start"),
    "REASONING_END": ("reasoning", "end"),
    "REASONING_MESSAGE_START": ("reasoning_messages", "start"),
    "REASONING_MESSAGE_CONTENT": ("reasoning_messages", "content"),
    "REASONING_MESSAGE_END": ("reasoning_messages", "end"),
}
# family -> rule of a start whose id is open, of a content and of an end whose id is not
_KEYED_RULES: Final = {
    "messages": {
        "start": "text_message_duplicate",
        "content": "text_message_content_not_open",
        "end": "text_message_end_not_open",
    },
    "tool_calls": {
        "start": "tool_call_duplicate",
        "content": "tool_call_args_not_open",
        "end": "tool_call_end_not_open",
    },
    "steps": {"start": "step_duplicate", "end": "step_not_started"},
    "reasoning": {"start": "reasoning_duplicate", "end": "reasoning_end_not_open"},
    "reasoning_messages": {
        "start": "reasoning_message_duplicate",
        "content": "reasoning_message_content_not_open",
        "end": "reasoning_message_end_not_open",
    },
}
# What RUN_FINISHED checks is closed, in verify.ts's order, then the reasoning.
_RUN_FINISHED_RULES: Final = (
    (("steps",), "run_finished_steps_open"),
    (("messages",), "run_finished_messages_open"),
    (("tool_calls",), "run_finished_tool_calls_open"),
    (("reasoning", "reasoning_messages"), "run_finished_reasoning_open"),
)


class Verifier:
    """The verifier as a state machine: :meth:`feed` each event in order, then :meth:`close`.
    Each answers the violations it found (module docstring); neither raises.

    Args:
        chunks: expand ``*_CHUNK`` events into the events they stand for before checking
            (the TypeScript client's ``transformChunks``); with ``False`` they open and close
            nothing, as for ``verify.ts`` alone (the rules of the run still apply to them).
    """

    def __init__(self, *, chunks: bool = True) -> None:
        self._data = _data()
        self._expand_chunks = chunks
        self.position = 0
        """The position the next event will have: how many were fed."""
        # verify.ts's state (verify.ts:11-21)
        self._open: dict[str, dict[str, None]] = {family: {} for family in _KEYED_RULES}
        self._first_received = False
        self._run_started = False
        self._run_finished = False
        self._run_error = False
        self._thinking = False
        self._thinking_message = False
        # transformChunks's state (transform.ts:56-59)
        self._chunk_mode: str | None = None
        self._chunk_id = ""
        self._closed = False

    # -- input -------------------------------------------------------------------------

    def feed(self, event: object) -> list[Violation]:
        """Check the next event; answer the violations it makes."""
        found: list[Violation] = []
        position = self.position
        self.position += 1
        checked = self._readable(event, position, found)
        if checked is None:
            return found
        event_type, ident, mapping = checked
        for expanded_type, expanded_id, chunk in self._expanded(
            event_type, ident, mapping, position, found
        ):
            before = len(found)
            self._check(expanded_type, expanded_id, position, event_type, found)
            if not chunk or len(found) == before:
                continue
            note = self._data.chunk_note
            found[before:] = [
                Violation(v.position, v.rule, v.message + note, v.event_type)
                for v in found[before:]
            ]
            if expanded_type in _STARTS:  # a chunk whose start breaks a rule opens nothing
                self._chunk_mode = None
                break
        return _unique(found)

    def feed_unreadable(self, reason: str) -> list[Violation]:
        """Count a frame of the stream that could not be read as JSON as the next event, and
        answer its violation (``not_json``)."""
        position = self.position
        self.position += 1
        return [self._violation(position, "not_json", None, reason=_shown(reason))]

    def close(self, *, truncated: bool = False) -> list[Violation]:
        """End the stream; answer what its end breaks. ``truncated``: the transport ended
        inside an unfinished frame (a framing's ``truncated``). A second call answers
        nothing."""
        if self._closed:
            return []
        self._closed = True
        found: list[Violation] = []
        if truncated:
            found.append(self._violation(self.position, "unfinished_frame", None))
        if self.position == 0 and not truncated:
            found.append(self._violation(0, "empty_stream", None))
        elif self._run_started and not self._run_finished and not self._run_error:
            found.append(self._violation(self.position, "run_not_ended", None))
        return found

    # -- steps of feed -----------------------------------------------------------------

    def _violation(
        self, position: int, rule: str, event_type: str | None, **fields: object
    ) -> Violation:
        template = self._data.rules[rule].message
        return Violation(position, rule, _FORMAT.format(template, **fields), event_type)

    def _readable(
        self, event: object, position: int, found: list[Violation]
    ) -> tuple[str, str | None, Mapping[Any, Any]] | None:
        """The event's type and id when the rules can read it; else report why, and None."""
        if not isinstance(event, Mapping):
            found.append(self._violation(position, "not_an_object", None, reason=_kind(event)))
            return None
        event_type = event.get("type")
        if not isinstance(event_type, str):
            reason = "" if "type" not in event else f" (it is {_kind(event_type)})"
            found.append(self._violation(position, "missing_type", None, reason=reason))
            return None
        if event_type not in self._data.event_types:
            found.append(
                self._violation(position, "unknown_event_type", event_type, type=_shown(event_type))
            )
            return None
        field = self._data.id_fields.get(event_type) or (
            _CHUNKS[event_type][2] if event_type in _CHUNKS else None
        )
        if field is None:
            return event_type, None, event
        value = event.get(field)
        if isinstance(value, str):
            return event_type, value, event
        if value is None and event_type in _CHUNKS and field not in event:
            return event_type, None, event  # a chunk that continues the open one
        reason = " (it is missing)" if field not in event else f" (it is {_kind(value)})"
        found.append(
            self._violation(
                position, "missing_id", event_type, type=event_type, field=field, reason=reason
            )
        )
        return None

    def _expanded(
        self,
        event_type: str,
        ident: str | None,
        event: Mapping[Any, Any],
        position: int,
        found: list[Violation],
    ) -> list[tuple[str, str | None, bool]]:
        """The events ``event`` stands for after transformChunks: (type, id, from a chunk)."""
        if not self._expand_chunks:
            return [(event_type, ident, False)]
        if event_type in _PASS_WITHOUT_CLOSING:
            return [(event_type, ident, False)]
        if event_type not in _CHUNKS:
            return [*self._close_chunk(), (event_type, ident, False)]
        mode, family, field, what = _CHUNKS[event_type]
        start, content, _ = _PARTS[family]
        out: list[tuple[str, str | None, bool]] = []
        if self._chunk_mode != mode or (ident is not None and ident != self._chunk_id):
            out += self._close_chunk()
        if self._chunk_mode != mode:
            missing = "" if ident is not None else field
            if not missing and mode == "tool" and not isinstance(event.get("toolCallName"), str):
                missing = "toolCallName"
            if missing:
                found.append(
                    self._violation(
                        position, "chunk_without_id", event_type,
                        type=event_type, what=what, field=missing,
                    )
                )  # fmt: skip
                return out
            assert ident is not None
            self._chunk_mode, self._chunk_id = mode, ident
            out.append((start, ident, True))
        if "delta" in event:
            out.append((content, self._chunk_id, True))
        return out

    def _close_chunk(self) -> list[tuple[str, str | None, bool]]:
        mode = self._chunk_mode
        if mode is None:
            return []
        self._chunk_mode = None
        family = next(f for m, f, _, _ in _CHUNKS.values() if m == mode)
        return [(_PARTS[family][2], self._chunk_id, True)]

    def _check(
        self,
        event_type: str,
        ident: str | None,
        position: int,
        shown_type: str,
        found: list[Violation],
    ) -> None:
        """verify.ts's checks of one event (verify.ts:42-369), reporting instead of throwing."""

        def report(rule: str, **fields: object) -> None:
            found.append(self._violation(position, rule, shown_type, **fields))

        if self._run_error and event_type != _RUN_STARTED:
            report("after_run_error", type=event_type)
            return
        if self._run_finished and event_type not in (_RUN_ERROR, _RUN_STARTED):
            report("after_run_finished", type=event_type)
            return
        if not self._first_received:
            self._first_received = True
            if event_type not in (_RUN_STARTED, _RUN_ERROR):
                report("first_event", type=event_type)  # and read on as the first event
        elif event_type == _RUN_STARTED:
            if self._run_started and not self._run_finished and not self._run_error:
                report("run_already_active")
                return
            if self._run_finished or self._run_error:
                self._new_run()

        if event_type in _KEYED:
            assert ident is not None
            family, role = _KEYED[event_type]
            open_ids = self._open[family]
            if role == "start":
                if ident in open_ids:
                    report(_KEYED_RULES[family]["start"], id=_shown(ident))
                    return
                open_ids[ident] = None
            elif ident not in open_ids:
                report(_KEYED_RULES[family][role], id=_shown(ident))
            elif role == "end":
                del open_ids[ident]
        elif event_type == _RUN_STARTED:
            self._run_started = True
        elif event_type == _RUN_FINISHED:
            for families, rule in _RUN_FINISHED_RULES:
                still = [i for family in families for i in self._open[family]]
                if still:
                    report(rule, open=", ".join(_shown(i) for i in still))
            self._run_finished = True  # reported or not, the run is over
        elif event_type == _RUN_ERROR:
            self._run_error = True
        elif event_type.startswith("THINKING_"):
            self._check_thinking(event_type, report)

    def _check_thinking(self, event_type: str, report: Callable[..., None]) -> None:
        """verify.ts:283-364: one thinking step and one thinking message at a time."""
        if event_type == "THINKING_START":
            if self._thinking:
                report("thinking_duplicate")
            self._thinking = True
        elif event_type == "THINKING_END":
            if not self._thinking:
                report("thinking_end_not_open")
            self._thinking = False
        elif event_type == "THINKING_TEXT_MESSAGE_START":
            if not self._thinking:
                report("thinking_message_outside_thinking")
            elif self._thinking_message:
                report("thinking_message_duplicate")
            else:
                self._thinking_message = True
        elif not self._thinking_message:  # THINKING_TEXT_MESSAGE_CONTENT or _END
            report(
                "thinking_message_content_not_open"
                if event_type == "THINKING_TEXT_MESSAGE_CONTENT"
                else "thinking_message_end_not_open"
            )
        elif event_type == "THINKING_TEXT_MESSAGE_END":
            self._thinking_message = False

    def _new_run(self) -> None:
        """verify.ts:24-33: a new run after one that finished or errored."""
        for open_ids in self._open.values():
            open_ids.clear()
        self._thinking = self._thinking_message = False
        self._run_finished = self._run_error = False
        self._run_started = True


def _unique(found: list[Violation]) -> list[Violation]:
    """One violation per rule and position: a chunk that expands into several events after
    the run ended is one event after the run."""
    seen: set[str] = set()
    out: list[Violation] = []
    for violation in found:
        if violation.rule not in seen:
            seen.add(violation.rule)
            out.append(violation)
    return out


def verify(events: Iterable[object], *, chunks: bool = True) -> list[Violation]:
    """Every violation of the AG-UI event stream ``events`` (decoded JSON values, in order),
    in order of position; ``[]`` when it is valid. Never raises (module docstring)."""
    verifier = Verifier(chunks=chunks)
    found: list[Violation] = []
    for event in events:
        found += verifier.feed(event)
    return found + verifier.close()
