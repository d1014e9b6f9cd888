"""The cost probe (``raf cost``): does an implementation's time grow with how an event is cut?

Pure: it builds the streams, cuts them into reads, orders the measurements and judges the
timings. The clock and the runner (what sends a stream to an implementation and says what it
handed back) are given by the caller (:mod:`raf.cli.cost`); nothing here does IO.

A correct streaming parser does the same work per byte whatever the reads: the time it takes
for a body grows linearly with the body's size and does not depend on how long one event is.
A parser that scans its whole buffer again on every read (to look for the end of an event, to
decode it, to split it into lines) does work proportional to the event's length on each read:
for one event of N bytes arriving in pieces of a few bytes, that is N²/8 bytes scanned, and an
8 MiB event takes minutes.

So the probe sends, for each size N (:data:`DEFAULT_SIZES`):

* the **long** stream: one event whose text (or one tool call's arguments) is N bytes;
* the **short** stream: the same text as events of :data:`SHORT_EVENT` bytes each (the
  baseline: what every correct implementation costs for those bytes);

each delivered in reads of :data:`LARGE_PIECE` bytes and in **tiny** reads of 1-7 bytes (cut at
seeded random points). Per-read overhead, which every implementation pays (a system call, a
protocol line, a callback per read), is the same in the long and the short stream cut the same
way, so it cancels out of the verdicts:

* **ratio**: time(long, tiny) / time(short, tiny) at the largest size measured. A linear
  parser is about 1× (the long stream is even a little shorter). Above :data:`DEFAULT_FACTOR`
  the implementation is reported (kind ``performance``).
* **exponent**: the slope of log time(long, tiny) over log N (least squares over the sizes
  measured). A linear parser is at most about 1 (less while a fixed cost per stream still
  shows); above :data:`MAX_EXPONENT` the growth is super-linear and reported, unless the
  short stream's time grows about as fast (then the growth is the body's, or the
  transport's, not the long event's: it must exceed the baseline's exponent by more than
  ``MAX_EXPONENT - 1``).

Each measurement is repeated (:data:`DEFAULT_REPEATS`), long and short interleaved, and the
minimum kept: a loaded machine only makes runs slower, never faster. A measurement is stopped
after the budget (the runner's timeout); then the time is a lower bound, the ratio is shown
with ``>``, and no larger size is measured: the ratio is already far past the factor.
Every answer is checked too: the text (or the arguments) must come back whole.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

from raf.framing import aws_eventstream_encode as encode

__all__ = [
    "DEFAULT_BUDGET",
    "DEFAULT_FACTOR",
    "DEFAULT_REPEATS",
    "DEFAULT_SIZES",
    "FORMATS",
    "LARGE_PIECE",
    "MAX_EXPONENT",
    "SHORT_EVENT",
    "TINY_PIECES",
    "Answer",
    "Cut",
    "Delivery",
    "Measurement",
    "Probe",
    "Shape",
    "Stream",
    "Verdict",
    "What",
    "deliveries",
    "exponent",
    "judge",
    "measure",
    "parse_size",
    "pieces",
    "shown_size",
    "stream",
]

KiB: Final = 1024
MiB: Final = 1024 * KiB

DEFAULT_SIZES: Final[tuple[int, ...]] = (64 * KiB, 256 * KiB, 1 * MiB, 4 * MiB, 8 * MiB)
"""The lengths of the long event, in bytes of text (or arguments)."""

LARGE_PIECE: Final = 16 * KiB
"""The size of a read in the ``large`` delivery (a network read of a fast connection)."""

TINY_PIECES: Final = (1, 7)
"""The least and the most bytes of a read in the ``tiny`` delivery."""

SHORT_EVENT: Final = 1 * KiB
"""The text (or arguments) each event of the short stream carries."""

DEFAULT_FACTOR: Final = 3.0
"""A long event in tiny reads may cost up to this many times the same bytes in short events
(a linear parser is about 1×; the margin absorbs noise and a constant cost per event)."""

MAX_EXPONENT: Final = 1.5
"""Time growing faster than size to this power is super-linear (linear: 1; quadratic: 2)."""

DEFAULT_REPEATS: Final = 3
"""How many times each measurement is made (the minimum is kept)."""

DEFAULT_BUDGET: Final = 20.0
"""Seconds one measurement may take: past it, it is stopped and no larger size is tried."""

What = Literal["text", "arguments"]
Shape = Literal["long", "short"]
Cut = Literal["tiny", "large"]

_SHAPES: Final[tuple[Shape, ...]] = ("long", "short")
_CUTS: Final[tuple[Cut, ...]] = ("tiny", "large")
_ALPHABET = b"abcdefghijklmnopqrstuvwxyz0123456789 "


# -- the streams ----------------------------------------------------------------------------


def _content(size: int) -> str:
    """``size`` bytes of plain ASCII text (nothing JSON escapes)."""
    whole, rest = divmod(size, len(_ALPHABET))
    return (_ALPHABET * whole + _ALPHABET[:rest]).decode("ascii")


def _json(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


def _sse(data: object, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {_json(data)}\n\n".encode()


def _line(data: object) -> bytes:
    return (_json(data) + "\n").encode()


_CHUNK = {"id": "chatcmpl-cost", "object": "chat.completion.chunk", "created": 1, "model": "m"}


def _openai_chat(parts: list[str], what: What) -> bytes:
    def chunk(delta: dict[str, object], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return _sse({**_CHUNK, "choices": [choice]})

    out = [chunk({"role": "assistant", "content": ""})]
    if what == "text":
        out += [chunk({"content": p}) for p in parts]
    else:
        call = {"index": 0, "id": "call_cost", "type": "function"}
        out.append(chunk({"tool_calls": [{**call, "function": {"name": "f", "arguments": ""}}]}))
        out += [chunk({"tool_calls": [{"index": 0, "function": {"arguments": p}}]}) for p in parts]
    out += [chunk({}, "stop" if what == "text" else "tool_calls"), b"data: [DONE]\n\n"]
    return b"".join(out)


def _openai_completions(parts: list[str], what: What) -> bytes:
    del what

    def chunk(text: str, finish: str | None = None) -> bytes:
        choice = {"text": text, "index": 0, "logprobs": None, "finish_reason": finish}
        return _sse({**_CHUNK, "object": "text_completion", "choices": [choice]})

    return b"".join([*(chunk(p) for p in parts), chunk("", "stop"), b"data: [DONE]\n\n"])


def _anthropic_messages(parts: list[str], what: What) -> bytes:
    message: dict[str, object] = {
        "id": "msg_cost",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    if what == "text":
        block: dict[str, object] = {"type": "text", "text": ""}
        deltas = [{"type": "text_delta", "text": p} for p in parts]
        stop = "end_turn"
    else:
        block = {"type": "tool_use", "id": "toolu_cost", "name": "f", "input": {}}
        deltas = [{"type": "input_json_delta", "partial_json": p} for p in parts]
        stop = "tool_use"
    out = [
        _sse({"type": "message_start", "message": message}, "message_start"),
        _sse(
            {"type": "content_block_start", "index": 0, "content_block": block},
            "content_block_start",
        ),
        *(
            _sse({"type": "content_block_delta", "index": 0, "delta": d}, "content_block_delta")
            for d in deltas
        ),
        _sse({"type": "content_block_stop", "index": 0}, "content_block_stop"),
        _sse(
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 1},
            },
            "message_delta",
        ),
        _sse({"type": "message_stop"}, "message_stop"),
    ]
    return b"".join(out)


def _openai_responses(parts: list[str], what: What) -> bytes:
    del what
    seq = iter(range(1 << 30))
    response = {"id": "resp_cost", "object": "response", "model": "m", "status": "in_progress"}
    item = {"id": "msg_cost", "type": "message", "role": "assistant", "status": "in_progress"}
    text = "".join(parts)

    def event(kind: str, **data: object) -> bytes:
        return _sse({"type": kind, "sequence_number": next(seq), **data}, kind)

    where = {"item_id": "msg_cost", "output_index": 0, "content_index": 0}
    done_item = {
        **item,
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    out = [
        event("response.created", response={**response, "output": []}),
        event("response.output_item.added", output_index=0, item={**item, "content": []}),
        event(
            "response.content_part.added",
            **where,
            part={"type": "output_text", "text": "", "annotations": []},
        ),
        *(event("response.output_text.delta", **where, delta=p) for p in parts),
        event("response.output_text.done", **where, text=text),
        event(
            "response.content_part.done",
            **where,
            part={"type": "output_text", "text": text, "annotations": []},
        ),
        event("response.output_item.done", output_index=0, item=done_item),
        event(
            "response.completed",
            response={**response, "status": "completed", "output": [done_item]},
        ),
    ]
    return b"".join(out)


def _gemini(parts: list[str], what: What) -> bytes:
    del what

    def chunk(text: str, finish: str | None = None) -> bytes:
        candidate: dict[str, object] = {
            "content": {"parts": [{"text": text}], "role": "model"},
            "index": 0,
        }
        if finish:
            candidate["finishReason"] = finish
        return _sse({"candidates": [candidate], "modelVersion": "m"})

    return b"".join([*(chunk(p) for p in parts[:-1]), chunk(parts[-1], "STOP")])


def _ollama_chat(parts: list[str], what: What) -> bytes:
    del what

    def line(text: str, done: bool = False) -> bytes:
        data: dict[str, object] = {
            "model": "m",
            "created_at": "2026-01-01T00:00:00Z",
            "message": {"role": "assistant", "content": text},
            "done": done,
        }
        if done:
            data["done_reason"] = "stop"
        return _line(data)

    return b"".join([*(line(p) for p in parts), line("", done=True)])


def _cohere_v2(parts: list[str], what: What) -> bytes:
    def event(data: dict[str, object]) -> bytes:
        return _sse(data, str(data["type"]))

    start = {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": [], "citations": []}
    out = [event({"id": "cost", "type": "message-start", "delta": {"message": start}})]
    if what == "text":
        content = {"content": {"type": "text", "text": ""}}
        out.append(event({"type": "content-start", "index": 0, "delta": {"message": content}}))
        out += [
            event(
                {
                    "type": "content-delta",
                    "index": 0,
                    "delta": {"message": {"content": {"text": p}}},
                }
            )
            for p in parts
        ]
        out.append(event({"type": "content-end", "index": 0}))
        finish = "COMPLETE"
    else:
        call = {"id": "call_cost", "type": "function", "function": {"name": "f", "arguments": ""}}
        out.append(
            event(
                {"type": "tool-call-start", "index": 0, "delta": {"message": {"tool_calls": call}}}
            )
        )
        out += [
            event(
                {
                    "type": "tool-call-delta",
                    "index": 0,
                    "delta": {"message": {"tool_calls": {"function": {"arguments": p}}}},
                }
            )
            for p in parts
        ]
        out.append(event({"type": "tool-call-end", "index": 0}))
        finish = "TOOL_CALL"
    out += [event({"type": "message-end", "delta": {"finish_reason": finish}}), b"data: [DONE]\n\n"]
    return b"".join(out)


def _bedrock_converse(parts: list[str], what: What) -> bytes:
    def event(kind: str, data: dict[str, object]) -> bytes:
        return encode.event(kind, _json(data).encode())

    out = [event("messageStart", {"role": "assistant"})]
    if what == "text":
        out += [
            event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": p}})
            for p in parts
        ]
        stop = "end_turn"
    else:
        tool = {"toolUse": {"toolUseId": "call_cost", "name": "f"}}
        out.append(event("contentBlockStart", {"contentBlockIndex": 0, "start": tool}))
        out += [
            event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"toolUse": {"input": p}}})
            for p in parts
        ]
        stop = "tool_use"
    out += [
        event("contentBlockStop", {"contentBlockIndex": 0}),
        event("messageStop", {"stopReason": stop}),
    ]
    return b"".join(out)


def _gemini_interactions(parts: list[str], what: What) -> bytes:
    def event(data: dict[str, object]) -> bytes:
        return _sse(data, str(data["event_type"]))

    interaction = {"id": "cost", "status": "in_progress", "object": "interaction", "model": "m"}
    out = [event({"interaction": interaction, "event_type": "interaction.created"})]
    if what == "text":
        step: dict[str, object] = {"type": "model_output"}
        deltas = [{"text": p, "type": "text"} for p in parts]
        status = "completed"
    else:
        step = {"id": "call_cost", "type": "function_call", "name": "f", "arguments": {}}
        deltas = [{"arguments": p, "type": "arguments_delta"} for p in parts]
        status = "requires_action"
    out.append(event({"index": 0, "step": step, "event_type": "step.start"}))
    out += [event({"index": 0, "delta": d, "event_type": "step.delta"}) for d in deltas]
    out.append(event({"index": 0, "event_type": "step.stop"}))
    done = {**interaction, "status": status}
    out += [event({"interaction": done, "event_type": "interaction.completed"})]
    return b"".join([*out, b"event: done\ndata: [DONE]\n\n"])


@dataclass(frozen=True)
class _Framing:
    build: Callable[[list[str], What], bytes]
    content_type: str
    whats: tuple[What, ...]


FORMATS: Final[dict[str, _Framing]] = {
    "openai_chat": _Framing(_openai_chat, "text/event-stream", ("text", "arguments")),
    "openai_completions": _Framing(_openai_completions, "text/event-stream", ("text",)),
    "openai_responses": _Framing(_openai_responses, "text/event-stream", ("text",)),
    "anthropic_messages": _Framing(_anthropic_messages, "text/event-stream", ("text", "arguments")),
    "gemini": _Framing(_gemini, "text/event-stream", ("text",)),
    "ollama_chat": _Framing(_ollama_chat, "application/x-ndjson", ("text",)),
    "cohere_v2": _Framing(_cohere_v2, "text/event-stream", ("text", "arguments")),
    "bedrock_converse": _Framing(
        _bedrock_converse, "application/vnd.amazon.eventstream", ("text", "arguments")
    ),
    "gemini_interactions": _Framing(
        _gemini_interactions, "text/event-stream", ("text", "arguments")
    ),
}
"""Every format the probe has streams for (SSE, Ollama's JSON lines, Bedrock's binary event
stream), with its framing's
content type and what can be long in it: the text, or (where a call's arguments stream in
fragments) one tool call's arguments."""


@dataclass(frozen=True)
class Stream:
    """One body to send: ``expected`` (the text, or the call's arguments as JSON text) in one
    event (``shape`` long) or in events of :data:`SHORT_EVENT` bytes (short)."""

    format: str
    what: What
    size: int
    shape: Shape
    body: bytes = field(repr=False)
    expected: str = field(repr=False)
    content_type: str = "text/event-stream"


def stream(format: str, size: int, shape: Shape, what: What = "text") -> Stream:
    """The stream of ``format`` whose text (or arguments) has ``size`` bytes, as one event
    (``long``) or as many of :data:`SHORT_EVENT` bytes (``short``).

    Raises:
        ValueError: the probe has no stream of this format, or ``what`` cannot be long in it.
    """
    framing = FORMATS.get(format)
    if framing is None:
        raise ValueError(f"no cost stream for format {format!r} (one of {', '.join(FORMATS)})")
    if what not in framing.whats:
        raise ValueError(f"{format}: only {' or '.join(framing.whats)} can be long")
    if what == "text":
        expected = _content(size)
    else:  # a JSON object whose text has ``size`` bytes
        expected = '{"data":"' + _content(max(size - 11, 0)) + '"}'
    step = len(expected) if shape == "long" else SHORT_EVENT
    parts = [expected[i : i + step] for i in range(0, len(expected), step)] or [""]
    body = framing.build(parts, what)
    return Stream(format, what, size, shape, body, expected, framing.content_type)


def pieces(body: bytes, cut: Cut, seed: int = 0) -> tuple[bytes, ...]:
    """``body`` as the reads of ``cut``: :data:`LARGE_PIECE` bytes each, or 1-7 bytes each
    cut at points drawn from ``seed`` (the same cut for the same seed and body)."""
    if cut == "large":
        return tuple(body[i : i + LARGE_PIECE] for i in range(0, len(body), LARGE_PIECE))
    rng = random.Random(seed)
    low, high = TINY_PIECES
    out, i = [], 0
    while i < len(body):
        n = rng.randint(low, high)
        out.append(body[i : i + n])
        i += n
    return tuple(out)


@dataclass(frozen=True)
class Delivery:
    """One stream cut one way: what a runner sends."""

    stream: Stream
    cut: Cut
    reads: tuple[bytes, ...] = field(repr=False)

    @property
    def name(self) -> str:
        return f"{self.stream.shape}@{self.cut}"


def deliveries(
    format: str, size: int, what: What = "text", seed: int = 0
) -> dict[tuple[Shape, Cut], Delivery]:
    """The four deliveries of one size: long and short, each cut tiny and large."""
    out: dict[tuple[Shape, Cut], Delivery] = {}
    for shape in _SHAPES:
        built = stream(format, size, shape, what)
        for cut in _CUTS:
            out[(shape, cut)] = Delivery(built, cut, pieces(built.body, cut, seed))
    return out


# -- measuring --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    """What a runner got back: the text (or the call's arguments) the implementation handed
    its user, or why it gave none (``failure``); ``timed_out`` when it was stopped at the
    budget."""

    got: str | None = None
    failure: str | None = None
    timed_out: bool = False


Runner = Callable[[Delivery, float], Answer]
"""Sends a delivery to the implementation with a timeout in seconds; never raises."""

Clock = Callable[[], float]
"""Seconds, monotonic (``time.perf_counter``)."""


@dataclass(frozen=True)
class Measurement:
    """The time of one delivery at one size: the least of its runs, a lower bound when a run
    was stopped at the budget (``stopped``), and what was wrong with an answer, if anything."""

    size: int
    shape: Shape
    cut: Cut
    seconds: float
    runs: tuple[float, ...]
    stopped: bool = False
    wrong: str | None = None


@dataclass
class Probe:
    """Every measurement of one run, and why it stopped growing the size (or ``""``)."""

    format: str
    what: What
    measurements: list[Measurement] = field(default_factory=list)
    stopped: str = ""

    def get(self, size: int, shape: Shape, cut: Cut) -> Measurement | None:
        for m in self.measurements:
            if (m.size, m.shape, m.cut) == (size, shape, cut):
                return m
        return None

    @property
    def sizes(self) -> list[int]:
        return sorted({m.size for m in self.measurements})


def _wrong(answer: Answer, expected: str) -> str | None:
    if answer.timed_out:
        return None
    if answer.failure is not None:
        return answer.failure
    if answer.got != expected:
        got = answer.got or ""
        return f"handed back {len(got.encode())} bytes of {len(expected.encode())}" + (
            "" if expected.startswith(got) else " (not a prefix of what was sent)"
        )
    return None


def measure(
    format: str,
    runner: Runner,
    clock: Clock,
    *,
    sizes: Sequence[int] = DEFAULT_SIZES,
    what: What = "text",
    repeats: int = DEFAULT_REPEATS,
    budget: float = DEFAULT_BUDGET,
    seed: int = 0,
    on_measurement: Callable[[Measurement], None] | None = None,
) -> Probe:
    """Measure every delivery at each of ``sizes`` (ascending), ``repeats`` times each, long
    and short interleaved, keeping the minimum. A run that takes longer than ``budget``
    (stopped by the runner, or finished late) ends the growth: no larger size is measured,
    and a stopped run is not repeated."""
    probe = Probe(format, what)
    for size in sorted(sizes):
        plan = deliveries(format, size, what, seed)
        runs: dict[tuple[Shape, Cut], list[float]] = {key: [] for key in plan}
        stopped: set[tuple[Shape, Cut]] = set()
        wrong: dict[tuple[Shape, Cut], str] = {}
        for _ in range(repeats):
            for cut in _CUTS:
                for shape in _SHAPES:  # interleaved: long, short, long, short...
                    key: tuple[Shape, Cut] = (shape, cut)
                    if key in stopped:
                        continue
                    began = clock()
                    answer = runner(plan[key], budget)
                    took = clock() - began
                    if answer.timed_out:
                        took = max(took, budget)
                        stopped.add(key)
                    runs[key].append(took)
                    problem = _wrong(answer, plan[key].stream.expected)
                    if problem is not None:
                        wrong.setdefault(key, problem)
        over = False
        for (shape, cut), times in runs.items():
            m = Measurement(
                size,
                shape,
                cut,
                min(times),
                tuple(times),
                stopped=(shape, cut) in stopped,
                wrong=wrong.get((shape, cut)),
            )
            probe.measurements.append(m)
            over = over or m.stopped or m.seconds > budget
            if on_measurement is not None:
                on_measurement(m)
        if over:
            larger = [s for s in sizes if s > size]
            if larger:
                probe.stopped = (
                    f"a measurement at {shown_size(size)} took longer than the budget "
                    f"({budget:g} s): {', '.join(shown_size(s) for s in larger)} not measured"
                )
            break
    return probe


# -- judging ----------------------------------------------------------------------------------


def exponent(points: Iterable[tuple[float, float]]) -> float | None:
    """The least-squares slope of log(seconds) over log(size) for ``(size, seconds)`` points
    (``None`` with fewer than two sizes, or a time that is not positive)."""
    pts = [(math.log(s), math.log(t)) for s, t in points if s > 0 and t > 0]
    if len({x for x, _ in pts}) < 2:
        return None
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    num = sum((x - mx) * (y - my) for x, y in pts)
    den = sum((x - mx) ** 2 for x, _ in pts)
    return num / den


@dataclass(frozen=True)
class Verdict:
    """The judgement of a probe.

    Attributes:
        size: the size the ratios are of: the largest measured (or, when its long run was
            stopped and an earlier size measured a larger ratio, that size).
        ratio: time(long, tiny) / time(short, tiny) at ``size``.
        ratio_is_lower_bound: the long run was stopped at the budget: the ratio is at least
            ``ratio`` (shown ``>``).
        cut_ratio: time(long, tiny) / time(long, large): what tiny reads cost the long event
            (includes the per-read overhead every implementation pays; shown, not judged).
        exponent: the growth exponent of time(long, tiny) over the sizes measured (a run
            stopped at the budget left out).
        baseline_exponent: the same of time(short, tiny), over the same sizes: growth that
            the same bytes show in short events (a transport, a server, a machine that slows
            down) is not the long event's; the exponent is judged only when it exceeds this
            one by more than ``max_exponent - 1``.
        large_exponent: the growth exponent of time(long, large): shown, not judged (a cost
            per byte of a long event that does not depend on the reads).
        findings: ``(kind, message)`` pairs: ``performance`` for a ratio over the factor or an
            exponent over the bound; ``lost`` (or ``wrong``) for an answer that did not come
            back whole.
    """

    size: int
    ratio: float | None
    ratio_is_lower_bound: bool
    cut_ratio: float | None
    exponent: float | None
    findings: tuple[tuple[str, str], ...]
    factor: float = DEFAULT_FACTOR
    max_exponent: float = MAX_EXPONENT
    baseline_exponent: float | None = None
    large_exponent: float | None = None

    @property
    def performance(self) -> bool:
        return any(kind == "performance" for kind, _ in self.findings)

    def shown_ratio(self) -> str:
        if self.ratio is None:
            return "-"
        return f"{'>' if self.ratio_is_lower_bound else ''}{self.ratio:.1f}×"


def _ratio(a: Measurement | None, b: Measurement | None) -> float | None:
    if a is None or b is None or b.seconds <= 0:
        return None
    return a.seconds / b.seconds


def _ratio_at(probe: Probe, size: int) -> tuple[float | None, bool]:
    long_tiny = probe.get(size, "long", "tiny")
    return _ratio(long_tiny, probe.get(size, "short", "tiny")), bool(
        long_tiny and long_tiny.stopped
    )


def judge(
    probe: Probe, *, factor: float = DEFAULT_FACTOR, max_exponent: float = MAX_EXPONENT
) -> Verdict:
    """The verdict on ``probe``: the ratio at the largest size measured against ``factor``,
    the growth exponent against ``max_exponent``, and every answer that was not whole."""
    sizes = probe.sizes
    findings: list[tuple[str, str]] = []
    for m in probe.measurements:
        if m.wrong is not None:
            kind = "lost" if "bytes of" in m.wrong else "wrong"
            findings.append(
                (kind, f"{shown_size(m.size)} {m.shape} event(s) in {m.cut} reads: {m.wrong}")
            )
    if not sizes:
        return Verdict(0, None, False, None, None, tuple(findings), factor, max_exponent)
    size = sizes[-1]
    ratio, lower = _ratio_at(probe, size)
    for earlier in sizes[:-1]:  # a stopped run's bound can be below an earlier measured ratio
        measured, _ = _ratio_at(probe, earlier)
        if lower and ratio is not None and measured is not None and measured > ratio:
            size, ratio, lower = earlier, measured, False
    cut_ratio = _ratio(probe.get(size, "long", "tiny"), probe.get(size, "long", "large"))
    points = [  # a stopped run's time is only a bound: left out of the fit
        (float(m.size), m.seconds)
        for m in probe.measurements
        if m.shape == "long" and m.cut == "tiny" and not m.stopped
    ]
    slope = exponent(points)
    fitted = {int(x) for x, _ in points}
    baseline = exponent(  # a stopped baseline run counts at the budget: at least that
        (float(m.size), m.seconds)
        for m in probe.measurements
        if m.shape == "short" and m.cut == "tiny" and m.size in fitted
    )
    excess = None if slope is None or baseline is None else slope - baseline
    large = exponent(
        (float(m.size), m.seconds)
        for m in probe.measurements
        if m.shape == "long" and m.cut == "large" and not m.stopped
    )
    if ratio is not None and ratio > factor:
        findings.insert(
            0,
            (
                "performance",
                f"one {shown_size(size)} event in 1-7 byte reads took "
                f"{'more than ' if lower else ''}{ratio:.1f}× the time of the same bytes in "
                f"{shown_size(SHORT_EVENT)} events (factor {factor:g})",
            ),
        )
    if slope is not None and slope > max_exponent and (excess is None or excess > max_exponent - 1):
        than = "" if baseline is None else f"; the same bytes in short events: size^{baseline:.2f}"
        findings.insert(
            0 if ratio is None or ratio <= factor else 1,
            (
                "performance",
                f"its time grows as size^{slope:.2f} over {shown_size(int(points[0][0]))}-"
                f"{shown_size(int(points[-1][0]))} (linear: 1; bound {max_exponent:g}{than})",
            ),
        )
    return Verdict(
        size,
        ratio,
        lower,
        cut_ratio,
        slope,
        tuple(findings),
        factor,
        max_exponent,
        baseline_exponent=baseline,
        large_exponent=large,
    )


# -- sizes ------------------------------------------------------------------------------------

_UNITS = {"": 1, "b": 1, "k": KiB, "kb": KiB, "kib": KiB, "m": MiB, "mb": MiB, "mib": MiB}


def parse_size(text: str) -> int:
    """``8MiB``, ``512KiB``, ``65536``: a size in bytes.

    Raises:
        ValueError: not a size of at least 1 KiB.
    """
    raw = text.strip().lower().replace(" ", "")
    digits = raw.rstrip("abcdefghijklmnopqrstuvwxyz")
    unit = raw[len(digits) :]
    try:
        number = float(digits)
    except ValueError:
        number = -1.0
    if unit not in _UNITS or not number > 0:
        raise ValueError(f"not a size: {text!r} (e.g. 8MiB, 512KiB)")
    size = int(number * _UNITS[unit])
    if size < KiB:
        raise ValueError(f"too small: {text!r} (at least 1KiB)")
    return size


def shown_size(size: int) -> str:
    """``8 MiB``, ``64 KiB``, ``1000 B``."""
    for unit, scale in (("MiB", MiB), ("KiB", KiB)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size} B"
