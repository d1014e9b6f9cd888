"""Hypothesis strategies of Interactions API streams (steps schema), with their ground truth.
No IO.

:func:`streams` draws what a correct client must end with (an
:class:`~raf.model.AgentResponse`: text, reasoning, calls, finish reason, usage) and a stream
that carries it the way the Interactions API streams it: ``interaction.created`` and a
``status_update``; the reasoning as a ``thought`` step (its summary in ``thought_summary``
deltas, then a ``thought_signature``); the text as a ``model_output`` step; each call as a
``function_call`` step (``arguments: {}``) whose ``arguments_delta`` fragments are routed by
the step's index only, and may interleave with the other calls' fragments; then
``interaction.completed`` with the status and the usage; ``event: done`` / ``[DONE]``;
Server-Sent Events framed every way (:mod:`raf.formats._strategies.sse`), and network
chunking. :func:`render` puts a given response on the wire the same way; :func:`responses`
draws the ground truth alone::

    from hypothesis import given
    from raf.formats.gemini_interactions import strategies

    @given(strategies.streams(profile="gemini_api"))
    def test_my_parser(stream):
        assert my_parser(stream.chunks).text == stream.response.text

What the format cannot express, applied to the ground truth: a turn with calls that ends
normally is ``tool_calls`` (``requires_action``, or ``completed``, which raf reads as
``tool_calls`` after a call), never ``stop``; the usage's reasoning count is the thought
tokens the stream reports.

Imported only by tests: the format's descriptor does not import it (hypothesis is a test
dependency).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import msgspec
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from raf.formats._strategies.common import (
    GeneratedStream,
    Piece,
    _tool_calls,
    argument_text,
    chunked,
    lookup_profile,
    merge_calls,
    split_text,
    tool_calls,
    usages,
)
from raf.formats._strategies.sse import framed
from raf.model import AgentResponse, Usage, contents

__all__ = ["FORCEABLE", "PROFILES", "Profile", "render", "responses", "streams"]


@dataclass(frozen=True)
class Profile:
    """How a server puts an Interactions API response on the wire.

    Attributes:
        name: a label for reports.
        event_names: an ``event:`` line before each ``data:`` line (the API does).
        done_marker: ``event: done`` / ``data: [DONE]`` at the end (the API sends it).
        first_in_start: the first summary text and the first answer text come inside their
            step's ``step.start`` (the thinking docs' examples).
        arguments_in_start: a call's arguments come whole in its ``step.start``, with no
            ``arguments_delta``.
        stateless: ``store: false``: the interaction's id is ``""``.
    """

    name: str
    event_names: bool = True
    done_marker: bool = True
    first_in_start: bool = False
    arguments_in_start: bool = False
    stateless: bool = False


PROFILES: dict[str, Profile] = {
    "gemini_api": Profile(name="gemini_api"),
    "thinking_docs": Profile(name="thinking_docs", first_in_start=True, stateless=True),
    "whole_arguments": Profile(name="whole_arguments", arguments_in_start=True),
    "test_suite": Profile(name="test_suite", event_names=False, done_marker=False),
}
"""The built-in profiles, by name."""

_TO_WIRE: dict[str, tuple[str, ...]] = {
    "stop": ("completed",),
    "length": ("incomplete",),
    "tool_calls": ("requires_action",),
    "cancelled": ("cancelled",),
}
_FINISH = st.sampled_from([None, "stop", "tool_calls", "length", "cancelled"])
_dump = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
_MODEL = "gemini-2.5-flash"
_ID = "v1_ChdUR3NIYXVyQkFlYVA2ZGtQajZERThBVRIXVEdzSGF1ckJBZWFQNmRrUGo2REU4QVU"
_SIGNATURE = "CiQBDDnWxzCnKBoG0/vIUQ9fHy3JYGvjTmIZFY4uKrzvEqSAJh8KdQEMOdbH472i8Wb3Z10="


def _profile(profile: str | Profile) -> Profile:
    return lookup_profile(profile, PROFILES)


FORCEABLE = frozenset({"calls", "truncated", "text", "non_ascii_text"})
"""What ``streams(force=...)`` can make every stream have: a tool call (``calls``); no
``interaction.completed``, so a cut stream (``truncated``); text (``text``); non-ASCII text,
sent unescaped (``non_ascii_text``)."""


def _text(text: str, force: frozenset[str]) -> str:
    if "text" in force and not text:
        text = "a"
    return text + "é" if "non_ascii_text" in force and text.isascii() else text


@st.composite
def _responses(
    draw: st.DrawFn, max_tool_calls: int, max_text_deltas: int, force: frozenset[str] = frozenset()
) -> AgentResponse:
    text = _text(draw(st.text(max_size=8 * max_text_deltas)), force)
    reasoning = draw(st.text(max_size=24))
    if "calls" in force:
        calls = _tool_calls(draw, max_tool_calls, "fc_", min_count=1)[0]
    else:
        calls = draw(tool_calls(max_tool_calls, id_prefix="fc_"))
    finish = None if "truncated" in force else draw(_FINISH)
    if finish == "stop" and calls:
        finish = "tool_calls"  # a finished turn with calls (see the module docstring)
    usage = draw(usages(cache=True)) if finish is not None else None
    return AgentResponse(
        text=text,
        reasoning_text=reasoning or None,
        tool_calls=calls,
        finish_reason=finish,
        usage=usage,
    )


def responses(
    *, max_tool_calls: int = 3, max_text_deltas: int = 6
) -> st.SearchStrategy[AgentResponse]:
    """A response the format can carry: text, reasoning, 0 to ``max_tool_calls`` calls, a
    finish reason (``stop``, ``tool_calls``, ``length``, ``cancelled`` or none: a cut stream)
    and usage (or none; only with a finish reason, since usage rides on
    ``interaction.completed``)."""
    if max_tool_calls < 0 or max_text_deltas < 0:
        raise InvalidArgument("max_tool_calls and max_text_deltas must be at least 0")
    return _responses(max_tool_calls, max_text_deltas)


def _usage_object(draw: st.DrawFn, usage: Usage | None) -> tuple[dict[str, Any], Usage | None]:
    """The wire usage and the usage raf reads of it (its reasoning count is the thoughts')."""
    if usage is None:
        return {}, None
    tool_use = draw(st.integers(0, usage.prompt_tokens))
    thought = draw(st.integers(0, usage.completion_tokens))
    out: dict[str, Any] = {
        "total_tokens": usage.total_tokens,
        "total_input_tokens": usage.prompt_tokens - tool_use,
        "input_tokens_by_modality": [
            {"modality": "text", "tokens": usage.prompt_tokens - tool_use}
        ],
        "total_cached_tokens": usage.prompt_cache_hit_tokens or 0,
        "total_output_tokens": usage.completion_tokens - thought,
        "total_tool_use_tokens": tool_use,
        "total_thought_tokens": thought,
    }
    hit = usage.prompt_cache_hit_tokens or 0
    read = msgspec.structs.replace(
        usage,
        prompt_cache_hit_tokens=hit,
        prompt_cache_miss_tokens=usage.prompt_tokens - hit,
        reasoning_tokens=thought,
    )
    return out, read


def _step(index: int, event: str, **fields: Any) -> dict[str, Any]:
    return {"index": index, **fields, "event_type": event}


def _text_step(
    index: int, kind: str, pieces: list[str], first_in_start: bool
) -> list[dict[str, Any]]:
    """A thought (``kind`` ``thought``) or an answer (``model_output``) step of ``pieces``."""
    pieces = [piece for piece in pieces if piece]
    step: dict[str, Any] = {"type": kind}
    if first_in_start and pieces:
        first = [{"type": "text", "text": pieces.pop(0)}]
        step["summary" if kind == "thought" else "content"] = first
    events = [_step(index, "step.start", step=step)]
    for piece in pieces:
        if kind == "thought":
            delta = {"content": {"text": piece, "type": "text"}, "type": "thought_summary"}
        else:
            delta = {"text": piece, "type": "text"}
        events.append(_step(index, "step.delta", delta=delta))
    if kind == "thought":
        signature = {"signature": _SIGNATURE, "type": "thought_signature"}
        events.append(_step(index, "step.delta", delta=signature))
    events.append(_step(index, "step.stop"))
    return events


@st.composite
def _render(draw: st.DrawFn, truth: AgentResponse, chosen: Profile) -> GeneratedStream:
    response_id = "" if chosen.stateless else _ID
    interaction = {"id": response_id, "status": "in_progress", "object": "interaction"}
    events: list[dict[str, Any]] = [
        {"interaction": {**interaction, "model": _MODEL}, "event_type": "interaction.created"},
        {
            "interaction_id": response_id,
            "status": "in_progress",
            "event_type": "interaction.status_update",
        },
    ]
    index = 0
    if truth.reasoning_text:
        pieces = draw(split_text(truth.reasoning_text))
        events += _text_step(index, "thought", pieces, chosen.first_in_start)
        index += 1
    if truth.text:
        events += _text_step(
            index, "model_output", draw(split_text(truth.text)), chosen.first_in_start
        )
        index += 1
    fragments: list[list[Piece]] = []
    first_call = index
    for number, call in enumerate(truth.tool_calls):
        arguments = call.arguments if isinstance(call.arguments, dict) else {}
        text = "" if chosen.arguments_in_start else draw(argument_text(arguments))
        pieces = [piece for piece in draw(split_text(text)) if piece] if text else []
        fragments.append(
            [Piece(kind="call", value="", call=number, first=True)]
            + [Piece(kind="call", value=piece, call=number) for piece in pieces]
            + [Piece(kind="call", value="", call=number)]
        )
    for piece in merge_calls(draw, fragments) if fragments else []:
        call = truth.tool_calls[piece.call]
        step_index = first_call + piece.call
        if piece.first:
            arguments = call.arguments if chosen.arguments_in_start else {}
            step = {
                "id": call.id,
                "signature": "",
                "type": "function_call",
                "name": call.name,
                "arguments": arguments,
            }
            events.append(_step(step_index, "step.start", step=step))
        elif piece.value:
            delta = {"arguments": piece.value, "type": "arguments_delta"}
            events.append(_step(step_index, "step.delta", delta=delta))
        else:
            events.append(_step(step_index, "step.stop"))
    errors: tuple[contents.Error, ...] = ()
    usage = truth.usage
    if truth.finish_reason is None:
        errors = (contents.Error(error_code="stream_truncated", message=""),)
    else:
        wires = _TO_WIRE[truth.finish_reason]
        if truth.finish_reason == "tool_calls" and truth.tool_calls:
            wires = ("requires_action", "completed")
        status = draw(st.sampled_from(wires))
        wire_usage, usage = _usage_object(draw, truth.usage)
        done: dict[str, Any] = {**interaction, "status": status, "model": _MODEL}
        if wire_usage:
            done["usage"] = wire_usage
        done["service_tier"] = "standard"
        events.append({"interaction": done, "event_type": "interaction.completed"})
    payloads = [_dump(event) for event in events]
    names: list[str | None] = [
        event["event_type"] if chosen.event_names else None for event in events
    ]
    if chosen.done_marker:
        payloads.append("[DONE]")
        names.append("done" if chosen.event_names else None)
    body = framed(draw, payloads, events=names)
    truth = AgentResponse(
        id=response_id or None,
        model=_MODEL,
        text=truth.text,
        reasoning_text=truth.reasoning_text,
        tool_calls=truth.tool_calls,
        finish_reason=truth.finish_reason,
        usage=usage,
        errors=errors,
    )
    return GeneratedStream(
        response=truth,
        payloads=tuple(payloads),
        body=body,
        chunks=tuple(chunked(draw, body)),
        profile=chosen,
    )


def render(
    response: AgentResponse, profile: str | Profile = "gemini_api"
) -> st.SearchStrategy[GeneratedStream]:
    """``response`` (its text, reasoning, calls, finish reason and usage) as an Interactions
    API stream of ``profile``: events, SSE framing, network chunking, with the ground truth
    it carries. A response without a finish reason is a cut stream (no
    ``interaction.completed``), reported ``stream_truncated``."""
    return _render(response, _profile(profile))


def streams(
    profile: str | Profile | None = None,
    *,
    max_tool_calls: int = 3,
    max_text_deltas: int = 6,
    force: frozenset[str] = frozenset(),
) -> st.SearchStrategy[GeneratedStream]:
    """A whole stream with its ground truth: :func:`responses` put on the wire by
    :func:`render` for ``profile`` (``None``: any built-in one); ``force``: shapes every
    stream has (:data:`FORCEABLE`)."""
    if max_tool_calls < 0 or max_text_deltas < 0:
        raise InvalidArgument("max_tool_calls and max_text_deltas must be at least 0")
    unknown = frozenset(force) - FORCEABLE
    if unknown:
        raise InvalidArgument(f"cannot force {sorted(unknown)}; use some of {sorted(FORCEABLE)}")
    chosen = (
        st.sampled_from(list(PROFILES.values())) if profile is None else st.just(_profile(profile))
    )
    drawn = _responses(max_tool_calls, max_text_deltas, frozenset(force))
    return st.tuples(drawn, chosen).flatmap(lambda pair: render(pair[0], pair[1]))
