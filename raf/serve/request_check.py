"""The request check: does the request a client sent match the cassette's recorded one?
Pure functions, no IO.

A replayed answer only means something if the client asked the question the cassette
recorded; a client that sends a wrong follow-up request (a tool result with the wrong call
id, a lost message, a missing tool) is caught here. The matcher compares, per dialect, only
the fields that decide what the model answers, and only those the recorded request has:

=====================  ======================================================================
dialect                fields compared
=====================  ======================================================================
``openai_chat``        ``model``, ``messages``, ``tools``, ``stream``, ``stream_options``
``openai_responses``   ``model``, ``instructions``, ``input``, ``tools``, ``stream``
``anthropic_messages`` ``model``, ``system``, ``messages``, ``tools``, ``stream``
``gemini``             ``systemInstruction``, ``contents``, ``tools`` (the model and streaming
                       are in the URL)
=====================  ======================================================================

Before comparing, both sides are normalised the ways equivalent clients legitimately differ:
members whose value is ``null`` are dropped; a ``content`` (or Anthropic ``system``) made only
of text parts is read as their joined text, and an empty or ``null`` content as ``""``; tool
call ``arguments`` strings are read as the JSON they hold; a Responses ``input`` string is one
user message, and an input item's ``"type": "message"`` is implied; a tool is its name and its
parameter schema (descriptions, ``strict`` and the like are not compared). Members the
recorded request does not have are free at every level (temperature, ``n``, an SDK's extra
message fields), and so are headers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

import msgspec

__all__ = ["COMPARED_FIELDS", "RequestCheck", "check_request"]

COMPARED_FIELDS: Final[dict[str, tuple[str, ...]]] = {
    "openai_chat": ("model", "messages", "tools", "stream", "stream_options"),
    "openai_responses": ("model", "instructions", "input", "tools", "stream"),
    "anthropic_messages": ("model", "system", "messages", "tools", "stream"),
    "gemini": ("systemInstruction", "contents", "tools"),
}
"""The request fields the matcher compares, per dialect."""

_MAX_MISMATCHES: Final = 5
_SHOWN: Final = 80
_TEXT_PARTS: Final = frozenset({"text", "input_text", "output_text"})


@dataclass(frozen=True)
class RequestCheck:
    """The verdict on one request.

    Attributes:
        compared: the fields compared (empty: nothing recorded to compare with).
        mismatches: one line per difference (at most five), each naming the field.
    """

    compared: tuple[str, ...] = ()
    mismatches: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def to_builtins(self) -> dict[str, Any]:
        return {"ok": self.ok, "compared": list(self.compared), "mismatches": self.mismatches}


def check_request(dialect: str, recorded: str | bytes | None, received: bytes) -> RequestCheck:
    """Compare the body a client sent (``received``) with the recorded request body."""
    if recorded is None or recorded in ("", b""):
        return RequestCheck()
    try:
        expected = msgspec.json.decode(recorded)
    except msgspec.DecodeError:
        return RequestCheck()  # a recorded body that is not JSON: nothing to compare
    if not isinstance(expected, dict):
        return RequestCheck()
    fields = tuple(
        name for name in COMPARED_FIELDS.get(dialect, ("model",)) if expected.get(name) is not None
    )
    if not fields:
        return RequestCheck()
    try:
        got = msgspec.json.decode(received) if received else None
    except msgspec.DecodeError as exc:
        return RequestCheck(fields, [f"the request body is not JSON: {exc}"])
    if not isinstance(got, dict):
        return RequestCheck(fields, ["the request body is not a JSON object"])
    mismatches: list[str] = []
    for name in fields:
        want = _normal(name, expected.get(name))
        have = _normal(name, got.get(name))
        _diff(want, have, name, mismatches)
        if len(mismatches) >= _MAX_MISMATCHES:
            break
    return RequestCheck(fields, mismatches[:_MAX_MISMATCHES])


def _normal(name: str, value: Any) -> Any:
    if name == "tools" and isinstance(value, list):
        return [_tool(tool) for tool in value]
    if name == "input" and isinstance(value, str):
        value = [{"role": "user", "content": value}]
    if name in ("system", "instructions"):
        return _content(_clean(value))
    return _clean(value)


def _tool(tool: Any) -> Any:
    """A tool as its kind, name and parameter schema."""
    if not isinstance(tool, dict):
        return tool
    function = tool.get("function") if isinstance(tool.get("function"), dict) else tool
    if "functionDeclarations" in tool or "function_declarations" in tool:
        declarations = tool.get("functionDeclarations") or tool.get("function_declarations")
        if isinstance(declarations, list):
            return {"functions": [_tool(d) for d in declarations]}
    schema = None
    for key in ("parameters", "input_schema", "parametersJsonSchema", "parameters_json_schema"):
        if isinstance(function, dict) and function.get(key) is not None:
            schema = function[key]
            break
    out = {"name": function.get("name") if isinstance(function, dict) else None}
    if schema is not None:
        out["parameters"] = _clean(schema)
    kind = tool.get("type")
    if kind not in (None, "function", "custom") and out["name"] is None:
        out["type"] = kind  # a built-in tool (web_search...): its kind is what matters
    return _clean(out)


def _clean(value: Any) -> Any:
    """Drop nulls, read text-only contents as text and arguments strings as JSON."""
    if isinstance(value, list):
        return [_clean(item) for item in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, item in value.items():
        if item is None:
            continue
        if key == "content":
            out[key] = _content(_clean(item))
        elif key == "arguments" and isinstance(item, str):
            out[key] = _json_or_text(item)
        else:
            out[key] = _clean(item)
    if out.get("type") == "message" and "role" in out:
        del out["type"]
    if "role" in out and "content" not in out:
        out["content"] = ""
    return out


def _content(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, list) and all(
        isinstance(part, dict)
        and part.get("type") in _TEXT_PARTS
        and isinstance(part.get("text"), str)
        and set(part) <= {"type", "text"}
        for part in value
    ):
        return "".join(part["text"] for part in value)
    return value


def _json_or_text(text: str) -> Any:
    try:
        return msgspec.json.decode(text)
    except msgspec.DecodeError:
        return text


def _diff(want: Any, have: Any, path: str, out: list[str]) -> None:
    if len(out) >= _MAX_MISMATCHES:
        return
    if isinstance(want, dict) and isinstance(have, dict):
        for key in want:
            if key not in have:
                out.append(f"{path}.{key}: missing (expected {_shown(want[key])})")
            else:
                _diff(want[key], have[key], f"{path}.{key}", out)
        return  # members the recording does not have are free
    if isinstance(want, list) and isinstance(have, list):
        if len(want) != len(have):
            out.append(f"{path}: {len(have)} item(s), the recorded request has {len(want)}")
        for n, (a, b) in enumerate(zip(want, have, strict=False)):
            _diff(a, b, f"{path}[{n}]", out)
        return
    if want != have or (type(want) is not type(have) and not _same_number(want, have)):
        out.append(f"{path}: expected {_shown(want)}, got {_shown(have)}")


def _same_number(a: Any, b: Any) -> bool:
    numbers = (int, float)
    return (
        isinstance(a, numbers)
        and isinstance(b, numbers)
        and not isinstance(a, bool)
        and not isinstance(b, bool)
        and a == b
    )


def _shown(value: Any) -> str:
    text = msgspec.json.encode(value).decode()
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."
