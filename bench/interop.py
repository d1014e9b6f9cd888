"""raf's results in each message model it speaks, and back: the cost of both, against the pipeline.

For every format, workload and JSON style of bench/formats.py (its wires and workloads,
imported: ``text``, ``tools``, ``big200`` and ``big50``, ``escapes``; ``compact`` and
``spaced``), the body is read once by ``raf.pipeline.run`` into its results, and each model of
``raf.interop`` (``raf.interop.names()``) is timed on them in both directions:

* ``run()``, the baseline: ``raf.pipeline.run(chunks, format)`` of the body itself (bytes to
  results, fed in 4 KiB reads), each result dropped (bench/formats.py's ``run()``);
* ``encode``: the model's encoder fed the results (``raf.interop.encode_all``), its items
  counted and dropped;
* ``decode``: the model's decoder fed those items (``raf.interop.decode_all``), the results
  counted and dropped.

Every contender of a workload runs in the same paired rounds (bench/harness.py: thread CPU
time, the order rotating; ``big50``'s contenders in the rounds of ``big200``); each ratio is
the contender's time over ``run()``'s in the same round, median (min-max) of rounds: 0.5x is
half the pipeline's time. ``round trip`` is (encode + decode) / ``run()`` per round.
Linearity is time(``big200``) / time(``big50``) of each model's encode and decode, paired too
(linear is 4; where a format sends a call whole, Gemini and Ollama, ``big`` is three results
and the ratio is mostly fixed cost).

**The collector.** The harness runs ``gc.collect()`` and ``gc.freeze()`` before every timed
call, so the results and the items a contender is fed, built beforehand, are never scanned;
the collector stays enabled during the call, as in production. What a contender makes is
counted and dropped at once, as a streaming consumer (a server writing each item out) does.
Kept in a list, the hundreds of thousands of dicts of ``big200`` would trigger collections
that scan the list again and again, a cost of the list, not of the model, that grows faster
than the input (measured on Chat Completions' ``big200``: LangChain's encoder into a list set
off 487 young, 44 middle and 3 full collections, and the UI message stream's took 7.6x the
time of ``big50`` for 4x the input). Dropped, no encoder or decoder sets off a full
collection (``gc.get_stats()``: none, and at most 3 young ones), so what is timed is the
model's own work, and anything a model keeps growing while it runs would still show.

**Checked before anything is timed**: each model's round trip of each workload (every
format, style and workload selected) collects to raf's own response on the paths of the
model's kept rows (``raf.interop.comparable``). A model that differs stops the script before
any timing, with the model, the workload and the first path that differs (exit status 1).
In the rounds, each contender's count of items (results) is checked against the untimed pass.

Targets (PASS/FAIL; the exit status is 1 when any is missed), per format, workload, style
and model:

* round trip (encode + decode) <= 4x ``run()``: exporting a stream and reading it back costs
  at most a few times reading it off the wire. Measured (``--quick``, runs of 3 and 7
  rounds), encode and decode each take 0.03x to 2.1x the pipeline; the round trip's largest
  median is 3.3x (Agent Framework on Ollama's ``text``, where ``run()`` is the cheapest per
  result, its usual line typed), 3.0x on Chat Completions (Agent Framework, ``big200``), at
  most 2.6x elsewhere. 4x leaves the worst case room for a shared machine's noise and still
  catches a model that gets twice as slow on most cells;
* time(``big200``) / time(``big50``) <= 4.5 for encode and decode (linear is 4, quadratic
  16), the bound bench/formats.py sets for the pipeline. Measured apart, on Chat Completions'
  and legacy Completions' full-size ``big`` at 200 and 800 KB (5 pairs each, the collector
  on), every model's encode and decode took 3.55x to 4.13x the time for 4x the input, with
  no full collection.

Run: ``python bench/interop.py`` (``--model M``, ``--format F`` repeatable, ``--style
compact|spaced``, ``--quick`` for quarter-size workloads and 3 rounds, ``--rounds N``,
``--budget S``, ``--markdown FILE``).
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import statistics
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import formats
from formats import STYLES, WIRES, WORKLOADS, Workload, run_contender, workloads
from harness import (
    Comparison,
    Contender,
    Settings,
    Spread,
    Targets,
    compare,
    metered,
    print_environment,
    table,
)

from raf import interop
from raf.collect import collect_agent_response
from raf.interop import Model
from raf.model import AgentResponseResult
from raf.pipeline import run

ROUNDTRIP_TARGET = 4.0
LINEARITY_TARGET = 4.5
DIRECTIONS = ("encode", "decode")


# -- the untimed pass and its check ----------------------------------------------------------


def first_difference(got: Any, want: Any, path: str = "") -> str | None:
    """The first path where two JSON values differ, with both values (shortened), or
    ``None`` when they are equal."""
    if isinstance(got, dict) and isinstance(want, dict):
        for key in [*want, *(k for k in got if k not in want)]:
            if key not in got or key not in want:
                return f"{path}.{key}: only in {'want' if key in want else 'got'}".lstrip(".")
            found = first_difference(got[key], want[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(got, list) and isinstance(want, list):
        if len(got) != len(want):
            return f"{path or '.'}: {len(got)} elements (want {len(want)})"
        for n, (a, b) in enumerate(zip(got, want, strict=True)):
            found = first_difference(a, b, f"{path}[{n}]")
            if found:
                return found
        return None
    if got != want:
        return f"{path.lstrip('.') or '.'}: {str(got)[:60]!r} (want {str(want)[:60]!r})"
    return None


@dataclasses.dataclass(frozen=True)
class Export:
    """One workload's results in one model: the items the encoder makes of them and the
    number of results the decoder makes of those."""

    model: Model
    items: tuple[Any, ...]
    decoded: int


def export(model: Model, results: Sequence[AgentResponseResult]) -> Export:
    """``results`` through ``model`` and back, untimed; raises :class:`RoundTripError` when
    what comes back does not collect to raf's response on the paths of the model's kept rows
    (``raf.interop.comparable``), naming the first path that differs."""
    items = tuple(interop.encode_all(model, results))
    back = list(interop.decode_all(model, items))
    want = interop.comparable(model, collect_agent_response(list(results)))
    problem = first_difference(interop.comparable(model, collect_agent_response(back)), want)
    if problem:
        raise RoundTripError(f"{model.name}: {problem}")
    return Export(model, items, len(back))


class RoundTripError(Exception):
    """A model's round trip does not give back raf's response on its kept rows."""


# -- contenders ------------------------------------------------------------------------------


def _counted(expected: int, what: str) -> Any:
    def checked(count: int) -> str | None:
        return None if count == expected else f"{count} {what} (want {expected})"

    return checked


def encode_contender(
    e: Export, results: Sequence[AgentResponseResult], suffix: str = ""
) -> Contender[int]:
    """The encoder fed ``results``; its items counted and dropped."""

    def go() -> int:
        return sum(1 for _ in interop.encode_all(e.model, metered(results)))

    return Contender(f"{e.model.name} encode{suffix}", go, _counted(len(e.items), "items"))


def decode_contender(e: Export, suffix: str = "") -> Contender[int]:
    """The decoder fed the encoder's items; its results counted and dropped."""

    def go() -> int:
        return sum(1 for _ in interop.decode_all(e.model, metered(e.items)))

    return Contender(f"{e.model.name} decode{suffix}", go, _counted(e.decoded, "results"))


@dataclasses.dataclass
class Cell:
    """One workload in one style of one format: its results, the models' exports, and the
    comparison they were timed in."""

    workload: Workload
    source: tuple[AgentResponseResult, ...]  # raf's results of the body (dropped once timed)
    exports: list[Export]
    results: int = 0
    comparison: Comparison | None = None
    suffix: str = ""  # the contenders' name suffix in the comparison ("" or " 50")


def prepare(w: Workload, models: Sequence[Model]) -> Cell:
    """``w`` read by raf once and exported to every model, each round trip checked
    (:func:`export`); raises :class:`RoundTripError` naming the workload."""
    results = tuple(run(w.chunks, w.dialect))
    try:
        exports = [export(model, results) for model in models]
    except RoundTripError as exc:
        raise RoundTripError(f"{w.label}: {exc}") from None
    return Cell(w, results, exports, len(results))


def _contenders(cell: Cell, suffix: str) -> list[Contender[Any]]:
    out: list[Contender[Any]] = [run_contender(cell.workload, "run()" + suffix)]
    for e in cell.exports:
        out += [encode_contender(e, cell.source, suffix), decode_contender(e, suffix)]
    return out


def measure(
    ws: dict[str, Workload], models: Sequence[Model], rounds: int, settings: Settings
) -> dict[str, Cell]:
    """Every workload of one format and style timed (``big50`` in the rounds of ``big200``).
    One workload's exports exist at a time (the harness's ``gc.collect()`` before each run
    costs in proportion to every object alive); only the timings are kept."""
    cells: dict[str, Cell] = {}
    for name, w in ws.items():
        if name == "big50":
            continue
        cell = prepare(w, models)
        small = prepare(ws["big50"], models) if name == "big200" and "big50" in ws else None
        contenders = _contenders(cell, "")
        if small is not None:
            contenders += _contenders(small, " 50")
        comparison = compare(contenders, rounds=rounds, settings=settings)
        for done, suffix in ((cell, ""), (small, " 50")):
            if done is not None:
                done.comparison, done.suffix = comparison, suffix
                done.exports, done.source = [], ()
                cells["big50" if suffix else name] = done
        del cell, small, contenders
    return cells


# -- the report ------------------------------------------------------------------------------


def roundtrip(c: Comparison, model: str, suffix: str) -> Spread | None:
    """(encode + decode) / ``run()`` of ``model``, per round (round 0 when no later round
    has all three)."""
    names = (f"{model} encode{suffix}", f"{model} decode{suffix}", "run()" + suffix)
    outcomes = [c.outcomes[n] for n in names]
    if not all(o.ok for o in outcomes):
        return None
    clock = c.settings.clock
    ratios = [
        (e.on(clock) + d.on(clock)) / b.on(clock)
        for e, d, b in zip(*(o.times for o in outcomes), strict=False)
        if e is not None and d is not None and b is not None
    ]
    if not ratios:
        e, d, b = (o.first for o in outcomes)
        if e is None or d is None or b is None:
            return None
        ratios = [(e.on(clock) + d.on(clock)) / b.on(clock)]
    return Spread.of(ratios)


def _problem(c: Comparison, names: Iterable[str]) -> str:
    return "; ".join(c.outcomes[n].verdict for n in names if not c.outcomes[n].ok)


def _ratio(c: Comparison, name: str, baseline: str) -> str:
    spread = c.slowdown(name, baseline)
    return spread.format(unit="x") if spread else c.outcomes[name].verdict


def report(
    fmt: str, cells: dict[tuple[str, str], Cell], models: Sequence[str], targets: Targets
) -> list[str]:
    """Print the table of one format and record its targets; returns it in Markdown."""
    headers = ["workload", "style", "results", "run() ms"]
    for model in models:
        headers += [f"{model} encode", f"{model} decode", f"{model} round trip"]
    rows = []
    for (style, name), cell in cells.items():
        c, s = cell.comparison, cell.suffix
        assert c is not None
        base = c.seconds("run()" + s)
        row = [name, style, f"{cell.results:,}", f"{base.median * 1000:.1f}" if base else "-"]
        for model in models:
            row += [_ratio(c, f"{model} {d}{s}", "run()" + s) for d in DIRECTIONS]
            trip = roundtrip(c, model, s)
            row.append(trip.format(unit="x") if trip else "-")
            targets.expect(
                f"{fmt} {name} {style} {model} round trip / run()",
                trip,
                at_most=ROUNDTRIP_TARGET,
                unit="x",
                problem=_problem(c, [f"{model} {d}{s}" for d in DIRECTIONS] + ["run()" + s]),
            )
        rows.append(row)
    print()
    print(
        f"{fmt}: each model's time over run()'s (bytes to results) in the same round, median "
        "(min-max) of paired rounds; round trip: (encode + decode) / run()"
    )
    print(table(headers, rows, align="llrr" + "r" * (len(headers) - 4)))
    lines = []
    for style in dict.fromkeys(style for style, _ in cells):
        cell = cells.get((style, "big200"))
        if cell is None or cell.comparison is None:
            continue
        c = cell.comparison
        base = c.slowdown("run()", "run() 50")
        shown = [f"run() {base.format() if base else '-'}"]
        for model in models:
            parts = []
            for d in DIRECTIONS:
                spread = c.slowdown(f"{model} {d}", f"{model} {d} 50")
                parts.append(f"{d} {spread.format() if spread else '-'}")
                targets.expect(
                    f"{fmt} {style} {model} {d} time(big200) / time(big50)",
                    spread,
                    at_most=LINEARITY_TARGET,
                )
            shown.append(f"{model} " + ", ".join(parts))
        lines.append(f"  {style}: " + "; ".join(shown))
    if lines:
        print("linearity, time(big200) / time(big50), paired (linear is 4):")
        print("\n".join(lines))
    markdown = [f"`{fmt}`:", "", "| " + " | ".join(headers) + " |"]
    markdown.append("|" + "---|" * len(headers))
    markdown += ["| " + " | ".join(row) + " |" for row in rows]
    if lines:
        markdown += ["", "Linearity, time(`big200`) / time(`big50`):", ""]
        markdown += ["- " + line.strip() for line in lines]
    return [*markdown, ""]


def summary(all_cells: Sequence[Cell], models: Sequence[str]) -> list[str]:
    """Per model, the range of its medians over every cell (encode, decode, round trip)."""
    rows = []
    for model in models:
        row = [model]
        for d in (*DIRECTIONS, "round trip"):
            medians = []
            for cell in all_cells:
                c, s = cell.comparison, cell.suffix
                assert c is not None
                if d == "round trip":
                    spread = roundtrip(c, model, s)
                else:
                    spread = c.slowdown(f"{model} {d}{s}", "run()" + s)
                if spread is not None:
                    medians.append(spread.median)
            row.append(
                f"{statistics.median(medians):.2f}x ({min(medians):.2f}-{max(medians):.2f})"
                if medians
                else "-"
            )
        rows.append(row)
    headers = ["model", "encode / run()", "decode / run()", "round trip / run()"]
    print()
    print("every cell: the median of the cells' medians (their min-max)")
    print(table(headers, rows))
    markdown = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    return [*markdown, *("| " + " | ".join(row) + " |" for row in rows), ""]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--model", action="append", choices=interop.names(), help="only this model (repeatable)"
    )
    parser.add_argument(
        "--format", action="append", choices=sorted(WIRES), help="only this format (repeatable)"
    )
    parser.add_argument("--style", choices=STYLES, help="only this JSON style")
    parser.add_argument("--quick", action="store_true", help="quarter-size workloads, 3 rounds")
    parser.add_argument("--rounds", type=int, help="paired rounds per ratio (9; --quick 3)")
    parser.add_argument("--budget", type=float, help="wall s per run before it is stopped (120)")
    parser.add_argument(
        "--markdown", metavar="FILE", help="also write the tables in Markdown to FILE (new file)"
    )
    args = parser.parse_args(argv)
    if args.markdown and Path(args.markdown).exists():
        parser.error(f"{args.markdown} exists: the tables are written to a new file only")
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(line_buffering=True)  # each table appears when it is done
    names = args.model or list(interop.names())
    models = [interop.get(name) for name in names]
    rounds = args.rounds or (3 if args.quick else 9)
    settings = Settings(budget=args.budget or (30.0 if args.quick else 120.0))
    styles = [args.style] if args.style else list(STYLES)
    fmts = args.format or list(WIRES)
    scale = 4 if args.quick else 1
    began = time.perf_counter()
    print_environment((), settings)
    print(
        f"{rounds} paired rounds; models: {', '.join(names)}; the body fed to run() in "
        f"{formats.CHUNK} B reads; styles: {', '.join(styles)}"
    )
    checked = 0
    for fmt in fmts:  # every round trip checked before anything is timed
        for style in styles:
            for w in workloads(fmt, style, scale).values():
                try:
                    prepare(w, models)
                except RoundTripError as exc:
                    print(f"round trip WRONG, nothing timed: {exc}", file=sys.stderr)
                    return 1
                checked += len(models)
    print(f"round trips checked: {checked} (model x workload), each raf's response on its rows")
    targets = Targets()
    markdown: list[str] = []
    every: list[Cell] = []
    for fmt in fmts:
        cells: dict[tuple[str, str], Cell] = {}
        for style in styles:
            for name, cell in measure(
                workloads(fmt, style, scale), models, rounds, settings
            ).items():
                cells[style, name] = cell
        ordered = {(s, n): cells[s, n] for n in WORKLOADS for s in styles if (s, n) in cells}
        markdown += report(fmt, ordered, names, targets)
        every += ordered.values()
    markdown = summary(every, names) + markdown
    if args.markdown:
        markdown.append(f"Targets met: {targets.report().splitlines()[-1].strip()}")
        Path(args.markdown).write_text("\n".join(markdown) + "\n", encoding="utf-8")
    print()
    print("targets")
    print(targets.report())
    print(f"total runtime {time.perf_counter() - began:.0f} s")
    return targets.exit_status()


if __name__ == "__main__":
    sys.exit(main())
