"""Hypothesis strategies for Responses API streams (``openai_responses``), with ground truth.

:func:`render` puts a ground-truth :class:`AgentResponse` on the wire: a reasoning item (one
summary part, or raw ``reasoning_text`` for OpenRouter/DeepSeek-like profiles), a message item
with the text cut into ``output_text.delta`` events, one ``function_call`` item per call (all
added first, their argument deltas interleaved in any order, routed by ``item_id``; some calls
send their arguments only in ``function_call_arguments.done``), the ``.done`` events, and a
terminal event with the usage. Keep-alives, unknown events (``response.rate_limits.updated``,
``codex.*``) and ``obfuscation`` padding are sprinkled in where real servers put them.

What the format cannot express, and how the returned ground truth is adjusted:

* the finish reason comes from the terminal event: ``stop`` and ``tool_calls`` are decided by
  whether the response has calls (so a response with calls says ``tool_calls`` and one
  without says ``stop``; ``None`` becomes that too); ``length`` and ``content_filter`` are
  ``response.incomplete``;
* usage totals are prompt + completion (the generated usage carries no cache or reasoning
  details);
* reasoning is one summary part, so no ``\\n\\n`` separator appears in it.
"""

from __future__ import annotations

import itertools
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
    Piece,
    Wire,
    _tool_calls,
    _usage,
    chance,
    chunked,
    decisions,
    lookup_profile,
    merge,
    split_by,
    wire_of,
)
from raf.formats._strategies.sse import framed
from raf.model.response import AgentResponse
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
    """How one kind of server writes the format.

    Attributes:
        name: the profile's name.
        reasoning: ``"summary"`` (OpenAI), ``"text"`` (raw chain of thought: OpenRouter,
            DeepSeek) or ``None``.
        sequence_numbers: events carry ``sequence_number`` (OpenRouter omits it on the
            lifecycle events).
        done_marker: ``data: [DONE]`` after the terminal event.
        obfuscation: deltas carry an ``obfuscation`` padding field.
        done_only_arguments: some calls send their arguments only in the ``.done`` event.
    """

    name: str
    reasoning: str | None
    sequence_numbers: bool
    done_marker: bool
    obfuscation: bool
    done_only_arguments: bool
    model: str


PROFILES: dict[str, Profile] = {
    "openai": Profile("openai", "summary", True, False, True, False, "gpt-5.1-2025-11-13"),
    "openrouter": Profile("openrouter", "text", False, True, False, False, "openai/gpt-oss-20b"),
    "deepseek": Profile("deepseek", "text", True, False, False, True, "deepseek-v4-flash"),
    "azure": Profile("azure", "summary", True, False, True, True, "gpt-5-mini"),
}


def _profile(profile: str | Profile) -> Profile:
    return lookup_profile(profile, PROFILES)


def responses(
    profile: str | Profile = "openai", *, max_tool_calls: int = 3
) -> st.SearchStrategy[AgentResponse]:
    """Ground truths this format can carry exactly (see the module docstring)."""
    if max_tool_calls < 0:
        raise InvalidArgument("max_tool_calls must be at least 0")
    return _responses(_profile(profile), max_tool_calls)


_TEXT = st.text(max_size=30)
_REASONING = st.text(min_size=1, max_size=30)
_FLAG = st.booleans()
_FINISH = st.sampled_from(FINISH_REASONS)


def _draw_response(
    draw: st.DrawFn,
    chosen: Profile,
    max_tool_calls: int,
    wire: bool,
    force: frozenset[str] = frozenset(),
) -> tuple[AgentResponse, Wire | None]:
    """The ground truth; with ``wire``, each part's wire decisions right after it; ``force``:
    the shapes of :data:`FORCEABLE` it must have."""
    text = draw(_TEXT)
    if "non_ascii_text" in force and text.isascii():
        text += "é"
    text_cuts = draw(_CUTS) if wire else b""
    reasoning = draw(_REASONING) if chosen.reasoning and draw(_FLAG) else None
    reasoning_cuts = draw(_CUTS) if wire and reasoning else b""
    calls, plans = _tool_calls(draw, max_tool_calls, "call_", 1 if wire else None)
    finish = draw(_FINISH)
    usage = _usage(draw)
    response = AgentResponse(
        text=text, reasoning_text=reasoning, tool_calls=calls, finish_reason=finish, usage=usage
    )
    return response, Wire(text_cuts, reasoning_cuts, plans) if wire else None


@st.composite
def _responses(draw: st.DrawFn, chosen: Profile, max_tool_calls: int) -> AgentResponse:
    return _draw_response(draw, chosen, max_tool_calls, False)[0]


def _adjusted(response: AgentResponse) -> AgentResponse:
    finish = response.finish_reason
    if finish not in ("length", "content_filter"):
        finish = "tool_calls" if response.tool_calls else "stop"
    usage = response.usage
    if usage is not None:
        usage = Usage(
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
            total_tokens=usage.prompt_tokens + usage.completion_tokens,
        )
    return msgspec.structs.replace(
        response, finish_reason=finish, usage=usage, reasoning_text=response.reasoning_text or None
    )


def render(
    response: AgentResponse, profile: str | Profile = "openai"
) -> st.SearchStrategy[GeneratedStream]:
    """``response`` as a Responses API stream of ``profile``, framed and chunked."""
    chosen = _profile(profile)
    if response.reasoning_text and chosen.reasoning is None:
        raise InvalidArgument(f"profile {chosen.name!r} streams no reasoning")
    return _render(response, chosen)


@st.composite
def _render(draw: st.DrawFn, response: AgentResponse, chosen: Profile) -> GeneratedStream:
    return _rendered(draw, response, chosen, None)


# The response id (the ground truth has none; a drawn one would only cost a choice).
_RESPONSE_ID = "resp_68e3a1f2"
_ASCII = json.JSONEncoder(ensure_ascii=True, separators=(",", ":")).encode
_RAW = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _rendered(
    draw: st.DrawFn,
    response: AgentResponse,
    chosen: Profile,
    wire: Wire | None,
    *,
    force: frozenset[str] = frozenset(),
) -> GeneratedStream:
    if wire is None:
        wire = Wire.drawn(draw, len(response.tool_calls), 1)
    truth = _adjusted(response)
    rid = _RESPONSE_ID
    # One byte each: a codex.rate_limits event first, a message item without text, a
    # rate_limits.updated event last.
    codex, empty_message, rate_limits = decisions(draw, 3)
    events: list[dict[str, Any]] = []
    seq = [0]

    def ev(kind: str, numbered: bool = True, **fields: Any) -> None:
        body: dict[str, Any] = {"type": kind}
        if chosen.sequence_numbers or (numbered and kind not in _LIFECYCLE):
            body["sequence_number"] = seq[0]
        seq[0] += 1
        body.update(fields)
        events.append(body)

    def padding() -> dict[str, Any]:
        return {"obfuscation": "Zk3q"} if chosen.obfuscation else {}

    def resp(status: str, **extra: Any) -> dict[str, Any]:
        return {
            "id": rid,
            "object": "response",
            "status": status,
            "model": chosen.model,
            "output": [],
            "usage": None,
            **extra,
        }

    if chance(codex, 176):
        ev("codex.rate_limits", numbered=False, plan_type="pro")
    ev("response.created", response=resp("in_progress"))
    ev("response.in_progress", response=resp("in_progress"))
    index = 0
    if truth.reasoning_text:
        rs = f"rs_{rid[5:]}"
        ev(
            "response.output_item.added",
            output_index=index,
            item={"type": "reasoning", "id": rs, "summary": []},
        )
        kind = (
            "response.reasoning_summary_text"
            if chosen.reasoning == "summary"
            else "response.reasoning_text"
        )
        key = "summary_index" if chosen.reasoning == "summary" else "content_index"
        index_field: dict[str, Any] = {key: 0}
        for piece in split_by(truth.reasoning_text, wire.reasoning):
            ev(
                f"{kind}.delta",
                item_id=rs,
                output_index=index,
                delta=piece,
                **index_field,
                **padding(),
            )
        ev(f"{kind}.done", item_id=rs, output_index=index, text=truth.reasoning_text, **index_field)
        ev(
            "response.output_item.done",
            output_index=index,
            item={"type": "reasoning", "id": rs, "summary": []},
        )
        index += 1
    if truth.text or chance(empty_message, 128):
        mid = f"msg_{rid[5:]}"
        ev(
            "response.output_item.added",
            output_index=index,
            item={"type": "message", "id": mid, "role": "assistant", "content": []},
        )
        # The part the text goes into, opened and closed around it as OpenAI does: the SDKs
        # append each delta to the part ``content_part.added`` made.
        part = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
        ev(
            "response.content_part.added",
            item_id=mid,
            output_index=index,
            content_index=0,
            part=part,
        )
        pieces = split_by(truth.text, wire.text)
        keep_alive = decisions(draw, len(pieces))
        for piece, byte in zip(pieces, keep_alive, strict=True):
            ev(
                "response.output_text.delta",
                item_id=mid,
                output_index=index,
                content_index=0,
                delta=piece,
                logprobs=[],
                **padding(),
            )
            if chance(byte, 160):  # 5 in 8
                ev("response.keep_alive", numbered=False)
        ev(
            "response.output_text.done",
            item_id=mid,
            output_index=index,
            content_index=0,
            text=truth.text,
            logprobs=[],
        )
        ev(
            "response.content_part.done",
            item_id=mid,
            output_index=index,
            content_index=0,
            part={**part, "text": truth.text},
        )
        ev(
            "response.output_item.done",
            output_index=index,
            item={
                "type": "message",
                "id": mid,
                "role": "assistant",
                "status": "completed",
                "content": [],
            },
        )
        index += 1
    first_call = index
    texts: list[str] = []
    streams_of_args: list[list[Piece]] = []
    for n, call in enumerate(truth.tool_calls):
        ev(
            "response.output_item.added",
            output_index=index + n,
            item={
                "type": "function_call",
                "id": f"fc_{n}_{rid[5:]}",
                "call_id": call.id,
                "name": call.name,
                "arguments": "",
            },
        )
        assert isinstance(call.arguments, dict)
        text, (only,), fragments = wire_of(wire.calls[n], call.arguments, 1)
        texts.append(text)
        # some calls send their arguments only in the .done event
        if chosen.done_only_arguments and chance(only, 208):
            fragments = []
        streams_of_args.append([Piece("call", f, n) for f in fragments])
    for arg_piece in merge(draw, streams_of_args):
        n, piece = arg_piece.call, arg_piece.value
        ev(
            "response.function_call_arguments.delta",
            item_id=f"fc_{n}_{rid[5:]}",
            output_index=first_call + n,
            delta=piece,
            **padding(),
        )
    for n, (call, text) in enumerate(zip(truth.tool_calls, texts, strict=True)):
        ev(
            "response.function_call_arguments.done",
            item_id=f"fc_{n}_{rid[5:]}",
            output_index=first_call + n,
            arguments=text,
        )
        ev(
            "response.output_item.done",
            output_index=first_call + n,
            item={
                "type": "function_call",
                "id": f"fc_{n}_{rid[5:]}",
                "call_id": call.id,
                "name": call.name,
                "arguments": text,
                "status": "completed",
            },
        )
    usage = (
        None
        if truth.usage is None
        else {
            "input_tokens": truth.usage.prompt_tokens,
            "output_tokens": truth.usage.completion_tokens,
            "total_tokens": truth.usage.total_tokens,
        }
    )
    if truth.finish_reason in ("length", "content_filter"):
        reason = "max_output_tokens" if truth.finish_reason == "length" else "content_filter"
        ev(
            "response.incomplete",
            response=resp("incomplete", usage=usage, incomplete_details={"reason": reason}),
        )
    else:
        ev("response.completed", response=resp("completed", usage=usage))
    if chance(rate_limits, 176):
        ev("response.rate_limits.updated", numbered=False, rate_limits=[])
    # Each event is sent with its non-ASCII characters escaped or raw: one byte each.
    ascii_plan = decisions(draw, len(events))
    payloads = [
        (_ASCII if chance(byte, 128) and "non_ascii_text" not in force else _RAW)(event)
        for event, byte in zip(events, ascii_plan, strict=True)
    ]
    if chosen.done_marker:
        payloads.append("[DONE]")
    body = framed(draw, payloads, (": keep-alive",))
    chunks = chunked(draw, body)
    return GeneratedStream(
        response=truth, payloads=tuple(payloads), body=body, chunks=tuple(chunks), profile=chosen
    )


_LIFECYCLE = frozenset(
    {
        "response.created",
        "response.in_progress",
        "codex.rate_limits",
        "response.keep_alive",
        "response.rate_limits.updated",
    }
)


FORCEABLE = frozenset({"non_ascii_text"})
"""What ``streams(force=...)`` can make every stream have: non-ASCII text, sent unescaped
(``non_ascii_text``)."""


def streams(
    profile: str | Profile | None = None,
    *,
    max_tool_calls: int = 3,
    force: frozenset[str] = frozenset(),
) -> st.SearchStrategy[GeneratedStream]:
    """A whole stream with its ground truth, for one profile or any; ``force``: shapes every
    stream has (:data:`FORCEABLE`)."""
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
    chosen = draw(_PROFILE) if profile is None else profile
    truth, wire = _draw_response(draw, chosen, max_tool_calls, True, force)
    return _rendered(draw, truth, chosen, wire, force=force)


FEATURES = frozenset(
    {
        *(f"profile:{name}" for name in PROFILES),
        "done_marker",
        "obfuscation",
        "keep_alive",
        "unknown_event",
        "text",
        "reasoning",
        "incomplete",
        "tool_call",
        "parallel_calls",
        "interleaved_or_switching_args",
        "args_done_only_or_empty",
        "usage",
    }
)
"""The features :func:`coverage` reports."""


def coverage(stream: GeneratedStream) -> set[str]:
    """The features of a generated stream (for measuring what the strategies exercise)."""
    found: set[str] = {f"profile:{stream.profile.name}"}
    types = []
    args_by_item: list[str] = []
    for payload in stream.payloads:
        if payload == "[DONE]":
            found.add("done_marker")
            continue
        body = json.loads(payload)
        kind = body["type"]
        types.append(kind)
        if "obfuscation" in body:
            found.add("obfuscation")
        if kind == "response.function_call_arguments.delta":
            args_by_item.append(body["item_id"])
    if "response.keep_alive" in types:
        found.add("keep_alive")
    if any(t.startswith("codex.") or t == "response.rate_limits.updated" for t in types):
        found.add("unknown_event")
    if "response.output_text.delta" in types:
        found.add("text")
    if any(t.startswith("response.reasoning") for t in types):
        found.add("reasoning")
    if "response.incomplete" in types:
        found.add("incomplete")
    calls = types.count("response.function_call_arguments.done")
    if calls:
        found.add("tool_call")
    if calls > 1:
        found.add("parallel_calls")
    if any(a != b for a, b in itertools.pairwise(args_by_item)) and len(set(args_by_item)) > 1:
        found.add("interleaved_or_switching_args")
    if calls > len(set(args_by_item)):
        found.add("args_done_only_or_empty")
    if stream.response.usage is not None:
        found.add("usage")
    return found
