"""``raf conform``: the suite run through an implementation, judged, reported.

The command is a shell: it checks its options and every output path before anything runs,
loads the suite, the baseline and the last failures, starts the implementation (and ``raf
serve`` for ``--transport http``), runs the suite with Ctrl-C and SIGTERM turned into a
stop that writes the partial reports, and writes the reports, the baseline and the cache.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any, TextIO

from rich.console import Console
from rich.markup import escape

from raf.cassettes.importers import dialect_choices
from raf.chunking import STANDARD_CHUNKINGS
from raf.cli._cache import DEFAULT_CACHE_DIR, LastFailed
from raf.cli._shell import (
    _at_least,
    _chunking,
    _Console,
    _InputError,
    _reason,
    _seconds,
    _warn,
)
from raf.conformance import baseline as baselines
from raf.conformance.cases import Suite, load_suite
from raf.conformance.goldens import beside
from raf.conformance.http import TRANSPORTS
from raf.conformance.implementation import Implementation, ReferenceImplementation
from raf.conformance.protocol import LEVELS
from raf.conformance.report import conform
from raf.conformance.reports import write_html, write_json, write_junit
from raf.conformance.runner import Interrupted, RunReport
from raf.conformance.severity import (
    KINDS,
    SEVERITIES,
    Policy,
    parse_severity_overrides,
)
from raf.conformance.stdio import DEFAULT_MAX_TIMEOUTS, DEFAULT_TIMEOUT, StdioImplementation
from raf.conformance.tool_loop import load_tool_loop_cases
from raf.conformance.update import update_goldens
from raf.errors import CassetteError
from raf.shared.bundled import bundled, owned_by_raf

__all__ = ["add_parser", "run"]

EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143


def add_parser(sub: Any) -> None:
    """Add ``raf conform`` to the subcommands ``sub``."""
    conform_parser = sub.add_parser(
        "conform",
        help="test an implementation (raf's reference by default) against the recorded suite",
        description="Run every case of the suite (each interaction of each cassette, cut by "
        "each chunking) through an implementation and judge its result at a level "
        "(docs/conformance.md): raf's reference pipeline by default, or any program speaking "
        "the stdio protocol raf-conformance/1 (--impl; docs/protocol.md). Every difference "
        "has a kind (lost, wrong, unreported, invented, detail) and a severity: errors fail "
        "a case, notices are shown and counted. Prints a table per format and scenario and "
        "every failing difference once; exits 1 when a case fails, 130 on Ctrl-C and 143 on "
        "SIGTERM (after writing the partial reports).",
        epilog="examples:\n"
        "  raf conform\n"
        "  raf conform --impl 'node examples/clients/node/client.js'\n"
        "  raf conform --impl 'python my_client.py' -k parallel -k 'missing_*' --html report.html\n"
        "  raf conform --impl 'python my_client.py' --transport http --level requests\n"
        "  raf conform --impl 'python my_client.py' --write-baseline known.yaml\n"
        "  raf conform --impl 'python my_client.py' --baseline known.yaml --lf -x\n"
        "  raf conform --cassettes my_cassettes --update\n"
        "\nkinds of difference and their default severity:\n"
        + "".join(f"  {k.name:<11} {k.severity:<7} {k.meaning}\n" for k in KINDS.values()),
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
        "raf's own reference); requests: the response and every request a client sent, the "
        "tool_loop cases of --transport http included (docs/conformance.md)",
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
        + "; also fixed-N, random-SEED, eventstream; an AWS event-stream body also runs "
        "eventstream)",
    )
    conform_parser.add_argument(
        "--cassettes",
        type=Path,
        metavar="DIR",
        help="cassette folder (default: the bundled one)",
    )
    conform_parser.add_argument(
        "--goldens",
        type=Path,
        metavar="DIR",
        help="golden folder (default: the bundled one; with --cassettes DIR, DIR_goldens "
        "beside it)",
    )
    conform_parser.add_argument(
        "--timeout",
        type=_seconds,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"how long --impl has to answer one case (default {DEFAULT_TIMEOUT:g})",
    )
    conform_parser.add_argument(
        "--max-timeouts",
        type=_at_least(0),
        default=DEFAULT_MAX_TIMEOUTS,
        metavar="N",
        help="give up on --impl after N timeouts in a row: it seems hung (default "
        f"{DEFAULT_MAX_TIMEOUTS}; 0: never give up)",
    )
    conform_parser.add_argument(
        "--transport",
        choices=TRANSPORTS,
        default="chunks",
        help="chunks: each case's body is sent in the protocol message (default); http: raf "
        "serve replays the case on 127.0.0.1 and the implementation makes the request itself "
        "with its own HTTP stack (capability http; docs/protocol.md); the tool loops are "
        "cases too (capability tool_loop: the implementation runs its own loop). Without "
        "--impl, http runs raf's reference as a program",
    )
    judging = conform_parser.add_argument_group("what fails")
    judging.add_argument(
        "--fail-on",
        choices=SEVERITIES,
        default="error",
        help="the least severity that fails a case (default error: notices are shown and "
        "counted; notice: they fail too)",
    )
    judging.add_argument(
        "--severity",
        action="append",
        default=[],
        metavar="KIND=SEVERITY",
        help="change the severity of one kind of difference for this run, e.g. detail=error "
        "(repeatable)",
    )
    judging.add_argument(
        "--baseline",
        type=Path,
        metavar="FILE",
        help="known failures (written by --write-baseline): the run passes when the failures "
        "are exactly those; a new one fails it, and so does an entry that no longer fails "
        "(stale: remove it)",
    )
    judging.add_argument(
        "--write-baseline",
        type=Path,
        metavar="FILE",
        help="record this run's failures in FILE (the reasons of entries FILE already has "
        "are kept; fill in the others) and exit 0 unless a cassette or the implementation "
        "could not be used",
    )
    running = conform_parser.add_argument_group("which cases, in which order")
    running.add_argument(
        "-x",
        "--exitfirst",
        action="store_true",
        help="stop after the first case that fails",
    )
    order = running.add_mutually_exclusive_group()
    order.add_argument(
        "--lf",
        "--last-failed",
        dest="last_failed",
        action="store_true",
        help="run only the cases that failed the last time (all of them if none did)",
    )
    order.add_argument(
        "--ff",
        "--failed-first",
        dest="failed_first",
        action="store_true",
        help="run the cases that failed the last time first, then the others",
    )
    running.add_argument(
        "--cache-dir",
        type=Path,
        default=Path(DEFAULT_CACHE_DIR),
        metavar="DIR",
        help=f"where --lf and --ff remember failures (default {DEFAULT_CACHE_DIR} in the "
        "current folder)",
    )
    outputs = conform_parser.add_argument_group("reports")
    outputs.add_argument("--json", type=Path, metavar="FILE", help="write a JSON report")
    outputs.add_argument("--junit", type=Path, metavar="FILE", help="write a JUnit XML report")
    outputs.add_argument(
        "--html", type=Path, metavar="FILE", help="write a self-contained HTML report"
    )
    conform_parser.add_argument(
        "--update",
        action="store_true",
        help="write the goldens of your own cassettes (--cassettes DIR; into --goldens DIR, "
        "else DIR_goldens beside them) with the reference pipeline instead of testing: only "
        "cassettes whose reviewed expect block the result satisfies are written. raf's own "
        "goldens are never written",
    )


# -- checking what was asked, before anything runs --------------------------------------------


def _output_file(path: Path, option: str) -> None:
    """Refuse an output file that cannot be written, before the run: a folder, a missing or
    unwritable folder to put it in, or a place inside raf's own package."""
    owned = owned_by_raf(path)
    if owned is not None:
        raise _InputError(f"{option}: {owned}")
    if path.is_dir():
        raise _InputError(f"{option} {path}: is a folder (name a file)")
    if os.path.lexists(path) and not path.is_file():
        raise _InputError(f"{option} {path}: exists and is not a regular file")
    parent = path.parent if str(path.parent) else Path()
    if not parent.is_dir():
        raise _InputError(f"{option} {path}: no folder {parent} to write it in")
    if not os.access(parent, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise _InputError(f"{option} {path}: not writable")


def _suite_folders(args: argparse.Namespace) -> tuple[Path, Path]:
    try:
        default = bundled()
    except FileNotFoundError as exc:
        if args.cassettes is None or args.goldens is None:
            raise _InputError(str(exc)) from exc
        default = None
    cassettes_dir = args.cassettes or (default.cassettes if default else Path())
    if not cassettes_dir.is_dir():
        raise _InputError(f"no cassette folder at {cassettes_dir} (pass --cassettes DIR)")
    if args.goldens is not None:
        goldens_dir = args.goldens
    elif default is not None and (
        args.cassettes is None or cassettes_dir.resolve() == default.cassettes.resolve()
    ):
        goldens_dir = default.goldens
    else:  # cassettes of one's own: their goldens beside them, never raf's own
        goldens_dir = beside(cassettes_dir)
    if os.path.lexists(goldens_dir) and not goldens_dir.is_dir():
        raise _InputError(f"{goldens_dir} is not a folder (pass --goldens DIR)")
    return cassettes_dir, goldens_dir


def _policy(args: argparse.Namespace) -> Policy:
    try:
        overrides = parse_severity_overrides(args.severity)
    except ValueError as exc:
        raise _InputError(f"--severity: {exc}") from exc
    return Policy(fail_on=args.fail_on, overrides=overrides)


def _rerun(args: argparse.Namespace) -> Callable[[str], str]:
    """The command that runs cases again (given a ``-k`` pattern) as this one ran them."""
    parts = ["raf", "conform"]
    if args.impl is not None:
        parts += ["--impl", args.impl]
    for option, value, default in (
        ("--level", args.level, None),
        ("--transport", args.transport, "chunks"),
        ("--cassettes", args.cassettes, None),
        ("--goldens", args.goldens, None),
        ("--timeout", args.timeout, DEFAULT_TIMEOUT),
        ("--baseline", args.baseline, None),
        ("--fail-on", args.fail_on, "error"),
    ):
        if value is not None and value != default:
            parts += [option, f"{value:g}" if isinstance(value, float) else str(value)]
    for item in args.severity:
        parts += ["--severity", item]
    return lambda pattern: shlex.join([*parts, "-k", pattern])


# -- the run ---------------------------------------------------------------------------------


def _tool_loop_folders(cassettes_dir: Path) -> list[Path]:
    """Where the tool-loop recordings of the suite are: the bundled ones with the bundled
    cassettes, else those (cassettes with ``raf.run``) among the cassettes given."""
    try:
        default = bundled()
    except FileNotFoundError:
        return [cassettes_dir]
    if cassettes_dir.resolve() == default.cassettes.resolve():
        return [default.tool_loops]
    return [cassettes_dir]


@contextlib.contextmanager
def _replay_server(folders: list[Path]) -> Iterator[Any]:
    """``raf serve`` on ``folders`` (the first that has a case wins), on a free port of
    127.0.0.1, with the request rules checked and a request that breaks one the provider
    refuses answered with the provider's error (docs/serve.md)."""
    from raf.serve.server import ReplayServer  # noqa: PLC0415 - aiohttp only when asked

    server = ReplayServer(folders, rules="reject")
    try:
        server.start()
    except OSError as exc:
        raise _InputError(f"cannot start raf serve: {_reason(exc)}") from exc
    try:
        yield server
    finally:
        server.stop()


@contextlib.contextmanager
def _sigterm_stops_the_run() -> Iterator[None]:
    """While the run goes on, SIGTERM (what ``timeout``, CI cancellation and ``docker stop``
    send) stops it the way Ctrl-C does: the implementation is stopped and the partial
    report written."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: FrameType | None) -> None:
        del frame
        raise Interrupted(signum)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _ordered(suite: Suite, args: argparse.Namespace, cache: LastFailed) -> str:
    """Apply ``--lf`` / ``--ff`` to the suite; what was done, for the user."""
    if not (args.last_failed or args.failed_first):
        return ""
    failed = cache.read()
    ids = {c.id for c in suite.cases} | {p.id for p in suite.problems}
    matching = failed & ids
    if not matching:
        return "no failures recorded for these cases: running them all"
    if args.last_failed:
        suite.cases = [c for c in suite.cases if c.id in matching]
        suite.problems = [p for p in suite.problems if p.id in matching]
        return f"running the {len(matching)} case(s) that failed the last time (--lf)"
    suite.cases.sort(key=lambda c: c.id not in matching)
    return f"running the {len(matching)} case(s) that failed the last time first (--ff)"


def run(args: argparse.Namespace, out: TextIO) -> int:
    cassettes_dir, goldens_dir = _suite_folders(args)
    console = _console(out)
    if args.update:
        return _update_goldens(args, console, cassettes_dir, goldens_dir)
    policy = _policy(args)
    for path, option in (
        (args.json, "--json"),
        (args.junit, "--junit"),
        (args.html, "--html"),
        (args.write_baseline, "--write-baseline"),
    ):
        if path is not None:
            _output_file(path, option)
    known = None
    if args.baseline is not None:
        try:
            known = baselines.load(args.baseline)
        except baselines.BaselineError as exc:
            raise _InputError(f"--baseline: {exc}") from exc
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
    loop_folders = _tool_loop_folders(cassettes_dir)
    loop_cases = 0
    if args.transport == "http":  # a client's own tool loop needs the server
        loops = load_tool_loop_cases(
            loop_folders,
            chunkings=args.chunking or STANDARD_CHUNKINGS,
            select=args.select or (),
            dialects=args.dialect or (),
        )
        suite.cases += loops.cases
        suite.problems += loops.problems
        loop_cases = len(loops.cases)
    if not suite.cases and not suite.problems:
        console.print("no cases matched")
        _warn("raf: no cases matched the selection")
        return 1
    level = args.level or ("response" if args.impl is not None else "updates")
    cache = LastFailed(
        args.cache_dir,
        "\0".join([str(args.impl), level, args.transport, str(cassettes_dir.resolve())]),
    )
    ordered = _ordered(suite, args, cache)
    if ordered:
        _warn(f"raf: {ordered}")
    with contextlib.ExitStack() as stack:
        server = None
        loop_server = None
        if args.transport == "http":
            server = stack.enter_context(_replay_server([cassettes_dir]))
            if loop_cases and loop_folders != [cassettes_dir]:  # names may be the cassettes'
                loop_server = stack.enter_context(_replay_server(loop_folders))
        implementation: Implementation
        command = args.impl
        if command is None and server is not None:  # the reference, as a program, over HTTP
            command = [sys.executable, "-m", "raf.conformance.stdio_reference"]
        if command is not None:
            try:
                implementation = StdioImplementation(
                    command,
                    timeout=args.timeout,
                    server=server,
                    max_timeouts=args.max_timeouts,
                    loop_server=loop_server,
                )
            except ValueError as exc:
                raise _InputError(f"--impl: {exc}") from exc
        else:
            implementation = ReferenceImplementation()
        with _sigterm_stops_the_run():
            report = conform(
                console,
                suite,
                implementation,
                level=level,
                transport=args.transport,
                policy=policy,
                baseline=known,
                exitfirst=args.exitfirst,
                rerun=_rerun(args),
            )
    _write_reports(args, report)
    _remember(cache, report)
    if args.write_baseline is not None and report.stopped not in ("interrupted", "terminated"):
        return _write_baseline(args.write_baseline, report, level)
    return _exit_status(report)


def _console(out: TextIO) -> Console:
    console = _Console(file=out)
    if not console.is_terminal:
        # Piped (a CI log, a file): no line is cut or wrapped, so that every name can be
        # pasted into -k as it is.
        console.width = 1 << 20
    return console


def _write_reports(args: argparse.Namespace, report: RunReport) -> None:
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


def _remember(cache: LastFailed, report: RunReport) -> None:
    ran = [r.id for r in report.results if not r.not_run]
    failed = [r.id for r in report.results if not r.ok and not r.not_run]
    try:
        cache.update(failed, ran)
    except OSError as exc:
        _warn(f"raf: warning: cannot record the failures in {cache.folder}: {_reason(exc)}")


def _exit_status(report: RunReport) -> int:
    if report.stopped == "interrupted":
        _warn("raf: interrupted: the report holds the cases judged before")
        return EXIT_INTERRUPTED
    if report.stopped == "terminated":
        _warn("raf: terminated: the report holds the cases judged before")
        return EXIT_TERMINATED
    counts = report.counts()
    stale = len(report.stale())
    if not report.ok:
        parts = []
        bad = counts["fail"] + counts["error"]
        if bad or not stale:
            parts.append(f"{bad} of {len(report.results)} case(s) do not conform")
        if stale and report.baseline is not None:
            which = "entry no longer fails" if stale == 1 else "entries no longer fail"
            them = "it" if stale == 1 else "them"
            parts.append(f"{stale} baseline {which}: remove {them} from {report.baseline.source}")
        _warn("raf: " + "; ".join(parts))
    return 0 if report.ok else 1


def _write_baseline(path: Path, report: RunReport, level: str) -> int:
    previous = None
    if path.exists():
        try:
            previous = baselines.load(path)
        except baselines.BaselineError as exc:
            raise _InputError(
                f"--write-baseline: {exc} (it is not a baseline: not overwritten)"
            ) from exc
    several = {(r.dialect, r.scenario) for r in report.results if r.interaction not in (None, 0)}
    entries = _entries(report, several)
    name = " ".join(f"{report.implementation} {report.version}".split())
    written = baselines.dumps(entries, implementation=name, previous=previous)
    try:
        baselines.write(path, written.text)
    except OSError as exc:
        raise _InputError(f"cannot write {path}: {_reason(exc)}") from exc
    dropped = f", {len(written.dropped)} dropped (no longer failing)" if written.dropped else ""
    _warn(
        f"raf: wrote {len(entries)} known failure(s) to {path} ({written.new} without a "
        f"reason: fill them in, {written.kept} kept{dropped}); checked at level {level}"
    )
    errors = [r for r in report.results if r.status == "error"]
    if errors:
        _warn(f"raf: {len(errors)} case(s) could not be judged at all (errors are not recorded)")
        return 1
    return 0


def _entries(report: RunReport, several: set[tuple[str, str]]) -> list[baselines.Entry]:
    """One entry per failing difference of the run, with the chunkings it occurs under when
    not every chunking of its case ran into it."""
    under: dict[tuple[Any, ...], list[str]] = {}
    chunkings: dict[tuple[str, str, int | None], list[str]] = {}
    for result in report.results:
        if result.status == "skip" or result.not_run:
            continue
        interaction = result.interaction if (result.dialect, result.scenario) in several else None
        place = (result.dialect, result.scenario, interaction)
        chunkings.setdefault(place, []).append(result.chunking or "")
        for difference in result.differences:
            if not difference.fails:
                continue
            m = difference.mismatch
            key = (*place, m.level, m.key, m.kind)
            under.setdefault(key, []).append(result.chunking or "")
    entries = []
    for (dialect, scenario, interaction, level, where, kind), found in under.items():
        every = chunkings[(dialect, scenario, interaction)]
        entries.append(
            baselines.Entry(
                format=dialect,
                scenario=scenario,
                level=level,
                field=where,
                kind=kind,
                interaction=interaction,
                chunkings=() if set(found) >= set(every) else tuple(dict.fromkeys(found)),
            )
        )
    return entries


def _update_goldens(
    args: argparse.Namespace, console: Console, cassettes_dir: Path, goldens_dir: Path
) -> int:
    if args.cassettes is None:
        raise _InputError(
            "--update writes the goldens of cassettes of your own: pass --cassettes DIR "
            "(raf's own goldens change only through a reviewed `pytest tests/test_goldens.py "
            "--snapshot-update` in a clone)"
        )
    owned = owned_by_raf(goldens_dir)
    if owned is not None:
        raise _InputError(f"--update: {owned}")
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
    _warn(
        f"raf: {written} golden(s) written under {goldens_dir}, {refused} cassette(s) not blessed"
    )
    return 1 if refused else 0
