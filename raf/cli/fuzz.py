"""``raf fuzz``: differential fuzzing of an implementation, each distinct failure shrunk and
saved as a cassette ``raf conform`` runs.

The command is a shell: it checks its options and output paths before anything runs, starts
the implementation (and ``raf serve`` for ``--transport http``), runs one campaign per format
(:func:`raf.fuzz.campaign.fuzz`) with a progress line on stderr, saves each failure as soon as
it is shrunk (``-o DIR``: never over a file), and prints the table of findings with the
commands that reproduce them. Exit 1 when something was found, 130 on Ctrl-C and 143 on
SIGTERM (after saving and showing what was found).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shlex
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, TextIO

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from raf import formats
from raf.cli._cache import DEFAULT_CACHE_DIR
from raf.cli._shell import _at_least, _Console, _InputError, _reason, _seconds, _warn
from raf.cli.conform import _output_file
from raf.clients import names as client_names
from raf.clients import node_names
from raf.conformance.implementation import Implementation, ReferenceImplementation
from raf.conformance.protocol import LEVELS, STREAM_LEVELS
from raf.conformance.severity import KINDS, SEVERITIES, Policy, parse_severity_overrides
from raf.conformance.stdio import DEFAULT_TIMEOUT, ImplementationFailed, StdioImplementation
from raf.fuzz.stop import StopRequest
from raf.shared.bundled import owned_by_raf

if TYPE_CHECKING:  # raf.fuzz needs hypothesis (raf[testing]): imported when the command runs
    from raf.fuzz.campaign import Campaign, Finding, Progress
    from raf.fuzz.check import ImplementationCheck, LiveCases
    from raf.fuzz.libraries import Library
    from raf.fuzz.save import Saved

__all__ = ["add_parser", "run"]

EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143
DEFAULT_DATABASE = f"{DEFAULT_CACHE_DIR}/fuzz"
DEFAULT_FORMAT = "openai_chat"
_PROGRESS_EVERY = 0.5


def add_parser(sub: Any) -> None:
    """Add ``raf fuzz`` to the subcommands ``sub``."""
    parser = sub.add_parser(
        "fuzz",
        help="fuzz an implementation with generated streams; save each failure as a cassette",
        description="Generate streams with their ground truth (every framing and chunking, "
        "interleaved calls, the quirks of the catalogue, truncation), send each to an "
        "implementation over the stdio protocol raf-conformance/1 (or over raf serve with "
        "--transport http), judge it as raf conform does, and shrink every distinct failure "
        "to a minimal stream, saved with -o as a cassette that `raf conform --impl CMD "
        "--cassettes DIR` reproduces (docs/fuzzing.md). Without --impl, raf's own reference "
        "is fuzzed (it must find nothing). Exits 1 when something was found, 130 on Ctrl-C "
        "(after saving what was found).",
        epilog="examples:\n"
        "  raf fuzz --impl 'python my_client.py' --time 60 -o fuzz_cassettes\n"
        "  raf fuzz --impl 'node client.js' --format openai_chat --quirk index_always_zero\n"
        "  raf fuzz --impl 'python my_client.py' --transport http --examples 500\n"
        "  raf conform --impl 'python my_client.py' --cassettes fuzz_cassettes\n"
        "  raf fuzz --client openai --client anthropic --time 90 -o found\n"
        "  raf fuzz --client all --time 300 -o found\n",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--impl",
        metavar="COMMAND",
        help="the implementation under test: a command line, split as a shell splits words "
        "but run without a shell (default: raf's reference pipeline, in process)",
    )
    parser.add_argument(
        "--client",
        action="append",
        choices=[*client_names(), *node_names(), "all"],
        metavar="NAME",
        help="fuzz this library of the real-client matrix instead of an implementation "
        "(repeatable; all: every installed library of the stream matrix, Python and npm): "
        "each stream is served by raf serve and the library driven by its adapter as raf "
        "clients drives it, judged as a matrix cell (formats: the library's own)",
    )
    parser.add_argument(
        "--transport",
        choices=("stdio", "http"),
        default="stdio",
        help="stdio: each stream's reads are sent in the protocol message (default); http: "
        "raf serve replays each stream on 127.0.0.1 and the implementation makes the request "
        "itself (capability http)",
    )
    parser.add_argument(
        "--format",
        action="append",
        choices=formats.names(),
        metavar="NAME",
        help="a wire format to fuzz (repeatable; default: every format the implementation's "
        f"hello declares that raf generates, else {DEFAULT_FORMAT})",
    )
    parser.add_argument(
        "--quirk",
        action="append",
        metavar="ID",
        help="make streams show this quirk of the catalogue (repeatable; default: every "
        "quirk raf can generate for the format)",
    )
    parser.add_argument(
        "--level",
        choices=[level for level in LEVELS if level in STREAM_LEVELS],
        default="response",
        help="what is compared (default response; docs/conformance.md)",
    )
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument(
        "--examples",
        type=_at_least(1),
        metavar="N",
        help="streams to generate per format (default 1000 when --time is not given)",
    )
    budget.add_argument(
        "--time",
        type=_seconds,
        metavar="SECONDS",
        help="seconds to search per format (shrinking a failure found may take a little more)",
    )
    parser.add_argument(
        "--seed",
        type=_at_least(0),
        metavar="S",
        help="replay the campaign of this seed exactly (no database is used)",
    )
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="DIR",
        help="save each failure as a cassette under DIR (its golden in DIR_goldens); an "
        "existing file is never overwritten",
    )
    parser.add_argument(
        "--database",
        type=Path,
        default=Path(DEFAULT_DATABASE),
        metavar="DIR",
        help="hypothesis's example database: failures found before are tried first "
        f"(default {DEFAULT_DATABASE} in the current folder)",
    )
    parser.add_argument(
        "--timeout",
        type=_seconds,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"how long --impl has to answer one stream (default {DEFAULT_TIMEOUT:g})",
    )
    judging = parser.add_argument_group("what fails")
    judging.add_argument(
        "--fail-on",
        choices=SEVERITIES,
        default="error",
        help="the least severity that is a failure (default error)",
    )
    judging.add_argument(
        "--severity",
        action="append",
        default=[],
        metavar="KIND=SEVERITY",
        help="change the severity of one kind of difference, e.g. detail=error (repeatable; "
        "kinds: " + ", ".join(KINDS) + ")",
    )
    parser.add_argument("--json", type=Path, metavar="FILE", help="write a JSON report")


# -- checking what was asked ------------------------------------------------------------------


def _policy(args: argparse.Namespace) -> Policy:
    try:
        overrides = parse_severity_overrides(args.severity)
    except ValueError as exc:
        raise _InputError(f"--severity: {exc}") from exc
    return Policy(fail_on=args.fail_on, overrides=overrides)


def _output_folder(path: Path | None, option: str) -> None:
    if path is None:
        return
    owned = owned_by_raf(path)
    if owned is not None:
        raise _InputError(f"{option}: {owned}")
    if path.exists() and not path.is_dir():
        raise _InputError(f"{option} {path}: exists and is not a folder")


def _quirks(args: argparse.Namespace) -> tuple[str, ...] | None:
    if not args.quirk:
        return None
    from raf.quirks import catalogue  # noqa: PLC0415

    known = catalogue()
    unknown = [q for q in args.quirk if q not in known]
    if unknown:
        raise _InputError(
            f"--quirk: unknown quirk {', '.join(unknown)} (one of {', '.join(sorted(known))})"
        )
    return tuple(dict.fromkeys(args.quirk))


def _needs_hypothesis() -> None:
    try:
        import hypothesis  # noqa: F401, PLC0415
    except ImportError as exc:
        raise _InputError(
            "raf fuzz needs hypothesis, a test dependency: pip install 'raf[testing]'"
        ) from exc


def _strategies(chosen: list[str], quirks: tuple[str, ...] | None) -> dict[str, Any]:
    from raf.fuzz.generate import streams  # noqa: PLC0415

    out = {}
    for name in chosen:
        try:
            out[name] = streams(name, quirks)
        except ValueError as exc:
            raise _InputError(f"--quirk: {exc}") from exc
    return out


# -- the run ----------------------------------------------------------------------------------


class _Progress:
    """The progress line on stderr: rewritten in place on a terminal, else nothing until the
    end of each format's campaign."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.shown = 0.0
        stream = sys.stderr
        self.live = stream is not None and stream.isatty()
        self.width = 0

    def __call__(self, progress: Progress) -> None:
        now = time.monotonic()
        if not self.live or now - self.shown < _PROGRESS_EVERY:
            return
        self.shown = now
        self.show(progress)

    def show(self, progress: Progress, end: str = "") -> None:
        line = (
            f"raf fuzz {self.label}: {progress.examples} examples, {progress.rate:.0f}/s, "
            f"{progress.failures} distinct failure(s)"
        )
        if self.live:
            padded = line.ljust(self.width)
            self.width = len(line)
            with contextlib.suppress(OSError, ValueError):
                sys.stderr.write("\r" + padded + end)
                sys.stderr.flush()
        elif end:
            _warn(line)


@contextlib.contextmanager
def _implementation(
    args: argparse.Namespace,
) -> Iterator[tuple[Implementation, LiveCases | None]]:
    from raf.fuzz.check import LiveCases  # noqa: PLC0415

    live: LiveCases | None = None
    with contextlib.ExitStack() as stack:
        if args.transport == "http":
            live = LiveCases()
            try:
                stack.enter_context(live)
            except (OSError, RuntimeError) as exc:
                raise _InputError(f"cannot start raf serve: {_reason(exc)}") from exc
        command = args.impl
        if command is None and live is not None:
            command = [sys.executable, "-m", "raf.conformance.stdio_reference"]
        implementation: Implementation
        if command is not None:
            try:
                implementation = StdioImplementation(
                    command,
                    timeout=args.timeout,
                    server=None if live is None else live.server,
                )
            except ValueError as exc:
                raise _InputError(f"--impl: {exc}") from exc
        else:
            implementation = ReferenceImplementation()
        aborted = True
        try:
            yield implementation, live
            aborted = False
        finally:
            implementation.close(abort=aborted)


@contextlib.contextmanager
def _stop_on_signals(stop: StopRequest, terminated: list[int]) -> Iterator[None]:
    """While the campaigns run, Ctrl-C and SIGTERM stop them (what was found is saved and
    shown; exit 130 or 143) through ``stop``, which raises ``KeyboardInterrupt`` only where
    that is safe (:class:`raf.fuzz.stop.StopRequest`); ``terminated`` gets SIGTERM's number."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_signal(signum: int, frame: FrameType | None) -> None:
        del frame
        if signum == signal.SIGTERM:
            terminated.append(signum)
        stop.request()

    previous = {
        number: signal.getsignal(number)
        for number in (signal.SIGINT, signal.SIGTERM)
        if signal.getsignal(number) is not signal.SIG_IGN  # an ignored signal stays ignored
    }
    for number in previous:
        signal.signal(number, on_signal)
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


@contextlib.contextmanager
def _interrupts_held() -> Iterator[None]:
    """Ctrl-C or SIGTERM while a finding is saved takes effect once the save is done, so that
    no cassette is left without its golden and the report says what was written."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[tuple[int, FrameType | None]] = []
    previous: dict[int, Callable[[int, FrameType | None], Any]] = {}

    def hold(signum: int, frame: FrameType | None) -> None:
        held.append((signum, frame))

    for number in (signal.SIGINT, signal.SIGTERM):
        handler = signal.getsignal(number)
        if callable(handler):  # an ignored signal stays ignored
            previous[number] = handler
            signal.signal(number, hold)
    try:
        yield
    finally:
        for restored, handler in previous.items():
            signal.signal(restored, handler)
        if held:
            first, frame = held[0]
            previous[first](first, frame)


class _Saver:
    """Saves each finding (``-o DIR``) as soon as it is shrunk, and remembers what became of
    it."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self.saved: dict[Any, Saved] = {}
        self.library: Library | None = None
        """The library fuzzed now (``--client``): it names and titles the cassettes."""
        self.library_of: dict[str, str | None] = {}
        """The library of each campaign (by its key in the report)."""

    def __call__(self, finding: Finding, *, final: bool = False) -> None:
        if self.folder is None or _is_raf_bug(finding):
            return
        key = self.key(finding)
        if not (finding.shrunk or final) or key in self.saved:
            return
        from raf.fuzz.cassette import finding_cassette  # noqa: PLC0415
        from raf.fuzz.libraries import library_cassette  # noqa: PLC0415
        from raf.fuzz.save import save_cassette  # noqa: PLC0415

        if self.library is not None:
            cassette = library_cassette(self.library, finding)
        else:
            cassette = finding_cassette(finding.stream, finding.mismatches, seed=finding.seed)
        try:
            with _interrupts_held():
                self.saved[key] = save_cassette(cassette, self.folder)
        except OSError as exc:
            raise _InputError(f"cannot write under {self.folder}: {_reason(exc)}") from exc

    def key(self, finding: Finding) -> Any:
        """What a saved finding is remembered by: its signature (and library)."""
        name = None if self.library is None else self.library.name
        return (name, finding.signature)

    def found(self, campaign: str, finding: Finding) -> Saved | None:
        """What became of ``finding`` of the campaign keyed ``campaign``."""
        return self.saved.get((self.library_of.get(campaign), finding.signature))


def _failure(finding: Finding) -> str:
    said = finding.mismatches[0].summary() if _is_raf_bug(finding) else finding.signature.text
    return said + ("" if finding.shrunk else " (not shrunk)")


def _is_raf_bug(finding: Finding) -> bool:
    from raf.fuzz.check import REFERENCE  # noqa: PLC0415

    return finding.mismatches[0].level == REFERENCE


def run(args: argparse.Namespace, out: TextIO) -> int:
    _needs_hypothesis()

    console = _Console(file=out)
    if not console.is_terminal:
        console.width = 1 << 20
    if args.client and args.impl is not None:
        raise _InputError("--client and --impl: fuzz either libraries or an implementation")
    if args.client and args.transport != "stdio":
        raise _InputError("--client: a library always makes its own request (no --transport)")
    policy = _policy(args)
    quirks = _quirks(args)
    _output_folder(args.output, "-o")
    if args.json is not None:
        _output_file(args.json, "--json")
    owned = owned_by_raf(args.database)
    if owned is not None:
        raise _InputError(f"--database: {owned}")
    if args.database.exists() and not args.database.is_dir():
        raise _InputError(f"--database {args.database}: exists and is not a folder")
    if args.client:
        return _run_clients(args, console, quirks)
    run_ = _Run(args, quirks)
    with (
        _implementation(args) as (implementation, live),
        _stop_on_signals(run_.stop, run_.terminated),
    ):
        try:
            check_of = _checks(args, implementation, live, policy)
        except ImplementationFailed as exc:
            _warn(f"raf: the implementation could not be started: {exc}")
            return 1
        chosen = args.format or _formats_of(check_of.hello.dialects)
        run_.campaigns_of(chosen, check_of)
        if run_.interrupted:  # stop it now rather than wait for its goodbye
            implementation.close(abort=True)
        skipped = check_of.skipped
        skip_reason = check_of.last_skip
    _report(console, args, run_.campaigns, run_.saver)
    checked = sum(c.examples for c in run_.campaigns.values())
    if skipped:
        _warn(f"raf: {skipped} stream(s) not run: {skip_reason}")
    if checked and skipped >= checked:
        _warn("raf: no stream was run: the implementation declares none of them (see above)")
        return 1
    return run_.end(args)


class _Run:
    """The campaigns of one ``raf fuzz``: one per format (per library and format with
    ``--client``), each finding saved as soon as it is shrunk."""

    def __init__(self, args: argparse.Namespace, quirks: tuple[str, ...] | None) -> None:
        self.args = args
        self.quirks = quirks
        self.examples = (
            args.examples if args.examples is not None or args.time is not None else 1000
        )
        self.campaigns: dict[str, Campaign] = {}
        self.saver = _Saver(args.output)
        self.interrupted = False
        self.fatal = ""
        self.terminated: list[int] = []
        self.stop = StopRequest()
        """Stops the campaigns on Ctrl-C or SIGTERM (:func:`_stop_on_signals`)."""

    @property
    def over(self) -> bool:
        return self.interrupted or bool(self.fatal)

    def campaigns_of(self, chosen: list[str], check: Any, library: Library | None = None) -> None:
        """A campaign for each format of ``chosen`` with ``check`` (on ``library``)."""
        from raf.fuzz.campaign import Progress, fuzz  # noqa: PLC0415

        self.saver.library = library
        prefix = "" if library is None else f"{library.name} "
        for name, strategy in _strategies(chosen, self.quirks).items():
            key = prefix + name
            progress = _Progress(key)
            owner = "" if library is None else f"{library.name}:"
            campaign = fuzz(
                strategy,
                check,
                examples=self.examples,
                seconds=self.args.time,
                seed=self.args.seed,
                database=self.args.database,
                on_progress=progress,
                on_finding=self.saver,
                name=f"{owner}{name}:{','.join(self.quirks or ())}",
                stop=self.stop,
            )
            progress.show(
                Progress(campaign.examples, campaign.seconds, len(campaign.findings)), "\n"
            )
            self.campaigns[key] = campaign
            self.saver.library_of[key] = None if library is None else library.name
            for finding in campaign.findings:
                self.saver(finding, final=True)
            if campaign.stopped:
                self.fatal = campaign.stopped
            if campaign.interrupted or campaign.stopped:
                self.interrupted = campaign.interrupted
                break

    def end(self, args: argparse.Namespace) -> int:
        """The JSON report, the last words and the exit status."""
        if args.json is not None:
            _write_json(args.json, args, self.campaigns, self.saver)
        if self.fatal:
            _warn(f"raf: stopped: {self.fatal}")
        found = sum(len(c.findings) for c in self.campaigns.values())
        if self.interrupted:
            how = "terminated" if self.terminated else "interrupted"
            _warn(f"raf: {how}: what was found is saved and shown above")
            return EXIT_TERMINATED if self.terminated else EXIT_INTERRUPTED
        if self.fatal:
            return 1
        return 1 if found else 0


def _client_names(args: argparse.Namespace) -> list[str]:
    from raf.fuzz.libraries import ALL, library_names  # noqa: PLC0415

    every = library_names()
    asked = list(dict.fromkeys(args.client))
    return every if ALL in asked else asked


def _run_clients(
    args: argparse.Namespace, console: _Console, quirks: tuple[str, ...] | None
) -> int:
    """``raf fuzz --client``: each library in turn, over each of its formats (or those of
    ``--format`` it reads)."""
    from raf.fuzz.check import LiveCases  # noqa: PLC0415
    from raf.fuzz.libraries import (  # noqa: PLC0415
        ALL,
        LibraryMissing,
        ToolLoopsOnly,
        open_library,
    )

    every = ALL in args.client
    run_ = _Run(args, quirks)
    libraries: dict[str, str] = {}
    missing: dict[str, str] = {}
    skipped: dict[str, tuple[int, str]] = {}
    live = LiveCases()
    try:
        live.__enter__()
    except (OSError, RuntimeError) as exc:
        raise _InputError(f"cannot start raf serve: {_reason(exc)}") from exc
    try:
        with _stop_on_signals(run_.stop, run_.terminated):
            for name in _client_names(args):
                try:
                    with open_library(name, live, timeout=args.timeout) as library:
                        chosen = [
                            f for f in library.dialects if not args.format or f in args.format
                        ]
                        chosen = [f for f in formats.names() if f in chosen]
                        if not chosen:
                            if not every:  # all: the libraries of other formats are not asked
                                missing[name] = "reads none of the formats of --format"
                            continue
                        libraries[name] = library.label
                        run_.campaigns_of(chosen, library.check, library)
                        if library.skipped:
                            skipped[name] = (library.skipped, library.last_skip)
                except ToolLoopsOnly as exc:
                    if not every:  # all: the tool loops are not asked
                        missing[name] = str(exc)
                except LibraryMissing as exc:
                    missing[name] = str(exc)
                if run_.over:
                    break
    finally:
        live.__exit__(None, None, None)
    for name, why in missing.items():
        _warn(f"raf fuzz: {name}: {why}")
    if not run_.campaigns:
        raise _InputError(
            "none of the libraries asked for could run (pip install 'raf[clients]'; "
            "npm ci in raf/clients/node)"
        )
    _report(console, args, run_.campaigns, run_.saver, libraries=libraries)
    for name, (count, why) in skipped.items():
        _warn(f"raf fuzz: {name}: {count} stream(s) not run: {why}")
    return run_.end(args)


def _checks(
    args: argparse.Namespace,
    implementation: Implementation,
    live: LiveCases | None,
    policy: Policy,
) -> ImplementationCheck:
    from raf.fuzz.check import ImplementationCheck  # noqa: PLC0415

    return ImplementationCheck(implementation, level=args.level, policy=policy, live=live)


def _formats_of(declared: list[str]) -> list[str]:
    chosen = [name for name in formats.names() if name in declared]
    return chosen or [DEFAULT_FORMAT]


def _conform_command(args: argparse.Namespace) -> str:
    if args.output is None or args.client:
        return ""
    parts = ["raf", "conform"]
    if args.impl is not None:
        parts += ["--impl", args.impl]
    parts += ["--cassettes", str(args.output)]
    if args.level != "response":
        parts += ["--level", args.level]
    if args.transport == "http":
        parts += ["--transport", "http"]
    return shlex.join(parts)


def _fuzz_command(args: argparse.Namespace, seed: int | None) -> str:
    parts = ["raf", "fuzz"]
    if args.impl is not None:
        parts += ["--impl", args.impl]
    for name in args.client or ():
        parts += ["--client", name]
    if args.transport != "stdio":
        parts += ["--transport", args.transport]
    for name in args.format or ():
        parts += ["--format", name]
    for quirk in args.quirk or ():
        parts += ["--quirk", quirk]
    if args.level != "response":
        parts += ["--level", args.level]
    if args.examples is not None:
        parts += ["--examples", str(args.examples)]
    if args.time is not None:
        parts += ["--time", f"{args.time:g}"]
    if seed is not None:
        parts += ["--seed", str(seed)]
    return shlex.join(parts)


def _report(
    console: Console,
    args: argparse.Namespace,
    campaigns: dict[str, Campaign],
    saver: _Saver,
    *,
    libraries: dict[str, str] | None = None,
) -> None:
    """The findings' table; with ``libraries`` (``--client``: each library's name and
    version), first a line per campaign: the library, its format, the examples and what was
    found."""
    rows = [(name, f) for name, c in campaigns.items() for f in c.findings]
    if libraries is not None:
        _library_lines(console, campaigns, saver, libraries)
    total = sum(c.examples for c in campaigns.values())
    generated = sum(c.generated for c in campaigns.values())
    seconds = sum(c.seconds for c in campaigns.values())
    rate = total / seconds if seconds > 0 else 0.0
    shrinking = f" (and {total - generated} while shrinking)" if total > generated else ""
    console.print(
        f"{generated} streams generated{shrinking} in {seconds:.1f} s ({rate:.0f} examples/s), "
        f"{len(rows)} distinct failure(s)",
        soft_wrap=True,
    )
    if not rows:
        return
    table = Table(show_lines=False)
    first = "format" if libraries is None else "library format"
    for column in (first, "failure", "quirks", "calls", "bytes", "cassette"):
        table.add_column(column, overflow="fold")
    for name, finding in rows:
        saved = saver.found(name, finding)
        if _is_raf_bug(finding):
            where = "raf bug: not saved"
        elif saved is None:
            where = "-" if args.output is None else "not saved"
        elif saved.reason and not saved.golden:
            where = f"{saved.path} ({saved.verdict}; {saved.reason})"
        else:
            where = f"{saved.path} ({saved.verdict})"
        table.add_row(
            name,
            escape(
                finding.mismatches[0].summary() if _is_raf_bug(finding) else finding.signature.text
            )
            + ("" if finding.shrunk else " (not shrunk)"),
            escape(", ".join(finding.signature.quirks) or "-"),
            str(len(finding.stream.response.tool_calls)),
            str(len(finding.stream.body)),
            escape(where),
        )
    console.print(table)
    if any(_is_raf_bug(f) for _, f in rows):
        _warn(
            "raf: raf's own reference disagrees with the generator's ground truth on some "
            "streams (marked raf bug): that is a bug in raf, please report it with --json"
        )
    command = _conform_command(args)
    if command:
        console.print(f"reproduce: {escape(command)}", soft_wrap=True)
    elif libraries is not None and args.output is not None:
        console.print(
            f"saved under {escape(str(args.output))}: each cassette's title names the library",
            soft_wrap=True,
        )
    else:
        console.print("save them as cassettes with -o DIR", soft_wrap=True)
    seeds = {c.seed for c in campaigns.values()}
    if len(seeds) == 1:
        console.print(
            f"run again: {escape(_fuzz_command(args, next(iter(seeds))))}", soft_wrap=True
        )


def _library_lines(
    console: Console, campaigns: dict[str, Campaign], saver: _Saver, libraries: dict[str, str]
) -> None:
    table = Table(show_lines=False)
    for column in ("library", "format", "examples", "examples/s", "failures"):
        table.add_column(column, overflow="fold")
    for key, campaign in campaigns.items():
        name = saver.library_of.get(key) or ""
        table.add_row(
            escape(libraries.get(name, name)),
            escape(key.removeprefix(f"{name} ")),
            str(campaign.examples),
            f"{campaign.rate:.1f}",
            str(len(campaign.findings)),
        )
    console.print(table)


def _write_json(
    path: Path, args: argparse.Namespace, campaigns: dict[str, Campaign], saver: _Saver
) -> None:
    document = {
        "implementation": ("libraries" if args.client else args.impl or "raf-reference"),
        "transport": args.transport,
        "level": args.level,
        "campaigns": [
            {
                "format": name.rsplit(" ", 1)[-1],
                "library": saver.library_of.get(name),
                "examples": c.examples,
                "seconds": round(c.seconds, 3),
                "rate": round(c.rate, 1),
                "interrupted": c.interrupted,
                "stopped": c.stopped,
                "seed": c.seed,
                "findings": [_finding_json(f, saver.found(name, f)) for f in c.findings],
            }
            for name, c in campaigns.items()
        ],
    }
    try:
        path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", "utf-8")
    except OSError as exc:
        raise _InputError(f"cannot write {path}: {_reason(exc)}") from exc
    _warn(f"raf: wrote {path}")


def _finding_json(finding: Finding, saved: Saved | None) -> dict[str, Any]:
    return {
        "signature": finding.signature.text,
        "key": finding.signature.key,
        "kind": finding.signature.kind,
        "level": finding.signature.level,
        "quirks": list(finding.signature.quirks),
        "raf_bug": _is_raf_bug(finding),
        "shrunk": finding.shrunk,
        "differences": [m.summary() for m in finding.mismatches],
        "calls": len(finding.stream.response.tool_calls),
        "body": finding.stream.body.decode("utf-8", "backslashreplace"),
        "reads": [len(r) for r in finding.stream.chunks],
        "cassette": None if saved is None else str(saved.path),
        "saved": None if saved is None else saved.verdict,
    }
