"""Hypothesis strategies for Chat Completions streams, with their ground truth.

Each strategy draws what a correct client must end with (an :class:`AgentResponse`) and a
stream that carries it the way a real provider would: Chat Completions chunks, SSE framing,
network chunking. Feed ``stream.chunks`` to any parser and compare its result with
``stream.response``::

    from hypothesis import given
    from raf.testing.strategies import streams

    @given(streams(profile="ollama"))
    def test_my_parser(stream):
        assert my_parser(stream.chunks).text == stream.response.text

The layers can also be used one by one: :func:`json_arguments`, :func:`responses`,
:func:`chat_completion_chunks`, :func:`sse_framing`, :func:`network_chunkings`.

Provider behaviour is a :class:`Profile`; :data:`PROFILES` holds the built-in ones
(``openai``, ``deepseek``, ``openrouter``, ``ollama``, ``gemini_openai`` (Gemini's
OpenAI-compatible endpoint), ``nim``, ``gpt5``, ``anthropic_compat`` (Anthropic's
OpenAI SDK compatibility layer, whose tool-call indices start at 1), ``azure``) and any
``Profile(...)`` you build works the same way.

Everything shrinks toward fewer chunks, fewer calls and shorter arguments: a failing case
reduces to a few chunks and one short call.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any, Literal

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
    merge_calls,
    pick,
    split_by,
    wire_of,
)
from raf.formats._strategies.sse import framed
from raf.model import AgentResponse, Usage, contents

__all__ = [
    "DONE_IN_TEXT",
    "FEATURES",
    "FORCEABLE",
    "LONG_EVENT",
    "PROFILES",
    "Profile",
    "chat_completion_chunks",
    "coverage",
    "profiles",
    "render",
    "responses",
    "streams",
]

# -- provider profiles ------------------------------------------------------------------------


@dataclass(frozen=True)
class Profile:
    """How a provider puts a response on the wire.

    Attributes:
        name: a label for reports.
        ids: tool-call ids on the ``first`` delta of a call, on ``every`` delta, or ``none``
            (the client must make them up: raf's are ``__tc_<n>``).
        index: tool-call ``index`` by ``position`` (0, 1, ...), ``one_based`` (1, 2, ...),
            ``zero`` for every call, or ``none`` (no index key).
        names: the function name on the ``first`` delta of a call or on ``every`` delta.
        whole_calls: each call arrives complete in one delta.
        reasoning_field: the delta field that carries reasoning (``reasoning_content``,
            ``reasoning``), or ``None`` when the provider streams none.
        comments: comment lines the provider puts between events (``: OPENROUTER PROCESSING``).
        filter_chunks: Azure's content-filter annotation chunks (empty choices, empty ids,
            choices without a delta).
        usage: where usage goes: ``own_chunk`` (``choices: []``), ``beside_finish``,
            ``none``, or ``any`` of them.
        model: the model name in the chunks.
        id_prefix: the prefix of response ids.
    """

    name: str
    ids: Literal["first", "every", "none"] = "first"
    index: Literal["position", "one_based", "zero", "none"] = "position"
    names: Literal["first", "every"] = "first"
    whole_calls: bool = False
    reasoning_field: str | None = None
    comments: tuple[str, ...] = ()
    filter_chunks: bool = False
    usage: Literal["own_chunk", "beside_finish", "none", "any"] = "any"
    model: str = "gpt-4o-mini-2024-07-18"
    id_prefix: str = "chatcmpl-"

    def __post_init__(self) -> None:
        if self.index in ("zero", "none") and self.ids == "none":
            raise InvalidArgument(
                f"profile {self.name!r}: with index {self.index!r} and no ids, parallel calls "
                "cannot be told apart; give the calls ids or positions"
            )

    @property
    def can_interleave(self) -> bool:
        """Whether fragments of parallel calls may interleave and still be routable: each
        fragment must carry a distinct index or the call's id."""
        return self.index in ("position", "one_based") or self.ids == "every"


PROFILES: dict[str, Profile] = {
    p.name: p
    for p in (
        Profile("openai", usage="own_chunk"),
        Profile(
            "deepseek",
            reasoning_field="reasoning_content",
            model="deepseek-reasoner",
            id_prefix="",
            usage="beside_finish",
        ),
        Profile(
            "openrouter",
            reasoning_field="reasoning",
            comments=(": OPENROUTER PROCESSING",),
            model="minimax/minimax-m2",
            id_prefix="gen-1762179802-",
        ),
        Profile("ollama", index="zero", model="qwen3:8b", usage="beside_finish"),
        Profile(
            "gemini_openai", index="none", whole_calls=True, model="gemini-2.5-flash", id_prefix=""
        ),
        Profile("nim", ids="none", reasoning_field="reasoning_content", model="z-ai/glm-4.7"),
        Profile("gpt5", ids="every", names="every", model="gpt-5-2025-08-07"),
        Profile("anthropic_compat", index="one_based", model="claude-sonnet-4-5", id_prefix="msg_"),
        Profile("azure", filter_chunks=True, model="gpt-4o-2024-11-20", usage="own_chunk"),
    )
}
"""The built-in provider profiles, by name."""


def profiles() -> st.SearchStrategy[Profile]:
    """One of the built-in :data:`PROFILES` (shrinks toward ``openai``)."""
    return st.sampled_from(list(PROFILES.values()))


def _profile(profile: str | Profile) -> Profile:
    return lookup_profile(profile, PROFILES)


# -- responses --------------------------------------------------------------------------------


def responses(
    profile: str | Profile = "openai", *, max_tool_calls: int = 3, max_text_deltas: int = 6
) -> st.SearchStrategy[AgentResponse]:
    """The ground truth of a stream: text, reasoning (when the profile streams it), 0 to
    ``max_tool_calls`` tool calls with JSON arguments, a finish reason and usage.

    Tool-call ids are the provider's (``call_...``), or raf's ``__tc_<n>`` when the profile
    sends none. The finish reason is one of ``stop``, ``tool_calls``, ``length``,
    ``content_filter`` or ``None``. Shrinks toward no calls, no text and no usage.
    """
    if max_tool_calls < 0 or max_text_deltas < 0:
        raise InvalidArgument("max_tool_calls and max_text_deltas must be at least 0")
    return _responses(_profile(profile), max_tool_calls, max_text_deltas)


@functools.cache
def _texts(max_size: int, min_size: int = 0) -> st.SearchStrategy[str]:
    return st.text(min_size=min_size, max_size=max_size)


# No finish reason one time in three (the shrink target), so that cut streams are common.
_FINISH = st.sampled_from([None, *FINISH_REASONS])
_SOME_USAGE = st.builds(
    lambda prompt, completion: Usage(
        prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion
    ),
    st.integers(0, 10**6),
    st.integers(0, 10**5),
)

FORCEABLE = frozenset(
    {
        "calls",
        "parallel_calls",
        "split_calls",
        "interleaved_calls",
        "finish_with_text",
        "usage",
        "later_usage_null",
        "done_in_text",
        "non_ascii_text",
        "long_event",
        "truncated",
        "cut_in_arguments",
        "steady",
    }
)
"""What ``streams(force=...)`` can make every stream have: at least one call (``calls``),
two (``parallel_calls``), every call's arguments in two deltas or more (``split_calls``),
parallel calls interleaved (``interleaved_calls``), the last text in the chunk with the
finish reason (``finish_with_text``), usage (``usage``), a chunk with ``"usage": null``
after the usage (``later_usage_null``), text containing ``[DONE]`` in one delta
(``done_in_text``), non-ASCII text (``non_ascii_text``), a text delta of
:data:`LONG_EVENT` bytes or more (``long_event``), no finish reason and no ``[DONE]``
(``truncated``), the stream ended inside a call's arguments (``cut_in_arguments``).

``steady`` changes no stream's shape but what is drawn: the choices do not depend on the
profile's call ids, on whether the stream is cut, or on whether calls interleave (each is
drawn and dropped where unused), and calls interleave only when ``interleaved_calls`` is
forced; so a shrinker can switch any of those off without losing the rest of a failing
case (``raf.fuzz`` uses it)."""

DONE_IN_TEXT = "see data: [DONE] above"
"""The text delta ``done_in_text`` adds."""

LONG_EVENT = 32 * 1024
"""The least bytes of the text delta ``long_event`` adds (longer than a 16 KiB read)."""

_LONG_TEXT = "a long event, é中😀 " * (LONG_EVENT // 24 + 1)  # 24 bytes a run
_CUT = frozenset({"truncated", "cut_in_arguments"})


def _least_calls(force: frozenset[str]) -> int:
    if force & {"parallel_calls", "interleaved_calls"}:
        return 2
    return 1 if force & {"calls", "split_calls", "cut_in_arguments"} else 0


def _draw_response(
    draw: st.DrawFn,
    chosen: Profile,
    max_tool_calls: int,
    max_text_deltas: int,
    wire: bool,
    *,
    force: frozenset[str] = frozenset(),
) -> tuple[AgentResponse, Wire | None]:
    """Text, reasoning, calls, finish reason, usage: one choice each, and a few per call;
    with ``wire``, each part's wire decisions right after it (see :class:`Wire`); ``force``:
    the response shapes of :data:`FORCEABLE` it must have."""
    text = draw(_texts(8 * max_text_deltas, 1 if "finish_with_text" in force else 0))
    if "non_ascii_text" in force and text.isascii():
        text += "é"
    text_cuts = draw(_CUTS) if wire else b""
    reasoning = ""
    reasoning_cuts = b""
    if chosen.reasoning_field is not None:
        reasoning = draw(_texts(8 * max_text_deltas))
        reasoning_cuts = draw(_CUTS) if wire else b""
    calls, plans = _tool_calls(
        draw,
        max_tool_calls,
        None if chosen.ids == "none" else "call_",
        1 if wire else None,
        min_count=_least_calls(force),
        draw_ids="steady" in force,
    )
    finish = draw(_FINISH)
    if force & _CUT:
        finish = None
    elif finish is None and "finish_with_text" in force:
        finish = "stop"
    usage = _usage(draw) if chosen.usage != "none" else None
    if usage is None and "usage" in force and chosen.usage != "none":
        usage = draw(_SOME_USAGE)
    response = AgentResponse(
        text=text,
        reasoning_text=reasoning or None,
        tool_calls=calls,
        finish_reason=finish,
        usage=usage,
    )
    return response, Wire(text_cuts, reasoning_cuts, plans) if wire else None


@st.composite
def _responses(
    draw: st.DrawFn, chosen: Profile, max_tool_calls: int, max_text_deltas: int
) -> AgentResponse:
    return _draw_response(draw, chosen, max_tool_calls, max_text_deltas, False)[0]


# -- Chat Completions chunks ------------------------------------------------------------------


def chat_completion_chunks(
    response: AgentResponse, profile: str | Profile = "openai"
) -> st.SearchStrategy[list[str]]:
    """The ``data`` values of a Chat Completions stream that carries ``response``.

    Text and reasoning are cut into deltas; each call's argument text is cut at arbitrary
    characters (inside escape sequences, between the halves of a surrogate-pair escape);
    parallel calls interleave where the profile lets a client route their fragments; text,
    reasoning and calls are merged in any order; usage sits in its own chunk or beside the
    finish reason; ``[DONE]`` ends the stream unless the response has no finish reason (then
    either ends it or not: without both the stream is truncated). Returns JSON texts, plus
    ``"[DONE]"`` when sent. Shrinks toward few, whole deltas.
    """
    chosen = _profile(profile)
    if chosen.reasoning_field is None and response.reasoning_text:
        raise InvalidArgument(f"profile {chosen.name!r} streams no reasoning")
    return _chunks(response, chosen).map(lambda wire: wire[0])


@st.composite
def _chunks(
    draw: st.DrawFn, response: AgentResponse, chosen: Profile
) -> tuple[list[str], list[str]]:
    texts, arguments, _ = _payloads(
        draw, response, chosen, Wire.drawn(draw, len(response.tool_calls), 1)
    )
    return texts, arguments


# The chunks' response id (the ground truth has none; a drawn one would only cost a choice).
_RESPONSE_ID = "B9mRcb2a"
_FILTER_CHUNK = {
    "choices": [],
    "created": 0,
    "id": "",
    "model": "",
    "object": "",
    "prompt_filter_results": [{"prompt_index": 0, "content_filter_results": {}}],
}


def _payloads(
    draw: st.DrawFn,
    response: AgentResponse,
    chosen: Profile,
    wire: Wire,
    force: frozenset[str] = frozenset(),
) -> tuple[list[str], list[str], AgentResponse]:
    """The payloads, the argument text each call was sent with, and the response they carry
    (``response`` itself, unless ``force`` adds text or cuts the stream short)."""
    pieces_of_text = [Piece("text", t) for t in split_by(response.text, wire.text)]
    if force & {"done_in_text", "long_event"}:
        # Whole text deltas of their own, where one decision byte each puts them.
        where = decisions(draw, 2)
        for n, (name, added) in enumerate(
            (("done_in_text", DONE_IN_TEXT), ("long_event", _LONG_TEXT))
        ):
            if name in force:
                at = pick(where[n], len(pieces_of_text) + 1)
                pieces_of_text.insert(at, Piece("text", added))
        response = msgspec.structs.replace(response, text="".join(p.value for p in pieces_of_text))
    pieces_of_reasoning = [
        Piece("reasoning", t) for t in split_by(response.reasoning_text or "", wire.reasoning)
    ]
    calls: list[list[Piece]] = []
    argument_texts: list[str] = []
    for n, call in enumerate(response.tool_calls):
        assert isinstance(call.arguments, dict)
        text, (open_empty,), fragments = wire_of(wire.calls[n], call.arguments, 1)
        argument_texts.append(text)
        if chosen.whole_calls:
            fragments = [text]
        else:
            fragments = fragments or [""]
            if chance(open_empty, 192) or ("split_calls" in force and len(fragments) < 2):
                fragments = ["", *fragments]  # OpenAI opens a call with "arguments": ""
        calls.append([Piece("call", f, n, first=i == 0) for i, f in enumerate(fragments)])
    sequential = [p for c in calls for p in c]
    if "steady" in force:
        # The interleaving is drawn whatever the profile, and used only when forced.
        merged = merge_calls(draw, calls)
        tool_pieces = sequential
        if "interleaved_calls" in force and chosen.can_interleave:
            tool_pieces = _interleaved(merged)
    elif chosen.can_interleave:
        tool_pieces = merge_calls(draw, calls)
        if "interleaved_calls" in force:
            tool_pieces = _interleaved(tool_pieces)
    else:
        tool_pieces = sequential
    order = merge(draw, [pieces_of_reasoning, pieces_of_text, tool_pieces])
    if "finish_with_text" in force and response.finish_reason is not None:
        last_text = max((n for n, p in enumerate(order) if p.kind == "text"), default=None)
        if last_text is not None:
            order.append(order.pop(last_text))  # keeps every part's own order
    sent = response  # whose calls the deltas carry
    if "cut_in_arguments" in force:
        order, response = _cut_in_arguments(draw, order, response, argument_texts)

    base = {
        "id": chosen.id_prefix + _RESPONSE_ID,
        "object": "chat.completion.chunk",
        "created": 1741569952,
        "model": chosen.model,
    }
    payloads: list[dict[str, Any]] = []
    if chosen.filter_chunks:
        payloads.append(_FILTER_CHUNK)

    def chunk(
        delta: dict[str, Any] | None, finish: str | None = None, **extra: Any
    ) -> dict[str, Any]:
        choice: dict[str, Any] = {
            "index": 0,
            "delta": delta,
            "logprobs": None,
            "finish_reason": finish,
        }
        if delta is None:
            del choice["delta"]
        return {**base, "choices": [choice], **extra}

    # Real servers often send the role with the first content (a client that drops the first
    # event loses it), the last text with the finish reason, and several calls' entries in
    # one chunk; each is a decision, so the plain shapes stay the shrink target. One byte
    # each for the stream (role with the first content, finish with the last text, where
    # usage goes), then two a piece (its entry joins the chunk before it; a content-filter
    # chunk follows it).
    plan = decisions(draw, 3 + 2 * len(order))
    flags, each = plan[:3], plan[3:]
    role_with_first = bool(order) and chance(flags[0], 160)
    finish_with_last = (
        response.finish_reason is not None
        and bool(order)
        and order[-1].kind == "text"
        and (chance(flags[1], 192) or "finish_with_text" in force)
    )
    if not role_with_first:
        payloads.append(chunk({"role": "assistant", "content": ""}))
    need_role = role_with_first
    position = 0
    while position < len(order):
        piece = order[position]
        position += 1
        delta: dict[str, Any]
        if piece.kind == "text":
            delta = {"content": piece.value}
        elif piece.kind == "reasoning":
            delta = {"content": None, chosen.reasoning_field or "reasoning_content": piece.value}
        else:
            entries = [_tool_delta(chosen, sent, piece)]
            # Consecutive fragments of other calls ride in the same chunk.
            while (
                chosen.can_interleave
                and position < len(order)
                and order[position].kind == "call"
                and order[position].call
                not in {p.call for p in order[position - len(entries) : position]}
                and chance(each[2 * position], 128)
            ):
                entries.append(_tool_delta(chosen, sent, order[position]))
                position += 1
            delta = {"tool_calls": entries}
        if finish_with_last and position == len(order):
            break  # sent below, with the finish reason
        if need_role:
            delta = {"role": "assistant", **delta}
            need_role = False
        payloads.append(chunk(delta))
        if chosen.filter_chunks and chance(each[2 * position - 1], 26):
            payloads.append(
                chunk(
                    None,
                    content_filter_offsets={"check_offset": 0, "start_offset": 0, "end_offset": 1},
                )
            )

    usage = response.usage
    placement = (
        chosen.usage if chosen.usage != "any" else ("own_chunk", "beside_finish")[pick(flags[2], 2)]
    )
    if usage is not None and response.finish_reason is None:
        placement = "own_chunk"
    usage_json = (
        None
        if usage is None
        else {
            "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens,
            "total_tokens": usage.total_tokens,
        }
    )
    if response.finish_reason is not None:
        extra = (
            {"usage": usage_json} if usage_json is not None and placement == "beside_finish" else {}
        )
        last = {"content": order[-1].value} if finish_with_last else {}
        if need_role:
            last = {"role": "assistant", **last}
        payloads.append(chunk(last, response.finish_reason, **extra))
    if usage_json is not None and placement == "own_chunk":
        payloads.append({**base, "choices": [], "usage": usage_json})
    if usage_json is not None and "later_usage_null" in force:
        payloads.append({**base, "choices": [], "usage": None})
    texts = [_DUMP(p) for p in payloads]
    truncated = bool(response.errors)
    if not truncated:
        texts.append("[DONE]")
    return texts, argument_texts, response


def _interleaved(pieces: list[Piece]) -> list[Piece]:
    """``pieces`` (calls in order, each call's fragments in order) with a fragment of call 1
    before the last of call 0, if they are not interleaved yet and call 0 has two."""
    seen = -1
    for piece in pieces:
        if piece.call < seen:
            return pieces  # already interleaved
        seen = max(seen, piece.call)
    of_first = [n for n, p in enumerate(pieces) if p.call == 0]
    second = next((n for n, p in enumerate(pieces) if p.call == 1), None)
    if len(of_first) < 2 or second is None:
        return pieces
    moved = pieces[second]
    rest = pieces[:second] + pieces[second + 1 :]
    return [*rest[: of_first[0] + 1], moved, *rest[of_first[0] + 1 :]]


def _cut_in_arguments(
    draw: st.DrawFn, order: list[Piece], response: AgentResponse, argument_texts: list[str]
) -> tuple[list[Piece], AgentResponse]:
    """The pieces up to a cut inside a call's arguments (the stream ends there), and what
    they carry: the text and reasoning before the cut; the calls whose whole arguments
    arrived; ``tool_call_incomplete`` for the others that started (their arguments are not
    one JSON document yet, or are empty: docs/converter.md); ``stream_truncated``; no usage.
    One decision byte picks the fragment, one where it is cut."""
    which, where = decisions(draw, 2)
    received: dict[int, int] = {}  # characters of each call's arguments so far
    candidates: list[tuple[int, int, int]] = []  # (position, least cut, most cut)
    for position, piece in enumerate(order):
        if piece.kind != "call":
            continue
        before = received.get(piece.call, 0)
        whole = len(argument_texts[piece.call])
        least = 1
        most = min(len(piece.value), whole - before - 1)
        if piece.value and least <= most:
            candidates.append((position, least, most))
        received[piece.call] = before + len(piece.value)
    if candidates:
        position, least, most = candidates[pick(which, len(candidates))]
        piece = order[position]
        cut = Piece("call", piece.value[: least + pick(where, most - least + 1)], piece.call)
    else:
        # Every call's arguments are "" or one character: the first call gets "{" of "{}".
        first_call = next((n for n, p in enumerate(order) if p.kind == "call"), None)
        if first_call is None:
            return order, response  # no call: the stream is only truncated
        position = first_call
        piece = order[position]
        cut = Piece("call", "{", piece.call)
        argument_texts[piece.call] = "{}"
    kept = [*order[:position], Piece(cut.kind, cut.value, cut.call, piece.first)]
    got: dict[int, str] = {}
    for piece in kept:
        if piece.kind == "call":
            got[piece.call] = got.get(piece.call, "") + piece.value
    complete = [n for n, text in got.items() if text and text == argument_texts[n]]
    incomplete = [n for n in got if n not in complete]
    truth = AgentResponse(
        text="".join(p.value for p in kept if p.kind == "text"),
        reasoning_text="".join(p.value for p in kept if p.kind == "reasoning") or None,
        tool_calls=tuple(response.tool_calls[n] for n in sorted(complete)),
        errors=(
            contents.Error(error_code="stream_truncated", message=""),
            *(
                contents.Error(
                    error_code="tool_call_incomplete",
                    message="",
                    call_id=response.tool_calls[n].id,
                )
                for n in sorted(incomplete)
            ),
        ),
    )
    return kept, truth


_DUMP = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def _tool_delta(profile: Profile, response: AgentResponse, piece: Piece) -> dict[str, Any]:
    call = response.tool_calls[piece.call]
    entry: dict[str, Any] = {}
    if profile.index == "position":
        entry["index"] = piece.call
    elif profile.index == "one_based":
        entry["index"] = piece.call + 1
    elif profile.index == "zero":
        entry["index"] = 0
    if profile.ids == "every" or (profile.ids == "first" and piece.first):
        entry["id"] = call.id
        entry["type"] = "function"
    function: dict[str, Any] = {"arguments": piece.value}
    if piece.first or profile.names == "every":
        function = {"name": call.name, **function}
    entry["function"] = function
    return entry


# -- whole streams ----------------------------------------------------------------------------


def streams(
    profile: str | Profile | None = None,
    *,
    max_tool_calls: int = 3,
    force: frozenset[str] = frozenset(),
) -> st.SearchStrategy[GeneratedStream]:
    """A whole stream with its ground truth: :func:`responses` put on the wire by
    :func:`chat_completion_chunks`, framed by :func:`sse_framing` and cut by
    :func:`network_chunkings`.

    Args:
        profile: a built-in profile's name, a :class:`Profile`, or ``None`` for any built-in.
        max_tool_calls: the most tool calls in one response.
        force: shapes every stream has (:data:`FORCEABLE`; the ground truth follows them).
            Those that need calls, or two, have them when ``max_tool_calls`` allows.

    Shrinks toward one chunk, no calls (or one short call) and plain framing.
    """
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
    truth, wire = _draw_response(draw, chosen, max_tool_calls, 6, True, force=force)
    return _rendered(draw, truth, chosen, None, wire, force=force)


def render(
    response: AgentResponse, profile: str | Profile = "openai", *, truncate: bool | None = None
) -> st.SearchStrategy[GeneratedStream]:
    """``response`` as a Chat Completions stream of ``profile``: chunks, SSE framing, network
    chunking, with the ground truth the stream carries.

    Args:
        response: what the stream must aggregate to (calls' ids are used as the provider's
            ids unless the profile sends none; a response with reasoning needs a profile
            that streams it).
        profile: a built-in profile's name or a :class:`Profile`.
        truncate: for a response without a finish reason, end the stream without ``[DONE]``
            (a cut stream, reported ``stream_truncated``); ``None``: either.
    """
    chosen = _profile(profile)
    if chosen.reasoning_field is None and response.reasoning_text:
        raise InvalidArgument(f"profile {chosen.name!r} streams no reasoning")
    if chosen.ids == "none":
        response = msgspec.structs.replace(
            response,
            tool_calls=tuple(
                msgspec.structs.replace(c, id=f"__tc_{n}")
                for n, c in enumerate(response.tool_calls)
            ),
        )
    return _render(response, chosen, truncate)


@st.composite
def _render(
    draw: st.DrawFn, truth: AgentResponse, chosen: Profile, truncate: bool | None
) -> GeneratedStream:
    return _rendered(draw, truth, chosen, truncate, None)


def _rendered(
    draw: st.DrawFn,
    truth: AgentResponse,
    chosen: Profile,
    truncate: bool | None,
    wire: Wire | None,
    *,
    force: frozenset[str] = frozenset(),
) -> GeneratedStream:
    if wire is None:
        wire = Wire.drawn(draw, len(truth.tool_calls), 1)
    # Without a finish reason, the stream is cut (no [DONE]) one time in two. Drawn
    # whatever the finish reason, so that one shrinking to none moves no later choice.
    cut = decisions(draw, 1)[0] if truncate is None or "steady" in force else 0
    if force & _CUT:
        truncate = True
    truncated = truth.finish_reason is None and (chance(cut, 128) if truncate is None else truncate)
    if truncated:
        # No finish reason and no [DONE]: a cut stream, which a client must report.
        truth = AgentResponse(
            text=truth.text,
            reasoning_text=truth.reasoning_text,
            tool_calls=truth.tool_calls,
            usage=truth.usage,
            errors=(contents.Error(error_code="stream_truncated", message=""),),
        )
    payloads, argument_texts, truth = _payloads(draw, truth, chosen, wire, force)
    if truncated and "" in argument_texts and "cut_in_arguments" not in force:
        # A call whose arguments never came ("" on the wire) in a cut stream may have been cut
        # before them: it is reported incomplete, not called with {}.
        incomplete = [n for n, text in enumerate(argument_texts) if not text]
        truth = msgspec.structs.replace(
            truth,
            tool_calls=tuple(c for n, c in enumerate(truth.tool_calls) if n not in incomplete),
            errors=(
                *truth.errors,
                *(
                    contents.Error(
                        error_code="tool_call_incomplete",
                        message="",
                        call_id=truth.tool_calls[n].id,
                    )
                    for n in incomplete
                ),
            ),
        )
    body = framed(draw, payloads, chosen.comments)
    chunks = chunked(draw, body)
    return GeneratedStream(
        response=truth,
        payloads=tuple(payloads),
        body=body,
        chunks=tuple(chunks),
        profile=chosen,
    )


# -- what the strategies cover ----------------------------------------------------------------

FEATURES = (
    "role_with_first_content",
    "content_in_first_chunk",
    "finish_with_text",
    "several_calls_in_one_chunk",
    "interleaved_calls",
    "empty_first_arguments",
    "zero_argument_call",
    "reasoning",
    "usage_own_chunk",
    "usage_beside_finish",
    "no_ids",
    "index_always_zero",
    "no_index",
    "one_based_index",
    "comments",
    "filter_chunks",
    "truncated",
    "crlf_or_cr",
    "bom",
    "multi_line_data",
    "single_byte_chunks",
)
"""The stream features :func:`coverage` reports (docs/testing.md has how often each occurs)."""


def coverage(stream: GeneratedStream) -> set[str]:
    """The :data:`FEATURES` a generated stream has, read off its payloads and bytes."""
    found: set[str] = set()
    chunks = [json.loads(p) for p in stream.payloads if p != "[DONE]"]
    deltas = [
        (chunk, choice)
        for chunk in chunks
        for choice in chunk.get("choices") or ()
        if isinstance(choice, dict)
    ]
    first_real = next((c for c, choice in deltas if choice.get("delta")), None)
    if first_real is not None:
        delta = first_real["choices"][0]["delta"]
        if delta.get("role") and (
            delta.get("content") or delta.get("tool_calls") or len(delta) > 2
        ):
            found.add("role_with_first_content")
        if (
            delta.get("content")
            or delta.get("tool_calls")
            or any(k.startswith("reasoning") for k in delta)
        ):
            found.add("content_in_first_chunk")
    last_call_seen: int | None = None
    for chunk, choice in deltas:
        delta = choice.get("delta") or {}
        if choice.get("finish_reason") and delta.get("content"):
            found.add("finish_with_text")
        if choice.get("finish_reason") and chunk.get("usage"):
            found.add("usage_beside_finish")
        if any(k.startswith("reasoning") and delta[k] for k in delta):
            found.add("reasoning")
        entries = delta.get("tool_calls") or []
        if len(entries) > 1:
            found.add("several_calls_in_one_chunk")
        for entry in entries:
            if "index" not in entry:
                found.add("no_index")
            key = entry.get("index")
            if last_call_seen is not None and key is not None and key < last_call_seen:
                found.add("interleaved_calls")
            if key is not None:
                last_call_seen = key if last_call_seen is None else max(last_call_seen, key)
            function = entry.get("function") or {}
            if "name" in function and function.get("arguments") == "":
                found.add("empty_first_arguments")
    if any(chunk.get("usage") and chunk.get("choices") == [] for chunk in chunks):
        found.add("usage_own_chunk")
    if any(not call.arguments for call in stream.response.tool_calls):
        found.add("zero_argument_call")
    profile = stream.profile
    found |= {
        name
        for name, on in (
            ("no_ids", profile.ids == "none"),
            ("index_always_zero", profile.index == "zero"),
            ("one_based_index", profile.index == "one_based"),
            ("comments", bool(profile.comments) and b"\n:" in stream.body),
            ("filter_chunks", profile.filter_chunks),
            ("truncated", "[DONE]" not in stream.payloads),
            ("crlf_or_cr", b"\r" in stream.body),
            ("bom", stream.body.startswith(b"\xef\xbb\xbf")),
            ("multi_line_data", b"data: {\n" in stream.body or b"data: {\r" in stream.body),
            ("single_byte_chunks", len(stream.chunks) > 1 and max(map(len, stream.chunks)) == 1),
        )
        if on
    }
    return found
