"""A small Chat Completions stream reader with switchable bugs, speaking raf-conformance/1.

Without ``--bug`` it is an honest client (standard library only): its own line splitter for
Server-Sent Events, JSON chunks, tool calls routed by id and index, usage, the finish reason,
``[DONE]``, an error when the stream is cut, and a strict JSON parse of each call's final
arguments. ``--bug NAME`` switches on exactly one bug, each one a real client library
shipped (docs/fuzzing.md):

=====================  ==============================================================
``index-only``         tool-call fragments are routed by their ``index`` alone
``concat-names``       a name repeated on a later delta is appended to the call's name
``keep-bom``           a byte-order mark at the start of the body is kept
``cr-not-eol``         only LF and CRLF end a line; a lone CR does not
``usage-null-erases``  a later ``"usage": null`` replaces the usage read before
``partial-json``       cut arguments are completed by closing the open JSON, no error
``done-substring``     any data containing ``[DONE]`` ends the stream
``drop-finish-text``   the content of the chunk that carries the finish reason is ignored
=====================  ==============================================================

``raf conform --impl 'python tests/fuzz/broken/chat_client.py --bug index-only'``.
"""

from __future__ import annotations

import base64
import codecs
import contextlib
import json
import re
import sys
from typing import Any

BUGS = (
    "index-only",
    "concat-names",
    "keep-bom",
    "cr-not-eol",
    "usage-null-erases",
    "partial-json",
    "done-substring",
    "drop-finish-text",
)


# -- bytes -> events -----------------------------------------------------------------------


class Lines:
    """Splits the decoded body into lines: CR, LF and CRLF end a line (``cr_ends``: CR too)."""

    def __init__(self, *, strip_bom: bool, cr_ends: bool) -> None:
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.strip_bom = strip_bom
        self.cr_ends = cr_ends
        self.ends = re.compile(r"\r\n|\r|\n" if cr_ends else r"\n")
        self.started = False
        self.pieces: list[str] = []  # the unfinished line
        self.after_cr = False  # the last read ended with a CR: a LF first in the next is its pair

    @property
    def pending(self) -> bool:
        return any(self.pieces)

    def feed(self, data: bytes, final: bool = False) -> list[str]:
        text = self.decoder.decode(data, final)
        if not text:
            return []
        if not self.started:
            self.started = True
            if self.strip_bom:
                text = text.removeprefix("\ufeff")
        if self.after_cr and text.startswith("\n"):
            text = text[1:]
        self.after_cr = self.cr_ends and text.endswith("\r")
        lines: list[str] = []
        start = 0
        for end in self.ends.finditer(text):
            line = "".join(self.pieces) + text[start : end.start()]
            if not self.cr_ends and line.endswith("\r"):
                line = line[:-1]  # CRLF
            lines.append(line)
            self.pieces = []
            start = end.end()
        if start < len(text):
            self.pieces.append(text[start:])
        return lines


class Events:
    """Lines -> events ``(type, data)``: data lines joined by LF, comments ignored."""

    def __init__(self) -> None:
        self.data: list[str] = []
        self.type = ""
        self.open = False  # a field came since the last blank line

    def line(self, line: str) -> tuple[str, str] | None:
        if line == "":
            event = (self.type or "message", "\n".join(self.data)) if self.data else None
            self.data, self.type, self.open = [], "", False
            return event
        if line.startswith(":"):
            return None
        self.open = True
        field, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if field == "data":
            self.data.append(value)
        elif field == "event":
            self.type = value
        return None


# -- events -> response --------------------------------------------------------------------


def close_json(text: str) -> str:
    """The ``partial-json`` bug: close what is open (a string, arrays, objects)."""
    closers: list[str] = []
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
            closers.append("}" if char == "{" else "]")
        elif char in "}]" and closers:
            closers.pop()
    tail = text
    if escaped:
        tail = tail[:-1]
    if in_string:
        tail += '"'
    stripped = tail.rstrip()
    if stripped.endswith((",", ":")):
        if stripped.endswith(":"):
            stripped += "null"
        else:
            stripped = stripped[:-1]
    return stripped + "".join(reversed(closers))


class Call:
    def __init__(self, number: int, call_id: str | None, index: Any) -> None:
        self.number = number
        self.id = call_id
        self.index = index
        self.name: str | None = None
        self.arguments: list[str] = []


def count(value: Any) -> int:
    return value if type(value) is int and value >= 0 else 0


class Reader:
    """Aggregates one Chat Completions stream's events into the response a caller gets."""

    def __init__(self, bug: str | None) -> None:
        self.bug = bug
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self.calls: list[Call] = []
        self.by_id: dict[str, Call] = {}
        self.by_index: dict[Any, Call] = {}
        self.last: Call | None = None
        self.finish_reason: str | None = None
        self.usage: dict[str, int] | None = None
        self.errors: list[str] = []
        self.done = False
        self.failed = False  # the provider said the stream failed
        self.chunks = 0
        self.foreign = 0  # JSON objects that are no chat completion chunk

    def event(self, kind: str, data: str) -> None:
        if self.done:
            return
        if kind == "error":
            self.failed = True
            self.errors.append(f"error event: {data[:200]}")
            return
        if self.bug == "done-substring":
            if "[DONE]" in data:
                self.done = True
                return
        elif data.strip() == "[DONE]":
            self.done = True
            return
        if not data.strip():
            return
        try:
            chunk = json.loads(data)
        except ValueError as exc:
            self.errors.append(f"not JSON ({exc}): {data[:200]}")
            return
        if not isinstance(chunk, dict):
            self.errors.append(f"not an object: {data[:200]}")
            return
        if not self.is_chunk(chunk):
            self.foreign += 1
            return
        self.chunks += 1
        self.chunk(chunk)

    @staticmethod
    def is_chunk(chunk: dict[str, Any]) -> bool:
        kind = chunk.get("object")
        if isinstance(kind, str) and kind:
            return kind.startswith("chat.completion")
        choices = chunk.get("choices")
        if isinstance(choices, list) and (
            not choices or any(isinstance(c, dict) and "text" not in c for c in choices)
        ):
            return True
        return any(chunk.get(k) is not None for k in ("usage", "error", "x_groq"))

    def chunk(self, chunk: dict[str, Any]) -> None:
        error = chunk.get("error")
        if error is not None:
            self.failed = True
            self.errors.append(f"error chunk: {json.dumps(error)[:200]}")
        if "usage" in chunk:
            self.read_usage(chunk["usage"])
        groq = chunk.get("x_groq")
        if isinstance(groq, dict) and isinstance(groq.get("usage"), dict):
            self.read_usage(groq["usage"])
        choices = chunk.get("choices")
        for choice in choices if isinstance(choices, list) else []:
            if not isinstance(choice, dict) or choice.get("index", 0) not in (0, None):
                continue  # only the first choice is the answer
            finish = choice.get("finish_reason")
            delta = choice.get("delta")
            if isinstance(delta, dict) and not (self.bug == "drop-finish-text" and finish):
                self.delta(delta)
            elif isinstance(delta, dict):
                self.delta({k: v for k, v in delta.items() if k != "content"})
            if isinstance(finish, str) and finish:
                self.finish_reason = finish

    def read_usage(self, raw: Any) -> None:
        if not isinstance(raw, dict):
            if self.bug == "usage-null-erases":
                self.usage = None
            return
        prompt, completion = count(raw.get("prompt_tokens")), count(raw.get("completion_tokens"))
        total = raw.get("total_tokens")
        usage = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": count(total) if type(total) is int else prompt + completion,
        }
        if self.usage is None or any(usage.values()):
            self.usage = usage

    def delta(self, delta: dict[str, Any]) -> None:
        content = delta.get("content")
        if isinstance(content, str):
            self.text.append(content)
        elif isinstance(content, list):
            for part in content:
                if isinstance(part, dict) and part.get("type") == "text":
                    self.text.append(str(part.get("text", "")))
                elif isinstance(part, dict) and part.get("type") == "thinking":
                    for piece in part.get("thinking") or []:
                        if isinstance(piece, dict) and isinstance(piece.get("text"), str):
                            self.reasoning.append(piece["text"])
        for key in ("reasoning_content", "reasoning"):
            if isinstance(delta.get(key), str):
                self.reasoning.append(delta[key])
                break
        calls = delta.get("tool_calls")
        for entry in calls if isinstance(calls, list) else []:
            if isinstance(entry, dict):
                self.tool_call(entry)

    def tool_call(self, entry: dict[str, Any]) -> None:
        function = found if isinstance(found := entry.get("function"), dict) else {}
        index = entry.get("index") if type(entry.get("index")) is int else None
        call_id = entry.get("id") if isinstance(entry.get("id"), str) and entry["id"] else None
        name = function.get("name") if isinstance(function.get("name"), str) else None
        name = name or None
        arguments = function.get("arguments")
        if not isinstance(arguments, str):
            arguments = "" if arguments is None else json.dumps(arguments)
        call = self.route_by_index(index) if self.bug == "index-only" else None
        if call is None:
            call = self.route(index, call_id, name)
        self.last = call
        if call_id is not None:
            self.by_id.setdefault(call_id, call)
            call.id = call.id or call_id
        if name is not None:
            if self.bug == "concat-names":
                call.name = (call.name or "") + name
            elif call.name is None:
                call.name = name
        call.arguments.append(arguments)

    def route_by_index(self, index: int | None) -> Call:
        """The ``index-only`` bug: the call at this index, whatever its id says."""
        call = self.by_index.get(index)
        return call if call is not None else self.new(index, None)

    def route(self, index: int | None, call_id: str | None, name: str | None) -> Call:
        if call_id is not None:
            known = self.by_id.get(call_id)
            if known is not None:
                if index is not None:
                    self.by_index[index] = known
                return known
            at = self.by_index.get(index) if index is not None else None
            if at is not None and at.id is None and (name is None or at.name in (None, name)):
                return at  # the id of a call so far known by its index only
            return self.new(index, call_id)
        at = self.last if index is None else self.by_index.get(index)
        if at is None or (name is not None and at.name not in (None, name)):
            return self.new(index, None)
        return at

    def new(self, index: int | None, call_id: str | None) -> Call:
        call = Call(len(self.calls), call_id, index)
        self.calls.append(call)
        if call_id is not None:
            self.by_id[call_id] = call
        self.by_index[index] = call
        return call

    def response(self, cut_inside_event: bool) -> dict[str, Any]:
        if self.foreign and not self.chunks:
            return {"errors": [{"message": f"{self.foreign} JSON objects of another format"}]}
        cut = not self.done and (
            cut_inside_event or (self.finish_reason is None and not self.failed)
        )
        if cut:
            self.errors.append("the stream was cut: no [DONE] and no finish reason")
        tool_calls = []
        for call in self.calls:
            text = "".join(call.arguments)
            try:
                arguments, problem = (json.loads(text) if text.strip() else {}), None
            except ValueError as exc:
                arguments, problem = None, exc
            if problem is not None and cut and self.bug == "partial-json":
                with contextlib.suppress(ValueError):
                    arguments, problem = json.loads(close_json(text)), None
            lenient = self.bug == "partial-json" and problem is None
            if cut and self.finish_reason is None and (problem or not text.strip()) and not lenient:
                self.errors.append(f"tool call {call.name} was cut: {text[:200]}")
                continue
            if call.name is None:
                self.errors.append(f"a tool call without a name: {text[:200]}")
            elif problem is not None:
                self.errors.append(f"arguments of {call.name} are not JSON: {text[:200]}")
            else:
                tool_calls.append(
                    {
                        "id": call.id or f"__tc_{call.number}",
                        "name": call.name,
                        "arguments": arguments,
                    }
                )
        return {
            "text": "".join(self.text),
            "reasoning_text": "".join(self.reasoning) or None,
            "tool_calls": tool_calls,
            "finish_reason": self.finish_reason,
            "usage": self.usage,
            "errors": [{"message": m} for m in self.errors],
        }


def read(status: int, reads: list[bytes], bug: str | None) -> dict[str, Any]:
    """The response a caller gets from a body's network reads, fed one at a time."""
    if not 200 <= status < 300:
        body = b"".join(reads).decode("utf-8", "replace")
        return {"errors": [{"message": f"HTTP {status}: {body[:200]}"}]}
    lines = Lines(strip_bom=bug != "keep-bom", cr_ends=bug != "cr-not-eol")
    events, reader = Events(), Reader(bug)
    for piece in [*reads, None]:
        for line in lines.feed(piece or b"", final=piece is None):
            event = events.line(line)
            if event is not None:
                reader.event(*event)
    return reader.response(lines.pending or events.open)


# -- raf-conformance/1 ---------------------------------------------------------------------


def main(argv: list[str]) -> int:
    bug = None
    if argv[:1] == ["--bug"] and len(argv) == 2 and argv[1] in BUGS:
        bug = argv[1]
    elif argv:
        print(f"usage: chat_client.py [--bug {'|'.join(BUGS)}]", file=sys.stderr)
        return 2
    hello = {
        "type": "hello",
        "protocol": "raf-conformance/1",
        "name": f"broken-chat-python{'-' + bug if bug else ''}",
        "version": "1",
        "dialects": ["openai_chat"],
        "levels": ["response"],
        "capabilities": ["tool_calls", "reasoning", "usage", "http_errors"],
    }
    for line in sys.stdin.buffer:
        message = json.loads(line)
        if message.get("type") == "hello":
            reply: dict[str, Any] = hello
        elif message.get("type") == "case":
            reads = [base64.b64decode(c) for c in message["chunks"]]
            try:
                reply = {"response": read(message["status"], reads, bug)}
            except Exception as exc:  # a bug of this reader: say so, keep going
                reply = {"raised": f"{type(exc).__name__}: {exc}"}
            reply = {"type": "result", "id": message["id"], **reply}
        else:
            return 0
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
