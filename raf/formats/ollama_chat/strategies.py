"""Hypothesis strategies of Ollama ``/api/chat`` streams, with their ground truth. No IO.

:func:`responses` draws what a correct client must end with (an
:class:`~raf.model.AgentResponse`); :func:`render` puts one on the wire the way a profile's
server does (:data:`PROFILES`): ``ollama`` (calls without ids, as most versions send them) and
``ollama_ids`` (newer versions: each call with an ``id`` and ``function.index``, numbered from
0 in each line, so several lines' calls all say 0); :func:`streams` draws and renders.

Streams do what clients get wrong: a token per line, thinking in lines of its own before
the answer, several whole calls in one line or one per line, calls of the same function, a
done line with or without content, durations beside the counts, and the body cut anywhere by
the network.

What the format cannot express, and how the returned ground truth is adjusted:

* call ids, when the profile sends none: raf names the calls ``__tc_<n>``;
* finish reasons: ``done_reason`` is ``stop`` for calls too, so ``stop``/``tool_calls`` become
  ``tool_calls`` with calls and ``stop`` without; a response without a finish reason is a
  stream cut before its done line (``stream_truncated``, and no usage);
* usage: only ``prompt_eval_count`` and ``eval_count`` (the total is their sum).

This module imports hypothesis; ``raf.formats.ollama_chat`` never imports it.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from typing import Any, TypeVar

import msgspec
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from raf.formats._strategies.common import GeneratedStream
from raf.model import AgentResponse, contents
from raf.model.messages import ToolCall
from raf.model.usage import Usage

__all__ = ["FORCEABLE", "PROFILES", "Profile", "render", "responses", "streams"]


@dataclass(frozen=True)
class Profile:
    """How one Ollama version puts chat responses on the wire.

    Attributes:
        name: the profile's name.
        ids: calls carry an ``id`` and a ``function.index`` (Ollama 0.12 and later).
        model: the ``model`` sent.
    """

    name: str
    ids: bool
    model: str


PROFILES: dict[str, Profile] = {
    "ollama": Profile("ollama", False, "qwen3:8b"),
    "ollama_ids": Profile("ollama_ids", True, "gpt-oss:20b"),
}


_Cut = TypeVar("_Cut", str, bytes)
_NAMES = ("get_weather", "read_file", "search", "run_query")
_KEYS = st.sampled_from(("city", "path", "query", "limit", "units", "é中"))
_VALUES = st.one_of(
    st.text(max_size=12),
    st.integers(-(2**40), 2**40),
    st.booleans(),
    st.none(),
    st.lists(st.integers(0, 9), max_size=3),
)
_ARGUMENTS = st.dictionaries(_KEYS, _VALUES, max_size=3)
_USAGE = st.one_of(
    st.none(),
    st.builds(
        lambda p, c: Usage(prompt_tokens=p, completion_tokens=c, total_tokens=p + c),
        st.integers(0, 10**6),
        st.integers(0, 10**5),
    ),
)
_FINISH = st.sampled_from([None, "stop", "tool_calls", "length"])


def _text(text: str, force: frozenset[str]) -> str:
    if "text" in force and not text:
        text = "a"
    return text + "é" if "non_ascii_text" in force and text.isascii() else text


@st.composite
def _responses(
    draw: st.DrawFn, max_tool_calls: int, force: frozenset[str] = frozenset()
) -> AgentResponse:
    count = draw(st.integers(min(int("calls" in force), max_tool_calls), max_tool_calls))
    calls = tuple(
        ToolCall(id=f"__tc_{n}", name=draw(st.sampled_from(_NAMES)), arguments=draw(_ARGUMENTS))
        for n in range(count)
    )
    reasoning = draw(st.text(max_size=30))
    return AgentResponse(
        text=_text(draw(st.text(max_size=40)), force),
        reasoning_text=reasoning or None,
        tool_calls=calls,
        finish_reason=None if "truncated" in force else draw(_FINISH),
        usage=draw(_USAGE),
    )


def responses(*, max_tool_calls: int = 3) -> st.SearchStrategy[AgentResponse]:
    """A ground truth: text, reasoning, calls with JSON-object arguments, finish reason,
    usage (prompt and completion counts)."""
    if max_tool_calls < 0:
        raise InvalidArgument(f"max_tool_calls must be at least 0, got {max_tool_calls}")
    return _responses(max_tool_calls)


def _pieces(draw: st.DrawFn, whole: _Cut, most: int = 6) -> list[_Cut]:
    """``whole`` cut into at most ``most`` + 1 non-empty pieces (text: one a line, as tokens
    come; a body: the network's reads)."""
    if not whole:
        return []
    cuts: list[int] = draw(st.lists(st.integers(1, max(1, len(whole) - 1)), max_size=most))
    bounds = [0, *sorted({c for c in cuts if c < len(whole)}), len(whole)]
    return [whole[a:b] for a, b in itertools.pairwise(bounds)]


def render(
    response: AgentResponse, profile: str | Profile = "ollama"
) -> st.SearchStrategy[GeneratedStream]:
    """``response`` on the wire as the profile's server sends it, cut into network reads; the
    stream's ``response`` is the ground truth adjusted as the module docstring says."""
    chosen = PROFILES[profile] if isinstance(profile, str) else profile
    return _render(response, chosen)


@st.composite
def _render(
    draw: st.DrawFn,
    response: AgentResponse,
    chosen: Profile,
    force: frozenset[str] = frozenset(),
) -> GeneratedStream:
    model = chosen.model
    stamp = iter(range(10**6))

    def line(message: dict[str, Any], **more: Any) -> dict[str, Any]:
        at = f"2025-11-04T09:12:{30 + next(stamp) // 1000:02d}.{next(stamp) % 1000:03d}Z"
        return {"model": model, "created_at": at, "message": message, **more}

    def assistant(**fields: Any) -> dict[str, Any]:
        return {"role": "assistant", "content": fields.pop("content", ""), **fields}

    objects = [
        line(assistant(thinking=piece), done=False)
        for piece in _pieces(draw, response.reasoning_text or "")
    ]
    objects += [
        line(assistant(content=piece), done=False) for piece in _pieces(draw, response.text)
    ]

    calls = response.tool_calls
    kept: list[ToolCall] = []
    position = 0
    while position < len(calls):
        size = draw(st.integers(1, len(calls) - position))  # whole calls, one line or more
        entries = []
        for index, call in enumerate(calls[position : position + size]):
            n = len(kept)
            call_id = f"call_{n:02d}{chosen.name[:4]}" if chosen.ids else f"__tc_{n}"
            function: dict[str, Any] = {"name": call.name, "arguments": call.arguments}
            entry: dict[str, Any] = {"function": function}
            if chosen.ids:
                entry = {"id": call_id, "function": {"index": index, **function}}
            entries.append(entry)
            kept.append(ToolCall(id=call_id, name=call.name, arguments=call.arguments))
        objects.append(line(assistant(tool_calls=entries), done=False))
        position += size

    finish = response.finish_reason
    if finish in ("stop", "tool_calls"):
        finish = "tool_calls" if kept else "stop"
    usage = response.usage
    errors: tuple[contents.Error, ...] = ()
    if finish is None:
        usage = None
        errors = (contents.Error(error_code="stream_truncated", message=""),)
    else:
        last: dict[str, Any] = {
            "done": True,
            "done_reason": "length" if finish == "length" else "stop",
            "total_duration": 912483211,
            "load_duration": 48211902,
        }
        if usage is not None:
            last |= {
                "prompt_eval_count": usage.prompt_tokens,
                "prompt_eval_duration": 61402812,
                "eval_count": usage.completion_tokens,
                "eval_duration": 788413011,
            }
        objects.append(line(assistant(), **last))

    payloads = [
        json.dumps(
            o,
            ensure_ascii=draw(st.booleans()) and "non_ascii_text" not in force,
            separators=(",", ":"),
        )
        for o in objects
    ]
    body = "".join(p + "\n" for p in payloads).encode()
    chunks = tuple(_pieces(draw, body, 8))
    truth = msgspec.structs.replace(
        response,
        reasoning_text=response.reasoning_text or None,
        tool_calls=tuple(kept),
        finish_reason=finish,
        usage=usage,
        errors=errors,
    )
    return GeneratedStream(
        response=truth, payloads=tuple(payloads), body=body, chunks=chunks, profile=chosen
    )


FORCEABLE = frozenset({"calls", "truncated", "text", "non_ascii_text"})
"""What ``streams(force=...)`` can make every stream have: a tool call (``calls``); no
``done`` line, so a cut stream (``truncated``); text (``text``); non-ASCII text, sent
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
    chosen = (
        st.sampled_from(list(PROFILES.values()))
        if profile is None
        else st.just(PROFILES[profile] if isinstance(profile, str) else profile)
    )
    forced = frozenset(force)
    return st.tuples(_responses(max_tool_calls, forced), chosen).flatmap(
        lambda p: _render(p[0], p[1], forced)
    )
