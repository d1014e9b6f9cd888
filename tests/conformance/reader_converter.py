"""An independent reader of the converter: a golden's ``updates`` in, its ``results`` out.

Written from docs/converter.md ("AgentResponseConverter", "Update by update", "Tool calls",
"finalize", "Argument fragments, progress and network reads", "Limits",
"StreamingArgsParser"), docs/agent.md ("What collect makes of a tool loop's run": the
converter turns each ``RoundFinished`` update into the round's closed calls and a
``RoundFinished`` content), raf-spec 3.6 (one result per update that produced something, then
the final one) and the JSON shapes of conformance/schema/update.schema.json and
agent_response_result.schema.json. It imports nothing from raf: only the standard library.

:func:`read_results` turns the canonical JSON of one interaction's updates into the canonical
JSON of the results raf's pipeline gives for them (metadata left out, as the goldens write
them): the same keys, in the same order, with the same values. Error messages are for people;
the reader writes its own, and reviews compare errors with messages blanked. Every update type
of update.schema.json is read, the tool loop's included (``tool_called``,
``tool_approval_request``, ``round_finished``), so a run of the agent reads the same way.

Not modelled (no golden reaches them): the size limits ``max_arguments_chars``,
``max_total_arguments_chars`` and ``max_tool_calls``, and ``internal_error``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from typing import Any

__all__ = ["ArgsParser", "parse_arguments", "read_results"]

MAX_JSON_DEPTH = 256
"""docs/converter.md, "Limits": ``max_json_depth`` is 256 levels by default."""

INTERRUPTING_CODES = frozenset(
    {"stream_truncated", "sse_limit_exceeded", "stream_corrupt", "http_error"}
    | {"transport_error", "cancelled"}
)
"""The error updates that mean the turn was interrupted (docs/converter.md, "finalize": "it was
truncated (the dialect reported `stream_truncated`), a size limit abandoned it, reading it
failed, or it was cancelled"; the error codes of raf's model name each of these)."""

JSON_WHITESPACE = " \t\r\n"
"""docs/converter.md: "JSON whitespace: space, tab, CR, LF"."""

NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?\Z")
TOKEN_CHARS = frozenset("0123456789+-.abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
"""What a number or literal is read as: the run of these characters after its first one."""
SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r"}
SIMPLE_ESCAPES["t"] = "\t"
HEX = frozenset("0123456789abcdefABCDEF")
LITERALS = {"t": "true", "f": "false", "n": "null"}
"""The first character of each literal."""


class JSONRejected(ValueError):
    """The text is not one strict JSON document (or nests too deep: ``too_deep``)."""

    def __init__(self, reason: str, *, too_deep: bool = False) -> None:
        super().__init__(reason)
        self.too_deep = too_deep


# ---------------------------------------------------------------------------------------------
# Strict decoding ("Strict: a raw control character, a lone surrogate, a bad escape, a
# malformed number, a number out of range, nesting deeper than max_depth ...").
# ---------------------------------------------------------------------------------------------


def _no_constant(name: str) -> Any:
    raise JSONRejected(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise JSONRejected(f"number out of range: {text}")
    return value


def _check_strings(value: Any) -> None:
    """Reject lone surrogates (escaped or raw) in every string and key of ``value``."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if any("\ud800" <= char <= "\udfff" for char in item):
                raise JSONRejected("lone surrogate")
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _checked_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object whose keys and values hold no lone surrogate, checked before a repeated key
    drops an earlier value (the last one wins, as in the final parse)."""
    for key, value in pairs:
        _check_strings(key)
        if not isinstance(value, dict):
            _check_strings(value)
    return dict(pairs)


def nesting_depth(text: str) -> int:
    """The deepest nesting of objects and arrays in ``text`` (brackets in strings skipped)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "}]":
            depth -= 1
    return deepest


def strict_loads(text: str, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``text`` as one strict JSON document, or :class:`JSONRejected`."""
    if nesting_depth(text) > max_depth:
        raise JSONRejected(f"nests deeper than {max_depth}", too_deep=True)
    if text.strip(JSON_WHITESPACE) != text.strip():  # other whitespace around the document
        raise JSONRejected("whitespace that is not JSON's")
    try:
        value = json.loads(
            text,
            parse_constant=_no_constant,
            parse_float=_finite_float,
            object_pairs_hook=_checked_object,
        )
    except JSONRejected:
        raise
    except (ValueError, RecursionError) as exc:
        raise JSONRejected(str(exc)) from None
    _check_strings(value)
    return value


def parse_arguments(text: str, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """A call's arguments at ``finalize``: "the argument text parsed strictly as one JSON
    document (empty text, or only JSON whitespace: space, tab, CR, LF, is `{}`)"."""
    if text.strip(JSON_WHITESPACE) == "":
        return {}
    return strict_loads(text, max_depth)


# ---------------------------------------------------------------------------------------------
# The incremental argument parser (docs/converter.md, "StreamingArgsParser").
# ---------------------------------------------------------------------------------------------

# States of the top-level scan.
START, KEY_OR_END, KEY, KEY_NEXT, COLON, VALUE, STRING, NESTED, TOKEN = range(9)
AFTER_VALUE, AFTER_END, STOPPED = range(9, 12)


class ArgsParser:
    """One call's parser: :meth:`push` a fragment, get its events.

    An event is ``("parsed", name, value)`` or ``("progress", name, received, value)``.
    """

    def __init__(self, max_depth: int = MAX_JSON_DEPTH) -> None:
        self.max_depth = max_depth
        self.error: str | None = None
        self.state = START
        self.key = ""
        self.raw = ""  # the raw text of the key, or of the value being read
        self.decoded: list[str] = []  # a string's characters decoded since its last progress
        self.received = 0  # characters of the open string value decoded so far
        self.escape: str | None = None  # an escape sequence not yet complete
        self.high: str | None = None  # a decoded high surrogate waiting for its low half
        self.depth = 0  # nesting inside a nested value
        self.in_string = False  # inside a string of a nested value
        self.escaped = False

    def _stop(self, reason: str) -> None:
        self.error = reason
        self.state = STOPPED

    def push(self, fragment: str) -> list[tuple[Any, ...]]:
        events: list[tuple[Any, ...]] = []
        for char in fragment:
            if self.state == STOPPED:
                break
            self._char(char, events)
        if self.state == STRING and self.decoded:
            # "at most one per push and key": the characters decoded since the last progress
            # (kept in ``raw``, which holds what earlier progress events gave).
            text = "".join(self.decoded)
            self.raw += text
            self.decoded = []
            events.append(("progress", self.key, self.received, text))
        return events

    # -- one character ----------------------------------------------------------------------

    def _char(self, char: str, events: list[tuple[Any, ...]]) -> None:
        state = self.state
        if state == STRING:
            self._string_char(char, events, value=True)
        elif state == KEY:
            self._string_char(char, events, value=False)
        elif state == NESTED:
            self._nested_char(char, events)
        elif state == TOKEN:
            if char in TOKEN_CHARS:
                self.raw += char
            else:
                self._end_token(events)
                if self.state != STOPPED:
                    self._char(char, events)
        elif char in JSON_WHITESPACE:
            return
        elif state == START:
            if char == "{":
                self.depth = 1
                self.state = KEY_OR_END
            else:
                self._stop("the arguments are not an object")
        elif state in (KEY_OR_END, KEY_NEXT):
            if char == '"':
                self._open_string(KEY)
            elif char == "}" and state == KEY_OR_END:
                self.state = AFTER_END
            else:
                self._stop(f"expected a key, got {char!r}")
        elif state == COLON:
            if char == ":":
                self.state = VALUE
            else:
                self._stop(f"expected ':', got {char!r}")
        elif state == VALUE:
            self._value_start(char)
        elif state == AFTER_VALUE:
            if char == ",":
                self.state = KEY_NEXT
            elif char == "}":
                self.state = AFTER_END
            else:
                self._stop(f"expected ',' or '}}', got {char!r}")
        else:  # AFTER_END: "anything after the closing brace stops the parser"
            self._stop("text after the closing brace")

    def _value_start(self, char: str) -> None:
        self.raw = char
        if char == '"':
            self._open_string(STRING)
        elif char in "{[":
            if self.max_depth < 2:
                self._stop("too deep")
                return
            self.depth = 2
            self.in_string = self.escaped = False
            self.state = NESTED
        elif char == "-" or char.isdigit() or char in LITERALS:
            self.state = TOKEN
        else:
            self._stop(f"unexpected {char!r}")

    def _open_string(self, state: int) -> None:
        self.state = state
        self.raw = ""
        self.decoded = []
        self.received = 0
        self.escape = None
        self.high = None

    def _complete(self, value: Any, events: list[tuple[Any, ...]]) -> None:
        events.append(("parsed", self.key, value))
        self.state = AFTER_VALUE

    def _end_token(self, events: list[tuple[Any, ...]]) -> None:
        """A number or literal ends at the first character that cannot continue it."""
        token = self.raw
        if token in LITERALS.values():
            self._complete(strict_loads(token), events)
            return
        if not NUMBER.match(token):
            self._stop(f"malformed number or literal {token!r}")
            return
        try:
            value = strict_loads(token)
        except JSONRejected as exc:
            self._stop(str(exc))
            return
        self._complete(value, events)

    def _nested_char(self, char: str, events: list[tuple[Any, ...]]) -> None:
        self.raw += char
        if self.in_string:
            if self.escaped:
                self.escaped = False
            elif char == "\\":
                self.escaped = True
            elif char == '"':
                self.in_string = False
            return
        if char == '"':
            self.in_string = True
        elif char in "{[":
            self.depth += 1
            if self.depth > self.max_depth:
                self._stop("too deep")
        elif char in "}]":
            self.depth -= 1
            if self.depth == 1:
                try:
                    value = strict_loads(self.raw, self.max_depth)
                except JSONRejected as exc:
                    self._stop(str(exc))
                    return
                self._complete(value, events)

    def _string_char(self, char: str, events: list[tuple[Any, ...]], *, value: bool) -> None:
        """One character of a key (``value`` false) or of a top-level string value."""
        if self.escape is not None:
            self.escape += char
            escape = self.escape
            if len(escape) == 2:
                if char == "u":
                    return
                if char not in SIMPLE_ESCAPES:
                    self._stop(f"bad escape {escape!r}")
                    return
                self.escape = None
                self._decoded_char(SIMPLE_ESCAPES[char])
            elif char not in HEX:
                self._stop(f"bad escape {escape!r}")
            elif len(escape) == 6:
                self.escape = None
                self._decoded_char(chr(int(escape[2:], 16)))
            return
        if char == "\\":
            self.escape = "\\"
        elif char == '"':
            if self.high is not None:
                self._stop("lone surrogate")
            elif value:
                self._complete(self.raw + "".join(self.decoded), events)
            else:
                self.key = "".join(self.decoded)
                self.decoded = []
                self.state = COLON
        elif char < " ":
            self._stop("raw control character in a string")
        elif "\ud800" <= char <= "\udfff":
            self._stop("raw lone surrogate")
        else:
            self._decoded_char(char)

    def _decoded_char(self, char: str) -> None:
        if self.state == STOPPED:
            return
        if self.high is not None:
            if not "\udc00" <= char <= "\udfff":
                self._stop("lone surrogate")
                return
            pair = self.high + char
            char = pair.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
            self.high = None
        elif "\ud800" <= char <= "\udbff":
            self.high = char
            return
        elif "\udc00" <= char <= "\udfff":
            self._stop("lone surrogate")
            return
        self.decoded.append(char)
        if self.state == STRING:
            self.received += 1


# ---------------------------------------------------------------------------------------------
# The converter (docs/converter.md, "AgentResponseConverter").
# ---------------------------------------------------------------------------------------------


class Call:
    """One tool call: "A call's life is a small state table" (open, ended, called)."""

    def __init__(self, number: int, index: int | None) -> None:
        self.number = number  # "n counts this converter's calls from 0 in first-seen order"
        self.index = index
        self.provider_id: str | None = None
        self.call_id: str | None = None  # fixed when the call starts
        self.name: str | None = None
        self.text = ""
        self.held: list[str] = []  # fragments that arrived before the name
        self.ended = False
        self.explicitly_ended = False
        self.called = False
        self.parser = ArgsParser()

    @property
    def started(self) -> bool:
        return self.name is not None

    @property
    def is_open(self) -> bool:
        return not self.ended and not self.called

    @property
    def reported_id(self) -> str:
        if self.call_id is not None:
            return self.call_id
        return self.provider_id if self.provider_id is not None else f"__tc_{self.number}"


def content(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, **fields}


def error(code: str, message: str, raw: Any = None, call_id: str | None = None) -> dict[str, Any]:
    return content("error", error_code=code, message=message, call_id=call_id, raw=raw)


def custom(event_type: str, **payload: Any) -> dict[str, Any]:
    return {"type": "custom", "event_type": event_type, "payload": payload}


def result(
    contents: list[dict[str, Any]],
    events: list[dict[str, Any]],
    response_id: str | None = None,
    model: str | None = None,
    finish_reason: str | None = None,
) -> dict[str, Any]:
    return {
        "type": "agent_response_result",
        "id": response_id,
        "model": model,
        "finish_reason": finish_reason,
        "contents": contents,
        "events": events,
    }


class Converter:
    """The converter's rules, update by update, and ``finalize``."""

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.by_id: dict[str, Call] = {}
        self.by_index: dict[int, Call] = {}
        self.last_routed: Call | None = None
        self.count = 0
        self.response_id: str | None = None
        self.model: str | None = None
        self.round_id: str | None = None  # the id and model of the round a RoundFinished ended
        self.round_model: str | None = None

    # -- calls --------------------------------------------------------------------------------

    def _new_call(self, index: int | None, call_id: str | None) -> Call:
        call = Call(self.count, index)
        self.count += 1
        self.calls.append(call)
        if call_id is not None:
            call.provider_id = call_id
            self.by_id[call_id] = call
        return call

    def _route(self, index: int | None, call_id: str | None, name: str | None) -> Call:
        """Rules 1-4 of "Tool calls"."""
        if call_id is not None and call_id in self.by_id:  # 1
            return self.by_id[call_id]

        def fits(call: Call | None) -> bool:
            return (
                call is not None
                and call.is_open
                and (name is None or call.name is None or call.name == name)
            )

        if call_id is not None:
            known = self.by_index.get(index) if index is not None else None
            if fits(known) and known is not None and known.provider_id is None:  # 2
                return known
            return self._new_call(index, None)
        if index is not None:  # 3
            known = self.by_index.get(index)
            return known if fits(known) and known is not None else self._new_call(index, None)
        last = self.last_routed  # 4
        return last if fits(last) and last is not None else self._new_call(None, None)

    def _bind(self, call: Call, call_id: str, events: list[dict[str, Any]]) -> None:
        """An id for a call that had none: its id, or bound to it after its start."""
        self.by_id[call_id] = call
        if call.provider_id is None:
            call.provider_id = call_id
        if call.call_id is not None and call.call_id != call_id:
            events.append(
                custom("tool_call_provider_id", call_id=call.call_id, provider_id=call_id)
            )

    def _name(self, call: Call, name: str, contents: list[dict[str, Any]]) -> None:
        """The call starts: "A call starts (`ToolCallStart`) when its name is known"; the
        fragments kept until then "are emitted as one `ToolCallArgs` and parsed"."""
        if call.name is not None:
            return  # "a started call is never renamed"
        call.name = name
        call.call_id = call.reported_id
        self.by_id.setdefault(call.call_id, call)  # "__tc_<n>" names the call from now on
        contents.append(content("tool_call_start", call_id=call.call_id, name=name))
        if call.held:
            held = "".join(call.held)
            call.held = []
            self._emit_args(call, held, contents)

    def _args(self, call: Call, delta: str, contents: list[dict[str, Any]]) -> None:
        if not delta:
            return
        call.text += delta
        if call.started:
            self._emit_args(call, delta, contents)
        else:
            call.held.append(delta)

    def _emit_args(self, call: Call, delta: str, contents: list[dict[str, Any]]) -> None:
        call_id = call.reported_id
        contents.append(content("tool_call_args", call_id=call_id, args_delta=delta))
        for event in call.parser.push(delta):
            if event[0] == "parsed":
                contents.append(
                    content("tool_call_args_parsed", call_id=call_id, name=event[1], value=event[2])
                )
            else:
                contents.append(
                    content(
                        "tool_call_args_progress",
                        call_id=call_id,
                        name=event[1],
                        received=event[2],
                        value=event[3],
                    )
                )

    def _end(self, call: Call, contents: list[dict[str, Any]]) -> None:
        if call.ended or call.called:
            return
        call.ended = True
        if call.started:
            contents.append(content("tool_call_end", call_id=call.reported_id))

    def _complete(
        self, call: Call, contents: list[dict[str, Any]], *, incomplete_if_streaming: bool
    ) -> None:
        """Step 2 of ``finalize`` for one call."""
        if call.called:
            return
        call.called = True
        for known in [key for key, value in self.by_id.items() if value is call]:
            del self.by_id[known]  # "A call id reused in a later round is another call"
        call_id, text = call.reported_id, call.text
        if incomplete_if_streaming and not call.explicitly_ended:
            try:
                complete = text.strip(JSON_WHITESPACE) != "" and (parse_arguments(text) or True)
            except JSONRejected as exc:
                complete = exc.too_deep  # too deep is reported as such, below
            if not complete:
                message = f"tool call {call_id} was still streaming when the turn ended"
                contents.append(error("tool_call_incomplete", message, text, call_id))
                return
        if call.name is None:
            message = f"tool call {call_id} never received a name"
            contents.append(error("invalid_tool_call", message, text, call_id))
            return
        try:
            arguments = parse_arguments(text)
        except JSONRejected as exc:
            code = "json_too_deep" if exc.too_deep else "invalid_tool_arguments"
            message = f"arguments of tool call {call_id} ({call.name}) are not JSON: {exc}"
            contents.append(error(code, message, text, call_id))
            return
        contents.append(
            content("tool_calling", call_id=call_id, name=call.name, arguments=arguments)
        )

    def _close_calls(self, contents: list[dict[str, Any]], *, interrupted: bool) -> None:
        """Steps 1 and 2 of ``finalize``: ends, then calls or errors, in first-seen order."""
        for call in self.calls:
            if call.started and not call.ended and not call.called:
                self._end(call, contents)
        for call in self.calls:
            self._complete(call, contents, incomplete_if_streaming=interrupted)
        self.calls = [call for call in self.calls if not call.called]
        self.by_index.clear()
        self.last_routed = None

    # -- updates ------------------------------------------------------------------------------

    def consume(self, update: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        contents: list[dict[str, Any]] = []
        events: list[dict[str, Any]] = []
        kind = update["type"]
        if kind == "text_delta":
            if update["delta"]:
                contents.append(content("text", delta=update["delta"]))
        elif kind == "reasoning_delta":
            if update["delta"]:
                contents.append(content("reasoning", delta=update["delta"]))
        elif kind == "tool_call_delta":
            index, call_id, name = update["index"], update["id"], update["name"]
            call = self._route(index, call_id, name)
            if call_id is not None and call_id not in self.by_id:
                self._bind(call, call_id, events)
            if index is not None:
                self.by_index[index] = call
                if call.index is None:
                    call.index = index
            self.last_routed = call
            if name is not None:
                self._name(call, name, contents)
            self._args(call, update["arguments_delta"], contents)
        elif kind == "tool_call_start":
            call = self.by_id.get(update["id"]) or self._new_call(None, update["id"])
            self.last_routed = call
            self._name(call, update["name"], contents)
        elif kind == "tool_call_args":
            call = self.by_id.get(update["id"]) or self._new_call(None, update["id"])
            self.last_routed = call
            self._args(call, update["args_delta"], contents)
        elif kind == "tool_call_end":
            found = self.by_id.get(update["id"])
            if found is not None and not found.ended and not found.called:
                found.explicitly_ended = True
                self._end(found, contents)
        elif kind == "tool_called":
            # Under the id the converter reports the call under (a late provider id names
            # the call it was bound to).
            found = self.by_id.get(update["id"])
            if found is not None and not found.called:
                self._end(found, contents)
                self._complete(found, contents, incomplete_if_streaming=False)
                self.calls.remove(found)
            contents.append(
                content(
                    "tool_called",
                    call_id=update["id"] if found is None else found.reported_id,
                    result=update["result"],
                    error=update["error"],
                )
            )
        elif kind == "tool_approval_request":
            contents.append(
                content(
                    "tool_approval_request",
                    call_id=update["call_id"],
                    name=update["name"],
                    arguments=update["arguments"],
                    description=update["description"],
                )
            )
        elif kind == "hosted_tool_call":
            names = ("call_id", "name", "arguments", "item")
            contents.append(content("hosted_tool_call", **{f: update[f] for f in names}))
        elif kind == "hosted_tool_result":
            fields = ("call_id", "name", "output", "error", "item")
            contents.append(content("hosted_tool_result", **{f: update[f] for f in fields}))
        elif kind == "reasoning_signature":
            events.append(custom("reasoning_signature", signature=update["signature"]))
        elif kind == "part_signature":
            events.append(
                custom("part_signature", signature=update["signature"], part=update["part"])
            )
        elif kind == "redacted_reasoning":
            events.append(custom("redacted_reasoning", data=update["data"]))
        elif kind == "reasoning_item":
            events.append(
                custom(
                    "reasoning_item",
                    item_id=update["item_id"],
                    encrypted_content=update["encrypted_content"],
                    summary=update["summary"],
                )
            )
        elif kind == "tool_call_item":
            # "(the call id the converter reports the call under)"
            found = self.by_id.get(update["call_id"])
            call_id = found.reported_id if found is not None else update["call_id"]
            events.append(custom("tool_call_item", call_id=call_id, item_id=update["item_id"]))
        elif kind == "raw_item":
            events.append(custom("raw_item", item=update["item"]))
        elif kind in ("usage", "finish"):
            if update["usage"] is not None:
                contents.append(content("usage", usage=update["usage"]))
        elif kind == "error":
            contents.append(error(update["error_code"], update["message"], update["raw"]))
        elif kind == "response_metadata":
            if update["id"] is not None:
                self.response_id = update["id"]
            if update["model"] is not None:
                self.model = update["model"]
        elif kind == "round_finished":
            # docs/agent.md: "the converter turns each `RoundFinished` update into the round's
            # closed calls and a `RoundFinished` content".
            self._close_calls(contents, interrupted=False)
            # Its result is the round's own end: it carries the round's response id and model,
            # which the next round does not inherit.
            self.round_id, self.round_model = self.response_id, self.model
            self.response_id = self.model = None
            contents.append(
                content(
                    "round_finished",
                    round=update["round"],
                    finish_reason=update["finish_reason"],
                    usage=update["usage"],
                )
            )
        else:
            raise ValueError(f"not an update type of update.schema.json: {kind!r}")
        return contents, events

    def finalize(self, finish_reason: str | None, *, interrupted: bool) -> dict[str, Any]:
        """``finalize(finish_reason, usage, interrupted)``: the final result."""
        contents: list[dict[str, Any]] = []
        self._close_calls(contents, interrupted=interrupted and finish_reason is None)
        final = result(contents, [], self.response_id, self.model, finish_reason)
        self.response_id = self.model = None
        return final


def read_results(updates: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The results of one turn's ``updates`` (canonical JSON, metadata left out): one result
    per update that produced contents or events, then the final result.

    The pipeline records the reason of the last ``Finish`` for the final result (raf-spec 3.6:
    "last one wins") and passes ``interrupted`` when an error update says the stream ended
    abnormally (:data:`INTERRUPTING_CODES`).
    """
    converter = Converter()
    results: list[dict[str, Any]] = []
    finish_reason: str | None = None
    interrupted = False
    for update in updates:
        if update["type"] == "finish":
            finish_reason = update["finish_reason"]
        elif update["type"] == "round_finished":
            finish_reason = None  # a reason that came before belongs to the round it closed
        elif update["type"] == "error" and update["error_code"] in INTERRUPTING_CODES:
            interrupted = True
        contents, events = converter.consume(update)
        if update["type"] == "round_finished":
            results.append(result(contents, events, converter.round_id, converter.round_model))
        elif contents or events:
            results.append(result(contents, events))
    results.append(converter.finalize(finish_reason, interrupted=interrupted))
    return results
