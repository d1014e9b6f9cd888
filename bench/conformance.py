"""Conformance cases per second: the stdio protocol against the in-process reference.

The same suite (every bundled case under the standard chunkings) is run, in one process and
one run, through raf's reference pipeline in process (the baseline: no protocol, no process),
through the same pipeline behind the stdio protocol (``python -m
raf.conformance.stdio_reference``: base64 chunks, JSON lines, a pipe each way, the judging),
and through the example clients in Python and Node.js. Each contender runs ``--rounds`` times
in turn (so drift in machine speed hits all alike); the best time counts. Printed: cases per
second, and the ratio to the in-process baseline.

Run: ``python bench/conformance.py`` (``--level updates`` to include the heaviest judging,
``--rounds N``).
"""

from __future__ import annotations

import argparse
import platform
import shutil
import sys
import time
from pathlib import Path

from raf.conformance.bundled import bundled
from raf.conformance.cases import load_suite
from raf.conformance.implementation import Implementation, ReferenceImplementation
from raf.conformance.runner import run_suite
from raf.conformance.stdio import StdioImplementation

ROOT = Path(__file__).resolve().parents[1]


def contenders() -> dict[str, object]:
    out: dict[str, object] = {
        "in-process reference": ReferenceImplementation,
        "stdio reference": lambda: StdioImplementation(
            [sys.executable, "-m", "raf.conformance.stdio_reference"]
        ),
        "stdio example-python": lambda: StdioImplementation(
            [sys.executable, str(ROOT / "examples/clients/python/client.py")]
        ),
    }
    node = shutil.which("node")
    if node:
        out["stdio example-node"] = lambda: StdioImplementation(
            [node, str(ROOT / "examples/clients/node/client.js")]
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--level", default="response")
    args = parser.parse_args()
    suite = bundled()
    cases = load_suite(suite.cassettes, suite.goldens)
    print(
        f"Python {platform.python_version()}; {len(cases.cases)} cases at level {args.level}; "
        f"best of {args.rounds} rounds"
    )
    best: dict[str, float] = {}
    for _ in range(args.rounds):
        for name, make in contenders().items():
            implementation: Implementation = make()  # type: ignore[operator]
            level = args.level if "example" not in name else "response"
            started = time.perf_counter()
            report = run_suite(cases, implementation, level=level)
            elapsed = time.perf_counter() - started
            if not report.ok:
                print(f"  {name}: {report.counts()} (not all pass)")
            best[name] = min(best.get(name, elapsed), elapsed)
    baseline = best["in-process reference"]
    print(f"  {'contender':<24} {'seconds':>8} {'cases/s':>9} {'vs in-process':>14}")
    for name, seconds in best.items():
        rate = len(cases.cases) / seconds
        print(f"  {name:<24} {seconds:8.2f} {rate:9.0f} {baseline / seconds:13.2f}x")


if __name__ == "__main__":
    main()
