"""What the strategies of every wire format share: JSON arguments, tool-call names and ids,
argument text, the interleaving of parallel pieces, network chunking, and the
:class:`GeneratedStream` every ``streams`` strategy draws. No IO.

Every strategy here draws a compact plan (a few integers, strings and byte strings) and
builds its value from the plan in plain Python: hypothesis spends most of its time per
choice, not per byte of output, so a stream costs a few dozen choices rather than hundreds.
A run of small decisions of the same kind (the cut points of a text, the interleaving of
pieces, the decoration of each event) is one byte string with one byte per decision
(:func:`decisions`), in which 0 is the simplest decision: hypothesis shrinks a byte string by
zeroing it, deleting bytes from the end and lowering each byte, which is what it does to
booleans and small integers drawn one by one.
"""

from __future__ import annotations

import functools
import itertools
import json
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeVar

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from raf.chunking import eventstream_cuts
from raf.model import AgentResponse, ToolCall, Usage

__all__ = [
    "ALNUM",
    "FINISH_REASONS",
    "NAMES",
    "READS",
    "GeneratedStream",
    "Piece",
    "Wire",
    "argument_text",
    "base62",
    "call_ids",
    "call_wire",
    "chance",
    "chunked",
    "cut_points",
    "decisions",
    "json_arguments",
    "json_values",
    "lookup_profile",
    "merge",
    "merge_calls",
    "network_chunkings",
    "pick",
    "split_by",
    "split_text",
    "tool_calls",
    "usages",
    "wire_of",
]

# -- compact plans ----------------------------------------------------------------------------


@functools.cache
def _fixed_bytes(size: int) -> st.SearchStrategy[bytes]:
    return st.binary(min_size=size, max_size=size)


# The most decision bytes of one draw: any longer run of decisions is read as zeros past it.
_MOST_DECISIONS = 1024


@functools.cache
def _at_least(count: int) -> st.SearchStrategy[bytes]:
    return st.binary(min_size=count, max_size=_MOST_DECISIONS)


def decisions(draw: st.DrawFn, count: int) -> bytes:
    """``count`` independent small decisions drawn as one choice: a byte each, 0 the simplest
    (read them with :func:`pick` and :func:`chance`). Shrinks toward all zeros, one decision
    at a time.

    The byte string may be longer than ``count`` (its extra bytes are ignored and shrink away
    first): any byte string long enough is a valid choice here, so that when hypothesis
    changes an earlier part of a stream and the number of decisions changes with it, the
    decisions it had drawn here are kept rather than replaced by zeros.
    """
    if count <= 0:
        return b""
    return draw(_at_least(min(count, _MOST_DECISIONS)))[:count].ljust(count, b"\0")


def pick(byte: int, n: int) -> int:
    """One of ``n`` options (0 to n-1) for a decision byte; lower bytes pick lower options,
    so a byte that shrinks picks option 0."""
    return byte * n >> 8


def chance(byte: int, per_256: int) -> bool:
    """Whether a decision byte turns a feature on, ``per_256`` times in 256 (0 is off)."""
    return byte >= 256 - per_256


def cut_points(plan: bytes, length: int, *, width: int = 1) -> list[int]:
    """The positions 1 to ``length``-1 that ``plan`` cuts a sequence of ``length`` at: each
    ``width`` bytes are one cut, at that fraction of the length (lower bytes cut earlier;
    no bytes, no cuts). Sorted and distinct."""
    if length < 2 or not plan:
        return []
    scale = 8 * width
    cuts = set()
    for at in range(0, len(plan), width):
        value = int.from_bytes(plan[at : at + width].ljust(width, b"\0"), "big")
        cuts.add(1 + (value * (length - 1) >> scale))
    return sorted(cuts)


def _pieces(text: str, cuts: Sequence[int]) -> list[str]:
    points = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(points)]


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
# A long string is a short run of characters repeated to a drawn length (two cheap choices
# instead of one of up to 200 characters; shrinks toward 80 "a"s).
_LONG_RUN = st.text(alphabet=st.sampled_from('abcdefghij é中😀\\"\n'), min_size=1, max_size=12)
_LONG_SIZE = st.integers(min_value=80, max_value=200)
_BIG_INTS = st.integers(min_value=-(2**70), max_value=2**70)
_EDGE_INT = st.sampled_from(_EDGE_INTS)
_FLOATS = st.floats(allow_nan=False, allow_infinity=False)
_EDGE_FLOAT = st.sampled_from(_EDGE_FLOATS)
# What a JSON value is, in shrinking order: null, false, true, an integer, an edge integer, a
# float, an edge float, tricky text, long text, an array, an object. A container draws the
# kinds of its members as one byte string, a byte a member (its length is their number), then
# each member's key and value.
_KINDS = 11
_VALUE_KIND = st.integers(min_value=0, max_value=_KINDS - 1)
_CONSTANTS = (None, False, True)
_SCALARS = {3: _BIG_INTS, 4: _EDGE_INT, 5: _FLOATS, 6: _EDGE_FLOAT, 7: _TRICKY_TEXT}


@functools.cache
def _member_kinds(max_members: int) -> st.SearchStrategy[bytes]:
    return st.binary(max_size=max_members)


def _json_value(draw: st.DrawFn, kind: int, leaves: list[int], depth: int = 0) -> Any:
    """A JSON value of ``kind`` with at most ``leaves[0]`` scalars (taken from the budget as
    they are drawn)."""
    if kind < 3:
        leaves[0] -= 1
        return _CONSTANTS[kind]
    if kind in _SCALARS:
        leaves[0] -= 1
        return draw(_SCALARS[kind])
    if kind == 8:
        leaves[0] -= 1
        run = draw(_LONG_RUN)
        return (run * (200 // len(run) + 1))[: draw(_LONG_SIZE)]
    kinds = draw(_member_kinds(4)) if leaves[0] > 0 and depth < 8 else b""
    if kind == 9:
        items: list[Any] = []
        for byte in kinds:
            if leaves[0] <= 0:
                break
            items.append(_json_value(draw, pick(byte, _KINDS), leaves, depth + 1))
        return items
    return _members(draw, kinds, leaves, depth + 1)


def _members(draw: st.DrawFn, kinds: bytes, leaves: list[int], depth: int) -> dict[str, Any]:
    members: dict[str, Any] = {}
    for byte in kinds:
        if leaves[0] <= 0:
            break
        key = draw(_TRICKY_TEXT)
        members[key] = _json_value(draw, pick(byte, _KINDS), leaves, depth)
    return members


@st.composite
def _json_values(draw: st.DrawFn, max_leaves: int) -> Any:
    return _json_value(draw, draw(_VALUE_KIND), [max_leaves])


@functools.lru_cache(maxsize=32)
def json_values(*, max_leaves: int = 10) -> st.SearchStrategy[Any]:
    """Any JSON value: nested objects and arrays, strings with every escape and astral
    characters, integers and floats at the edges of their precision, and long strings.

    Shrinks toward ``null`` and small, flat values.
    """
    return _json_values(max_leaves)


def _arguments(draw: st.DrawFn, max_keys: int) -> dict[str, Any]:
    """The kinds of the values first (one byte string: their number is the number of keys),
    then each key and its value (each of at most 10 scalars)."""
    arguments: dict[str, Any] = {}
    for byte in draw(_member_kinds(max_keys)):
        key = draw(_TRICKY_TEXT)
        arguments[key] = _json_value(draw, pick(byte, _KINDS), [10])
    return arguments


@st.composite
def _json_arguments(draw: st.DrawFn, max_keys: int) -> dict[str, Any]:
    return _arguments(draw, max_keys)


@functools.lru_cache(maxsize=32)
def json_arguments(*, max_keys: int = 5) -> st.SearchStrategy[dict[str, Any]]:
    """A tool call's arguments: a JSON object (possibly empty) of :func:`json_values`.

    Shrinks toward ``{}``.
    """
    if max_keys < 0:
        raise InvalidArgument(f"max_keys must be at least 0, got {max_keys}")
    return _json_arguments(max_keys)


# -- tool-call names and ids ------------------------------------------------------------------

NAMES = ("get_weather", "read_file", "search", "write_file", "run_query", "list_tickets")
ALNUM = string.ascii_letters + string.digits
_NAME = st.sampled_from(NAMES)
_DIGITS = string.digits + string.ascii_letters  # base 62, "0" first: shrinks toward "000..."
_ID_NUMBER = st.integers(min_value=0, max_value=62**24 - 1)


def base62(number: int, width: int) -> str:
    """``number`` in ``width`` base-62 digits (0-9, a-z, A-Z): ids drawn as one integer."""
    digits = []
    for _ in range(width):
        number, digit = divmod(number, 62)
        digits.append(_DIGITS[digit])
    return "".join(reversed(digits))


def _id_suffix(draw: st.DrawFn) -> str:
    return base62(draw(_ID_NUMBER), 24)


def _distinct(suffix: str, taken: set[str], n: int) -> str:
    """``suffix``, or (when an earlier call has it) the same ending in the call's number."""
    if suffix in taken:
        mark = str(n)
        suffix = suffix[: -len(mark)] + mark
        while suffix in taken:
            suffix = suffix[1:] + "x"
    taken.add(suffix)
    return suffix


@st.composite
def call_ids(draw: st.DrawFn, count: int, prefix: str = "call_") -> list[str]:
    """``count`` distinct provider call ids: ``prefix`` and 24 letters or digits."""
    taken: set[str] = set()
    return [f"{prefix}{_distinct(_id_suffix(draw), taken, n)}" for n in range(count)]


_CALL_COUNTS = tuple(st.integers(min_value=0, max_value=n) for n in range(8))


@functools.cache
def _call_plans(flags: int) -> st.SearchStrategy[bytes]:
    return st.binary(min_size=4 + flags, max_size=4 + flags + 12)


@functools.cache
def _call_block(
    provider_ids: bool, wire_flags: int | None
) -> st.SearchStrategy[tuple[int, str, dict[str, Any], bytes]]:
    """One call's choices, in one span (so that hypothesis deletes a call as a whole): the
    number of its id, its name, its arguments, and with ``wire_flags`` its :func:`wire_of`
    plan."""

    @st.composite
    def block(draw: st.DrawFn) -> tuple[int, str, dict[str, Any], bytes]:
        number = draw(_ID_NUMBER) if provider_ids else 0
        name = draw(_NAME)
        arguments = _arguments(draw, 5)
        plan = draw(_call_plans(wire_flags)) if wire_flags is not None else b""
        return number, name, arguments, plan

    return block()


@functools.cache
def _call_counts(min_count: int, max_count: int) -> st.SearchStrategy[int]:
    return st.integers(min_value=min(min_count, max_count), max_value=max_count)


def _tool_calls(
    draw: st.DrawFn,
    max_count: int,
    id_prefix: str | None,
    wire_flags: int | None = None,
    *,
    min_count: int = 0,
    draw_ids: bool = False,
) -> tuple[tuple[ToolCall, ...], tuple[bytes, ...]]:
    """The calls (``min_count`` to ``max_count`` of them, fewer when ``max_count`` is lower),
    and (with ``wire_flags``) each one's wire plan, drawn with it. ``draw_ids``: draw an id
    number for each call even with no ``id_prefix`` (and drop it), so that the choices do
    not depend on whether the provider sends ids."""
    if min_count > 0:
        counts = _call_counts(min_count, max_count)
    elif max_count < len(_CALL_COUNTS):
        counts = _CALL_COUNTS[max_count]
    else:
        counts = st.integers(0, max_count)
    block = _call_block(id_prefix is not None or draw_ids, wire_flags)
    taken: set[str] = set()
    calls = []
    plans = []
    for n in range(draw(counts)):
        number, name, arguments, plan = draw(block)
        if id_prefix is None:
            call_id = f"__tc_{n}"
        else:
            call_id = id_prefix + _distinct(base62(number, 24), taken, n)
        calls.append(ToolCall(id=call_id, name=name, arguments=arguments))
        plans.append(plan)
    return tuple(calls), tuple(plans)


@st.composite
def tool_calls(
    draw: st.DrawFn, max_count: int, *, id_prefix: str | None = "call_"
) -> tuple[ToolCall, ...]:
    """0 to ``max_count`` calls with JSON arguments; their ids are the provider's
    (``id_prefix`` and 24 characters) or, with ``id_prefix=None``, raf's ``__tc_<n>``."""
    return _tool_calls(draw, max_count, id_prefix)[0]


FINISH_REASONS = (None, "stop", "tool_calls", "length", "content_filter")
"""The finish reasons ground truths are drawn from (none: the stream gives no reason)."""

_PROMPT = st.integers(0, 10**6)
_COMPLETION = st.integers(0, 10**5)
_HAS = st.booleans()


@st.composite
def usages(draw: st.DrawFn, *, cache: bool = False) -> Usage | None:
    """Usage or none; the total is prompt + completion; with ``cache``, sometimes a cache
    hit count (and the miss count it implies)."""
    if not draw(_HAS):
        return None
    prompt, completion = draw(_PROMPT), draw(_COMPLETION)
    hit = draw(st.integers(0, prompt)) if cache and draw(_HAS) else None
    return Usage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=prompt + completion,
        prompt_cache_hit_tokens=hit,
        prompt_cache_miss_tokens=None if hit is None else prompt - hit,
    )


_USAGES = {False: usages(), True: usages(cache=True)}


def _usage(draw: st.DrawFn, cache: bool = False) -> Usage | None:
    return draw(_USAGES[cache])  # one span, deleted as a whole


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

_CUTS = st.binary(max_size=12)


def split_by(text: str, plan: bytes) -> list[str]:
    """``text`` cut where ``plan`` says (:func:`cut_points`): no pieces for ``""``."""
    if len(text) <= 1:
        return [text] if text else []
    return _pieces(text, cut_points(plan, len(text)))


def _split(draw: st.DrawFn, text: str) -> list[str]:
    # The cuts are drawn whatever the text, so that a text shrinking to "" or one character
    # leaves every later choice where it was.
    return split_by(text, draw(_CUTS))


@st.composite
def split_text(draw: st.DrawFn, text: str) -> list[str]:
    """``text`` cut at arbitrary character positions (inside escapes too): up to 12 cuts,
    drawn as one byte string (shrinks toward the whole text)."""
    return _split(draw, text)


class Wire(NamedTuple):
    """The wire decisions that belong to parts of a ground truth: the cuts of its text and
    of its reasoning, and each call's :func:`wire_of` plan. ``streams()`` draws them with
    the parts (so that hypothesis shrinks or deletes a call together with the way it is
    sent); ``render()`` draws them first."""

    text: bytes
    reasoning: bytes
    calls: tuple[bytes, ...]

    @classmethod
    def drawn(cls, draw: st.DrawFn, calls: int, flags: int | None) -> Wire:
        """The decisions for a given response (``flags``: a call's own decision bytes, or
        ``None`` for a format whose calls need no plan)."""
        text, reasoning = draw(_CUTS), draw(_CUTS)
        if flags is None:
            return cls(text, reasoning, (b"",) * calls)
        return cls(text, reasoning, tuple(draw(_call_plans(flags)) for _ in range(calls)))


_STYLE = _fixed_bytes(4)


def _styled(style: bytes, arguments: dict[str, Any]) -> str:
    """The arguments as JSON text in the style of four decision bytes: ASCII-only, spaced,
    ``/`` escaped, and (for no arguments) ``""``."""
    ascii_only, spaced, slashes, empty = style
    text = json.dumps(
        arguments,
        ensure_ascii=chance(ascii_only, 128),
        separators=(", ", ": ") if chance(spaced, 128) else (",", ":"),
    )
    if chance(slashes, 128):
        text = text.replace("/", "\\/")  # "/" only occurs inside strings: "\/" is its escape
    if not arguments and chance(empty, 128):
        text = ""  # a zero-argument call streamed as "" (clients must read {})
    return text


def _argument_text(draw: st.DrawFn, arguments: dict[str, Any]) -> str:
    return _styled(draw(_STYLE), arguments)


def wire_of(plan: bytes, arguments: dict[str, Any], flags: int = 0) -> tuple[str, bytes, list[str]]:
    """How one call's arguments go on the wire, by its plan: four bytes of
    :func:`argument_text` style, ``flags`` decision bytes of the format's, then up to 12 cuts.
    Returns the argument text, the format's decision bytes, and the text cut into fragments
    (none for ``""``). A plan of zeros: compact JSON in one fragment."""
    plan = plan.ljust(4 + flags, b"\0")
    text = _styled(plan[:4], arguments)
    cuts = cut_points(plan[4 + flags :], len(text))
    return text, plan[4 : 4 + flags], _pieces(text, cuts) if text else []


def call_wire(
    draw: st.DrawFn, arguments: dict[str, Any], flags: int = 0
) -> tuple[str, bytes, list[str]]:
    """:func:`wire_of` a plan drawn with ``draw`` (one choice)."""
    return wire_of(draw(_call_plans(flags)), arguments, flags)


@st.composite
def argument_text(draw: st.DrawFn, arguments: dict[str, Any]) -> str:
    """The arguments as JSON text, in one of the styles servers use (ASCII-only or not,
    spaced or not, ``/`` escaped or not; ``""`` for no arguments)."""
    return _argument_text(draw, arguments)


@dataclass(frozen=True)
class Piece:
    kind: str  # "text", "reasoning" or "call"
    value: str
    call: int = -1
    first: bool = False


def merge(draw: st.DrawFn, streams: Sequence[Sequence[Piece]]) -> list[Piece]:
    """An interleaving of ``streams`` that keeps each one's own order: one decision byte per
    piece picks the stream it comes from (all zeros: one stream after the other)."""
    queues = [list(s) for s in streams if s]
    order = decisions(draw, sum(map(len, queues)))
    out: list[Piece] = []
    step = 0
    while queues:
        if len(queues) == 1:
            out += queues.pop()
            break
        n = pick(order[step], len(queues))
        step += 1
        out.append(queues[n].pop(0))
        if not queues[n]:
            queues.pop(n)
    return out


def merge_calls(draw: st.DrawFn, calls: Sequence[Sequence[Piece]]) -> list[Piece]:
    """An interleaving of the calls' fragments in which call n starts after call n-1 (calls
    appear in the order of the response, as servers number them): one decision byte per
    fragment (all zeros: one call after the other)."""
    queues = [list(c) for c in calls]
    order = decisions(draw, sum(map(len, queues)))
    started = 0
    out: list[Piece] = []
    step = 0
    while any(queues):
        allowed = [n for n, q in enumerate(queues) if q and n <= started]
        n = allowed[pick(order[step], len(allowed))]
        step += 1
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


_CHUNKING = st.binary(min_size=1, max_size=41)
# The way of cutting by the first byte's high half: random cuts 7 times in 16, and one byte
# at a time, inside every UTF-8 character and between every CR and LF 3 in 16 each.
_HOW = (0,) * 7 + (1,) * 3 + (2,) * 3 + (3,) * 3
_ONE_BYTE = [bytes([n]) for n in range(256)]


READS = frozenset({"tiny", "split_utf8"})
"""The ways of reading :func:`chunked` can be told to use (``reads=``)."""

_TINY = 7  # the most bytes of one tiny read


def chunked(draw: st.DrawFn, body: bytes, *, reads: frozenset[str] = frozenset()) -> list[bytes]:
    """What :func:`network_chunkings` draws, drawn with ``draw`` as one byte string: the way
    of cutting (random, one byte at a time, inside every UTF-8 character, between every CR and
    LF, or for an AWS event stream, which has no CR LF, at every message's structure: the
    ``eventstream`` chunking), then for random cuts up to 20 cut points, two bytes each.
    Shrinks toward one chunk.

    ``reads`` forces ways of reading instead (:data:`READS`, any together): ``tiny``, reads
    of 1 to 7 bytes (one decision byte each; 0 picks 7 bytes, so that they shrink toward
    fewer reads); ``split_utf8``, a cut inside every multi-byte UTF-8 character.
    """
    if reads:
        return _forced_reads(draw, body, reads)
    plan = draw(_CHUNKING)
    how = _HOW[plan[0] >> 4]
    size = len(body)
    if how == 0 or size < 2:
        cuts = cut_points(plan[1:], size, width=2)
    elif how == 1:
        return list(map(_ONE_BYTE.__getitem__, body))
    elif how == 2:
        cuts = [i for i in range(1, size) if body[i] & 0xC0 == 0x80]
    elif body[:1] == b"\x00":  # an AWS event stream: every message cut at its structure
        cuts = eventstream_cuts(body)
    else:
        cuts = []
        at = body.find(b"\r\n")
        while at >= 0:
            cuts.append(at + 1)
            at = body.find(b"\r\n", at + 1)
    points = [0, *cuts, size]
    return [body[a:b] for a, b in itertools.pairwise(points) if b > a]


def _forced_reads(draw: st.DrawFn, body: bytes, reads: frozenset[str]) -> list[bytes]:
    unknown = reads - READS
    if unknown:
        raise InvalidArgument(f"unknown reads {sorted(unknown)}; use some of {sorted(READS)}")
    size = len(body)
    cuts: set[int] = set()
    if "split_utf8" in reads:
        cuts.update(i for i in range(1, size) if body[i] & 0xC0 == 0x80)
    if "tiny" in reads:
        # A size per read: far fewer than the body's bytes are drawn (a read of n bytes takes
        # one decision), and past the drawn ones every read is 7 bytes long.
        plan = decisions(draw, min(size // 4 + 1, _MOST_DECISIONS))
        at = 0
        for byte in plan:
            at += _TINY - pick(byte, _TINY)
            if at >= size:
                break
            cuts.add(at)
        while at + _TINY < size:
            at += _TINY
            cuts.add(at)
    points = [0, *sorted(c for c in cuts if 0 < c < size), size]
    return [body[a:b] for a, b in itertools.pairwise(points) if b > a]


@st.composite
def _chunkings(draw: st.DrawFn, body: bytes) -> list[bytes]:
    return chunked(draw, body)


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
