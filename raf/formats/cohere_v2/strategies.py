"""Hypothesis strategies of Cohere v2 Chat streams, with their ground truth. No IO.

:func:`streams` draws what a correct client must end with (an
:class:`~raf.model.AgentResponse`: text, reasoning, calls, finish reason, usage) and a stream
that carries it the way Cohere streams it: ``message-start``; the reasoning as a ``thinking``
content block (reasoning models) or as ``tool-plan-delta`` events (a tool plan); the text as
a content block; each call as ``tool-call-start`` (arguments ``""``), ``tool-call-delta``
fragments routed by the call's index only, and ``tool-call-end``; ``message-end`` with the
finish reason and the usage (``tokens``, ``billed_units``, ``cached_tokens``); ``[DONE]``;
Server-Sent Events framed every way (:mod:`raf.formats._strategies.sse`), and network
chunking. :func:`render` puts a given response on the wire the same way; :func:`responses`
draws the ground truth alone::

    from hypothesis import given
    from raf.formats.cohere_v2 import strategies

    @given(strategies.streams(profile="cohere"))
    def test_my_parser(stream):
        assert my_parser(stream.chunks).text == stream.response.text

Imported only by tests: the format's descriptor does not import it (hypothesis is a test
dependency).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from raf.formats._strategies.common import (
    GeneratedStream,
    _tool_calls,
    argument_text,
    chunked,
    lookup_profile,
    split_text,
    tool_calls,
    usages,
)
from raf.formats._strategies.sse import framed
from raf.model import AgentResponse, Usage, contents

__all__ = ["FORCEABLE", "PROFILES", "Profile", "render", "responses", "streams"]


@dataclass(frozen=True)
class Profile:
    """How a server puts a Cohere v2 response on the wire.

    Attributes:
        name: a label for reports.
        event_names: an ``event:`` line before each ``data:`` line (Cohere's API does).
        done_marker: ``data: [DONE]`` at the end (Cohere's API sends it).
        thinking: reasoning comes as a ``thinking`` content block (a reasoning model), else
            as ``tool-plan-delta`` events.
    """

    name: str
    event_names: bool = True
    done_marker: bool = True
    thinking: bool = False


PROFILES: dict[str, Profile] = {
    "cohere": Profile(name="cohere"),
    "reasoning": Profile(name="reasoning", thinking=True),
    "gateway": Profile(name="gateway", event_names=False, done_marker=False),
}
"""The built-in profiles, by name."""

_TO_WIRE = {
    "stop": ("COMPLETE", "STOP_SEQUENCE"),
    "length": ("MAX_TOKENS",),
    "tool_calls": ("TOOL_CALL",),
    "TIMEOUT": ("TIMEOUT",),
}
_FINISH = st.sampled_from([None, "stop", "tool_calls", "length", "TIMEOUT"])
_dump = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def _profile(profile: str | Profile) -> Profile:
    return lookup_profile(profile, PROFILES)


FORCEABLE = frozenset({"calls", "truncated", "text", "non_ascii_text"})
"""What ``streams(force=...)`` can make every stream have: a tool call (``calls``); no
``message-end``, so a cut stream (``truncated``); text (``text``); non-ASCII text, sent
unescaped (``non_ascii_text``)."""


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
        calls = _tool_calls(draw, max_tool_calls, "call_", min_count=1)[0]
    else:
        calls = draw(tool_calls(max_tool_calls, id_prefix="call_"))
    finish = None if "truncated" in force else draw(_FINISH)
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
    finish reason (``stop``, ``tool_calls``, ``length``, ``TIMEOUT`` or none: a cut stream)
    and usage (or none; only with a finish reason, since usage rides on ``message-end``)."""
    if max_tool_calls < 0 or max_text_deltas < 0:
        raise InvalidArgument("max_tool_calls and max_text_deltas must be at least 0")
    return _responses(max_tool_calls, max_text_deltas)


def _usage_object(draw: st.DrawFn, usage: Usage | None) -> dict[str, Any]:
    if usage is None:
        return {}
    billed = {
        "input_tokens": draw(st.integers(0, usage.prompt_tokens)),
        "output_tokens": usage.completion_tokens,
    }
    out: dict[str, Any] = {
        "billed_units": billed,
        "tokens": {"input_tokens": usage.prompt_tokens, "output_tokens": usage.completion_tokens},
    }
    if usage.prompt_cache_hit_tokens is not None:
        out["cached_tokens"] = usage.prompt_cache_hit_tokens
    return out


def _content(kind: str, index: int, pieces: list[str]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [
        {
            "type": "content-start",
            "index": index,
            "delta": {"message": {"content": {"type": kind, kind: ""}}},
        }
    ]
    for piece in pieces:
        if piece:
            message = {"content": {kind: piece}}
            events.append({"type": "content-delta", "index": index, "delta": {"message": message}})
    events.append({"type": "content-end", "index": index})
    return events


@st.composite
def _render(draw: st.DrawFn, truth: AgentResponse, chosen: Profile) -> GeneratedStream:
    response_id = "5c1d0f3e-8a2b-4c6d-9e7f-0a1b2c3d4e5f"
    events: list[dict[str, Any]] = [
        {
            "id": response_id,
            "type": "message-start",
            "delta": {
                "message": {
                    "role": "assistant",
                    "content": [],
                    "tool_plan": "",
                    "tool_calls": [],
                    "citations": [],
                }
            },
        }
    ]
    index = 0
    reasoning = truth.reasoning_text or ""
    if reasoning:
        pieces = draw(split_text(reasoning))
        if chosen.thinking:
            events += _content("thinking", index, pieces)
            index += 1
        else:
            events += [
                {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": piece}}}
                for piece in pieces
                if piece
            ]
    if truth.text:
        events += _content("text", index, draw(split_text(truth.text)))
    for number, call in enumerate(truth.tool_calls):
        function = {"name": call.name, "arguments": ""}
        start = {"id": call.id, "type": "function", "function": function}
        events.append(
            {
                "type": "tool-call-start",
                "index": number,
                "delta": {"message": {"tool_calls": start}},
            }
        )
        arguments = draw(argument_text(call.arguments if isinstance(call.arguments, dict) else {}))
        for piece in draw(split_text(arguments)) if arguments else []:
            if piece:
                fragment = {"function": {"arguments": piece}}
                events.append(
                    {
                        "type": "tool-call-delta",
                        "index": number,
                        "delta": {"message": {"tool_calls": fragment}},
                    }
                )
        events.append({"type": "tool-call-end", "index": number})
    errors: tuple[contents.Error, ...] = ()
    if truth.finish_reason is None:
        errors = (contents.Error(error_code="stream_truncated", message=""),)
    else:
        wire = draw(st.sampled_from(_TO_WIRE[truth.finish_reason]))
        delta = {"finish_reason": wire, "usage": _usage_object(draw, truth.usage)}
        events.append({"type": "message-end", "delta": delta})
    payloads = [_dump(event) for event in events]
    names: list[str | None] = [event["type"] if chosen.event_names else None for event in events]
    if chosen.done_marker:
        payloads.append("[DONE]")
        names.append(None)
    body = framed(draw, payloads, events=names)
    truth = AgentResponse(
        id=response_id,
        text=truth.text,
        reasoning_text=truth.reasoning_text,
        tool_calls=truth.tool_calls,
        finish_reason=truth.finish_reason,
        usage=truth.usage,
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
    response: AgentResponse, profile: str | Profile = "cohere"
) -> st.SearchStrategy[GeneratedStream]:
    """``response`` (its text, reasoning, calls, finish reason and usage) as a Cohere v2 stream
    of ``profile``: events, SSE framing, network chunking, with the ground truth it carries.
    A response without a finish reason is a cut stream (no ``message-end``), reported
    ``stream_truncated``."""
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
