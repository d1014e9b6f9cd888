"""Which recorded round a request of a multi-round conversation asks for. Pure: no IO, no
aiohttp (the cache below is memory only).

A tool loop is recorded as one interaction per round: the first request and the answer that
calls tools, then each follow-up request (carrying the tools' results) and its answer. A
client's follow-up says which round it continues by the calls it answers, so the server
reads, once per cassette (:func:`rounds_of`), the calls each recorded answer streamed and,
for each request (:func:`answer_of`), the tool results of its last message(s). Then
:func:`match` decides, in this order (the table ``docs/serve.md`` shows):

============================  ==========================================  =============
the request                   is answered with                            ``matched``
============================  ==========================================  =============
names ``/i/<n>``              interaction ``n``                           ``pinned``
answers recorded call ids     the interaction after the answer whose      ``call_ids``
                              calls it answers (most ids in common; a
                              tie goes to the later answer)
answers by name only          the interaction after the answer whose      ``call_names``
(Gemini, Ollama: no ids)      calls have these names; among several,
                              the one that is the request's own n-th
                              round of calls (its count of turns with
                              calls), else the only one
answers nothing               the session's turn, among the interactions  ``order``
                              that follow no call (in a tool loop: the
                              first)
anything else                 the session's turn, among all               ``order``
============================  ==========================================  =============

"The session's turn" is :class:`raf.serve.catalog.Order`: the n-th request to a path prefix
(``/r/<run>`` included) and ``x-raf-session`` header gets the n-th, modulo their number. So
a cassette without calls is answered in order, as before, and two runs of a tool loop on the
same prefix, interleaved, each get their rounds: their first requests answer nothing (the
first interaction), their follow-ups answer calls by id.

Each round also carries what the rules check a follow-up against
(:func:`raf.formats.request_rules.prior_of` of every earlier answer): :meth:`Rounds.prior`.
"""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from raf import formats
from raf.cassettes.format import Cassette
from raf.formats.conversation import blocks_of, is_synthetic_id
from raf.formats.request_rules import Prior, prior_of
from raf.model import blocks
from raf.model.messages import MessageRole
from raf.pipeline import respond

__all__ = [
    "MATCHED",
    "MAX_CASSETTES",
    "Answer",
    "Match",
    "Matched",
    "Round",
    "Rounds",
    "RoundsCache",
    "answer_of",
    "match",
    "rounds_of",
]

Matched = Literal["pinned", "call_ids", "call_names", "order"]
"""How a request's interaction was chosen (the journal's ``matched``)."""

MATCHED: Final[tuple[Matched, ...]] = ("pinned", "call_ids", "call_names", "order")

MAX_CASSETTES: Final = 256
"""Most cassettes whose rounds are kept (the least recently used is forgotten, and read again
when asked for)."""


@dataclass(frozen=True)
class Round:
    """One recorded interaction's answer, as a follow-up refers to it.

    Attributes:
        call_ids: the ids of the calls it streamed, in order (synthetic ids left out: the
            format sends none).
        call_names: the tools it called, in order.
        prior: the answer as a correct client sends it back (the rules' :class:`Prior`).
    """

    call_ids: tuple[str, ...] = ()
    call_names: tuple[str, ...] = ()
    prior: Prior = field(default_factory=Prior)

    @property
    def calls(self) -> bool:
        return bool(self.call_names)


@dataclass(frozen=True)
class Rounds:
    """The answers of a cassette's interactions, in order."""

    rounds: tuple[Round, ...]

    def __len__(self) -> int:
        return len(self.rounds)

    @property
    def calls(self) -> bool:
        """Whether any answer streams a call (the cassette is a tool loop)."""
        return any(r.calls for r in self.rounds)

    def openings(self) -> tuple[int, ...]:
        """The interactions that follow no call: the first, and each after an answer without
        calls."""
        return tuple(n for n in range(len(self.rounds)) if n == 0 or not self.rounds[n - 1].calls)

    def prior(self, interaction: int) -> tuple[Prior, ...]:
        """The earlier rounds of ``interaction``: the answers of the interactions before it."""
        return tuple(r.prior for r in self.rounds[: max(0, interaction)])


@dataclass(frozen=True)
class Answer:
    """What a request answers: the tool results of its last message(s).

    Attributes:
        call_ids: the call ids the results name, in order (empty and synthetic ones left
            out).
        names: the tool names the results name, in order (Gemini's and Ollama's way).
        results: how many results there are.
        call_turns: how many of the request's messages carry tool calls (its own count of
            rounds of calls).
    """

    call_ids: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    results: int = 0
    call_turns: int = 0


@dataclass(frozen=True)
class Match:
    """The interaction a request gets, and how it was chosen."""

    interaction: int
    matched: Matched


def _round(dialect: str, body: bytes) -> Round:
    """The round of one recorded answer; an answer raf cannot read has no calls."""
    try:
        response = respond([body], dialect)
    except Exception:  # a recorded body raf cannot read: a round without calls
        return Round()
    try:
        prior = prior_of(dialect, response)
    except Exception:  # a format's builder that cannot send it back: its id only
        prior = Prior(response_id=response.id)
    calls = response.tool_calls
    return Round(
        call_ids=tuple(c.id for c in calls if not is_synthetic_id(c.id)),
        call_names=tuple(c.name for c in calls),
        prior=prior,
    )


def rounds_of(dialect: str, cassette: Cassette) -> Rounds:
    """The rounds of ``cassette`` (each interaction's recorded answer, read as a client
    reads it: decoded from its ``content-encoding``). The last answer is not read: no
    request follows it, so it is a round without calls (a cassette of one interaction costs
    nothing). Never raises: an answer that cannot be read is a round without calls."""
    out: list[Round] = []
    for interaction in cassette.interactions[:-1]:
        try:
            body = interaction.response.content()
        except Exception:  # a body that does not decode: answered with a 500 when asked for
            out.append(Round())
            continue
        out.append(_round(dialect, body))
    if cassette.interactions:
        out.append(Round())
    return Rounds(tuple(out))


def answer_of(dialect: str, body: Any) -> Answer:
    """What the request ``body`` (of ``dialect``) answers: the tool results of its last
    messages, those after the last message that carries none. Never raises: a body the format
    cannot read, or a format without a request reader, answers nothing."""
    found = formats.find(dialect)
    if found is None or found.read_request is None or not isinstance(body, Mapping):
        return Answer()
    try:
        conversation = found.read_request(body)
        parts = [blocks_of(m) for m in conversation.messages]
        roles = [m.role for m in conversation.messages]
    except Exception:  # a reader's bug must not fail the request: it answers nothing
        return Answer()
    results: list[blocks.ToolResult] = []
    for message in reversed(parts):
        found_results = [b for b in message if isinstance(b, blocks.ToolResult)]
        if not found_results:
            break
        results[:0] = found_results
    call_turns = sum(
        1
        for role, message in zip(roles, parts, strict=True)
        if role is MessageRole.ASSISTANT and any(isinstance(b, blocks.ToolCall) for b in message)
    )
    return Answer(
        call_ids=tuple(r.call_id for r in results if not is_synthetic_id(r.call_id)),
        names=tuple(r.name for r in results if isinstance(r.name, str) and r.name),
        results=len(results),
        call_turns=call_turns,
    )


def _by_ids(rounds: Rounds, ids: tuple[str, ...]) -> int | None:
    """The round whose calls share the most ids with ``ids`` (a tie: the later one)."""
    wanted = set(ids)
    best, best_score = None, 0
    for n, round_ in enumerate(rounds.rounds):
        score = len(wanted.intersection(round_.call_ids))
        if score and score >= best_score:
            best, best_score = n, score
    return best


def _by_names(rounds: Rounds, answer: Answer) -> int | None:
    """The round whose calls have the answered names (in any order): the request's own n-th
    round of calls among several, else the only one."""
    wanted = Counter(answer.names)
    candidates = [
        n for n, r in enumerate(rounds.rounds) if r.calls and Counter(r.call_names) == wanted
    ]
    if not candidates:
        return None
    calling = [n for n, r in enumerate(rounds.rounds) if r.calls]
    if 0 < answer.call_turns <= len(calling) and calling[answer.call_turns - 1] in candidates:
        return calling[answer.call_turns - 1]
    return candidates[0] if len(candidates) == 1 else None


def match(rounds: Rounds, answer: Answer, *, turn: int, pinned: int | None = None) -> Match:
    """The interaction a request gets (the module docstring's table).

    Args:
        rounds: the cassette's rounds (at least one).
        answer: what the request answers (:func:`answer_of`).
        turn: the request's turn in its session (0 for the first; :class:`Order`).
        pinned: the interaction the path names with ``/i/<n>``, if any (in range).
    """
    count = len(rounds)
    if pinned is not None:
        return Match(pinned, "pinned")
    if count == 0:
        return Match(0, "order")
    if answer.call_ids:
        found = _by_ids(rounds, answer.call_ids)
        if found is not None and found + 1 < count:
            return Match(found + 1, "call_ids")
    elif answer.names:
        found = _by_names(rounds, answer)
        if found is not None and found + 1 < count:
            return Match(found + 1, "call_names")
    if answer.results == 0 and rounds.calls:
        openings = rounds.openings()
        return Match(openings[turn % len(openings)], "order")
    return Match(turn % count, "order")


class RoundsCache:
    """The rounds of the cassettes served, read once each and kept, at most ``size`` of them
    (least recently used forgotten first). Thread-safe."""

    def __init__(self, size: int = MAX_CASSETTES) -> None:
        self._size = max(1, size)
        self._kept: OrderedDict[int, tuple[Cassette, Rounds]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._kept)

    def has(self, cassette: Cassette) -> bool:
        """Whether the rounds of ``cassette`` are kept (:meth:`get` returns at once)."""
        with self._lock:
            kept = self._kept.get(id(cassette))
            return kept is not None and kept[0] is cassette

    def get(self, dialect: str, cassette: Cassette) -> Rounds:
        """The rounds of ``cassette`` (read when first asked for)."""
        key = id(cassette)
        with self._lock:
            kept = self._kept.get(key)
            if kept is not None and kept[0] is cassette:
                self._kept.move_to_end(key)
                return kept[1]
        made = rounds_of(dialect, cassette)  # outside the lock: two readers may both read
        with self._lock:
            self._kept[key] = (cassette, made)
            self._kept.move_to_end(key)
            while len(self._kept) > self._size:
                self._kept.popitem(last=False)
        return made
