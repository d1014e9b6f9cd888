"""``raf conform``: the suite run through an implementation, judged, reported."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console
from rich.markup import escape

from raf.cassettes.importers import dialect_choices
from raf.chunking import STANDARD_CHUNKINGS
from raf.cli._shell import (
    _chunking,
    _Console,
    _InputError,
    _reason,
    _replay_server,
    _seconds,
    _warn,
)
from raf.conformance.bundled import bundled
from raf.conformance.cases import load_suite
from raf.conformance.http import TRANSPORTS
from raf.conformance.implementation import Implementation, ReferenceImplementation
from raf.conformance.protocol import LEVELS
from raf.conformance.report import conform
from raf.conformance.reports import write_html, write_json, write_junit
from raf.conformance.stdio import DEFAULT_TIMEOUT, StdioImplementation
from raf.conformance.update import update_goldens
from raf.errors import CassetteError

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    """Add ``raf conform`` to the subcommands ``sub``."""
    conform_parser = sub.add_parser(
        "conform",
        help="test an implementation (raf's reference by default) against the recorded suite",
        description="Run every case of the suite (each interaction of each cassette, cut by "
        "each chunking) through an implementation and judge its result at a level "
        "(docs/conformance.md): raf's reference pipeline by default, or any program speaking "
        "the stdio protocol raf-conformance/1 (--impl; docs/protocol.md). Prints a progress "
        "bar, a table per scenario and the diff of every failure; exits 1 when a case fails.",
        epilog="examples:\n"
        "  raf conform\n"
        "  raf conform --impl 'node examples/clients/node/client.js'\n"
        "  raf conform --impl 'python my_client.py' -k parallel -k 'missing_*' --html report.html\n"
        "  raf conform --cassettes my_cassettes --goldens my_goldens --update",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    conform_parser.add_argument(
        "--impl",
        metavar="COMMAND",
        help="the implementation under test: a command line, split as a shell splits words "
        "but run without a shell (default: raf's reference pipeline, in process)",
    )
    conform_parser.add_argument(
        "--level",
        choices=LEVELS,
        help="what is compared (default: response with --impl; updates, the strictest, for "
        "raf's own reference)",
    )
    conform_parser.add_argument(
        "--dialect",
        action="append",
        choices=dialect_choices(),
        metavar="NAME",
        help=f"only cases of this dialect (repeatable; one of {', '.join(dialect_choices())})",
    )
    conform_parser.add_argument(
        "-k",
        dest="select",
        action="append",
        metavar="PATTERN",
        help="only cases whose scenario or id matches: a shell glob (with * ? [) or a "
        "substring (repeatable: any of them)",
    )
    conform_parser.add_argument(
        "--chunking",
        action="append",
        type=_chunking,
        metavar="NAME",
        help="a chunking to run (repeatable; default: "
        + ", ".join(STANDARD_CHUNKINGS)
        + "; also fixed-N, random-SEED)",
    )
    conform_parser.add_argument(
        "--cassettes", type=Path, metavar="DIR", help="cassette folder (default: the bundled one)"
    )
    conform_parser.add_argument(
        "--goldens", type=Path, metavar="DIR", help="golden folder (default: the bundled one)"
    )
    conform_parser.add_argument(
        "--timeout",
        type=_seconds,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"how long --impl has to answer one case (default {DEFAULT_TIMEOUT:g})",
    )
    conform_parser.add_argument(
        "--transport",
        choices=TRANSPORTS,
        default="chunks",
        help="chunks: each case's body is sent in the protocol message (default); http: raf "
        "serve replays the case on 127.0.0.1 and the implementation makes the request itself "
        "with its own HTTP stack (capability http; docs/protocol.md). Without --impl, http "
        "runs raf's reference as a program",
    )
    conform_parser.add_argument("--json", type=Path, metavar="FILE", help="write a JSON report")
    conform_parser.add_argument(
        "--junit", type=Path, metavar="FILE", help="write a JUnit XML report"
    )
    conform_parser.add_argument(
        "--html", type=Path, metavar="FILE", help="write a self-contained HTML report"
    )
    conform_parser.add_argument(
        "--update",
        action="store_true",
        help="write the goldens of the cassettes (with the reference pipeline) instead of "
        "testing: only cassettes whose reviewed expect block the result satisfies are written",
    )


def _suite_folders(args: argparse.Namespace) -> tuple[Path, Path]:
    try:
        default = bundled()
    except FileNotFoundError as exc:
        if args.cassettes is None or args.goldens is None:
            raise _InputError(str(exc)) from exc
        default = None
    cassettes_dir = args.cassettes or (default.cassettes if default else Path())
    goldens_dir = args.goldens or (default.goldens if default else Path())
    if not cassettes_dir.is_dir():
        raise _InputError(f"no cassette folder at {cassettes_dir} (pass --cassettes DIR)")
    if os.path.lexists(goldens_dir) and not goldens_dir.is_dir():
        raise _InputError(f"{goldens_dir} is not a folder (pass --goldens DIR)")
    return cassettes_dir, goldens_dir


def run(args: argparse.Namespace, out: TextIO) -> int:
    cassettes_dir, goldens_dir = _suite_folders(args)
    console = _Console(file=out)
    if args.update:
        return _update_goldens(args, console, cassettes_dir, goldens_dir)
    try:
        suite = load_suite(
            cassettes_dir,
            goldens_dir,
            chunkings=args.chunking or STANDARD_CHUNKINGS,
            select=args.select or (),
            dialects=args.dialect or (),
        )
    except CassetteError as exc:
        raise _InputError(str(exc)) from exc
    if not suite.cases and not suite.problems:
        console.print("no cases matched")
        _warn("raf: no cases matched the selection")
        return 1
    with contextlib.ExitStack() as stack:
        server = None
        if args.transport == "http":
            server = stack.enter_context(_replay_server(cassettes_dir))
        implementation: Implementation
        command = args.impl
        if command is None and server is not None:  # the reference, as a program, over HTTP
            command = [sys.executable, "-m", "raf.conformance.stdio_reference"]
        if command is not None:
            try:
                implementation = StdioImplementation(command, timeout=args.timeout, server=server)
            except ValueError as exc:
                raise _InputError(f"--impl: {exc}") from exc
        else:
            implementation = ReferenceImplementation()
        level = args.level or ("response" if args.impl is not None else "updates")
        report = conform(console, suite, implementation, level=level, transport=args.transport)
    for path, write in (
        (args.json, write_json),
        (args.junit, write_junit),
        (args.html, write_html),
    ):
        if path is not None:
            try:
                write(report, path)
            except OSError as exc:
                raise _InputError(f"cannot write {path}: {_reason(exc)}") from exc
            _warn(f"raf: wrote {path}")
    counts = report.counts()
    if not report.ok:
        _warn(
            f"raf: {counts['fail'] + counts['error']} of {len(report.results)} case(s) "
            "do not conform"
        )
    return 0 if report.ok else 1


def _update_goldens(
    args: argparse.Namespace, console: Console, cassettes_dir: Path, goldens_dir: Path
) -> int:
    outcomes = update_goldens(
        cassettes_dir, goldens_dir, select=args.select or (), dialects=args.dialect or ()
    )
    if not outcomes:
        _warn("raf: no cassettes matched the selection")
        return 1
    for outcome in outcomes:
        style = "red" if outcome.refused else "green" if outcome.changed else "dim"
        where = escape(str(outcome.golden or outcome.cassette))
        why = f": {escape(outcome.reason)}" if outcome.reason else ""
        console.print(f"[{style}]{escape(outcome.verdict)}[/{style}] {where}{why}", soft_wrap=True)
    refused = sum(o.refused for o in outcomes)
    written = sum(o.changed for o in outcomes)
    _warn(f"raf: {written} golden(s) written, {refused} cassette(s) not blessed")
    return 1 if refused else 0
