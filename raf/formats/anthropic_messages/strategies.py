"""Hypothesis strategies for Anthropic Messages streams, with their ground truth.

:func:`render` puts a given :class:`AgentResponse` on the wire the way a server of a
:class:`Profile` would (``message_start``, thinking/text/tool blocks with their deltas,
``message_delta``, ``message_stop``), frames it as SSE and cuts it into network reads;
:func:`streams` draws the response too. Feed ``stream.chunks`` to a parser and compare its
result with ``stream.response``.

Profiles (:data:`PROFILES`):

* ``anthropic``: the API itself: ``event:`` lines, ``ping`` after the first block start,
  thinking blocks closed by a ``signature_delta`` (sometimes in two pieces), server tools
  (``server_tool_use`` + ``web_search_tool_result``) between text blocks, ``citations_delta``,
  an empty first ``partial_json``, usage counts with cache reads, unknown event types.
* ``bedrock``: Claude on Bedrock or Vertex as the SDKs and gateways pass it on: ``msg_bdrk_``
  ids, the input counts repeated in ``message_delta``, ``amazon-bedrock-invocationMetrics``
  in ``message_stop``.
* ``proxy``: Anthropic-compatible proxies: ``data:`` lines only (no event names; the type is
  in the JSON) with the decorations of :func:`sse_framing`, the first text (and sometimes a
  tool's whole input) in ``content_block_start``, usage only in ``message_delta``, and
  ``data: [DONE]`` after ``message_stop``.

What the format cannot express (the returned ground truth is adjusted accordingly):

* usage: ``total_tokens`` is always prompt + completion, ``reasoning_tokens`` is ``None``,
  the cache miss count is prompt - hit when a hit count is sent and ``None`` otherwise;
* finish reasons that are Anthropic wire names (``end_turn``...) become raf's; an empty one
  is none;
* the response ``id`` and ``model`` are the profile's message id and model; a tool call's
  empty id is replaced by a ``toolu_`` id.

A response without a finish reason is either ended by ``message_stop`` alone (a clean end)
or truncated (no ``message_stop``: ``stream_truncated`` in the ground truth's errors); all
blocks are closed, so its calls are complete.
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
    _tool_calls,
    _usage,
    base62,
    chance,
    chunked,
    decisions,
    lookup_profile,
    pick,
    split_by,
    wire_of,
)
from raf.formats._strategies.sse import framed
from raf.model import AgentResponse, Usage, contents

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
    """How a server puts an Anthropic response on the wire.

    Attributes:
        name: a label for reports.
        model: the ``model`` of ``message_start``.
        id_prefix: the message id's prefix (``msg_``, ``msg_bdrk_``).
        event_names: ``event:`` lines before each ``data:`` line (else data-only framing).
        pings: ``ping`` events.
        server_tools: server tool blocks between text blocks (and ``citations_delta``).
        start_content: the first text, or a whole tool input, may come in
            ``content_block_start`` (proxies).
        usage_in_start: the input counts come in ``message_start`` (else only in
            ``message_delta``).
        repeat_input_in_delta: ``message_delta`` repeats the input counts.
        invocation_metrics: Bedrock's ``amazon-bedrock-invocationMetrics`` in ``message_stop``.
        done_marker: ``data: [DONE]`` after ``message_stop``.
        unknown_events: event types raf does not know, now and then.
    """

    name: str
    model: str = "claude-sonnet-4-5-20250929"
    id_prefix: str = "msg_01"
    event_names: bool = True
    pings: bool = True
    server_tools: bool = False
    start_content: bool = False
    usage_in_start: bool = True
    repeat_input_in_delta: bool = False
    invocation_metrics: bool = False
    done_marker: bool = False
    unknown_events: bool = True


PROFILES: dict[str, Profile] = {
    "anthropic": Profile(name="anthropic", server_tools=True),
    "bedrock": Profile(
        name="bedrock",
        model="claude-3-5-haiku-20241022",
        id_prefix="msg_bdrk_01",
        repeat_input_in_delta=True,
        invocation_metrics=True,
        unknown_events=False,
    ),
    "proxy": Profile(
        name="proxy",
        model="kimi-k2-0905-preview",
        id_prefix="msg_",
        event_names=False,
        pings=False,
        start_content=True,
        usage_in_start=False,
        done_marker=True,
    ),
}

_TO_WIRE = {
    "stop": ("end_turn", "stop_sequence"),
    "length": ("max_tokens", "model_context_window_exceeded"),
    "tool_calls": ("tool_use",),
    "content_filter": ("refusal",),
    "pause_turn": ("pause_turn",),
}
_FROM_WIRE = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
}

FEATURES = frozenset(
    {
        "named_events",
        "data_only",
        "ping",
        "unknown_event",
        "thinking",
        "signature",
        "split_signature",
        "text_in_block_start",
        "multiple_text_blocks",
        "server_tool",
        "citations",
        "tool_call",
        "parallel_calls",
        "empty_first_partial_json",
        "zero_argument_call",
        "input_in_block_start",
        "cache_read",
        "usage_only_in_delta",
        "input_in_delta",
        "invocation_metrics",
        "done_marker",
        "no_finish_reason",
        "truncated",
    }
)
"""The stream features :func:`coverage` reports."""


def _profile(profile: str | Profile) -> Profile:
    return lookup_profile(profile, PROFILES)


_dump = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


# -- ground truth -----------------------------------------------------------------------------


def responses(
    *, max_tool_calls: int = 3, max_text_deltas: int = 6
) -> st.SearchStrategy[AgentResponse]:
    """A response the format can carry: text, reasoning, 0 to ``max_tool_calls`` calls with
    ``toolu_`` ids, a finish reason (or none) and usage (or none)."""
    if max_tool_calls < 0 or max_text_deltas < 0:
        raise InvalidArgument("max_tool_calls and max_text_deltas must be at least 0")
    return _responses(max_tool_calls, max_text_deltas)


_TEXT = st.text(max_size=48)
_REASONING = st.text(max_size=24)
# No finish reason two times in seven (the shrink target), so that cut streams are common.
_FINISH = st.sampled_from([None, *FINISH_REASONS, "pause_turn"])


def _draw_response(
    draw: st.DrawFn,
    max_tool_calls: int,
    max_text_deltas: int,
    wire: bool,
    force: frozenset[str] = frozenset(),
) -> tuple[AgentResponse, Wire | None]:
    """The ground truth; with ``wire``, each part's wire decisions right after it; ``force``:
    the shapes of :data:`FORCEABLE` it must have."""
    text = draw(_TEXT if max_text_deltas == 6 else st.text(max_size=8 * max_text_deltas))
    if "non_ascii_text" in force and text.isascii():
        text += "é"
    text_cuts = draw(_CUTS) if wire else b""
    reasoning = draw(_REASONING)
    reasoning_cuts = draw(_CUTS) if wire else b""
    calls, plans = _tool_calls(
        draw, max_tool_calls, "toolu_", 2 if wire else None, min_count=int("calls" in force)
    )
    finish = None if "truncated" in force else draw(_FINISH)
    usage = _usage(draw, cache=True)
    response = AgentResponse(
        text=text,
        reasoning_text=reasoning or None,
        tool_calls=calls,
        finish_reason=finish,
        usage=usage,
    )
    return response, Wire(text_cuts, reasoning_cuts, plans) if wire else None


@st.composite
def _responses(draw: st.DrawFn, max_tool_calls: int, max_text_deltas: int) -> AgentResponse:
    return _draw_response(draw, max_tool_calls, max_text_deltas, False)[0]


def _adjusted(response: AgentResponse, message_id: str, model: str) -> AgentResponse:
    finish = response.finish_reason or None
    if finish is not None:
        finish = _FROM_WIRE.get(finish, finish)
    usage = response.usage
    if usage is not None:
        hit = usage.prompt_cache_hit_tokens
        prompt = max(usage.prompt_tokens, 0)
        if hit is not None:
            hit = min(max(hit, 0), prompt)
        usage = Usage(
            prompt_tokens=prompt,
            completion_tokens=max(usage.completion_tokens, 0),
            total_tokens=prompt + max(usage.completion_tokens, 0),
            prompt_cache_hit_tokens=hit,
            prompt_cache_miss_tokens=None if hit is None else prompt - hit,
        )
    calls = tuple(
        c if c.id else msgspec.structs.replace(c, id=f"toolu_{n:024d}")
        for n, c in enumerate(response.tool_calls)
    )
    return AgentResponse(
        id=message_id,
        model=model,
        text=response.text,
        reasoning_text=response.reasoning_text or None,
        tool_calls=calls,
        finish_reason=finish,
        usage=usage,
    )


# -- the wire ---------------------------------------------------------------------------------


def render(
    response: AgentResponse, profile: str | Profile = "anthropic", *, truncate: bool | None = None
) -> st.SearchStrategy[GeneratedStream]:
    """``response`` on the wire of ``profile``, framed and chunked, with the adjusted ground
    truth (module docstring). ``truncate``: end a response without a finish reason without
    ``message_stop`` (``None``: either)."""
    return _render(response, _profile(profile), truncate)


@st.composite
def _render(
    draw: st.DrawFn, response: AgentResponse, chosen: Profile, truncate: bool | None
) -> GeneratedStream:
    return _rendered(draw, response, chosen, truncate, None)


_ID_NUMBER = st.integers(min_value=0, max_value=62**22 - 1)
_SIGNATURE_NUMBER = st.integers(min_value=0, max_value=62**40 - 1)
_SERVER_ID_NUMBER = st.integers(min_value=0, max_value=62**12 - 1)
_FLAG = st.booleans()
_EOL = st.sampled_from(["\n", "\r\n"])
_WIRE_REASONS = {finish: st.sampled_from(names) for finish, names in _TO_WIRE.items()}


def _rendered(
    draw: st.DrawFn,
    response: AgentResponse,
    chosen: Profile,
    truncate: bool | None,
    wire: Wire | None,
    *,
    steady: bool = False,
) -> GeneratedStream:
    """``steady``: draw the choice of a cut whatever ``truncate`` says."""
    if wire is None:
        wire = Wire.drawn(draw, len(response.tool_calls), 2)
    message_id = chosen.id_prefix + base62(draw(_ID_NUMBER), 22)
    truth = _adjusted(response, message_id, chosen.model)
    # Drawn whatever the finish reason, so that one shrinking to none moves no later choice.
    cut_short = decisions(draw, 1)[0] if truncate is None or steady else 0
    truncated = truth.finish_reason is None and (
        chance(cut_short, 128) if truncate is None else truncate
    )
    payloads: list[dict[str, Any]] = []
    noisy = chosen.pings or chosen.unknown_events

    def noise_plan(count: int) -> bytes:
        """Two decision bytes for each of a block's ``count`` deltas, drawn at once."""
        return decisions(draw, 2 * count) if noisy else bytes(2 * count)

    def noise(plan: bytes, n: int) -> None:
        """After delta ``n``, maybe a ping (1 in 4) and maybe an unknown event (1 in 2)."""
        if chosen.pings and chance(plan[2 * n], 64):
            payloads.append({"type": "ping"})
        if chosen.unknown_events and chance(plan[2 * n + 1], 128):
            payloads.append({"type": "content_block_annotation", "note": "future event"})

    usage = truth.usage
    wire_usage: dict[str, int] = {}
    if usage is not None:
        hit = usage.prompt_cache_hit_tokens
        wire_usage["input_tokens"] = usage.prompt_tokens - (hit or 0)
        if hit is not None:
            wire_usage["cache_read_input_tokens"] = hit
            wire_usage["cache_creation_input_tokens"] = 0
    start_usage: dict[str, Any] = {}
    if usage is not None and chosen.usage_in_start:
        start_usage = {**wire_usage, "output_tokens": min(1, usage.completion_tokens)}
    payloads.append(
        {
            "type": "message_start",
            "message": {
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "model": chosen.model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": start_usage,
            },
        }
    )
    index = 0
    first_block = True

    def after_start() -> None:
        nonlocal first_block
        if first_block and chosen.pings:
            payloads.append({"type": "ping"})  # as the API does after the first block start
        first_block = False

    # thinking
    if truth.reasoning_text:
        payloads.append(
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "thinking", "thinking": "", "signature": ""},
            }
        )
        after_start()
        thinking = split_by(truth.reasoning_text, wire.reasoning)
        plan = noise_plan(len(thinking))
        for n, piece in enumerate(thinking):
            payloads.append(
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "thinking_delta", "thinking": piece},
                }
            )
            noise(plan, n)
        # "Eq" and 8 to 40 letters and digits, sent whole or in two pieces
        signature = "Eq" + base62(draw(_SIGNATURE_NUMBER), 40).lstrip("0").rjust(8, "0")
        pieces = [signature] if draw(_FLAG) else [signature[:4], signature[4:]]
        payloads.extend(
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "signature_delta", "signature": piece},
            }
            for piece in pieces
        )
        payloads.append({"type": "content_block_stop", "index": index})
        index += 1

    # text, perhaps in two blocks around a server tool
    text_pieces = split_by(truth.text, wire.text)
    groups = [text_pieces]
    if chosen.server_tools:
        two, where = decisions(draw, 2)  # two blocks (3 in 4)? and after which piece
        if len(text_pieces) >= 2 and chance(two, 192):
            cut = 1 + pick(where, len(text_pieces) - 1)
            groups = [text_pieces[:cut], text_pieces[cut:]]
    for g, whole_group in enumerate(groups):
        if not whole_group:
            continue
        rest = whole_group
        if g == 1:
            server_id = "srvtoolu_" + base62(draw(_SERVER_ID_NUMBER), 12)
            payloads += [
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {
                        "type": "server_tool_use",
                        "id": server_id,
                        "name": "web_search",
                        "input": {},
                    },
                },
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "input_json_delta", "partial_json": '{"query": "x"}'},
                },
                {"type": "content_block_stop", "index": index},
                {
                    "type": "content_block_start",
                    "index": index + 1,
                    "content_block": {
                        "type": "web_search_tool_result",
                        "tool_use_id": server_id,
                        "content": [],
                    },
                },
                {"type": "content_block_stop", "index": index + 1},
            ]
            index += 2
        first = ""
        if chosen.start_content and draw(_FLAG):
            first, rest = whole_group[0], whole_group[1:]
        payloads.append(
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "text", "text": first},
            }
        )
        after_start()
        if chosen.server_tools and g == 1:
            payloads.append(
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {
                        "type": "citations_delta",
                        "citation": {"type": "web_search_result_location", "cited_text": "x"},
                    },
                }
            )
        plan = noise_plan(len(rest))
        for n, piece in enumerate(rest):
            payloads.append(
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "text_delta", "text": piece},
                }
            )
            noise(plan, n)
        payloads.append({"type": "content_block_stop", "index": index})
        index += 1

    # tool calls
    for call, call_plan in zip(truth.tool_calls, wire.calls, strict=True):
        assert isinstance(call.arguments, dict)
        _, (whole, empty_first), fragments = wire_of(call_plan, call.arguments, 2)
        whole_in_start = chosen.start_content and bool(call.arguments) and chance(whole, 128)
        payloads.append(
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {
                    "type": "tool_use",
                    "id": call.id,
                    "name": call.name,
                    "input": call.arguments if whole_in_start else {},
                },
            }
        )
        after_start()
        if not whole_in_start:
            if not fragments or chance(empty_first, 128):
                fragments = ["", *fragments]  # the API's empty first partial_json
            plan = noise_plan(len(fragments))
            for n, piece in enumerate(fragments):
                payloads.append(
                    {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {"type": "input_json_delta", "partial_json": piece},
                    }
                )
                noise(plan, n)
        payloads.append({"type": "content_block_stop", "index": index})
        index += 1

    # the end
    if not truncated:
        delta_usage: dict[str, Any] | None = None
        if usage is not None:
            delta_usage = {"output_tokens": usage.completion_tokens}
            if not chosen.usage_in_start or chosen.repeat_input_in_delta:
                delta_usage = {**wire_usage, **delta_usage}
        if truth.finish_reason is not None:
            names = _WIRE_REASONS.get(truth.finish_reason)
            reason = truth.finish_reason if names is None else draw(names)
            body: dict[str, Any] = {
                "type": "message_delta",
                "delta": {"stop_reason": reason, "stop_sequence": None},
            }
            if delta_usage is not None:
                body["usage"] = delta_usage
            payloads.append(body)
        elif delta_usage is not None:
            payloads.append(
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": None, "stop_sequence": None},
                    "usage": delta_usage,
                }
            )
        stop: dict[str, Any] = {"type": "message_stop"}
        if chosen.invocation_metrics and usage is not None:
            stop["amazon-bedrock-invocationMetrics"] = {
                "inputTokenCount": usage.prompt_tokens,
                "outputTokenCount": usage.completion_tokens,
                "invocationLatency": 400,
                "firstByteLatency": 300,
            }
        payloads.append(stop)
    elif usage is not None and not chosen.usage_in_start:
        # usage only in message_delta: a truncated stream still says it, without a reason
        payloads.append(
            {
                "type": "message_delta",
                "delta": {"stop_reason": None},
                "usage": {**wire_usage, "output_tokens": usage.completion_tokens},
            }
        )
    elif usage is not None:
        # the placeholder of message_start is all a truncated stream carries; the truth
        # cannot know more, so it says the same
        truth = msgspec.structs.replace(
            truth,
            usage=Usage(
                prompt_tokens=usage.prompt_tokens,
                completion_tokens=min(1, usage.completion_tokens),
                total_tokens=usage.prompt_tokens + min(1, usage.completion_tokens),
                prompt_cache_hit_tokens=usage.prompt_cache_hit_tokens,
                prompt_cache_miss_tokens=usage.prompt_cache_miss_tokens,
            ),
        )
    if truncated:
        truth = msgspec.structs.replace(
            truth, errors=(contents.Error(error_code="stream_truncated", message=""),)
        )

    texts = [_dump(p) for p in payloads]
    if chosen.done_marker and not truncated:
        texts.append("[DONE]")
        payloads.append({})
    if chosen.event_names:
        eol = draw(_EOL)
        parts = []
        for text, payload in zip(texts, payloads, strict=True):
            kind = payload.get("type")
            head = f"event: {kind}{eol}" if kind else ""
            parts.append(f"{head}data: {text}{eol}{eol}")
        body_bytes = "".join(parts).encode()
    else:
        body_bytes = framed(draw, texts)
    chunks = chunked(draw, body_bytes)
    return GeneratedStream(
        response=truth, payloads=tuple(texts), body=body_bytes, chunks=tuple(chunks), profile=chosen
    )


FORCEABLE = frozenset({"calls", "truncated", "non_ascii_text"})
"""What ``streams(force=...)`` can make every stream have: a tool call (``calls``); no
finish reason and no ``message_stop`` (``truncated``); non-ASCII text (``non_ascii_text``)."""


def streams(
    profile: str | Profile | None = None,
    *,
    max_tool_calls: int = 3,
    force: frozenset[str] = frozenset(),
) -> st.SearchStrategy[GeneratedStream]:
    """A whole stream and its ground truth: :func:`responses` put on the wire by
    :func:`render` (``profile`` ``None``: any built-in profile); ``force``: shapes every
    stream has (:data:`FORCEABLE`)."""
    if max_tool_calls < 0:
        raise InvalidArgument(f"max_tool_calls must be at least 0, got {max_tool_calls}")
    unknown = frozenset(force) - FORCEABLE
    if unknown:
        raise InvalidArgument(f"cannot force {sorted(unknown)}; use some of {sorted(FORCEABLE)}")
    chosen = None if profile is None else _profile(profile)
    return _streams(chosen, max_tool_calls, frozenset(force))


_PROFILE = st.sampled_from(list(PROFILES.values()))


@st.composite
def _streams(
    draw: st.DrawFn,
    chosen: Profile | None,
    max_tool_calls: int,
    force: frozenset[str] = frozenset(),
) -> GeneratedStream:
    profile = chosen if chosen is not None else draw(_PROFILE)
    truth, wire = _draw_response(draw, max_tool_calls, 6, True, force)
    truncate = True if "truncated" in force else None
    return _rendered(draw, truth, profile, truncate, wire, steady=bool(force))


# -- coverage ---------------------------------------------------------------------------------


def coverage(stream: GeneratedStream) -> set[str]:
    """The features of :data:`FEATURES` that ``stream`` exercises, read from its payloads."""
    found: set[str] = set()
    found.add("named_events" if stream.profile.event_names else "data_only")
    text_blocks = 0
    signatures: dict[int, int] = {}
    first_partial: dict[int, str] = {}
    tool_blocks: dict[int, bool] = {}  # index -> got a non-empty delta
    finish = False
    for text in stream.payloads:
        if text == "[DONE]":
            found.add("done_marker")
            continue
        payload = json.loads(text)
        kind = payload.get("type")
        if kind == "ping":
            found.add("ping")
        elif kind == "content_block_annotation":
            found.add("unknown_event")
        elif kind == "message_start":
            usage = payload["message"]["usage"]
            if "cache_read_input_tokens" in usage:
                found.add("cache_read")
        elif kind == "content_block_start":
            block = payload["content_block"]
            btype = block["type"]
            if btype == "thinking":
                found.add("thinking")
            elif btype == "text":
                text_blocks += 1
                if block["text"]:
                    found.add("text_in_block_start")
            elif btype == "server_tool_use":
                found.add("server_tool")
            elif btype == "tool_use":
                found.add("tool_call")
                tool_blocks[payload["index"]] = False
                if block["input"]:
                    found.add("input_in_block_start")
        elif kind == "content_block_delta":
            delta = payload["delta"]
            i = payload["index"]
            if delta["type"] == "signature_delta":
                signatures[i] = signatures.get(i, 0) + 1
            elif delta["type"] == "citations_delta":
                found.add("citations")
            elif delta["type"] == "input_json_delta" and i in tool_blocks:
                first_partial.setdefault(i, delta["partial_json"])
                if delta["partial_json"]:
                    tool_blocks[i] = True
        elif kind == "message_delta":
            if payload["delta"].get("stop_reason"):
                finish = True
            usage = payload.get("usage") or {}
            if "input_tokens" in usage:
                found.add("input_in_delta")
        elif kind == "message_stop" and "amazon-bedrock-invocationMetrics" in payload:
            found.add("invocation_metrics")
    if signatures:
        found.add("signature")
    if any(n > 1 for n in signatures.values()):
        found.add("split_signature")
    if text_blocks > 1:
        found.add("multiple_text_blocks")
    if len(tool_blocks) > 1:
        found.add("parallel_calls")
    if any(v == "" for v in first_partial.values()):
        found.add("empty_first_partial_json")
    if any(c.arguments == {} for c in stream.response.tool_calls):
        found.add("zero_argument_call")
    if stream.response.usage is not None and not stream.profile.usage_in_start:
        found.add("usage_only_in_delta")
    if not finish:
        found.add("no_finish_reason")
    if any(e.error_code == "stream_truncated" for e in stream.response.errors):
        found.add("truncated")
    return found
