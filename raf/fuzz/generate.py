"""Streams for the fuzzer: a format's strategies, with the quirks of the catalogue they show.

    from raf.fuzz.generate import streams

    @given(streams("openai_chat", {"index_always_zero": 1.0, "leading_bom": 0.5}))
    def test_mine(fuzzed):
        assert my_parser(fuzzed.chunks) == fuzzed.response
        fuzzed.quirks  # the quirks this stream shows

A quirk profile maps quirk ids (:mod:`raf.quirks`) to weights: each example turns each quirk
on with the probability of its weight (1.0: always), then draws a stream of the format that
has every quirk turned on, with its ground truth. How each quirk is made is data
(:data:`RECIPES`): a constraint on the format's provider profile, on the SSE framing, on the
network reads, on the payloads or on the response. :data:`GENERATORS` says which formats each
quirk can be generated for. What a stream shows is read off the stream afterwards
(:func:`shown`), so ``FuzzStream.quirks`` lists exactly what it shows: a quirk turned on that
the stream cannot show (interleaving with one call) is not listed, and one the format's own
variety brought (a BOM the framing drew) is.

Everything is drawn so that hypothesis shrinks toward fewer quirks (one decision byte per
quirk, 0 off), then fewer calls, events and bytes. Pure: no IO.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType, ModuleType
from typing import Any

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from raf import formats
from raf.formats._strategies.common import GeneratedStream, chance, chunked, decisions
from raf.formats._strategies.sse import framed
from raf.formats.openai_chat.strategies import LONG_EVENT
from raf.model import AgentResponse
from raf.testing import strategies as format_strategies

__all__ = [
    "CATALOGUE_WEIGHT",
    "DEFAULT_WEIGHT",
    "GENERATORS",
    "RECIPES",
    "FuzzStream",
    "Recipe",
    "shown",
    "streams",
]


@dataclass(frozen=True)
class FuzzStream:
    """A generated stream, its ground truth, and the quirks it shows.

    Attributes:
        format: the wire format.
        stream: the stream and its ground truth.
        quirks: the ids of the catalogue's quirks the stream shows (:mod:`raf.quirks`), in
            the order of :data:`RECIPES`.
    """

    format: str
    stream: GeneratedStream
    quirks: tuple[str, ...] = ()

    @property
    def response(self) -> AgentResponse:
        """What a correct client ends with."""
        return self.stream.response

    @property
    def body(self) -> bytes:
        return self.stream.body

    @property
    def chunks(self) -> tuple[bytes, ...]:
        """The body as network reads."""
        return self.stream.chunks


# -- the recipes ------------------------------------------------------------------------------

SSE = frozenset(
    {
        "openai_chat",
        "anthropic_messages",
        "openai_responses",
        "gemini",
        "openai_completions",
        "cohere_v2",
        "gemini_interactions",
    }
)
"""The formats framed as Server-Sent Events (Gemini's with its ``sse`` profiles)."""
EVERY = SSE | {"ollama_chat", "bedrock_converse"}
"""Every format the fuzzer generates (Bedrock's as AWS event streams: binary bodies)."""
WITH_CUTS = frozenset(
    {
        "openai_chat",
        "anthropic_messages",
        "gemini",
        "ollama_chat",
        "openai_completions",
        "cohere_v2",
        "gemini_interactions",
        "bedrock_converse",
    }
)
"""The formats whose strategies can cut a stream short (``force={"truncated"}``)."""


@dataclass(frozen=True)
class Recipe:
    """How one quirk is made in some formats.

    Attributes:
        quirk: the quirk's id.
        formats: the formats it is made for this way.
        kind: what is constrained: ``profile``, ``framing``, ``chunking``, ``payload`` or
            ``response``.
        how: the recipe in a few words (docs/fuzzing.md's table).
        profile: fields of the format's provider profile to set.
        force: shapes the format's ``streams(force=...)`` must give every stream.
        framing: keyword arguments of :func:`raf.formats._strategies.sse.framed`.
        reads: ways of reading of :func:`raf.formats._strategies.common.chunked`.
    """

    quirk: str
    formats: frozenset[str]
    kind: str
    how: str
    profile: Mapping[str, Any] = field(default_factory=dict)
    force: frozenset[str] = frozenset()
    framing: Mapping[str, Any] = field(default_factory=dict)
    reads: frozenset[str] = frozenset()


def _r(quirk: str, on: Sequence[str] | frozenset[str], kind: str, how: str, **more: Any) -> Recipe:
    more = {k: frozenset(v) if k in ("force", "reads") else v for k, v in more.items()}
    return Recipe(quirk, frozenset(on), kind, how, **more)


_CHAT = ("openai_chat",)
# The formats whose streams may have no events at all (no text, calls, usage or finish).
_MAY_BE_EMPTY = frozenset({"gemini", "ollama_chat", "openai_completions"})


def _framing(quirk: str, how: str, **framing: Any) -> tuple[Recipe, Recipe]:
    return (
        _r(quirk, SSE - _MAY_BE_EMPTY, "framing", how, framing=framing),
        _r(quirk, SSE & _MAY_BE_EMPTY, "framing", f"text, {how}", framing=framing,
           force={"text"}),
    )  # fmt: skip


RECIPES: tuple[Recipe, ...] = (
    # provider profiles
    _r("index_always_zero", _CHAT, "profile", "index 0 on every call, two calls or more",
       profile={"index": "zero"}, force={"parallel_calls"}),
    _r("name_every_delta", _CHAT, "profile", "the name on every delta, calls in two deltas or more",
       profile={"names": "every", "whole_calls": False}, force={"split_calls"}),
    _r("no_call_ids", _CHAT, "profile", "no call ids, a call or more",
       profile={"ids": "none"}, force={"calls"}),
    _r("no_call_ids", ("gemini",), "response", "a call or more (Gemini sends no ids)",
       force={"calls"}),
    _r("no_call_ids", ("ollama_chat",), "profile",
       "calls without ids (Ollama before 0.12), a call or more", profile={"ids": False},
       force={"calls"}),
    _r("no_index", _CHAT, "profile", "no index key, a call or more",
       profile={"index": "none"}, force={"calls"}),
    _r("one_based_index", _CHAT, "profile", "indices from 1, a call or more",
       profile={"index": "one_based"}, force={"calls"}),
    _r("ping_events", ("anthropic_messages",), "profile", "ping events, a call or more",
       profile={"pings": True}, force={"calls"}),
    _r("no_event_names", ("anthropic_messages",), "profile", "data lines only, no event lines",
       profile={"event_names": False}),
    _r("no_event_names", ("openai_responses",), "profile", "(always: no event lines)"),
    _r("filter_annotation_chunks", _CHAT, "profile", "Azure's content-filter chunks",
       profile={"filter_chunks": True}),
    _r("partial_args", ("gemini",), "profile", "Vertex partialArgs, a call or more",
       profile={"partial_args": True}, force={"calls"}),
    # framing (text where a stream may otherwise have no events to frame)
    *_framing("leading_bom", "a byte-order mark first", bom=True),
    *_framing("cr_line_ends", "lines end in CR", line_ends="cr"),
    *_framing("crlf_line_ends", "lines end in CRLF", line_ends="crlf"),
    *_framing("comment_lines", "a comment line in the first event", comment=True),
    *_framing("multi_line_data", "the first JSON object over several data lines",
              multi_line=True),
    # network reads
    _r("tiny_reads", EVERY - _MAY_BE_EMPTY, "chunking", "reads of 1 to 7 bytes", reads={"tiny"}),
    _r("tiny_reads", _MAY_BE_EMPTY, "chunking", "text, reads of 1 to 7 bytes", reads={"tiny"},
       force={"text"}),
    _r("split_utf8", EVERY, "chunking", "non-ASCII text sent raw, a read cut inside every "
       "multi-byte character", reads={"split_utf8"}, force={"non_ascii_text"}),
    # payloads
    _r("later_usage_null", _CHAT, "payload", 'usage, then a chunk with "usage": null',
       force={"usage", "later_usage_null"}),
    _r("done_in_text", _CHAT, "payload", 'a text delta "see data: [DONE] above"',
       force={"done_in_text"}),
    _r("finish_with_text", _CHAT, "payload", "the last text in the chunk with the finish reason",
       force={"finish_with_text"}),
    _r("long_event", _CHAT, "payload", "a text delta of 32 KiB", force={"long_event"}),
    # responses
    _r("interleaved_calls", _CHAT, "response",
       "two calls or more, a fragment of the second before the last of the first",
       force={"interleaved_calls", "split_calls"}),
    _r("cut_in_arguments", _CHAT, "response",
       "the stream ends inside a call's arguments (no finish reason, no [DONE])",
       force={"cut_in_arguments"}),
    _r("truncated", WITH_CUTS, "response", "no finish reason and no end marker",
       force={"truncated"}),
)  # fmt: skip
"""How each quirk is made, per format (a quirk has one recipe per group of formats)."""


def _generators() -> Mapping[str, frozenset[str]]:
    table: dict[str, frozenset[str]] = {}
    for recipe in RECIPES:
        table[recipe.quirk] = table.get(recipe.quirk, frozenset()) | recipe.formats
    return MappingProxyType(table)


GENERATORS: Mapping[str, frozenset[str]] = _generators()
"""Quirk id -> the formats :func:`streams` can generate it for."""

_ORDER = {quirk: n for n, quirk in enumerate(GENERATORS)}


def _recipe(quirk: str, format: str) -> Recipe:
    return next(r for r in RECIPES if r.quirk == quirk and format in r.formats)


DEFAULT_WEIGHT = 0.5
"""The weight of each quirk of a list."""

CATALOGUE_WEIGHT = 0.25
"""The weight of every quirk when none are given (about one in four of the quirks of a
format in each stream, few enough that quirks which exclude each other, a cut stream and the
last text with the finish reason, each have their share)."""


# -- what a stream shows ----------------------------------------------------------------------

_BOM = b"\xef\xbb\xbf"
_BARE_CR = re.compile(rb"\r(?!\n)")
_COMMENT = re.compile(rb"(?:\A|[\r\n]):")
_TWO_DATA_LINES = re.compile(rb"(?:\A|[\r\n])data:[^\r\n]*(?:\r\n|\r|\n)data:")


def _chat_chunks(stream: GeneratedStream) -> list[dict[str, Any]]:
    return [json.loads(p) for p in stream.payloads if p != "[DONE]"]


def _errors(response: AgentResponse, code: str) -> int:
    return sum(e.error_code == code for e in response.errors)


def _shown_chat(stream: GeneratedStream) -> set[str]:
    found: set[str] = set()
    chunks = _chat_chunks(stream)
    entries: list[dict[str, Any]] = []
    usage_seen = False
    for chunk in chunks:
        if "usage" in chunk:
            if chunk["usage"] is not None:
                usage_seen = True
            elif usage_seen:
                found.add("later_usage_null")
        for choice in chunk.get("choices") or ():
            delta = choice.get("delta") or {}
            content = delta.get("content")
            if isinstance(content, str) and "[DONE]" in content:
                found.add("done_in_text")
            if choice.get("finish_reason") and content:
                found.add("finish_with_text")
            entries += delta.get("tool_calls") or ()
    response = stream.response
    calls = len(response.tool_calls) + _errors(response, "tool_call_incomplete")
    if entries:
        indices = [e.get("index") for e in entries]
        if calls >= 2 and all(i == 0 for i in indices):
            found.add("index_always_zero")
        if any("index" not in e for e in entries):
            found.add("no_index")
        if all(isinstance(i, int) for i in indices) and min(indices) == 1:  # type: ignore[type-var]
            found.add("one_based_index")
        if not any("id" in e for e in entries):
            found.add("no_call_ids")
        if sum("name" in (e.get("function") or {}) for e in entries) > calls:
            found.add("name_every_delta")
        if _interleaved(entries, stream.profile):
            found.add("interleaved_calls")
        last: dict[str, Any] = next((c for c in reversed(chunks) if _has_content(c)), {})
        last_entries = [
            e
            for c in last.get("choices") or ()
            for e in (c.get("delta") or {}).get("tool_calls") or ()
        ]
        if (
            _errors(response, "stream_truncated")
            and _errors(response, "tool_call_incomplete")
            and any((e.get("function") or {}).get("arguments") for e in last_entries)
        ):
            found.add("cut_in_arguments")
    return found


def _has_content(chunk: dict[str, Any]) -> bool:
    """Whether a chunk carries text, reasoning or calls (not only usage or a filter note)."""
    return any(
        value
        for choice in chunk.get("choices") or ()
        for key, value in (choice.get("delta") or {}).items()
        if key != "role"
    )


def _interleaved(entries: list[dict[str, Any]], profile: Any) -> bool:
    """Whether a fragment of a call comes after a fragment of a later call (calls told apart
    by index where the profile numbers them, else by id where every fragment has it)."""
    if profile.index in ("position", "one_based"):
        keys = [e.get("index") for e in entries]
    elif profile.ids == "every":
        keys = [e.get("id") for e in entries]
    else:
        return False
    rank: dict[Any, int] = {}
    highest = -1
    for key in keys:
        n = rank.setdefault(key, len(rank))
        if n < highest:
            return True
        highest = max(highest, n)
    return False


def _shown_long(stream: GeneratedStream) -> set[str]:
    if any(len(p.encode()) >= LONG_EVENT for p in stream.payloads):
        return {"long_event"}
    return set()


def _shown_anthropic(stream: GeneratedStream) -> set[str]:
    return {"ping_events"} if any('"type":"ping"' in p for p in stream.payloads) else set()


def _shown_without_event_names(stream: GeneratedStream) -> set[str]:
    """Events whose type is only in their JSON: no ``event:`` line names a payload's type."""
    types = {json.loads(p).get("type") for p in stream.payloads if p != "[DONE]"}
    named = any(f"event: {t}".encode() in stream.body for t in types if isinstance(t, str))
    return {"no_event_names"} if types and not named else set()


def _shown_gemini(stream: GeneratedStream) -> set[str]:
    partial = any('"willContinue"' in p for p in stream.payloads)
    return _shown_calls_without_ids(stream) | ({"partial_args"} if partial else set())


def _shown_filter_chunks(stream: GeneratedStream) -> set[str]:
    notes = ("prompt_filter_results", "content_filter_offsets")
    return (
        {"filter_annotation_chunks"}
        if any(n in p for p in stream.payloads for n in notes)
        else set()
    )


def _shown_calls_without_ids(stream: GeneratedStream) -> set[str]:
    response = stream.response
    has_calls = response.tool_calls or _errors(response, "tool_call_incomplete")
    ids = getattr(stream.profile, "ids", False)
    return {"no_call_ids"} if has_calls and not ids else set()


_SHOWN_BY_FORMAT: Mapping[str, tuple[Callable[[GeneratedStream], set[str]], ...]] = {
    "openai_chat": (_shown_chat, _shown_long, _shown_filter_chunks),
    "anthropic_messages": (_shown_anthropic, _shown_without_event_names),
    "openai_responses": (_shown_without_event_names,),
    "gemini": (_shown_gemini,),
    "ollama_chat": (_shown_calls_without_ids,),
}


def shown(format: str, stream: GeneratedStream) -> tuple[str, ...]:
    """The quirks of :data:`GENERATORS` for ``format`` that ``stream`` shows, read off its
    bytes, reads, payloads and ground truth, in the order of :data:`RECIPES`."""
    body, chunks, response = stream.body, stream.chunks, stream.response
    found: set[str] = set()
    if format in SSE:
        if body.startswith(_BOM):
            found.add("leading_bom")
        if _BARE_CR.search(body):
            found.add("cr_line_ends")
        if b"\r\n" in body:
            found.add("crlf_line_ends")
        if _COMMENT.search(body.removeprefix(_BOM)):
            found.add("comment_lines")
        if _TWO_DATA_LINES.search(body.removeprefix(_BOM)):
            found.add("multi_line_data")
    if len(chunks) > 1 and max(map(len, chunks)) <= 7:
        found.add("tiny_reads")
    if any(chunk[0] & 0xC0 == 0x80 for chunk in chunks[1:] if chunk):
        found.add("split_utf8")
    if _errors(response, "stream_truncated"):
        found.add("truncated")
    for reader in _SHOWN_BY_FORMAT.get(format, ()):
        found |= reader(stream)
    return tuple(
        sorted((q for q in found if format in GENERATORS.get(q, ())), key=_ORDER.__getitem__)
    )


# -- drawing ----------------------------------------------------------------------------------


def _profile_of(format: str, weights: Mapping[str, float]) -> list[tuple[str, float]]:
    if formats.find(format) is None:
        raise InvalidArgument(f"unknown format {format!r}; use one of {sorted(EVERY)}")
    valid = sorted((q for q, on in GENERATORS.items() if format in on), key=_ORDER.__getitem__)
    if format not in EVERY:
        raise InvalidArgument(f"raf fuzz generates no {format} streams; use one of {sorted(EVERY)}")
    for quirk, weight in weights.items():
        if quirk not in valid:
            raise InvalidArgument(
                f"quirk {quirk!r} cannot be generated for {format}; use some of {valid}"
            )
        if not 0.0 <= weight <= 1.0:
            raise InvalidArgument(f"the weight of {quirk!r} must be from 0 to 1, got {weight}")
    return sorted(weights.items(), key=lambda item: _ORDER[item[0]])


def _weights(
    format: str, quirks: Mapping[str, float] | Sequence[str] | None
) -> list[tuple[str, float]]:
    if quirks is None:
        valid = [q for q, on in GENERATORS.items() if format in on]
        return _profile_of(format, dict.fromkeys(valid, CATALOGUE_WEIGHT))
    if isinstance(quirks, str):
        raise InvalidArgument("quirks must be a mapping of ids to weights or a list of ids")
    if isinstance(quirks, Mapping):
        return _profile_of(format, dict(quirks))
    return _profile_of(format, dict.fromkeys(quirks, DEFAULT_WEIGHT))


def streams(
    format: str,
    quirks: Mapping[str, float] | Sequence[str] | None = None,
    *,
    max_tool_calls: int = 3,
) -> st.SearchStrategy[FuzzStream]:
    """Streams of ``format`` with their ground truth, showing the quirks of ``quirks``.

    Args:
        format: a wire format of :data:`EVERY`.
        quirks: a profile: quirk ids with weights from 0 to 1, the probability that an example
            has the quirk (1.0: every example); a list gives each :data:`DEFAULT_WEIGHT`;
            ``None``: every quirk :data:`GENERATORS` has for the format, each at
            :data:`CATALOGUE_WEIGHT`.
        max_tool_calls: the most tool calls in one response (the formats that carry calls).

    Raises:
        InvalidArgument: an unknown format, a quirk that cannot be generated for it (the
            message lists those that can) or a weight out of range.
    """
    if max_tool_calls < 0:
        raise InvalidArgument(f"max_tool_calls must be at least 0, got {max_tool_calls}")
    weights = tuple(_weights(format, quirks))
    return _fuzz_streams(format, weights, max_tool_calls)


@st.composite
def _fuzz_streams(
    draw: st.DrawFn, format: str, weights: tuple[tuple[str, float], ...], max_tool_calls: int
) -> FuzzStream:
    # One decision byte a quirk (0: off), so that hypothesis shrinks toward fewer quirks.
    plan = decisions(draw, len(weights))
    active = [
        quirk
        for (quirk, weight), byte in zip(weights, plan, strict=True)
        if weight >= 1.0 or chance(byte, round(weight * 256))
    ]
    recipes = [_recipe(quirk, format) for quirk in active]
    module: ModuleType = getattr(format_strategies, format)
    force = frozenset().union(*(r.force for r in recipes))
    framing: dict[str, Any] = {}
    for r in recipes:
        framing.update(r.framing)
    if framing.get("line_ends") == "cr" and any(
        r.framing.get("line_ends") == "crlf" for r in recipes
    ):
        framing["line_ends"] = "mixed"
    reads = frozenset().union(*(r.reads for r in recipes))
    base = draw(st.sampled_from(_base_profiles(format, bool(framing))))
    profile = _constrained(format, base, recipes)
    options: dict[str, Any] = {}
    parameters = inspect.signature(module.streams).parameters
    if "max_tool_calls" in parameters:
        options["max_tool_calls"] = max_tool_calls
    forceable: frozenset[str] = getattr(module, "FORCEABLE", frozenset())
    if "force" in parameters and (force or "steady" in forceable):
        options["force"] = (force | {"steady"}) & forceable
    stream: GeneratedStream = draw(module.streams(profile, **options))
    if framing:
        body = framed(draw, stream.payloads, _comments(format, stream), **framing,
                      events=_events(format, stream))  # fmt: skip
        stream = dataclasses.replace(
            stream, body=body, chunks=tuple(chunked(draw, body, reads=reads))
        )
    elif reads:
        stream = dataclasses.replace(stream, chunks=tuple(chunked(draw, stream.body, reads=reads)))
    return FuzzStream(format, stream, shown(format, stream))


def _base_profiles(format: str, reframed: bool) -> list[Any]:
    """The format's built-in profiles a stream may start from, with the fields that make a
    quirk of :data:`RECIPES` set to their plain values (the quirk's weight decides, and
    shrinking turns it off), framed as SSE when the framing is constrained."""
    profiles = list(getattr(format_strategies, format).PROFILES.values())
    if reframed and format == "gemini":
        profiles = [p for p in profiles if p.framing == "sse"]
    plain = _PLAIN.get(format)
    return [plain(p) for p in profiles] if plain else profiles


def _plain_chat(profile: Any) -> Any:
    ids = "first" if profile.ids == "none" else profile.ids
    return dataclasses.replace(
        profile, ids=ids, index="position", names="first", filter_chunks=False
    )


_PLAIN: Mapping[str, Callable[[Any], Any]] = {
    "openai_chat": _plain_chat,
    "anthropic_messages": lambda p: dataclasses.replace(p, pings=False, event_names=True),
    "gemini": lambda p: dataclasses.replace(p, partial_args=False),
    "ollama_chat": lambda p: dataclasses.replace(p, ids=True),
}


def _constrained(format: str, base: Any, recipes: Sequence[Recipe]) -> Any:
    """``base`` with the profile fields the recipes set, in order. A recipe that would change
    a field an earlier one set is skipped (the first of ``no_index`` and
    ``index_always_zero`` wins), and so is one that makes a profile no client could read
    (Chat Completions calls with neither ids nor distinct indices), after trying ids on the
    first delta or indices by position with it."""
    profile = base
    taken: set[str] = set()
    changed: list[str] = []
    for recipe in recipes:
        if not recipe.profile or taken & set(recipe.profile):
            continue
        for extra in ({}, {"ids": "first"}, {"index": "position"}):
            if taken & set(extra):
                continue
            try:
                profile = dataclasses.replace(profile, **{**extra, **recipe.profile})
            except InvalidArgument:
                continue
            taken |= set(recipe.profile) | set(extra)
            changed.append(recipe.quirk)
            break
    if format == "openai_chat" and any(r.quirk == "interleaved_calls" for r in recipes):
        if not profile.can_interleave:
            profile = dataclasses.replace(profile, ids="every")
        profile = dataclasses.replace(profile, whole_calls=False)
        changed.append("interleaved_calls")
    if changed and hasattr(profile, "name"):
        profile = dataclasses.replace(profile, name="+".join([base.name, *changed]))
    return profile


_COMMENTS = {"openai_responses": (": keep-alive",)}


def _comments(format: str, stream: GeneratedStream) -> tuple[str, ...]:
    if format == "openai_chat":
        return tuple(stream.profile.comments)
    return _COMMENTS.get(format, ())


def _events(format: str, stream: GeneratedStream) -> list[str | None] | None:
    """Anthropic's, Cohere's and the Interactions API's ``event:`` names, where the profile
    sends them."""
    if not getattr(stream.profile, "event_names", False):
        return None
    if format in ("anthropic_messages", "cohere_v2"):
        return [None if p == "[DONE]" else json.loads(p).get("type") for p in stream.payloads]
    if format == "gemini_interactions":
        return [
            "done" if p == "[DONE]" else json.loads(p).get("event_type") for p in stream.payloads
        ]
    return None
