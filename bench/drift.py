"""What raf did not read, wire events, the drift between recordings: their cost against run().

For every format, workload and JSON style of bench/formats.py (its wires and workloads,
imported: ``text``, ``tools``, ``big200`` and ``big50``, ``escapes``; ``compact`` and
``spaced``), the stages of recording and drift (docs/recording.md) are timed on the body:

* ``run()``, the baseline: ``raf.pipeline.run(chunks, format)`` of the body (bytes to
  results, fed in 4 KiB reads), each result dropped (bench/formats.py's ``run()``);
* ``unread``: ``raf.cassettes.inventory.unread(format, body)``, what raf did not read of the
  body (one pass over its frames, each payload walked against the format's field table);
* ``wire_events``: ``raf.cassettes.inventory.iter_wire_events(format, body)``, the body
  framed as its format frames it, each frame's JSON parsed, each event counted and dropped
  (as ``unread`` and ``diff`` read them; ``wire_events`` is the same kept in a list, and a
  list of tens of thousands of parsed payloads costs the collector more than linear time:
  on Chat Completions' full-size ``big``, 5.9x to 7.4x ``big50``'s time for 4x the input,
  4.3x with the collector off);
* ``diff``: ``raf.cassettes.diff.diff(old, new)`` of two one-interaction cassettes around the
  same body, OLD with its network reads as bench/formats.py cuts it (4 KiB, 1 ms apart), NEW
  with each of those reads cut in two (2 ms apart): every part of the diff runs (the
  request, status and headers, the framing, the events and their field paths, raf's reading
  of both, what raf did not read of both, the chunking and the timing).

Every contender of a workload runs in the same paired rounds (bench/harness.py: thread CPU
time, the order rotating; ``big50``'s contenders in the rounds of ``big200``); each ratio is
the contender's time over ``run()``'s in the same round, median (min-max) of rounds: 2x is
twice the pipeline's time. Linearity is time(``big200``) / time(``big50``) of each stage,
paired too (linear is 4; where a format sends a call whole, Gemini and Ollama, ``big`` is
two frames, one of them the whole call). ``unread``, ``wire_events`` and ``diff`` take the
body whole, so the budget stops them only once they return.

**Checked before anything is timed**, on every workload selected (each is one of raf's own
well-formed streams): ``unread`` reports no event type raf does not recognise and no field raf
does not know (skipped event types, as Anthropic's ``ping``, and known fields left aside are
what raf reads past on purpose); ``wire_events`` gives one event per frame of the body
(``[DONE]`` included), each payload parsed; ``diff`` of the OLD cassette against itself finds
no change, and against NEW only notices of chunking and timing, a ``chunking_changed`` among
them (so that the chunking part ran). A stage that fails a check stops the script before any
timing, with the stage, the workload and what is wrong (exit status 1). In the rounds, each
contender's result is checked again in round 0.

Targets (PASS/FAIL; the exit status is 1 when any is missed), per format, workload and
style. The ratios differ most by format, through ``run()``: where raf reads the usual frames
through its templates without parsing them (Chat Completions, legacy Completions, Ollama's
text lines), every stage here, which parses every frame and walks every field in Python,
costs several times ``run()``; where a call arrives whole in one frame (Gemini, Ollama), the
stages touch two frames and cost a fraction of it. Measured (``--quick``, 7 rounds, every
format; and full size, 5 rounds, Chat Completions):

* ``unread`` <= 6x ``run()``: measured 0.23x to 4.4x, the most on Chat Completions ``text``
  (thousands of small chunks, a dozen fields each, every one looked up in the field table),
  2.3x to 3x on its other workloads, 2.4x to 2.6x on legacy Completions, at most 2.5x
  elsewhere;
* ``wire_events`` <= 2x ``run()``: framing and parsing, no more; measured 0.17x to 1.6x
  (Chat Completions ``text`` again);
* ``diff`` <= 18x ``run()``: the diff reads both bodies through the pipeline, and frames,
  parses and walks both in one pass each (the field paths and their JSON types per event
  type, and what raf did not read): about twice ``run()`` + ``wire_events`` + ``unread`` +
  the field walk. Measured 2.6x to 15.9x: Chat Completions 8.9x to 14.3x (15.9x on the
  full-size ``text``), legacy Completions 9.4x to 10x, Ollama's ``text`` 9.2x, at most 7.9x
  elsewhere. 18x leaves the worst cell room for a loaded machine; a diff that walked the
  events again per path (as it did before it built each event type's field table in one
  pass: 13.8x to 22.1x on Chat Completions) fails it on ``text``;
* time(``big200``) / time(``big50``) <= 4.5 for ``unread``, ``wire_events`` and ``diff``
  (linear is 4, quadratic 16), the bound bench/formats.py sets for the pipeline. Measured at
  most 4.02 at quarter size and 3.95 to 4.01 on Chat Completions' full-size ``big`` (13 MB,
  37,391 events). Before ``unread`` and ``diff`` streamed the events (each dropped once
  looked at) they took 4.8x to 5x there, and the list of ``wire_events`` 7x: the collector
  scanning tens of thousands of parsed payloads kept alive.

Run: ``python bench/drift.py`` (``--format F`` repeatable, ``--style compact|spaced``,
``--quick`` for quarter-size workloads and 3 rounds, ``--rounds N``, ``--budget S``,
``--markdown FILE``).
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import formats
from formats import STYLES, WIRES, WORKLOADS, Workload, run_contender, workloads
from harness import (
    Comparison,
    Contender,
    Settings,
    Targets,
    compare,
    print_environment,
    table,
)

from raf.cassettes import diff as drift
from raf.cassettes import inventory
from raf.cassettes.format import Cassette, Interaction, Request, Response, ScenarioInfo

TARGETS = {"unread": 6.0, "wire_events": 2.0, "diff": 18.0}  # stage time / run() time
LINEARITY_TARGET = 4.5
STAGE_NAMES = tuple(TARGETS)
CHUNKING = frozenset({"chunking_changed", "timing_changed"})
CONTENT_TYPES = {
    "sse": "text/event-stream",
    "json_lines": "application/x-ndjson",
    "json_array": "application/json",
    "aws_eventstream": "application/vnd.amazon.eventstream",
}

STAGES: dict[str, Callable[..., Any]] = {
    "unread": inventory.unread,
    "wire_events": inventory.iter_wire_events,
    "diff": drift.diff,
}
"""The stages timed, looked up at each call (a test replaces one with a wrong one)."""


# -- the cassettes ---------------------------------------------------------------------------


def cassette(w: Workload, *, halve: bool = False) -> Cassette:
    """A one-interaction cassette around ``w``'s body, its network reads recorded: the 4 KiB
    reads of ``w``, 1 ms apart, or (``halve``) each of those cut in two, 2 ms apart."""
    reads = [len(chunk) for chunk in w.chunks]
    if halve:
        reads = [size for n in reads for size in (n // 2, n - n // 2) if size]
    delay = 2.0 if halve else 1.0
    headers = {"content-type": [CONTENT_TYPES[WIRES[w.format].framing]]}
    request = Request(
        uri=f"http://127.0.0.1:8080/v1/{w.format}",
        headers={"content-type": ["application/json"]},
        body='{"model": "bench", "stream": true}',
    )
    interaction = Interaction(
        request=request,
        response=Response(headers=headers, body=w.body),
        timing=[(size, delay) for size in reads],
    )
    info = ScenarioInfo(scenario=f"bench_{w.format}_{w.name}_{w.style}", dialect=w.dialect)
    return Cassette(interactions=[interaction], info=info)


# -- the checks ------------------------------------------------------------------------------


def expected_events(w: Workload) -> int:
    """The frames of ``w``'s body: its payloads and its end marker, if it has one."""
    return w.frames + (WIRES[w.format].end is not None)


def check_unread(w: Workload, seen: Any) -> str | None:
    """Why ``unread``'s result is wrong for one of raf's own streams, or ``None``."""
    if not isinstance(seen, inventory.Unread):
        return f"not an Unread: {type(seen).__name__}"
    problems = [f"event type {e.type} unrecognised" for e in seen.unrecognised_events]
    problems += [
        f"unknown field {f.path}" + (f" in {f.event_type}" if f.event_type else "")
        for f in seen.unknown_fields
    ]
    return "; ".join(problems[:3]) or None


def check_events(w: Workload, events: Any) -> str | None:
    """Why ``wire_events``' result is wrong for ``w``, or ``None``."""
    if not isinstance(events, list):
        return f"not a list: {type(events).__name__}"
    want = expected_events(w)
    if len(events) != want:
        return f"{len(events)} events (want {want})"
    unparsed = [e.index for e in events if e.payload is None and e.data != "[DONE]"]
    if unparsed:
        return f"{len(unparsed)} payloads not parsed, the first #{unparsed[0]}"
    return None


def check_diff(w: Workload, found: Any) -> str | None:
    """Why ``diff(OLD, NEW)`` is wrong, NEW being OLD re-chunked: anything but notices of
    chunking and timing, or no ``chunking_changed``."""
    if not isinstance(found, drift.Drift):
        return f"not a Drift: {type(found).__name__}"
    other = [c for c in found.changes if c.kind not in CHUNKING or c.severity != "notice"]
    if other:
        return (
            f"{len(other)} changes besides chunking, the first {other[0].kind}: "
            + (other[0].message[:120])
        )
    if not any(c.kind == "chunking_changed" for c in found.changes):
        return "no chunking_changed: the chunking part did not run"
    return None


def check_same(w: Workload, found: Any) -> str | None:
    """Why ``diff(OLD, OLD)`` is wrong: any change at all."""
    if not isinstance(found, drift.Drift):
        return f"not a Drift: {type(found).__name__}"
    if found.changes:
        first = found.changes[0]
        return f"{len(found.changes)} changes of a cassette with itself, the first {first.kind}"
    return None


class StageError(Exception):
    """A stage's result is wrong on one of raf's own streams."""


# -- contenders ------------------------------------------------------------------------------


@dataclasses.dataclass
class Cell:
    """One workload in one style of one format: its two cassettes, and the comparison the
    stages were timed in."""

    workload: Workload
    old: Cassette | None
    new: Cassette | None
    events: int = 0
    comparison: Comparison | None = None
    suffix: str = ""  # the contenders' name suffix in the comparison ("" or " 50")


def prepare(w: Workload) -> Cell:
    """``w``'s cassettes, every stage run once on it and checked, untimed; raises
    :class:`StageError` naming the stage and the workload when one is wrong."""
    old, new = cassette(w), cassette(w, halve=True)
    events = list(STAGES["wire_events"](w.dialect, w.body))
    runs: list[tuple[str, Any, Callable[[Workload, Any], str | None]]] = [
        ("unread", STAGES["unread"](w.dialect, w.body), check_unread),
        ("wire_events", events, check_events),
        ("diff", STAGES["diff"](old, old), check_same),
        ("diff", STAGES["diff"](old, new), check_diff),
    ]
    for name, result, check in runs:
        problem = check(w, result)
        if problem:
            raise StageError(f"{w.label}: {name}: {problem}")
    return Cell(w, old, new, len(events))


def stage_contenders(cell: Cell, suffix: str = "") -> list[Contender[Any]]:
    """``run()`` and each stage on ``cell``'s body, each result checked in round 0."""
    w, old, new = cell.workload, cell.old, cell.new

    def unread() -> Any:
        return STAGES["unread"](w.dialect, w.body)

    def events() -> int:  # counted and dropped, as unread and diff read them
        return sum(1 for _ in STAGES["wire_events"](w.dialect, w.body))

    def counted(got: int) -> str | None:
        want = expected_events(w)
        return None if got == want else f"{got} events (want {want})"

    def changes() -> Any:
        return STAGES["diff"](old, new)

    return [
        run_contender(w, "run()" + suffix),
        Contender("unread" + suffix, unread, lambda got: check_unread(w, got)),
        Contender("wire_events" + suffix, events, counted),
        Contender("diff" + suffix, changes, lambda got: check_diff(w, got)),
    ]


def measure(ws: dict[str, Workload], rounds: int, settings: Settings) -> dict[str, Cell]:
    """Every workload of one format and style timed (``big50`` in the rounds of ``big200``);
    only the timings are kept."""
    cells: dict[str, Cell] = {}
    for name, w in ws.items():
        if name == "big50":
            continue
        cell = prepare(w)
        small = prepare(ws["big50"]) if name == "big200" and "big50" in ws else None
        contenders = stage_contenders(cell)
        if small is not None:
            contenders += stage_contenders(small, " 50")
        comparison = compare(contenders, rounds=rounds, settings=settings)
        for done, suffix in ((cell, ""), (small, " 50")):
            if done is not None:
                done.comparison, done.suffix = comparison, suffix
                done.old = done.new = None
                cells["big50" if suffix else name] = done
        del cell, small, contenders
    return cells


# -- the report ------------------------------------------------------------------------------


def _ratio(c: Comparison, name: str, baseline: str) -> str:
    spread = c.slowdown(name, baseline)
    return spread.format(unit="x") if spread else c.outcomes[name].verdict


def _problem(c: Comparison, names: Iterable[str]) -> str:
    return "; ".join(c.outcomes[n].verdict for n in names if not c.outcomes[n].ok)


def report(fmt: str, cells: dict[tuple[str, str], Cell], targets: Targets) -> list[str]:
    """Print the table of one format and record its targets; returns it in Markdown."""
    headers = ["workload", "style", "MB", "events", "run() ms"]
    headers += [f"{stage} / run()" for stage in STAGE_NAMES]
    rows = []
    for (style, name), cell in cells.items():
        c, s, w = cell.comparison, cell.suffix, cell.workload
        assert c is not None
        base = c.seconds("run()" + s)
        row = [
            name,
            style,
            f"{w.megabytes:.2f}",
            f"{cell.events:,}",
            f"{base.median * 1000:.1f}" if base else "-",
        ]
        for stage in STAGE_NAMES:
            row.append(_ratio(c, stage + s, "run()" + s))
            targets.expect(
                f"{fmt} {name} {style} {stage} / run()",
                c.slowdown(stage + s, "run()" + s),
                at_most=TARGETS[stage],
                unit="x",
                problem=_problem(c, [stage + s, "run()" + s]),
            )
        rows.append(row)
    print()
    print(
        f"{fmt}: each stage's time over run()'s (bytes to results) in the same round, median "
        "(min-max) of paired rounds"
    )
    print(table(headers, rows, align="llrrr" + "r" * len(STAGE_NAMES)))
    lines = []
    for style in dict.fromkeys(style for style, _ in cells):
        cell = cells.get((style, "big200"))
        if cell is None or cell.comparison is None:
            continue
        c = cell.comparison
        shown = []
        for label in ("run()", *STAGE_NAMES):
            spread = c.slowdown(label, label + " 50")
            shown.append(f"{label} {spread.format() if spread else '-'}")
            if label != "run()":
                targets.expect(
                    f"{fmt} {style} {label} time(big200) / time(big50)",
                    spread,
                    at_most=LINEARITY_TARGET,
                    problem=_problem(c, [label, label + " 50"]),
                )
        lines.append(f"  {style}: " + ", ".join(shown))
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


def summary(all_cells: Sequence[Cell]) -> list[str]:
    """Per stage, the median of its medians over every cell, and their range."""
    rows = []
    for stage in STAGE_NAMES:
        medians = []
        for cell in all_cells:
            assert cell.comparison is not None
            spread = cell.comparison.slowdown(stage + cell.suffix, "run()" + cell.suffix)
            if spread is not None:
                medians.append(spread.median)
        shown = (
            f"{statistics.median(medians):.2f}x ({min(medians):.2f}-{max(medians):.2f})"
            if medians
            else "-"
        )
        rows.append([stage, shown, f"<= {TARGETS[stage]:g}x"])
    headers = ["stage", "time / run(), every cell", "target"]
    print()
    print("every cell: the median of the cells' medians (their min-max)")
    print(table(headers, rows))
    markdown = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    return [*markdown, *("| " + " | ".join(row) + " |" for row in rows), ""]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
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
    rounds = args.rounds or (3 if args.quick else 9)
    settings = Settings(budget=args.budget or (30.0 if args.quick else 120.0))
    styles = [args.style] if args.style else list(STYLES)
    fmts = args.format or list(WIRES)
    scale = 4 if args.quick else 1
    began = time.perf_counter()
    print_environment((), settings)
    print(
        f"{rounds} paired rounds; stages: {', '.join(STAGE_NAMES)}; the body fed to run() in "
        f"{formats.CHUNK} B reads; styles: {', '.join(styles)}"
    )
    checked = 0
    for fmt in fmts:  # every stage checked on every workload before anything is timed
        for style in styles:
            for w in workloads(fmt, style, scale).values():
                try:
                    prepare(w)
                except StageError as exc:
                    print(f"stage WRONG, nothing timed: {exc}", file=sys.stderr)
                    return 1
                checked += 1
    print(
        f"workloads checked: {checked} (unread: nothing unknown; wire_events: every frame; "
        "diff: none with itself, only chunking and timing re-chunked)"
    )
    targets = Targets()
    markdown: list[str] = []
    every: list[Cell] = []
    for fmt in fmts:
        cells: dict[tuple[str, str], Cell] = {}
        for style in styles:
            for name, cell in measure(workloads(fmt, style, scale), rounds, settings).items():
                cells[style, name] = cell
        ordered = {(s, n): cells[s, n] for n in WORKLOADS for s in styles if (s, n) in cells}
        markdown += report(fmt, ordered, targets)
        every += ordered.values()
    markdown = summary(every) + markdown
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
