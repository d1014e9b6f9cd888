"""``raf cost``: the cost probe (:mod:`raf.fuzz.cost`) run on an implementation, a client
library of the matrix, or raf itself; a table, the verdict, and optionally a JSON file.

The shell: it checks the options and the output path before anything runs, starts the
implementation (or ``raf serve`` for a library), hands :func:`raf.fuzz.cost.measure` the
clock and the runner, prints, and exits 1 on a ``performance`` finding (or an answer that did
not come back whole), 2 on a usage error, 130 on Ctrl-C (the implementation stopped first).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console
from rich.table import Table

from raf.cli._shell import _Console, _InputError, _reason, _seconds
from raf.cli.conform import _output_file
from raf.conformance.implementation import ReferenceImplementation
from raf.conformance.stdio import ImplementationFailed, StdioImplementation
from raf.fuzz import cost
from raf.fuzz.cost_run import (
    client_runner,
    implementation_runner,
    serve_process,
    served_cassettes,
    warm,
)

__all__ = ["add_parser", "run"]

TINY_CHUNKING = "fixed-4"
"""How ``raf serve`` writes a stream for ``--client`` (4-byte HTTP chunks)."""


def _size(text: str) -> int:
    try:
        return cost.parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _factor(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 1:
        raise argparse.ArgumentTypeError(f"must be more than 1, got {text}")
    return value


def _repeats(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, got {text!r}")
    return int(text)


def add_parser(sub: Any) -> None:
    """Add ``raf cost`` to the subcommands ``sub``."""
    parser = sub.add_parser(
        "cost",
        help="measure whether an implementation's time grows with how a long event is cut",
        description="Send one long event (a text, or one tool call's arguments, of up to "
        "--max-size bytes) in 16 KiB reads and in 1-7 byte reads, and the same bytes as "
        "1 KiB events in the same reads (the baseline), to an implementation: raf's "
        "reference by default (in process and as a program), any program speaking "
        "raf-conformance/1 (--impl), or a client library of the matrix over raf serve "
        "(--client). Reports kind `performance` when the long event in tiny reads costs "
        "more than --factor times the baseline at the largest size, or when its time grows "
        "super-linearly with the size; exits 1 then (or when an answer did not come back "
        "whole), 2 on a usage error, 130 on Ctrl-C. docs/fuzzing.md.",
        epilog="examples:\n"
        "  raf cost\n"
        "  raf cost --impl 'python my_client.py' --max-size 1MiB\n"
        "  raf cost --impl 'node client.js' --format anthropic_messages --json cost.json\n"
        "  raf cost --client openai --max-size 1MiB\n",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    who = parser.add_mutually_exclusive_group()
    who.add_argument(
        "--impl",
        metavar="COMMAND",
        help="a program speaking raf-conformance/1 (split as a shell splits words, run "
        "without a shell); default: raf's reference",
    )
    who.add_argument(
        "--client",
        metavar="NAME",
        help="a client library of the matrix (raf clients --list), driven over raf serve",
    )
    parser.add_argument(
        "--format",
        default="openai_chat",
        choices=sorted(cost.FORMATS),
        metavar="F",
        help=f"the wire format (default openai_chat; one of {', '.join(sorted(cost.FORMATS))})",
    )
    parser.add_argument(
        "--what",
        choices=("text", "arguments"),
        default="text",
        help="what is long: the text, or one tool call's arguments (default text)",
    )
    parser.add_argument(
        "--max-size",
        type=_size,
        default=cost.DEFAULT_SIZES[-1],
        metavar="SIZE",
        help="the largest event (default 8MiB; sizes 64KiB, 256KiB, 1MiB, 4MiB, 8MiB up to it)",
    )
    parser.add_argument(
        "--min-size",
        type=_size,
        default=cost.DEFAULT_SIZES[0],
        metavar="SIZE",
        help="the smallest event (default 64KiB)",
    )
    parser.add_argument(
        "--factor",
        type=_factor,
        default=cost.DEFAULT_FACTOR,
        help=f"the ratio over which a finding is reported (default {cost.DEFAULT_FACTOR:g})",
    )
    parser.add_argument(
        "--budget",
        type=_seconds,
        default=cost.DEFAULT_BUDGET,
        metavar="SECONDS",
        help="seconds one measurement may take; past it the run is stopped and no larger "
        f"size is tried (default {cost.DEFAULT_BUDGET:g})",
    )
    parser.add_argument(
        "--repeats",
        type=_repeats,
        default=cost.DEFAULT_REPEATS,
        help=f"runs of each measurement, the fastest kept (default {cost.DEFAULT_REPEATS})",
    )
    parser.add_argument("--seed", type=int, default=0, help="the seed of the 1-7 byte cuts")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the results as JSON")


def _sizes(args: argparse.Namespace) -> list[int]:
    if args.min_size > args.max_size:
        raise _InputError(f"--min-size {args.min_size} is larger than --max-size {args.max_size}")
    sizes = [s for s in cost.DEFAULT_SIZES if args.min_size <= s <= args.max_size]
    for end in (args.min_size, args.max_size):
        if end not in sizes:
            sizes.append(end)
    return sorted(set(sizes))


def _targets(args: argparse.Namespace) -> list[tuple[str, Callable[[], Any]]]:
    """``(name, factory)`` for each target; a factory returns a context manager of a
    runner."""
    if args.client is not None:
        return [(f"client {args.client}", lambda: _client(args))]
    if args.impl is not None:
        return [(args.impl, lambda: _stdio(args, args.impl))]
    program = [sys.executable, "-m", "raf.conformance.stdio_reference"]
    return [
        ("raf reference (in process)", _in_process),
        ("raf reference (stdio)", lambda: _stdio(args, program)),
    ]


@contextlib.contextmanager
def _in_process() -> Iterator[cost.Runner]:
    yield implementation_runner(ReferenceImplementation())


@contextlib.contextmanager
def _stdio(args: argparse.Namespace, command: Any) -> Iterator[cost.Runner]:
    try:
        implementation = StdioImplementation(command, timeout=args.budget, max_timeouts=0)
    except ValueError as exc:
        raise _InputError(f"--impl: {exc}") from exc
    try:
        try:
            hello = implementation.hello()
        except ImplementationFailed as exc:
            raise _InputError(f"--impl: {exc}") from exc
        if args.format not in hello.dialects:
            raise _InputError(
                f"--impl reads {', '.join(hello.dialects) or 'no format'}, not {args.format} "
                "(--format)"
            )
        yield implementation_runner(implementation)
    except BaseException:
        implementation.close(abort=True)
        raise
    implementation.close()


@contextlib.contextmanager
def _client(args: argparse.Namespace) -> Iterator[cost.Runner]:
    from raf import clients  # noqa: PLC0415 - the adapters only when asked

    try:
        adapter = clients.adapter(args.client)
    except KeyError:
        known = ", ".join(clients.names())
        raise _InputError(f"--client: no library {args.client!r} (one of {known})") from None
    if args.format not in adapter.dialects:
        raise _InputError(
            f"--client {args.client} reads {', '.join(adapter.dialects)}, not {args.format}"
        )
    missing = adapter.missing()
    if missing is not None:
        raise _InputError(f"--client {args.client}: {missing}")
    plans = [
        d
        for size in _sizes(args)
        for d in cost.deliveries(args.format, size, args.what, args.seed).values()
    ]
    with served_cassettes(plans) as folder, contextlib.ExitStack() as stack:
        try:
            running = stack.enter_context(serve_process(folder))
            warm(running.url, plans)
        except OSError as exc:
            raise _InputError(f"cannot start raf serve: {_reason(exc)}") from exc
        yield client_runner(adapter, running, TINY_CHUNKING)


def run(args: argparse.Namespace, out: TextIO) -> int:
    if args.json is not None:
        _output_file(args.json, "--json")
    if args.what not in cost.FORMATS[args.format].whats:
        raise _InputError(f"--what {args.what}: {args.format} streams no long {args.what}")
    sizes = _sizes(args)
    console = _Console(file=out)
    if not console.is_terminal:
        console.width = 200
    results = []
    failed = False
    for name, factory in _targets(args):
        with factory() as runner:
            probe = cost.measure(
                args.format,
                runner,
                time.perf_counter,
                sizes=sizes,
                what=args.what,
                repeats=args.repeats,
                budget=args.budget,
                seed=args.seed,
                on_measurement=_progress(name),
            )
        if _live():
            sys.stderr.write("\r\x1b[K")  # the progress line, cleared
            sys.stderr.flush()
        verdict = cost.judge(probe, factor=args.factor)
        _show(console, name, probe, verdict)
        results.append(_as_json(name, probe, verdict))
        failed = failed or bool(verdict.findings)
    if args.json is not None:
        try:
            args.json.write_text(json.dumps(_document(args, results), indent=2) + "\n")
        except OSError as exc:
            raise _InputError(f"--json {args.json}: {_reason(exc)}") from exc
    return 1 if failed else 0


def _live() -> bool:
    """Whether a progress line can be shown (standard error is a terminal, not CI's)."""
    return sys.stderr is not None and sys.stderr.isatty() and not os.environ.get("CI")


def _progress(name: str) -> Callable[[cost.Measurement], None]:
    def show(m: cost.Measurement) -> None:
        if _live():
            sys.stderr.write(
                f"\r\x1b[K{name}: {cost.shown_size(m.size)} {m.shape}@{m.cut} {m.seconds:.3f} s"
            )
            sys.stderr.flush()

    return show


def _show(console: Console, name: str, probe: cost.Probe, verdict: cost.Verdict) -> None:
    table = Table(title=f"{name}: {probe.format} {probe.what}", title_justify="left")
    for column in ("size", "long, tiny", "short, tiny", "ratio", "long, 16 KiB", "short, 16 KiB"):
        table.add_column(column, justify="right")
    for size in probe.sizes:
        cells = {(m.shape, m.cut): m for m in probe.measurements if m.size == size}

        def seconds(shape: cost.Shape, cut: cost.Cut) -> str:
            m = cells.get((shape, cut))  # noqa: B023 - used at once
            if m is None:
                return "-"
            return f"{'>' if m.stopped else ''}{m.seconds:.3f} s" + (" ✗" if m.wrong else "")

        long_tiny, short_tiny = cells.get(("long", "tiny")), cells.get(("short", "tiny"))
        ratio = "-"
        if long_tiny and short_tiny and short_tiny.seconds > 0:
            ratio = (
                f"{'>' if long_tiny.stopped else ''}{long_tiny.seconds / short_tiny.seconds:.1f}×"
            )
        table.add_row(
            cost.shown_size(size),
            seconds("long", "tiny"),
            seconds("short", "tiny"),
            ratio,
            seconds("long", "large"),
            seconds("short", "large"),
        )
    console.print(table)
    slope = "-" if verdict.exponent is None else f"{verdict.exponent:.2f}"
    base = "-" if verdict.baseline_exponent is None else f"{verdict.baseline_exponent:.2f}"
    large = "-" if verdict.large_exponent is None else f"{verdict.large_exponent:.2f}"
    console.print(
        f"ratio {verdict.shown_ratio()} at {cost.shown_size(verdict.size)} (factor "
        f"{verdict.factor:g}); growth exponent {slope} (bound {verdict.max_exponent:g}; "
        f"short events: {base}; long event in 16 KiB reads, not judged: {large})"
    )
    if probe.stopped:
        console.print(f"stopped: {probe.stopped}")
    for kind, message in verdict.findings:
        console.print(f"[bold red]✗ {kind}[/]: {message}", highlight=False)
    if not verdict.findings:
        console.print("[green]✓ linear[/]: no performance finding", highlight=False)


def _as_json(name: str, probe: cost.Probe, verdict: cost.Verdict) -> dict[str, Any]:
    return {
        "target": name,
        "format": probe.format,
        "what": probe.what,
        "measurements": [
            {
                "size": m.size,
                "shape": m.shape,
                "cut": m.cut,
                "seconds": m.seconds,
                "runs": list(m.runs),
                "stopped": m.stopped,
                "wrong": m.wrong,
            }
            for m in probe.measurements
        ],
        "stopped": probe.stopped or None,
        "verdict": {
            "size": verdict.size,
            "ratio": verdict.ratio,
            "ratio_is_lower_bound": verdict.ratio_is_lower_bound,
            "cut_ratio": verdict.cut_ratio,
            "exponent": verdict.exponent,
            "baseline_exponent": verdict.baseline_exponent,
            "large_exponent": verdict.large_exponent,
            "factor": verdict.factor,
            "max_exponent": verdict.max_exponent,
            "findings": [{"kind": k, "message": m} for k, m in verdict.findings],
        },
    }


def _document(args: argparse.Namespace, results: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "raf_cost": 1,
        "format": args.format,
        "what": args.what,
        "factor": args.factor,
        "budget": args.budget,
        "repeats": args.repeats,
        "seed": args.seed,
        "results": results,
    }
