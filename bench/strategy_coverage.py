"""What the hypothesis strategies generate: how often each stream feature occurs.

For each wire format, ``streams()`` of its strategies module is drawn ``--examples`` times (as
a property test draws them, shrinking off) and each stream's features are read off its
payloads and bytes by the module's ``coverage()``; printed is the share of streams that have
each feature. A feature at 0 % is a blind spot: a client bug that needs it is never caught.

Hypothesis does not draw examples independently (it mutates earlier ones, and its first
examples are the simplest), so the shares of one run of a few hundred streams vary by several
points from run to run, most for the features of one profile; ``--runs N`` (3 by default)
adds up N runs.

Run: ``python bench/strategy_coverage.py`` (``--examples N``, ``--runs N``, ``--markdown``
for the table in docs/testing.md).
"""

from __future__ import annotations

import argparse
import warnings
from collections import Counter
from types import ModuleType

from hypothesis import HealthCheck, Phase, given, settings

from raf.testing.strategies import anthropic_messages, gemini, openai_chat, openai_responses

MODULES: dict[str, ModuleType] = {
    "openai_chat": openai_chat,
    "anthropic_messages": anthropic_messages,
    "openai_responses": openai_responses,
    "gemini": gemini,
}


def measure(module: ModuleType, examples: int) -> tuple[Counter[str], int]:
    counts: Counter[str] = Counter()
    seen = [0]

    @settings(
        max_examples=examples,
        database=None,
        phases=[Phase.generate],
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(module.streams())
    def draw(stream: object) -> None:
        seen[0] += 1
        counts.update(module.coverage(stream))

    draw()
    return counts, seen[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=300, help="streams a run (300)")
    parser.add_argument("--runs", type=int, default=3, help="runs added up (3)")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    for name, module in MODULES.items():
        counts: Counter[str] = Counter()
        total = 0
        for _ in range(args.runs):
            run_counts, run_total = measure(module, args.examples)
            counts.update(run_counts)
            total += run_total
        features = sorted(module.FEATURES)
        if args.markdown:
            print(f"\n`{name}` ({total} streams)\n\n| feature | streams |\n|---|---|")
            for feature in features:
                print(f"| `{feature}` | {100 * counts[feature] / total:.0f} % |")
        else:
            print(f"\n{name}: {total} streams")
            for feature in features:
                share = 100 * counts[feature] / total
                flag = "  <- never" if not counts[feature] else ""
                print(f"  {feature:34} {share:5.1f} %{flag}")


if __name__ == "__main__":
    main()
