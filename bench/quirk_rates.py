"""How well raf.fuzz.generate makes the catalogue's quirks, and how fast.

For each quirk and each format :data:`raf.fuzz.generate.GENERATORS` has for it, ``--examples``
streams are drawn with the quirk forced alone (weight 1.0, as a property test draws them,
shrinking off), and printed is the share of them that show it (``FuzzStream.quirks``, read
off the stream): a quirk that a stream cannot show (interleaving with one call, a framing
quirk in a stream with no events) lowers it. Then, for each format, the default profile
(every quirk at ``CATALOGUE_WEIGHT``): examples drawn per second, the share of that time raf's
reference pipeline takes to read them, and how often each quirk is shown.

Run: ``python bench/quirk_rates.py`` (``--examples N``, ``--markdown`` for the tables of
docs/fuzzing.md).
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings

from raf.fuzz.generate import EVERY, GENERATORS, FuzzStream, streams
from raf.pipeline import respond


def _draw(strategy: Any, examples: int, each: Any) -> float:
    @settings(
        max_examples=examples,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        deadline=None,
    )
    @given(strategy)
    def run(fuzzed: FuzzStream) -> None:
        each(fuzzed)

    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run()
    return time.perf_counter() - start


def forced_rates(examples: int) -> list[tuple[str, str, float]]:
    rows = []
    for quirk, on in GENERATORS.items():
        for format in sorted(on):
            seen = [0, 0]

            def count(fuzzed: FuzzStream, quirk: str = quirk, seen: list[int] = seen) -> None:
                seen[0] += quirk in fuzzed.quirks
                seen[1] += 1

            _draw(streams(format, {quirk: 1.0}), examples, count)
            rows.append((quirk, format, seen[0] / max(seen[1], 1)))
    return rows


def default_profile(format: str, examples: int) -> tuple[float, float, Counter[str], int]:
    shown: Counter[str] = Counter()
    reading = [0.0, 0]

    def each(fuzzed: FuzzStream) -> None:
        shown.update(fuzzed.quirks)
        start = time.perf_counter()
        respond(fuzzed.chunks, format)
        reading[0] += time.perf_counter() - start
        reading[1] += 1

    elapsed = _draw(streams(format), examples, each)
    return reading[1] / elapsed, reading[0] / elapsed, shown, int(reading[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=200)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    rows = forced_rates(args.examples)
    if args.markdown:
        print("| quirk | format | shown when forced alone |\n|---|---|---|")
        for quirk, format, rate in rows:
            print(f"| `{quirk}` | {format} | {rate:.0%} |")
    else:
        for quirk, format, rate in rows:
            print(f"{quirk:20} {format:20} {rate:6.1%}")
    print()
    for format in sorted(EVERY):
        per_second, reading, shown, drawn = default_profile(format, args.examples)
        quirks = ", ".join(f"{q} {n / drawn:.0%}" for q, n in sorted(shown.items()))
        print(f"{format}: {per_second:.0f} examples/s ({reading:.0%} of it reading them); {quirks}")


if __name__ == "__main__":
    main()
