"""Throughput of the round-trip property, where its time goes, and the time to catch each
broken converter.

Prints, for ``streams()`` -> ``raf.pipeline.respond`` -> compare with the ground truth (as in
tests/properties/test_round_trip.py, generation included):

* the floor: examples per second of a property that draws one integer and checks nothing,
  which is what hypothesis's engine costs per example on this machine;
* generation: examples per second of a property that draws a stream and checks nothing, with
  the choices hypothesis makes per stream and the streams' size;
* the round trip: examples per second, and per example the time in ``respond()``, in the
  comparison (``summary`` of both responses) and in the rest (hypothesis and generation);
  ``--chunkings N`` also measures a variant that checks N network chunkings of each drawn
  stream (the one drawn with it and N-1 more) against its one ground truth;
* for each deliberately broken converter of ``tests/properties/broken.py``, with the budget
  of tests/properties/test_power.py (400 examples, derandomized): how long hypothesis took
  to find and shrink a counterexample, after how many examples it found one, how many test
  calls finding and shrinking took, and how small the counterexample is. ``--seeds N`` adds N
  runs with random seeds and prints their medians.

Times are wall-clock, with the process's CPU time beside them (on a shared machine the CPU
time is the steadier number). Run from the repository root: ``python bench/properties.py
[--examples N] [--seeds N] [--chunkings N] [--no-broken]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st
from hypothesis.control import current_build_context

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from raf.formats._strategies.common import chunked
from raf.pipeline import respond
from raf.testing.strategies import GeneratedStream, streams
from tests.properties.broken import VARIANTS
from tests.properties.support import summary

BUDGET = 400  # tests/properties/test_power.py's


def _settings(examples: int) -> settings:
    return settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )


def _choices() -> int | None:
    """The number of choices hypothesis made so far in the current example (an internal
    attribute: ``None`` if this version of hypothesis lacks it)."""
    try:
        return len(current_build_context().data.nodes)
    except AttributeError:  # another version of hypothesis
        return None


def _timed(run: Callable[[], None]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    run()
    return time.perf_counter() - wall, time.process_time() - cpu


def floor(examples: int) -> None:
    @_settings(examples)
    @given(st.integers())
    def nothing(value: int) -> None:
        pass

    wall, cpu = _timed(nothing)
    print(
        f"floor (one integer, no check): {examples / wall:6.0f} examples/s "
        f"({examples / cpu:.0f}/s of CPU time)"
    )


def generation(examples: int) -> None:
    sizes: list[tuple[int, int, int, int]] = []

    @_settings(examples)
    @given(streams())
    def draw_only(stream: GeneratedStream) -> None:
        sizes.append((_choices() or 0, len(stream.payloads), len(stream.body), len(stream.chunks)))

    wall, cpu = _timed(draw_only)
    count = len(sizes)
    mean = [statistics.mean(row[i] for row in sizes) for i in range(4)]
    print(
        f"generation (draw, no check):   {count / wall:6.0f} examples/s "
        f"({count / cpu:.0f}/s of CPU time); per stream {mean[0]:.0f} choices, "
        f"{mean[1]:.1f} events, {mean[2]:.0f} bytes, {mean[3]:.0f} network reads"
    )


@st.composite
def _chunkings_of(draw: st.DrawFn, extra: int) -> tuple[GeneratedStream, list[tuple[bytes, ...]]]:
    stream = draw(streams())
    return stream, [stream.chunks, *(tuple(chunked(draw, stream.body)) for _ in range(extra))]


def round_trip(examples: int, chunkings: int = 1) -> None:
    """The property; with ``chunkings`` > 1, each example also checks that many more network
    chunkings of its stream against the same ground truth."""
    spent = {"respond": 0.0, "compare": 0.0}
    count = checks = 0

    @_settings(examples)
    @given(_chunkings_of(chunkings - 1))
    def check(case: tuple[GeneratedStream, list[tuple[bytes, ...]]]) -> None:
        nonlocal count, checks
        stream, reads = case
        count += 1
        want = summary(stream.response)
        for chunks in reads:
            checks += 1
            started = time.perf_counter()
            got = respond(chunks)
            compared = time.perf_counter()
            assert summary(got) == want
            spent["compare"] += time.perf_counter() - compared
            spent["respond"] += compared - started

    wall, cpu = _timed(check)
    rest = wall - spent["respond"] - spent["compare"]
    per = 1000 / count
    label = "round trip:" if chunkings == 1 else f"round trip, {chunkings} chunkings:"
    also = "" if chunkings == 1 else f" = {checks / wall:.0f} checks/s ({checks / cpu:.0f}/s CPU)"
    print(
        f"{label:30s} {count / wall:6.0f} examples/s "
        f"({count / cpu:.0f}/s of CPU time){also}, {count} examples in {wall:.1f}s\n"
        f"  per example: {wall * per:.2f} ms = respond() {spent['respond'] * per:.2f} ms "
        f"+ comparison {spent['compare'] * per:.3f} ms "
        f"+ hypothesis and generation {rest * per:.2f} ms"
    )


def catch(variant: type, seed: int | None) -> dict[str, Any]:
    calls = 0
    first: int | None = None

    def disagrees(stream: GeneratedStream) -> bool:
        nonlocal calls, first
        calls += 1
        bad = summary(respond(stream.chunks, converter=variant())) != summary(stream.response)
        if bad and first is None:
            first = calls
        return bad

    started, cpu = time.perf_counter(), time.process_time()
    example = find(
        streams(),
        disagrees,
        settings=settings(
            max_examples=BUDGET, database=None, derandomize=seed is None, deadline=None
        ),
        random=None if seed is None else random.Random(seed),
    )
    return {
        "seconds": time.perf_counter() - started,
        "cpu": time.process_time() - cpu,
        "found at": first,
        "test calls": calls,
        "profile": example.profile.name,
        "calls": len(example.response.tool_calls),
        "events": len(example.payloads),
        "bytes": len(example.body),
    }


def broken(seeds: int) -> None:
    print(f"broken converters ({BUDGET} examples, derandomized):")
    for name, variant in sorted(VARIANTS.items()):
        got = catch(variant, None)
        print(
            f"  {name:20s} caught and shrunk in {got['seconds']:5.1f}s ({got['cpu']:.1f}s CPU; "
            f"found at example "
            f"{got['found at']}, {got['test calls']} test calls): profile {got['profile']}, "
            f"{got['calls']} call(s), {got['events']} events, {got['bytes']} bytes"
        )
    if not seeds:
        return
    print(f"broken converters, median of {seeds} random seeds:")
    for name, variant in sorted(VARIANTS.items()):
        runs = [catch(variant, seed) for seed in range(seeds)]

        def median(key: str, runs: list[dict[str, Any]] = runs) -> float:
            return float(statistics.median(run[key] for run in runs))

        print(
            f"  {name:20s} {median('seconds'):5.1f}s ({median('cpu'):.1f}s CPU), found at example "
            f"{median('found at'):.0f}, {median('test calls'):.0f} test calls; "
            f"{median('calls'):.0f} call(s), {median('events'):.0f} events, "
            f"{median('bytes'):.0f} bytes (largest {max(run['bytes'] for run in runs)})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=500, help="round-trip examples (500)")
    parser.add_argument("--seeds", type=int, default=0, help="random-seed runs per converter")
    parser.add_argument(
        "--chunkings",
        type=int,
        default=1,
        help="also measure a round trip checking N chunkings of each stream (N > 1)",
    )
    parser.add_argument("--no-broken", action="store_true", help="skip the broken converters")
    args = parser.parse_args()
    floor(max(args.examples, 1000))
    generation(args.examples)
    round_trip(args.examples)
    if args.chunkings > 1:
        round_trip(args.examples, args.chunkings)
    if not args.no_broken:
        broken(args.seeds)


if __name__ == "__main__":
    main()
