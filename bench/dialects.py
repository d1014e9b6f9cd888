"""Throughput of each dialect relative to the Chat Completions path, on comparable streams.

One logical response (text in small deltas, then parallel tool calls whose arguments arrive
in small fragments, then usage) is put on the wire of every format that has tool calls, the
way each format's servers send it (the wires of bench/formats.py: Chat Completions chunks;
Anthropic block events; Responses item events; Gemini chunks and Ollama lines, whose calls
arrive whole). Each body is fed in 4 KiB network reads to ``raf.pipeline.run`` (every result
consumed) and to ``respond``. Timing is the harness's (bench/harness.py): thread CPU time,
paired rounds in which every format runs once, back to back, the order rotating; the median
of the per-round ratios is printed (the Chat Completions time divided by the dialect's time:
1.0 means as fast, 0.5 half as fast), with its min-max. Every format's response is first
checked against the logical one.

bench/formats.py measures each format against a floor of its own instead; this script
compares the dialects with each other.

Run: ``python bench/dialects.py`` (``--rounds N``, ``--deltas N``, ``--calls N``,
``--arg-bytes N``, ``--style compact|spaced``).
"""

from __future__ import annotations

import argparse
import json
import random
from typing import Any

import formats
from harness import Contender, Settings, compare, metered, print_environment, table

from raf.collect import collect_agent_response
from raf.model import AgentResponse
from raf.pipeline import respond, run


def logical(deltas: int, calls: int, arg_bytes: int) -> formats.Logical:
    """Text in ``deltas`` short deltas, then ``calls`` calls of ``arg_bytes`` of arguments in
    8-character fragments, one call after another."""
    words = ["Hel", "lo ", "wor", "ld, ", "this ", "is ", "a ", "stre", "am. "]
    rng = random.Random(5)
    tool_calls = []
    for n in range(calls):
        arguments = {"path": f"/tmp/file_{n}.txt", "content": ("x" * 7 + " ") * (arg_bytes // 8)}
        encoded = json.dumps(arguments, separators=(",", ":"))
        fragments = tuple(encoded[i : i + 8] for i in range(0, len(encoded), 8))
        tool_calls.append(formats.Call(formats.call_id(rng), "write_file", arguments, fragments))
    order = tuple(n for n, call in enumerate(tool_calls) for _ in call.fragments)
    text = tuple(words[n % len(words)] for n in range(deltas))
    return formats.Logical(text=text, calls=tuple(tool_calls), order=order)


def contender(stage: str, w: formats.Workload) -> Contender[Any]:
    """Workload ``w`` through ``stage``: ``run()`` counts the results and drops them (its
    check collects an untimed pass), ``respond()`` aggregates."""
    if stage == "run()":

        def count() -> int:
            return sum(1 for _ in run(metered(w.chunks), w.dialect))

        def collected(_: int) -> str | None:
            return formats.check(collect_agent_response(run(w.chunks, w.dialect)), w)

        return Contender(w.format, count, collected)

    def aggregate() -> AgentResponse:
        return respond(metered(w.chunks), w.dialect)

    return Contender(w.format, aggregate, lambda response: formats.check(response, w))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--deltas", type=int, default=3000)
    parser.add_argument("--calls", type=int, default=4)
    parser.add_argument("--arg-bytes", type=int, default=8000)
    parser.add_argument("--style", choices=formats.STYLES, default="compact")
    args = parser.parse_args()
    r = logical(args.deltas, args.calls, args.arg_bytes)
    loads = [
        formats.make("dialects", r, name, args.style)
        for name, wire in formats.WIRES.items()
        if wire.tools
    ]
    settings = Settings()
    print_environment(settings=settings)
    print(
        f"{args.deltas} text deltas, {args.calls} calls x {args.arg_bytes} B arguments in "
        f"8-character fragments; {args.style} JSON; 4 KiB reads; {args.rounds} paired rounds"
    )
    for stage in ("run()", "respond()"):
        comparison = compare(
            [contender(stage, w) for w in loads], rounds=args.rounds, settings=settings
        )
        rows = []
        for w in loads:
            seconds = comparison.seconds(w.format)
            speed = comparison.speed(w.format)
            rows.append(
                [
                    w.format,
                    f"{len(w.body) / 1024:.0f}",
                    f"{seconds.median * 1000:.1f}" if seconds else "-",
                    speed.format() if speed else comparison.outcomes[w.format].verdict,
                ]
            )
        print(f"\n{stage}")
        print(table(["dialect", "body KB", "ms", "vs openai_chat"], rows))


if __name__ == "__main__":
    main()
