"""Throughput of the round-trip property and the time to catch each broken converter.

Prints examples per second of ``streams()`` -> ``raf.pipeline.respond`` -> compare with the
ground truth (generation included, as in the tests), and for each deliberately broken
converter of ``tests/properties/broken.py`` how long hypothesis took to find and shrink a
counterexample, and how small the counterexample is.

Run from the repository root: ``python bench/properties.py [--examples N]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from hypothesis import HealthCheck, find, given, settings

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from raf.pipeline import respond
from raf.testing.strategies import GeneratedStream, streams
from tests.properties.broken import VARIANTS
from tests.properties.support import summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=500, help="round-trip examples (500)")
    args = parser.parse_args()

    count = 0

    @settings(
        max_examples=args.examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(streams())
    def round_trip(stream: GeneratedStream) -> None:
        nonlocal count
        count += 1
        assert summary(respond(stream.chunks)) == summary(stream.response)

    started = time.perf_counter()
    round_trip()
    elapsed = time.perf_counter() - started
    print(f"round trip: {count} examples in {elapsed:.1f}s = {count / elapsed:.0f} examples/s")

    for name, variant in sorted(VARIANTS.items()):
        started = time.perf_counter()
        example = find(
            streams(),
            lambda s, v=variant: summary(respond(s.chunks, converter=v())) != summary(s.response),
            settings=settings(max_examples=60, database=None, derandomize=True, deadline=None),
        )
        took = time.perf_counter() - started
        print(
            f"{name:22s} caught and shrunk in {took:5.1f}s: profile {example.profile.name}, "
            f"{len(example.response.tool_calls)} call(s), {len(example.payloads)} events, "
            f"{len(example.body)} bytes"
        )


if __name__ == "__main__":
    main()
