"""Hypothesis strategies for Gemini ``streamGenerateContent`` streams, with ground truth. No IO.

:func:`render` puts an :class:`~raf.model.AgentResponse` on the wire the way the profile's
server does (:data:`PROFILES`): ``gemini_sse`` (``alt=sse``), ``gemini_array`` (no
``alt=sse``: one pretty-printed JSON array) and ``vertex_partial`` (Vertex with
``streamFunctionCallArguments``: calls streamed as ``partialArgs``). :func:`streams` draws a
response and renders it.

What the format cannot express, and how the returned ground truth is adjusted:

* call ids: Gemini sends none here, so calls are named ``__tc_<n>`` (raf's names);
* finish reasons: there is no ``tool_calls`` on the wire (``STOP`` is sent for tool calls
  too), so ``stop``/``tool_calls`` become ``tool_calls`` when there are calls and ``stop``
  otherwise; any other value is sent verbatim (``MAX_TOKENS``/``SAFETY`` for ``length``/
  ``content_filter``);
* no end marker: a response without a finish reason is a cut stream (``stream_truncated``),
  and a streamed (Vertex) call with no arguments in a cut stream is ``tool_call_incomplete``;
* usage: ``total_tokens`` is sent as ``totalTokenCount``; reasoning and cache counts are not
  generated.

Streams sometimes do what clients get wrong: content in the very first chunk, parts of several
kinds in one chunk, usage repeated (and growing) on every chunk, a final empty text part,
``thoughtSignature`` on text, calls and empty parts, parts that are neither the answer nor a
client call (``executableCode``: a hosted call, in the ground truth's ``hosted_tool_calls``)
and metadata raf must ignore (``groundingMetadata``), two calls of the same function, strings
continued over ``partialArgs`` entries, and the JSON array body cut anywhere by the network.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import msgspec
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from raf.formats._strategies.common import (
    _CUTS,
    FINISH_REASONS,
    GeneratedStream,
    Wire,
    _split,
    _tool_calls,
    _usage,
    chance,
    chunked,
    decisions,
    lookup_profile,
    pick,
    split_by,
)
from raf.formats._strategies.sse import framed
from raf.model import AgentResponse, contents
from raf.model.messages import HostedCall, ToolCall
from raf.model.usage import Usage

__all__ = [
    "FEATURES",
    "FORCEABLE",
    "PROFILES",
    "Profile",
    "coverage",
    "render",
    "responses",
    "streams",
]


@dataclass(frozen=True)
class Profile:
    """How one server puts Gemini responses on the wire.

    Attributes:
        name: the profile's name.
        framing: ``"sse"`` or ``"json_array"``.
        partial_args: calls are streamed as Vertex ``partialArgs``.
        model: the ``modelVersion`` sent.
    """

    name: str
    framing: str
    partial_args: bool
    model: str


PROFILES: dict[str, Profile] = {
    "gemini_sse": Profile("gemini_sse", "sse", False, "gemini-2.5-flash"),
    "gemini_array": Profile("gemini_array", "json_array", False, "gemini-2.0-flash"),
    "vertex_partial": Profile("vertex_partial", "sse", True, "gemini-3-pro-preview"),
}

FEATURES = (
    "sse",
    "json_array",
    "partial_args",
    "string_continued",
    "thought_signature",
    "empty_final_part",
    "usage_every_chunk",
    "content_in_first_chunk",
    "ignored_parts",
    "same_name_calls",
    "several_parts_in_a_chunk",
    "truncated",
)
"""The stream features :func:`coverage` reports."""

_GROUP_SIZES = (1, 2, 2, 3)
_SIGNATURE = "EpwICpkIAXLI2nxlU6gsWZaZHRYkX1orzuM8vSUFwaAt1JRxEC2h"


def _profile(profile: str | Profile) -> Profile:
    return lookup_profile(profile, PROFILES)


_TEXT = st.text(max_size=40)
_REASONING = st.text(max_size=32)
# No finish reason (a cut stream) one time in three: the shrink target.
_FINISH = st.sampled_from([None, *FINISH_REASONS])


@st.composite
def responses(draw: st.DrawFn, *, max_tool_calls: int = 3) -> AgentResponse:
    """A ground truth: text, reasoning, calls with JSON arguments, finish reason, usage."""
    return _draw_response(draw, max_tool_calls, False)[0]


def _draw_response(
    draw: st.DrawFn, max_tool_calls: int, wire: bool, force: frozenset[str] = frozenset()
) -> tuple[AgentResponse, Wire | None]:
    """The ground truth; with ``wire``, the cuts of its text and reasoning right after them;
    ``force``: the shapes of :data:`FORCEABLE` it must have."""
    text = draw(_TEXT)
    if "text" in force and not text:
        text = "a"
    if "non_ascii_text" in force and text.isascii():
        text += "é"
    text_cuts = draw(_CUTS) if wire else b""
    reasoning = draw(_REASONING)
    reasoning_cuts = draw(_CUTS) if wire else b""
    calls, _ = _tool_calls(draw, max_tool_calls, None, min_count=int("calls" in force))
    finish = None if "truncated" in force else draw(_FINISH)
    usage = _usage(draw)
    return AgentResponse(
        text=text,
        reasoning_text=reasoning or None,
        tool_calls=calls,
        finish_reason=finish,
        usage=usage,
    ), Wire(text_cuts, reasoning_cuts, (b"",) * len(calls)) if wire else None


def _path(key: str) -> str:
    return "$['" + key.replace("\\", "\\\\").replace("'", "\\'") + "']"


def _entry(path: str, value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"jsonPath": path, "boolValue": value}
    if value is None:
        return {"jsonPath": path, "nullValue": "NULL_VALUE"}
    if isinstance(value, int | float):
        return {"jsonPath": path, "numberValue": value}
    if isinstance(value, dict):
        return {"jsonPath": path, "structValue": value}
    if isinstance(value, list):
        return {"jsonPath": path, "listValue": value}
    return {"jsonPath": path, "stringValue": value}


def _partial_call(draw: st.DrawFn, call: ToolCall, features: set[str]) -> list[dict[str, Any]]:
    """The parts of one Vertex call: start, partialArgs entries, end. One decision byte each:
    the last entry ends the call, the end is signed, and for each key its string value is
    continued over several entries (7 times in 8; where it is cut is drawn for every string
    value, continued or not)."""
    assert isinstance(call.arguments, dict)
    plan = decisions(draw, 2 + len(call.arguments))
    ends_itself, signed = chance(plan[0], 128), chance(plan[1], 128)
    parts: list[dict[str, Any]] = [{"functionCall": {"name": call.name, "willContinue": True}}]
    entries: list[dict[str, Any]] = []
    for (key, value), byte in zip(call.arguments.items(), plan[2:], strict=True):
        path = _path(key)
        pieces = _split(draw, value) if isinstance(value, str) and len(value) > 1 else []
        if pieces and chance(byte, 224):
            assert isinstance(value, str)
            if len(pieces) == 1:
                pieces = [value[: len(value) // 2], value[len(value) // 2 :]]
            features.add("string_continued")
            for i, piece in enumerate(pieces):
                entry: dict[str, Any] = {"jsonPath": path, "stringValue": piece}
                if i < len(pieces) - 1:
                    entry["willContinue"] = True
                entries.append(entry)
        else:
            entries.append(_entry(path, value))
    if entries and ends_itself:
        # The last entries end the call themselves (no empty functionCall after them).
        parts += [
            {"functionCall": {"partialArgs": [e], "willContinue": True}} for e in entries[:-1]
        ]
        parts.append({"functionCall": {"partialArgs": [entries[-1]]}})
    else:
        parts += [{"functionCall": {"partialArgs": [e], "willContinue": True}} for e in entries]
        parts.append({"functionCall": {}})
    if signed:
        parts[-1]["thoughtSignature"] = _SIGNATURE
        features.add("thought_signature")
    return parts


def _usage_json(usage: Usage, candidates: int | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"promptTokenCount": usage.prompt_tokens}
    out["candidatesTokenCount"] = usage.completion_tokens if candidates is None else candidates
    out["totalTokenCount"] = usage.prompt_tokens + out["candidatesTokenCount"]
    return out


def render(
    response: AgentResponse, profile: str | Profile = "gemini_sse"
) -> st.SearchStrategy[GeneratedStream]:
    """``response`` on the wire in the profile's way, framed and chunked; the stream's
    ``response`` is the ground truth adjusted as the module docstring says."""
    return _render(response, _profile(profile))


@st.composite
def _render(draw: st.DrawFn, response: AgentResponse, chosen: Profile) -> GeneratedStream:
    return _rendered(draw, response, chosen, None)


def _rendered(
    draw: st.DrawFn,
    response: AgentResponse,
    chosen: Profile,
    wire: Wire | None,
    *,
    force: frozenset[str] = frozenset(),
) -> GeneratedStream:
    if wire is None:
        wire = Wire.drawn(draw, len(response.tool_calls), None)
    features: set[str] = {chosen.framing if chosen.framing == "sse" else "json_array"}
    model, rid = chosen.model, "ru1garvBEoOiqtsP2fznmQw"
    calls = tuple(
        ToolCall(id=f"__tc_{n}", name=c.name, arguments=c.arguments)
        for n, c in enumerate(response.tool_calls)
    )
    if len({c.name for c in calls}) < len(calls):
        features.add("same_name_calls")
    finish = response.finish_reason
    if finish in ("stop", "tool_calls"):
        finish = "tool_calls" if calls else "stop"
    wire_finish = {"stop": "STOP", "tool_calls": "STOP", "length": "MAX_TOKENS"}.get(
        finish or "", "SAFETY" if finish == "content_filter" else finish
    )

    # One byte each, for the whole stream: a last chunk of its own for the finish reason, an
    # empty text part in it, that part signed, usage on every chunk, groundingMetadata on
    # every candidate, executableCode among the parts and where.
    last_chunk, empty_part, signed_end, every_chunk, grounded, code, where = decisions(draw, 7)
    parts: list[dict[str, Any]] = [
        {"text": piece, "thought": True}
        for piece in split_by(response.reasoning_text or "", wire.reasoning)
    ]
    texts = split_by(response.text, wire.text)
    for piece, byte in zip(texts, decisions(draw, len(texts)), strict=True):
        part: dict[str, Any] = {"text": piece}
        if chance(byte, 80):  # 5 in 16
            part["thoughtSignature"] = _SIGNATURE
            features.add("thought_signature")
        parts.append(part)
    hosted: tuple[HostedCall, ...] = ()
    if chance(code, 128):
        program = {"language": "PYTHON", "code": "print(1)"}
        parts.insert(pick(where, len(parts) + 1), {"executableCode": program})
        hosted = (HostedCall(id="code_execution_0", name="code_execution", arguments=program),)
        features.add("ignored_parts")
    if chosen.partial_args:
        for call in calls:
            parts += _partial_call(draw, call, features)
            features.add("partial_args")
    else:
        for call, byte in zip(calls, decisions(draw, len(calls)), strict=True):
            part = {"functionCall": {"name": call.name, "args": call.arguments}}
            if chance(byte, 128):
                part["thoughtSignature"] = _SIGNATURE
                features.add("thought_signature")
            parts.append(part)

    # Parts into chunks (1 to 3 parts each, 2 most often: one decision byte a chunk), the
    # first chunk carrying content.
    sizes = decisions(draw, len(parts))
    groups: list[list[dict[str, Any]]] = []
    i = 0
    while i < len(parts):
        n = _GROUP_SIZES[pick(sizes[len(groups)], 4)]
        groups.append(parts[i : i + n])
        i += n
    if groups:
        features.add("content_in_first_chunk")
    if any(len(g) > 1 for g in groups):
        features.add("several_parts_in_a_chunk")
    if wire_finish is not None and (not groups or chance(last_chunk, 128)):
        groups.append([{"text": ""}] if chance(empty_part, 128) else [])
        if groups[-1]:
            features.add("empty_final_part")
            if chance(signed_end, 128):
                groups[-1][0]["thoughtSignature"] = _SIGNATURE
                features.add("thought_signature")

    usage = response.usage
    every = usage is not None and chance(every_chunk, 176)
    if every:
        features.add("usage_every_chunk")
    grounding = chance(grounded, 192)
    if grounding:
        features.add("ignored_parts")
    objects: list[dict[str, Any]] = []
    for n, group in enumerate(groups):
        last = n == len(groups) - 1
        candidate: dict[str, Any] = {}
        if group:
            candidate["content"] = {"parts": group, "role": "model"}
        if last and wire_finish is not None:
            candidate["finishReason"] = wire_finish
        candidate["index"] = 0
        if grounding:
            candidate["groundingMetadata"] = {}
        obj: dict[str, Any] = {"candidates": [candidate]}
        if usage is not None and (last or every):
            obj["usageMetadata"] = _usage_json(
                usage, None if last else min(n, usage.completion_tokens)
            )
        obj["modelVersion"] = model
        obj["responseId"] = rid
        objects.append(obj)
    if not objects and usage is not None:
        objects.append(
            {"usageMetadata": _usage_json(usage), "modelVersion": model, "responseId": rid}
        )

    truth_errors: list[contents.Error] = []
    kept = calls
    if wire_finish is None:
        features.add("truncated")
        truth_errors.append(contents.Error(error_code="stream_truncated", message=""))
        if chosen.partial_args:
            incomplete = [c for c in calls if not c.arguments]
            kept = tuple(c for c in calls if c.arguments)
            truth_errors += [
                contents.Error(error_code="tool_call_incomplete", message="", call_id=c.id)
                for c in incomplete
            ]
    truth = msgspec.structs.replace(
        response,
        tool_calls=kept,
        hosted_tool_calls=hosted,
        finish_reason=finish,
        errors=tuple(truth_errors),
        reasoning_text=response.reasoning_text or None,
    )
    # Each object is sent with its non-ASCII characters escaped or raw: one byte each.
    ascii_plan = decisions(draw, len(objects))
    payloads = [
        json.dumps(o, ensure_ascii=chance(byte, 128) and "non_ascii_text" not in force)
        for o, byte in zip(objects, ascii_plan, strict=True)
    ]
    if chosen.framing == "sse":
        body = framed(draw, payloads)
    else:
        pretty = [
            json.dumps(o, indent=2, ensure_ascii="non_ascii_text" not in force) for o in objects
        ]
        body = ("[" + "\r\n,".join(pretty) + "\r\n]").encode()
    chunks = chunked(draw, body)
    return GeneratedStream(
        response=truth,
        payloads=tuple(payloads),
        body=body,
        chunks=tuple(chunks),
        profile=chosen,
    )


FORCEABLE = frozenset({"calls", "truncated", "text", "non_ascii_text"})
"""What ``streams(force=...)`` can make every stream have: a tool call (``calls``); no
finish reason, so a cut stream (``truncated``); text (``text``); non-ASCII text, sent
unescaped (``non_ascii_text``)."""


def streams(
    profile: str | Profile | None = None,
    *,
    max_tool_calls: int = 3,
    force: frozenset[str] = frozenset(),
) -> st.SearchStrategy[GeneratedStream]:
    """A drawn response rendered by :func:`render` (any profile when ``profile`` is None);
    ``force``: shapes every stream has (:data:`FORCEABLE`)."""
    if max_tool_calls < 0:
        raise InvalidArgument(f"max_tool_calls must be at least 0, got {max_tool_calls}")
    unknown = frozenset(force) - FORCEABLE
    if unknown:
        raise InvalidArgument(f"cannot force {sorted(unknown)}; use some of {sorted(FORCEABLE)}")
    return _streams(
        None if profile is None else _profile(profile), max_tool_calls, frozenset(force)
    )


_PROFILE = st.sampled_from(list(PROFILES.values()))


@st.composite
def _streams(
    draw: st.DrawFn,
    profile: Profile | None,
    max_tool_calls: int,
    force: frozenset[str] = frozenset(),
) -> GeneratedStream:
    chosen = profile or draw(_PROFILE)
    response, wire = _draw_response(draw, max_tool_calls, True, force)
    return _rendered(draw, response, chosen, wire, force=force)


def coverage(stream: GeneratedStream) -> set[str]:
    """The features of :data:`FEATURES` that ``stream`` shows, read from its body."""
    text = stream.body.decode("utf-8", "replace")
    found = {"json_array" if text.lstrip().startswith("[") else "sse"}
    objects: list[Any] = [json.loads(payload) for payload in stream.payloads]
    calls: list[str] = []
    for n, obj in enumerate(objects):
        for candidate in obj.get("candidates") or ():
            parts = (candidate.get("content") or {}).get("parts") or []
            if n == 0 and parts:
                found.add("content_in_first_chunk")
            if len(parts) > 1:
                found.add("several_parts_in_a_chunk")
            if "groundingMetadata" in candidate:
                found.add("ignored_parts")
            if any(p.get("text") == "" for p in parts):
                found.add("empty_final_part")
            for part in parts:
                if "thoughtSignature" in part:
                    found.add("thought_signature")
                if "executableCode" in part:
                    found.add("ignored_parts")
                call = part.get("functionCall")
                if isinstance(call, dict):
                    if call.get("name"):
                        calls.append(call["name"])
                    for entry in call.get("partialArgs") or ():
                        found.add("partial_args")
                        if entry.get("willContinue"):
                            found.add("string_continued")
    if len(objects) > 1 and sum("usageMetadata" in o for o in objects) > 1:
        found.add("usage_every_chunk")
    if len(set(calls)) < len(calls):
        found.add("same_name_calls")
    if not any(c.get("finishReason") for o in objects for c in (o.get("candidates") or ())):
        found.add("truncated")
    return found
