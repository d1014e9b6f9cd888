"""What the strategies of every wire format share: JSON arguments, tool-call names and ids,
argument text, the interleaving of parallel pieces, network chunking, and the
:class:`GeneratedStream` every ``streams`` strategy draws. No IO."""

from __future__ import annotations

import functools
import itertools
import json
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from raf.model import AgentResponse, ToolCall, Usage

__all__ = [
    "ALNUM",
    "FINISH_REASONS",
    "NAMES",
    "GeneratedStream",
    "Piece",
    "argument_text",
    "call_ids",
    "json_arguments",
    "json_values",
    "lookup_profile",
    "merge",
    "merge_calls",
    "network_chunkings",
    "split_text",
    "tool_calls",
    "usages",
]

# -- JSON arguments ---------------------------------------------------------------------------

_EDGE_INTS = (0, 1, -1, 2**31 - 1, 2**53, 2**53 + 1, 2**63 - 1, -(2**63), 2**64, -(10**30))
_EDGE_FLOATS = (0.0, -0.0, 0.1, 1e-7, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 1e16)

# Text that exercises every JSON escape and both UTF-8 lengths and surrogate pairs.
_TRICKY_TEXT = st.text(
    alphabet=st.one_of(
        st.sampled_from(list('"\\/\b\f\n\r\t\x00\x1f\x7f{}[],:')),
        st.characters(codec="utf-8", exclude_categories=["Cs"]),
        st.sampled_from(["é", "中", "😀", "𝄞", "\u2028", "\ufeff"]),
    ),
    max_size=12,
)


@functools.lru_cache(maxsize=32)
def json_values(*, max_leaves: int = 10) -> st.SearchStrategy[Any]:
    """Any JSON value: nested objects and arrays, strings with every escape and astral
    characters, integers and floats at the edges of their precision, and long strings.

    Shrinks toward ``null`` and small, flat values.
    """
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.sampled_from(_EDGE_INTS),
        st.floats(allow_nan=False, allow_infinity=False),
        st.sampled_from(_EDGE_FLOATS),
        _TRICKY_TEXT,
        st.text(alphabet=st.sampled_from('abcdefghij é中😀\\"\n'), min_size=80, max_size=200),
    )
    return st.recursive(
        scalars,
        lambda inner: (
            st.lists(inner, max_size=4) | st.dictionaries(_TRICKY_TEXT, inner, max_size=4)
        ),
        max_leaves=max_leaves,
    )


@functools.lru_cache(maxsize=32)
def json_arguments(*, max_keys: int = 5) -> st.SearchStrategy[dict[str, Any]]:
    """A tool call's arguments: a JSON object (possibly empty) of :func:`json_values`.

    Shrinks toward ``{}``.
    """
    if max_keys < 0:
        raise InvalidArgument(f"max_keys must be at least 0, got {max_keys}")
    return st.dictionaries(_TRICKY_TEXT, json_values(), max_size=max_keys)


# -- tool-call names and ids ------------------------------------------------------------------

NAMES = ("get_weather", "read_file", "search", "write_file", "run_query", "list_tickets")
ALNUM = string.ascii_letters + string.digits


@st.composite
def call_ids(draw: st.DrawFn, count: int, prefix: str = "call_") -> list[str]:
    """``count`` distinct provider call ids: ``prefix`` and 24 letters or digits."""
    suffixes = draw(
        st.lists(
            st.text(ALNUM, min_size=24, max_size=24), min_size=count, max_size=count, unique=True
        )
    )
    return [f"{prefix}{s}" for s in suffixes]


@st.composite
def tool_calls(
    draw: st.DrawFn, max_count: int, *, id_prefix: str | None = "call_"
) -> tuple[ToolCall, ...]:
    """0 to ``max_count`` calls with JSON arguments; their ids are the provider's
    (``id_prefix`` and 24 characters) or, with ``id_prefix=None``, raf's ``__tc_<n>``."""
    count = draw(st.integers(min_value=0, max_value=max_count))
    if id_prefix is None:
        ids = [f"__tc_{n}" for n in range(count)]
    else:
        ids = draw(call_ids(count, id_prefix))
    return tuple(
        ToolCall(id=ids[n], name=draw(st.sampled_from(NAMES)), arguments=draw(json_arguments()))
        for n in range(count)
    )


FINISH_REASONS = (None, "stop", "tool_calls", "length", "content_filter")
"""The finish reasons ground truths are drawn from (none: the stream gives no reason)."""


@st.composite
def usages(draw: st.DrawFn, *, cache: bool = False) -> Usage | None:
    """Usage or none; the total is prompt + completion; with ``cache``, sometimes a cache
    hit count (and the miss count it implies)."""
    if not draw(st.booleans()):
        return None
    prompt, completion = draw(st.integers(0, 10**6)), draw(st.integers(0, 10**5))
    hit = draw(st.none() | st.integers(0, prompt)) if cache else None
    return Usage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=prompt + completion,
        prompt_cache_hit_tokens=hit,
        prompt_cache_miss_tokens=None if hit is None else prompt - hit,
    )


_P = TypeVar("_P")


def lookup_profile(profile: str | _P, profiles: Mapping[str, _P]) -> _P:
    """A format's profile by name (or the profile itself).

    Raises:
        InvalidArgument: an unknown name; the message lists the known ones.
    """
    if not isinstance(profile, str):
        return profile
    try:
        return profiles[profile]
    except KeyError:
        raise InvalidArgument(
            f"unknown profile {profile!r}; use one of {sorted(profiles)} or a Profile(...)"
        ) from None


# -- pieces of a response on the wire ---------------------------------------------------------


@st.composite
def split_text(draw: st.DrawFn, text: str) -> list[str]:
    """``text`` cut at arbitrary character positions (inside escapes too)."""
    if len(text) <= 1:
        return [text] if text else []
    cuts = sorted(draw(st.sets(st.integers(min_value=1, max_value=len(text) - 1), max_size=12)))
    points = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(points)]


@st.composite
def argument_text(draw: st.DrawFn, arguments: dict[str, Any]) -> str:
    """The arguments as JSON text, in one of the styles servers use."""
    ascii_only = draw(st.booleans())
    spaced = draw(st.booleans())
    text = json.dumps(
        arguments, ensure_ascii=ascii_only, separators=(", ", ": ") if spaced else (",", ":")
    )
    if draw(st.booleans()):
        text = text.replace("/", "\\/")  # "/" only occurs inside strings: "\/" is its escape
    if not arguments and draw(st.booleans()):
        text = ""  # a zero-argument call streamed as "" (clients must read {})
    return text


@dataclass(frozen=True)
class Piece:
    kind: str  # "text", "reasoning" or "call"
    value: str
    call: int = -1
    first: bool = False


def merge(draw: st.DrawFn, streams: Sequence[Sequence[Piece]]) -> list[Piece]:
    """An interleaving of ``streams`` that keeps each one's own order."""
    queues = [list(s) for s in streams if s]
    out: list[Piece] = []
    while queues:
        n = draw(st.integers(min_value=0, max_value=len(queues) - 1))
        out.append(queues[n].pop(0))
        if not queues[n]:
            queues.pop(n)
    return out


def merge_calls(draw: st.DrawFn, calls: Sequence[Sequence[Piece]]) -> list[Piece]:
    """An interleaving of the calls' fragments in which call n starts after call n-1 (calls
    appear in the order of the response, as servers number them)."""
    queues = [list(c) for c in calls]
    started = 0
    out: list[Piece] = []
    while any(queues):
        allowed = [n for n, q in enumerate(queues) if q and n <= started]
        n = draw(st.sampled_from(allowed))
        if n == started:
            started += 1
        out.append(queues[n].pop(0))
    return out


# -- network chunking -------------------------------------------------------------------------


def network_chunkings(body: bytes) -> st.SearchStrategy[list[bytes]]:
    """``body`` cut the way a network might: at random points, one byte at a time, inside
    every multi-byte UTF-8 character, or between every CR and LF. Shrinks toward one chunk.
    """
    if not isinstance(body, bytes):
        raise InvalidArgument(f"body must be bytes, not {type(body).__name__}")
    return _chunkings(body)


@st.composite
def _chunkings(draw: st.DrawFn, body: bytes) -> list[bytes]:
    how = draw(st.sampled_from(["random", "bytes", "utf8", "crlf"]))
    if how == "random" or len(body) < 2:
        cuts = sorted(
            draw(st.sets(st.integers(min_value=1, max_value=max(len(body) - 1, 1)), max_size=20))
        )
    elif how == "bytes":
        cuts = list(range(1, len(body)))
    elif how == "utf8":
        cuts = [i for i in range(1, len(body)) if body[i] & 0xC0 == 0x80]
    else:
        cuts = [i + 1 for i in range(len(body) - 1) if body[i : i + 2] == b"\r\n"]
    points = [0, *[c for c in cuts if 0 < c < len(body)], len(body)]
    return [body[a:b] for a, b in itertools.pairwise(points) if b > a]


# -- whole streams ----------------------------------------------------------------------------


@dataclass(frozen=True)
class GeneratedStream:
    """A stream and its ground truth.

    Attributes:
        response: what a correct client must end with (its ``errors`` hold only error
            contents' codes: ``stream_truncated`` when the stream ends without a finish
            reason and without ``[DONE]``).
        payloads: the events' data values, ``[DONE]`` included when sent.
        body: the whole body, framed.
        chunks: the body as network reads.
        profile: the provider profile used (of the format's module).
    """

    response: AgentResponse
    payloads: tuple[str, ...]
    body: bytes
    chunks: tuple[bytes, ...]
    profile: Any = field(compare=False)
