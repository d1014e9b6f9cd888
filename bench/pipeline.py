"""Whole-pipeline throughput and peak heap: raf against a JSON-decoding floor (and peers).

Every contender gets the same OpenAI Chat Completions SSE bytes, fed in 4 KiB chunks, in one
process and one run, and must produce the workload's ground truth:

* ``floor``: split the bytes into SSE events on blank lines (the buffer carried across
  chunks), strip ``data: ``, stop at ``[DONE]`` and ``msgspec.json.decode`` each payload.
  Nothing else: the cheapest thing that still touches every byte and every JSON value.
* ``run()``: iterate ``raf.pipeline.run(chunks, "openai_chat")`` to the end, handling each
  result and dropping it, as a streaming consumer does. The timed runs keep nothing; the
  check collects the results of a separate, untimed pass with
  ``raf.collect.collect_agent_response`` and compares the aggregate with the ground truth
  (and the timed pass's count of results, and its last result's kinds of contents, with
  that pass's).
* ``respond()``: ``raf.pipeline.respond(chunks, "openai_chat")`` -> ``AgentResponse``.
* with ``--peers``: openai-python's ``client.chat.completions.stream(...)`` and
  langchain-openai's ``ChatOpenAI.stream`` (chunks summed), each over an httpx
  ``MockTransport`` serving the same chunks.

Workloads (deterministic, from a seeded ``random.Random``), in the shapes of
``raf.testing.strategies``: the chunks the ``openai`` profile draws (each tool-call entry made
by the strategies' own helper), framed the way their framing shrinks to (``data: ...`` and a
blank line), the ground truth carried as a ``GeneratedStream``:

* ``A``: 5,000 short text deltas;
* ``B``: 4 parallel tool calls of ~20 KB of JSON arguments each, in 1-12 character
  fragments interleaved at random (a call's index is its rank of first appearance);
* ``C50`` / ``C200``: one call whose one string argument is 50 KB / 200 KB, in 3-8
  character fragments (the pair measures linearity in the argument size);
* ``D``: like ``C50`` but the argument text is full of ``\\n``, ``\\"`` and ``\\\\``
  escapes, so that most fragments hold or cut one.

Timing (bench/harness.py): thread CPU time, the floor and one raf entry point run back to
back in each of ``--rounds`` paired rounds, the median ratio (and min-max) printed. The
peak heap of each entry point is measured apart, with tracemalloc.

Targets (PASS/FAIL at the end; the exit status is 1 if any fails):

* ``run()`` >= 0.5x the floor's throughput on every workload when raf is the compiled build,
  >= 0.45x when interpreted;
* ``respond()`` >= 1.0x the floor on every workload;
* time(C200) / time(C50) <= 4.5 for ``run()`` and ``respond()`` (paired C50/C200 rounds;
  linear is 4, quadratic 16);
* peak heap of ``respond()`` <= 2x the argument text (bytes per character) on C200, D and B.
  The text and its decoded value coexist while one is read into the other, so 2x is the
  floor on a long string argument; B's values (lists of integers) alone hold more than 2x
  (the 'response' column), so B cannot meet it by any means.

Run: ``python bench/pipeline.py`` (``--quick``: workloads a quarter of the size and 3
rounds; ``--rounds N``; ``--peers`` when openai and langchain-openai are installed).
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import msgspec
from harness import (
    Comparison,
    Contender,
    Settings,
    Targets,
    compare,
    metered,
    peak_heap,
    print_environment,
    raf_compiled,
    table,
)
from peers import Peer, Reduced, peers

from raf.collect import collect_agent_response
from raf.formats._strategies.common import ALNUM, GeneratedStream, Piece
from raf.formats.openai_chat.strategies import PROFILES
from raf.formats.openai_chat.strategies import _tool_delta as tool_delta
from raf.model import AgentResponse, AgentResponseResult, ToolCall, Usage
from raf.pipeline import respond, run

CHUNK_SIZE = 4096
MODEL = "gpt-4o-2024-08-06"
PROFILE = PROFILES["openai"]
RUN_TARGET = {True: 0.5, False: 0.45}  # by raf_compiled()
RESPOND_TARGET = 1.0
LINEARITY_TARGET = 4.5
HEAP_TARGET = 2.0
PEERS = ("openai", "langchain-openai", "langchain-core", "httpx", "httpx-sse")

# Text deltas use every UTF-8 length; long argument strings stay within Latin-1 (multi-byte
# UTF-8 on the wire, one byte per character in CPython), so the heap's ratio to the argument
# text is one of bytes to bytes.
_VOCABULARY = (
    "the quick brown fox jumps over a lazy dog while streaming tokens arrive in order parser "
    "buffer chunk event delta value result error tool call argument json string café naïve "
    "résumé über straße façade año"
)
_WORDS = _VOCABULARY.split()
_TEXT_WORDS = [*_WORDS, "日本語", "テキスト", "中文", "данные", "🚀", "✓", "—"]


# -- workloads ----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Workload:
    """A stream with its ground truth, and the size that bounds its heap.

    Attributes:
        stream: ``stream.response`` is the truth, ``stream.chunks`` the 4 KiB reads.
        argument_chars: the characters of all the calls' argument text (JSON) together.
    """

    name: str
    description: str
    stream: GeneratedStream
    argument_chars: int = 0

    @property
    def chunks(self) -> tuple[bytes, ...]:
        return self.stream.chunks

    @property
    def megabytes(self) -> float:
        return len(self.stream.body) / 1e6

    @property
    def events(self) -> int:
        """The data events before ``[DONE]``: what the floor decodes."""
        return sum(p != "[DONE]" for p in self.stream.payloads)


class _Wire:
    """Chat Completions payloads for one response, in the shapes the strategies draw for the
    ``openai`` profile (and the fields OpenAI adds: ``service_tier``, ``system_fingerprint``,
    ``usage: null``), framed as the strategies' plainest framing: ``data: ...`` and a blank
    line."""

    def __init__(self, rng: random.Random) -> None:
        self.base = {
            "id": "chatcmpl-" + "".join(rng.choices(ALNUM, k=29)),
            "object": "chat.completion.chunk",
            "created": 1741569952 + rng.randrange(10_000_000),
            "model": MODEL,
            "service_tier": "default",
            "system_fingerprint": "fp_" + "".join(rng.choices("0123456789abcdef", k=10)),
        }
        self.payloads: list[str] = []

    def _emit(self, choices: list[dict[str, Any]], usage: dict[str, Any] | None = None) -> None:
        chunk = {**self.base, "choices": choices, "usage": usage}
        self.payloads.append(json.dumps(chunk, separators=(",", ":"), ensure_ascii=False))

    def delta(self, delta: dict[str, Any], finish: str | None = None) -> None:
        self._emit([{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}])

    def close(self, truth: AgentResponse) -> GeneratedStream:
        """The finish chunk, usage in a chunk of its own, ``[DONE]``; the stream."""
        self.delta({}, truth.finish_reason)
        assert truth.usage is not None
        usage = {
            "prompt_tokens": truth.usage.prompt_tokens,
            "completion_tokens": truth.usage.completion_tokens,
            "total_tokens": truth.usage.total_tokens,
        }
        self._emit([], usage)
        self.payloads.append("[DONE]")
        body = "".join(f"data: {p}\n\n" for p in self.payloads).encode()
        chunks = tuple(body[i : i + CHUNK_SIZE] for i in range(0, len(body), CHUNK_SIZE))
        return GeneratedStream(truth, tuple(self.payloads), body, chunks, PROFILE)


def _usage(prompt: int, completion: int) -> Usage:
    return Usage(
        prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion
    )


def text_workload(deltas: int, seed: int = 1) -> Workload:
    """``A``: ``deltas`` short text deltas, finish ``stop``."""
    rng = random.Random(seed)
    pieces = [(" " if i else "") + rng.choice(_TEXT_WORDS) for i in range(deltas)]
    truth = AgentResponse(text="".join(pieces), finish_reason="stop", usage=_usage(57, deltas))
    wire = _Wire(rng)
    wire.delta({"role": "assistant", "content": ""})
    for piece in pieces:
        wire.delta({"content": piece})
    return Workload("A", f"{deltas:,} text deltas", wire.close(truth))


def _cut(rng: random.Random, text: str, lo: int, hi: int) -> list[str]:
    """``text`` in pieces of ``lo`` to ``hi`` characters."""
    out, i = [], 0
    while i < len(text):
        n = rng.randint(lo, hi)
        out.append(text[i : i + n])
        i += n
    return out


def _interleave(rng: random.Random, calls: Sequence[Sequence[Piece]]) -> list[Piece]:
    """The calls' pieces interleaved at random, each call's in order, call n starting only
    after call n-1 has (the rule of ``strategies.common.merge_calls``, drawn from ``rng``):
    a call's position is then its rank of first appearance, as servers number them."""
    cursor = [0] * len(calls)
    started = 0
    out: list[Piece] = []
    total = sum(map(len, calls))
    while len(out) < total:
        allowed = [n for n in range(min(started + 1, len(calls))) if cursor[n] < len(calls[n])]
        n = rng.choice(allowed)
        started += n == started
        out.append(calls[n][cursor[n]])
        cursor[n] += 1
    return out


def _calls_workload(
    name: str,
    description: str,
    rng: random.Random,
    calls: Sequence[tuple[str, dict[str, Any]]],
    *,
    lo: int,
    hi: int,
) -> Workload:
    """Tool calls ``(name, arguments)`` whose argument text comes in ``lo``-``hi`` character
    fragments after an opening delta with ``"arguments": ""`` (as OpenAI sends), the calls'
    fragments interleaved; finish ``tool_calls``."""
    texts = [json.dumps(arguments, ensure_ascii=False) for _, arguments in calls]
    truth_calls = tuple(
        ToolCall(id="call_" + "".join(rng.choices(ALNUM, k=24)), name=tool, arguments=arguments)
        for tool, arguments in calls
    )
    pieces = [
        [Piece("call", "", n, first=True)] + [Piece("call", f, n) for f in _cut(rng, text, lo, hi)]
        for n, text in enumerate(texts)
    ]
    order = _interleave(rng, pieces)
    fragments = len(order) - len(calls)
    truth = AgentResponse(
        tool_calls=truth_calls, finish_reason="tool_calls", usage=_usage(311, fragments)
    )
    wire = _Wire(rng)
    wire.delta({"role": "assistant", "content": ""})
    for piece in order:
        wire.delta({"tool_calls": [tool_delta(PROFILE, truth, piece)]})
    return Workload(name, description, wire.close(truth), sum(map(len, texts)))


def _prose(rng: random.Random, chars: int) -> str:
    """Latin-1 prose of ``chars`` characters with newlines, tabs, quotes and backslashes:
    a few escapes in its JSON text."""
    out: list[str] = []
    size = 0
    while size < chars:
        roll = rng.random()
        if roll < 0.06:
            piece = "\n"
        elif roll < 0.08:
            piece = "\t"
        elif roll < 0.10:
            piece = f' "{rng.choice(_WORDS)}"'
        elif roll < 0.11:
            piece = f" C:\\path\\{rng.choice(_WORDS)}"
        else:
            piece = " " + rng.choice(_WORDS)
        out.append(piece)
        size += len(piece)
    return "".join(out)[:chars]


def parallel_workload(calls: int, argument_bytes: int, seed: int = 2) -> Workload:
    """``B``: ``calls`` parallel ``write_file`` calls of about ``argument_bytes`` each (a
    path, prose, a list of numbers), in 1-12 character fragments."""
    rng = random.Random(seed)
    specs: list[tuple[str, dict[str, Any]]] = []
    for i in range(calls):
        numbers = [rng.randrange(100_000) for _ in range(argument_bytes // 28)]
        content = _prose(rng, argument_bytes - len(json.dumps(numbers)) - 60)
        path = f"src/{rng.choice(['core', 'io', 'café', 'データ'])}/module_{i}.py"
        specs.append(("write_file", {"path": path, "content": content, "lines": numbers}))
    kb = argument_bytes / 1000
    return _calls_workload(
        "B", f"{calls} interleaved calls, ~{kb:.0f} KB arguments each", rng, specs, lo=1, hi=12
    )


def string_workload(kb: int, seed: int = 3) -> Workload:
    """``C<kb>``: one call whose one string argument is ``kb`` KB of prose."""
    rng = random.Random(seed)
    content = _prose(rng, kb * 1000)
    return _calls_workload(
        f"C{kb}",
        f"1 call, one {kb} KB string argument",
        rng,
        [("save_document", {"content": content})],
        lo=3,
        hi=8,
    )


def escapes_workload(kb: int, seed: int = 4) -> Workload:
    """``D``: one call whose one string argument's JSON text (``kb`` KB) is about half
    escapes (``\\n``, ``\\"``, ``\\\\``) between 1-3 letter words, in 3-8 character
    fragments: most fragments hold an escape or cut one in two."""
    rng = random.Random(seed)
    out: list[str] = []
    size = 0
    while size < kb * 1000:
        if rng.random() < 0.45:
            out.append(rng.choice('\n"\\'))
            size += 2
        else:
            word = "".join(rng.choices("abcdefghij", k=rng.randint(1, 3)))
            out.append(word)
            size += len(word)
    workload = _calls_workload(
        "D", "", rng, [("save_document", {"content": "".join(out)})], lo=3, hi=8
    )
    share = escape_share(workload)
    description = (
        f"1 call, {kb} KB of argument text, {share:.0%} of fragments hold or cut an escape"
    )
    return dataclasses.replace(workload, description=description)


def escape_share(workload: Workload) -> float:
    """The share of argument fragments that hold a backslash or begin inside an escape."""
    fragments = [
        entry["function"]["arguments"]
        for payload in workload.stream.payloads[:-1]
        for choice in json.loads(payload)["choices"]
        for entry in choice["delta"].get("tool_calls", ())
        if entry["function"]["arguments"]
    ]
    previous = ""
    hits = 0
    for fragment in fragments:
        trailing = len(previous) - len(previous.rstrip("\\"))
        hits += "\\" in fragment or trailing % 2 == 1
        previous = fragment
    return hits / len(fragments)


def workloads(scale: int = 1) -> list[Workload]:
    """A, B, C50, C200, D (``scale`` 4: a quarter of the size: C12 and C48)."""
    small = 50 // scale
    return [
        text_workload(5000 // scale),
        parallel_workload(4, 20_000 // scale),
        string_workload(small),
        string_workload(4 * small),
        escapes_workload(small),
    ]


# -- checks -------------------------------------------------------------------------------------


def reduce(response: AgentResponse) -> Reduced:
    """``response`` as the peers' results are reduced (bench/peers.py)."""
    usage = response.usage
    counts = (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) if usage else None
    calls = [(c.id, c.name, c.arguments) for c in response.tool_calls]
    return response.text, calls, response.finish_reason, counts


def diff(got: Reduced, truth: AgentResponse) -> str | None:
    """Why ``got`` is not ``truth`` (the first difference), or ``None``."""
    text, calls, finish, usage = got
    want_text, want_calls, want_finish, want_usage = reduce(truth)
    if text != want_text:
        pairs = zip(text, want_text, strict=False)
        at = next((i for i, (a, b) in enumerate(pairs) if a != b), min(len(text), len(want_text)))
        return f"text differs at char {at} (got {len(text)} chars, want {len(want_text)})"
    if len(calls) != len(want_calls):
        return f"{len(calls)} tool calls (want {len(want_calls)})"
    for n, ((call_id, name, arguments), want) in enumerate(zip(calls, want_calls, strict=True)):
        if (call_id, name) != want[:2]:
            return f"call {n}: id and name {(call_id, name)} (want {want[:2]})"
        if arguments != want[2]:
            if isinstance(arguments, str):
                return f"call {n}: arguments not parsed ({len(arguments)} characters of text)"
            parsed = arguments if isinstance(arguments, dict) else {}
            wrong = [key for key, value in want[2].items() if parsed.get(key) != value]
            return f"call {n}: arguments differ (wrong values for {wrong})"
    if finish != want_finish:
        return f"finish_reason {finish!r} (want {want_finish!r})"
    if usage != want_usage:
        return f"usage {usage} (want {want_usage})"
    return None


def check_response(response: AgentResponse, truth: AgentResponse) -> str | None:
    """Why raf's ``response`` is not ``truth``: an error it reported, or :func:`diff`."""
    if response.errors:
        first = response.errors[0]
        return f"{len(response.errors)} error(s), first {first.error_code}: {first.message[:120]}"
    return diff(reduce(response), truth)


# -- contenders ---------------------------------------------------------------------------------


def floor(workload: Workload) -> Contender[int]:
    """Split, strip, decode, drop; returns the number of payloads decoded."""

    def go() -> int:
        decode = msgspec.json.decode
        count = 0
        buffer = b""
        for chunk in metered(workload.chunks):
            buffer += chunk
            *events, buffer = buffer.split(b"\n\n")
            for event in events:
                payload = event[6:] if event.startswith(b"data: ") else event
                if payload == b"[DONE]":
                    return count
                decode(payload)
                count += 1
        return count

    def check(count: int) -> str | None:
        want = workload.events
        return None if count == want else f"decoded {count} events (want {want})"

    return Contender("floor", go, check)


def run_contender(workload: Workload) -> Contender[tuple[int, AgentResponseResult]]:
    """``run()``: every result handled and dropped; returns the count and the last one."""

    def go() -> tuple[int, AgentResponseResult]:
        count = 0
        for last in run(metered(workload.chunks), "openai_chat"):  # noqa: B007
            count += 1
        return count, last

    def check(got: tuple[int, AgentResponseResult]) -> str | None:
        results = list(run(workload.chunks, "openai_chat"))  # the untimed pass
        problem = check_response(collect_agent_response(results), workload.stream.response)
        count, last = got
        if problem is None and (count != len(results) or _shape(last) != _shape(results[-1])):
            problem = "the timed pass yielded other results than the checked pass"
        return problem

    return Contender("run()", go, check)


def _shape(result: AgentResponseResult) -> tuple[str | None, list[str]]:
    """A result without its timestamps: the finish reason and the kinds of its contents."""
    return result.finish_reason, [type(c).__name__ for c in result.contents]


def respond_contender(workload: Workload) -> Contender[AgentResponse]:
    """``respond()``: the aggregated response."""

    def go() -> AgentResponse:
        return respond(metered(workload.chunks), "openai_chat")

    def check(response: AgentResponse) -> str | None:
        return check_response(response, workload.stream.response)

    return Contender("respond()", go, check)


def peer_contender(peer: Peer, workload: Workload) -> Contender[Any]:
    """A library of bench/peers.py on the workload's chunks."""
    tools = sorted({c.name for c in workload.stream.response.tool_calls})

    def check(result: Any) -> str | None:
        return diff(peer.reduce(result), workload.stream.response)

    return Contender(peer.name, lambda: peer.stream(workload.chunks, tools), check)


# -- the report ---------------------------------------------------------------------------------

ENTRY_POINTS: tuple[tuple[str, Callable[[Workload], Contender[Any]]], ...] = (
    ("run()", run_contender),
    ("respond()", respond_contender),
)


def _ratio(comparison: Comparison, name: str, *, slowdown: bool = False) -> str:
    """``name``'s median ratio to the baseline with its range, or why there is none."""
    spread = comparison.slowdown(name) if slowdown else comparison.speed(name)
    return spread.format(unit="x") if spread else comparison.outcomes[name].verdict


def _ms(comparison: Comparison, name: str) -> str:
    seconds = comparison.seconds(name)
    return f"{seconds.median * 1000:.1f}" if seconds else "-"


def _named(contender: Contender[Any], name: str) -> Contender[Any]:
    return dataclasses.replace(contender, name=name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="quarter-size workloads, 3 rounds")
    parser.add_argument("--rounds", type=int, help="paired rounds per ratio (11; --quick 3)")
    parser.add_argument("--peers", action="store_true", help="add openai-python and langchain")
    parser.add_argument("--budget", type=float, help="wall s per run before it is stopped (300)")
    parser.add_argument(
        "--slow", type=float, default=20.0, help="a peer run over this many s is not repeated (20)"
    )
    parser.add_argument("--wall", action="store_true", help="ratios of wall time, not CPU time")
    args = parser.parse_args(argv)
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(line_buffering=True)  # each table appears when it is done
    rounds = args.rounds or (3 if args.quick else 11)
    settings = Settings(
        clock="wall" if args.wall else "cpu", budget=args.budget or (60.0 if args.quick else 300.0)
    )
    began = time.perf_counter()
    print_environment(PEERS if args.peers else (), settings)
    print(f"{rounds} paired rounds per ratio; the input is fed in {CHUNK_SIZE} B chunks")
    loads = workloads(4 if args.quick else 1)
    by_name = {w.name: w for w in loads}
    small, large = loads[2], loads[3]
    print()
    print(table(
        ["workload", "", "MB", "events", "chunks", "argument chars"],
        [[w.name, w.description, f"{w.megabytes:.2f}", f"{w.events:,}", f"{len(w.chunks):,}",
          f"{w.argument_chars:,}"] for w in loads],
        align="llrrrr",
    ))  # fmt: skip

    # Throughput: each entry point paired with the floor, on every workload.
    throughput = {
        (w.name, label): compare([floor(w), make(w)], rounds=rounds, settings=settings)
        for w in loads
        for label, make in ENTRY_POINTS
    }
    print()
    print("throughput as a ratio to the floor's (floor time / time), median (min-max) of rounds")
    rows = []
    for w in loads:
        with_run, with_respond = throughput[w.name, "run()"], throughput[w.name, "respond()"]
        floor_s = with_run.seconds("floor")
        floor_rate = f"{w.megabytes / floor_s.median:.0f}" if floor_s else "-"
        rows.append([
            w.name, _ms(with_run, "floor"), floor_rate,
            _ms(with_run, "run()"), _ratio(with_run, "run()"),
            _ms(with_respond, "respond()"), _ratio(with_respond, "respond()"),
        ])  # fmt: skip
    print(table(
        ["workload", "floor ms", "floor MB/s", "run() ms", "run() / floor", "respond() ms",
         "respond() / floor"],
        rows,
    ))  # fmt: skip

    # Linearity: C50 and C200 back to back, per entry point (the floor's for reference).
    linearity = {
        label: compare(
            [_named(make(small), small.name), _named(make(large), large.name)],
            rounds=rounds,
            settings=settings,
        )
        for label, make in (("floor", floor), *ENTRY_POINTS)
    }
    print()
    print(f"linearity: time({large.name}) / time({small.name}), paired; 4x the input, linear is 4")
    print(table(
        ["entry point", "time ratio"],
        [[label, _ratio(c, large.name, slowdown=True)] for label, c in linearity.items()],
    ))  # fmt: skip

    # Peak heap, apart from the timing (tracemalloc slows allocation several fold).
    heaps = {
        (w.name, label): peak_heap(make(w).run)[0] for w in loads for label, make in ENTRY_POINTS
    }
    print()
    print(
        "peak heap (tracemalloc): MB, per MB of input, and respond()'s per argument character;"
        " 'response' is what the response itself holds, per argument character"
    )
    rows = []
    for w in loads:
        run_heap, respond_heap = heaps[w.name, "run()"], heaps[w.name, "respond()"]
        chars = w.argument_chars
        rows.append([
            w.name, f"{run_heap.megabytes:.2f}", f"{run_heap.per(len(w.stream.body)):.2f}",
            f"{respond_heap.megabytes:.2f}", f"{respond_heap.per(len(w.stream.body)):.2f}",
            f"{respond_heap.per(chars):.2f}" if chars else "-",
            f"{respond_heap.kept / chars:.2f}" if chars else "-",
        ])  # fmt: skip
    print(table(
        ["workload", "run() MB", "per MB in", "respond() MB", "per MB in", "per argument char",
         "response"],
        rows,
    ))  # fmt: skip

    if args.peers:
        peer_rounds = 1 if args.quick else min(rounds, 3)
        _peers(loads, throughput, rounds=peer_rounds, settings=settings, slow=args.slow)

    compiled = raf_compiled()
    print()
    print(f"targets (raf is the {'compiled' if compiled else 'interpreted'} build)")
    targets = Targets()
    for w in loads:
        for label, target in (("run()", RUN_TARGET[compiled]), ("respond()", RESPOND_TARGET)):
            comparison = throughput[w.name, label]
            outcome = comparison.outcomes[label]
            targets.expect(
                f"{w.name} {label} / floor",
                comparison.speed(label),
                at_least=target,
                unit="x",
                problem="" if outcome.ok else outcome.verdict,
            )
    for label, _ in ENTRY_POINTS:
        targets.expect(
            f"{label} time({large.name}) / time({small.name})",
            linearity[label].slowdown(large.name),
            at_most=LINEARITY_TARGET,
        )
    for name in (large.name, "D", "B"):
        targets.expect(
            f"{name} respond() peak heap / argument text",
            heaps[name, "respond()"].per(by_name[name].argument_chars),
            at_most=HEAP_TARGET,
            unit="x",
        )
    print(targets.report())
    print(f"total runtime {time.perf_counter() - began:.0f} s")
    return targets.exit_status()


def _peers(
    loads: Sequence[Workload],
    ours: dict[tuple[str, str], Comparison],
    *,
    rounds: int,
    settings: Settings,
    slow: float,
) -> None:
    """Each peer paired with the floor, in fewer rounds (they are slow; a run over ``slow``
    seconds is not repeated). A peer is not run on C200 when 16 times its C50 time (what a
    quadratic cost would take) is past the budget."""
    small, large = loads[2].name, loads[3].name
    too_slow: dict[str, str] = {}
    rows = []
    for w in loads:
        for name, peer in peers(MODEL).items():
            if peer is None:
                rows.append([w.name, name, "-", "not installed"])
                continue
            skip = {name: too_slow[name]} if w.name == large and name in too_slow else {}
            comparison = compare(
                [floor(w), peer_contender(peer, w)],
                rounds=rounds,
                settings=settings,
                slow=slow,
                skip=skip,
            )
            seconds = comparison.seconds(name)
            if w.name == small and seconds and 16 * seconds.median > settings.budget:
                too_slow[name] = f"{small} took {seconds.median:.0f} s; 16x is past the budget"
            raf = ours[w.name, "respond()"].seconds("respond()")
            speed = comparison.speed(name)
            rows.append([
                w.name, name, _ms(comparison, name),
                speed.format(digits=4, unit="x") if speed else comparison.outcomes[name].verdict,
                f"{seconds.median / raf.median:,.0f}x" if seconds and raf else "-",
            ])  # fmt: skip
    print()
    print("peers, paired with the floor; how many times faster raf's respond() is")
    print(table(["workload", "peer", "ms", "peer / floor", "respond() speed-up"], rows))


if __name__ == "__main__":
    sys.exit(main())
