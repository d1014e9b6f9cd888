"""The ``raf`` command line: argument parsing, file IO and exit codes only.

Exit codes (also in ``raf --help`` and the README):

* 0: success; also when the reader of the output goes away (``raf pipeline x | head``);
* 1: a check failed: the stream had errors and ``--strict`` was given, ``cassette lint``
  found an error, ``conform`` found a difference or a problem, ``schema --check`` found stale
  files, ``cassette import`` wrote nothing, or a stream passed a limit of ``raf sse``;
* 2: usage error, or an input or output raf cannot use: a file that is missing, unreadable,
  not a regular file, too large or not a cassette (``cassette show``), an output folder that
  is a file or a link, standard input or output closed or unwritable;
* 3: internal error (a bug in raf); ``RAF_DEBUG=1`` prints its traceback;
* 130: interrupted (Ctrl-C).

Whatever the input, no other exit code and no traceback: :func:`main` turns every exception
into a one-line ``raf: ...`` message on standard error.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import platform
import sys
import traceback
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO, TextIO, TypedDict, cast

import msgspec
from rich.console import Console
from rich.markup import escape

import raf
from raf import dialects
from raf import framing as framings
from raf.cassettes.files import find_files, is_regular_file, read_limited
from raf.cassettes.importers import SUFFIXES, dialect_choices, import_file, scenario_name
from raf.cassettes.lint import cassette_files, lint_file
from raf.cassettes.persister import load as load_cassette
from raf.cassettes.persister import save as save_cassette
from raf.cassettes.show import render
from raf.chunking import STANDARD_CHUNKINGS, check_chunking
from raf.clients import names as client_names
from raf.collect import ResponseCollector
from raf.conformance.bundled import bundled
from raf.conformance.cases import load_suite
from raf.conformance.http import TRANSPORTS
from raf.conformance.implementation import Implementation, ReferenceImplementation
from raf.conformance.protocol import LEVELS
from raf.conformance.report import conform
from raf.conformance.reports import write_html, write_json, write_junit
from raf.conformance.stdio import DEFAULT_TIMEOUT, StdioImplementation
from raf.conformance.update import update_goldens
from raf.errors import CassetteError, FileRefused, RafError
from raf.framing.sse import DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_LINE_BYTES, SSEDecoder
from raf.limits import SERVE_MAX_BODY_BYTES, SERVE_MAX_CONNECTIONS, SERVE_MAX_STREAMS
from raf.model import updates
from raf.model.canonical import to_json
from raf.pipeline import Pipeline, UpdateDecoder, drive
from raf.schema import json_schemas
from raf.serve.faults import FAULTS

__all__ = ["main", "schema_files", "version_text"]

_READ_SIZE = 64 * 1024

_DESCRIPTION = """\
raf: reference streaming pipeline for LLM clients.

Decode Server-Sent Events from a recorded or live body and print what raf makes of it, as
canonical JSON lines (one object per line; see docs/model.md)."""

_EPILOG = """\
examples:
  raf sse examples/openai_chat_parallel_tools.sse
  raf pipeline examples/openai_chat_parallel_tools.sse --chunk-size 1
  raf pipeline examples/openai_chat_parallel_tools.sse --response
  curl -sN https://api.example.com/v1/chat/completions ... | raf pipeline -

exit codes:
  0    success (also when the reader of the output goes away, as in `raf ... | head`)
  1    a check failed: --strict and the stream had errors, lint found an error, conform
       found a difference, schema --check found stale files, import wrote nothing, sse
       met a stream past a size limit
  2    usage error, or an input or output raf cannot use (missing, unreadable, not a
       regular file, too large, not a cassette; standard input or output closed or full)
  3    internal error: a bug in raf, please report it (RAF_DEBUG=1 prints the traceback)
  130  interrupted
"""


class _InputError(Exception):
    """An input or output the command cannot use, or a usage error (exit status 2)."""


class _OutputError(Exception):
    """Writing to the standard output failed (not a broken pipe): exit status 2."""


class _Output:
    """The standard output, for the commands and their rich consoles: a write or flush that
    fails (a full disk, a closed stream) raises :class:`_OutputError`; a broken pipe stays a
    ``BrokenPipeError``. Everything else is the stream's own."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise
        except (OSError, ValueError) as exc:
            raise _OutputError(_reason(exc)) from exc

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except (OSError, ValueError) as exc:
            raise _OutputError(_reason(exc)) from exc

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class _Console(Console):
    """A rich console for which a broken pipe is what it is for every command: rich's own
    handling exits with status 1; :func:`main` makes it status 0, as for the JSON output."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError


def _reason(exc: BaseException) -> str:
    return (exc.strerror if isinstance(exc, OSError) else None) or str(exc) or repr(exc)


def _warn(message: str) -> None:
    """Print ``message`` on the standard error, if there is one that works."""
    stream = sys.stderr
    if stream is None:
        return
    try:
        stream.write(message + "\n")
        stream.flush()
    except (OSError, ValueError):
        _discard(stream)  # nothing can be reported; do not fail again at exit


def _discard(stream: TextIO | None) -> None:
    """Point the file descriptor of ``stream`` at the null device, as the Python docs advise
    after a broken pipe: the interpreter's final flush then succeeds, instead of printing
    "Exception ignored ... BrokenPipeError" and exiting 120."""
    if stream is None:
        return
    try:
        fd = stream.fileno()
    except (OSError, ValueError, AttributeError):  # not a real file (a test's capture)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def _open_input(path: str) -> BinaryIO:
    """The stream to read: stdin for ``-``, else the file. A stream command reads what it is
    given, FIFOs and devices included (memory is bounded by the SSE limits); a FIFO with no
    writer blocks until one opens it, as ``cat`` does."""
    if path == "-":
        return sys.stdin.buffer
    try:
        return Path(path).open("rb")
    except (OSError, ValueError) as exc:
        raise _InputError(f"cannot read {path}: {_reason(exc)}") from exc


def _chunks(stream: BinaryIO, size: int | None) -> Iterator[bytes]:
    """Yield the input as it arrives, or re-cut into chunks of exactly ``size`` bytes."""
    pending = b""
    while True:
        try:
            block = (
                stream.read1(_READ_SIZE) if hasattr(stream, "read1") else stream.read(_READ_SIZE)
            )
        except OSError as exc:
            raise _InputError(f"read failed: {exc}") from exc
        if not block:
            break
        if size is None:
            yield block
            continue
        pending += block
        cut = len(pending) - len(pending) % size
        for start in range(0, cut, size):
            yield pending[start : start + size]
        pending = pending[cut:]
    if pending:
        yield pending


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _add_input(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "input", metavar="FILE", help="the response body (raw SSE bytes), or - for stdin"
    )
    parser.add_argument(
        "--chunk-size",
        type=_positive,
        metavar="N",
        help="feed the bytes in chunks of N bytes, like a network would (default: as read)",
    )
    parser.add_argument(
        "--max-line-bytes",
        type=_positive,
        metavar="N",
        help="longest accepted SSE line (default 16 MiB)",
    )
    parser.add_argument(
        "--max-event-bytes",
        type=_positive,
        metavar="N",
        help="largest accepted SSE event (default 32 MiB)",
    )


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="raf",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--version", action="version", version=version_text(), help="print raf's version"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    sse = sub.add_parser(
        "sse",
        help="print the decoded Server-Sent Events as JSON lines",
        description="Decode FILE as an event stream (WHATWG rules) and print one JSON object "
        "per event: {event, data, id, retry}. A final line reports whether the stream ended "
        "inside an unfinished event.",
    )
    _add_input(sse)

    pipeline = sub.add_parser(
        "pipeline",
        help="run a stream through the pipeline; print updates, results or the response",
        description="Run FILE through the framing (SSE, JSON array, JSON lines), a dialect, "
        "the converter and the "
        "aggregation, and print one stage as canonical JSON: the updates (default), the "
        "results, or the aggregated response. The output does not depend on --chunk-size.",
    )
    _add_input(pipeline)
    pipeline.add_argument(
        "--dialect",
        default="openai_chat",
        choices=[*dialects.names(), "auto"],
        help="wire format of the stream (default: openai_chat); auto: judged from the body",
    )
    pipeline.add_argument(
        "--framing",
        choices=framings.names(),
        help="how the body is split into events (default: the dialect's own: sse, or for "
        "gemini auto, which reads a JSON array body as one)",
    )
    what = pipeline.add_mutually_exclusive_group()
    what.add_argument(
        "--updates",
        dest="output",
        action="store_const",
        const="updates",
        help="print the AgentResponseUpdate values (the default)",
    )
    what.add_argument(
        "--results",
        dest="output",
        action="store_const",
        const="results",
        help="print the AgentResponseResult values the converter makes of them",
    )
    what.add_argument(
        "--response",
        dest="output",
        action="store_const",
        const="response",
        help="print the aggregated AgentResponse (indented JSON)",
    )
    pipeline.set_defaults(output="updates")
    pipeline.add_argument(
        "--meta",
        action="store_true",
        help="include per-content metadata (timestamps) in --results and --response",
    )
    pipeline.add_argument(
        "--strict",
        action="store_true",
        help="exit with status 1 when the stream reported errors",
    )
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

    serve = sub.add_parser(
        "serve",
        help="replay cassettes over HTTP on 127.0.0.1, with chunkings, timing and faults",
        description="Serve every cassette of the folders (the bundled ones by default) over "
        "HTTP, each under /s/<dialect>/<scenario>[/c/<chunking>][/f/<fault>][/i/<n>], followed "
        "by the path a client appends (/v1/chat/completions, /v1/messages, ...): set a "
        "client's base URL to a case and it gets the recorded stream, cut as asked, with the "
        "faults asked. GET /_raf/journal lists the requests received (scrubbed), each "
        "checked against the recorded request. docs/serve.md has the URL scheme and faults.",
        epilog="examples:\n"
        "  raf serve --port 0\n"
        "  raf serve --cassettes my_cassettes --journal requests.jsonl\n"
        "  curl -sN -d '{}' http://127.0.0.1:8765/s/openai_chat/plain_text/c/bytes"
        "/f/stall-500/v1/chat/completions\n\n"
        "faults: " + ", ".join(FAULTS),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    serve.add_argument(
        "--cassettes",
        type=Path,
        action="append",
        metavar="DIR",
        help="a cassette folder (repeatable; default: the bundled cassettes)",
    )
    serve.add_argument(
        "--host", default="127.0.0.1", help="where to listen (default 127.0.0.1: this machine only)"
    )
    serve.add_argument(
        "--port",
        type=_port,
        default=8765,
        help="the port (default 8765; 0: a free one, printed when listening)",
    )
    serve.add_argument(
        "--speed",
        type=_speed,
        default=1.0,
        help="recorded delays are divided by this (default 1; 0: no delays)",
    )
    serve.add_argument(
        "--chunking",
        type=_serve_chunking,
        metavar="NAME",
        help="the chunking of a path that names none (default: recorded when the cassette "
        "has a timing, else whole)",
    )
    serve.add_argument(
        "--journal",
        type=Path,
        metavar="FILE",
        help="also append every request to FILE (JSON lines)",
    )
    serve.add_argument(
        "--max-streams",
        type=_positive,
        default=SERVE_MAX_STREAMS,
        metavar="N",
        help=f"most responses in progress at once (default {SERVE_MAX_STREAMS}; more get 503)",
    )
    serve.add_argument(
        "--max-connections",
        type=_positive,
        default=SERVE_MAX_CONNECTIONS,
        metavar="N",
        help=f"most open connections (default {SERVE_MAX_CONNECTIONS}; a request on one more "
        "gets 503 and its connection is closed)",
    )
    serve.add_argument(
        "--max-body",
        type=_positive,
        default=SERVE_MAX_BODY_BYTES,
        metavar="BYTES",
        help=f"largest request body (default {SERVE_MAX_BODY_BYTES}; larger get 413)",
    )

    clients = sub.add_parser(
        "clients",
        help="run real client libraries against raf serve and write the matrix of what each "
        "gets wrong",
        description="Drive each client library (the clients extra: pip install "
        "'raf[clients]') the way its users do, against raf serve on 127.0.0.1, over every "
        "bundled scenario of its wire format under each chunking, and judge what it hands "
        "its user at level response. Writes the matrix (rows: scenarios, columns: clients "
        "and versions, cells: pass or a short reason). docs/clients.md explains each cell.",
        epilog="examples:\n"
        "  raf clients --markdown matrix.md --json matrix.json\n"
        "  raf clients --client openai --client anthropic -k tool\n"
        "  raf clients --markdown docs/clients.md   # replaces the part between its markers\n\n"
        "clients: " + ", ".join(client_names()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    clients.add_argument(
        "--client",
        action="append",
        choices=client_names(),
        metavar="NAME",
        help="only this client (repeatable; default: every client whose library is installed)",
    )
    clients.add_argument(
        "-k",
        dest="select",
        action="append",
        metavar="PATTERN",
        help="only scenarios matching (as for raf conform)",
    )
    clients.add_argument(
        "--chunking",
        action="append",
        type=_chunking,
        metavar="NAME",
        help="a chunking (repeatable; default: whole and random)",
    )
    clients.add_argument(
        "--timeout",
        type=_seconds,
        default=20.0,
        metavar="SECONDS",
        help="how long one call may take (default 20)",
    )
    clients.add_argument("--json", type=Path, metavar="FILE", help="write the matrix as JSON")
    clients.add_argument(
        "--markdown",
        type=Path,
        metavar="FILE",
        help="write the matrix as Markdown (into an existing file between its "
        f"{MATRIX_BEGIN} and {MATRIX_END} lines, when it has them)",
    )

    cassette = sub.add_parser(
        "cassette",
        help="import, check and inspect recorded cassettes",
        description="Work with cassettes (vcrpy YAML files with a raf block; docs/cassettes.md).",
    )
    cassette_sub = cassette.add_subparsers(dest="cassette_command", metavar="ACTION")
    cassette_sub.required = True
    importer = cassette_sub.add_parser(
        "import",
        help="turn recordings made elsewhere into raf cassettes",
        description="Import VCR YAML cassettes (vcrpy, pydantic-ai's parsed_body variant...), "
        "raw .sse/.txt bodies and .jsonl/.ndjson files with one JSON payload per line. Writes "
        "OUT/<dialect>/<scenario>.yaml, secrets scrubbed.",
    )
    importer.add_argument("sources", nargs="+", metavar="SRC", help="files or folders to import")
    importer.add_argument(
        "-o", "--output", type=Path, required=True, metavar="DIR", help="where to write"
    )
    importer.add_argument(
        "--dialect",
        choices=dialect_choices(),
        help="wire format of raw bodies (default: from the request URI, else openai_chat)",
    )
    importer.add_argument("--force", action="store_true", help="overwrite existing cassettes")
    linter = cassette_sub.add_parser(
        "lint",
        help="check cassettes' structure and scan them for secrets",
        description="Check each cassette's structure and scan it for unscrubbed credentials "
        "(Authorization / api-key / cookie headers, key= query parameters, key-shaped strings "
        "in bodies and URIs). Prints file:line: findings; exits 1 on any error.",
    )
    linter.add_argument("paths", nargs="+", metavar="PATH", help="cassette files or folders")
    shower = cassette_sub.add_parser(
        "show",
        help="print a cassette's timeline: events, updates, contents, response",
        description="For each SSE event of each interaction, print the updates and contents "
        "it produced, then the aggregated response. Colour in a terminal, plain when piped.",
    )
    shower.add_argument("file", metavar="FILE", help="a cassette file")
    shower.add_argument("--no-color", action="store_true", help="never use colour")

    schema = sub.add_parser(
        "schema",
        help="print or write the JSON Schemas of the canonical JSON forms",
        description="Without options, print every schema as one JSON object keyed by name. "
        "--write DIR writes DIR/<name>.schema.json; --check DIR exits 1 when those files "
        "are missing or differ from the code.",
    )
    mode = schema.add_mutually_exclusive_group()
    mode.add_argument("--write", metavar="DIR", help="write the schema files into DIR")
    mode.add_argument("--check", metavar="DIR", help="check that DIR holds current schema files")
    return parser


def schema_files() -> dict[str, str]:
    """File name -> text of every published schema (as ``raf schema --write`` writes them)."""
    return {
        f"{name}.schema.json": json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
        for name, doc in json_schemas().items()
    }


def _run_schema(args: argparse.Namespace, out: TextIO) -> int:
    files = schema_files()
    if args.write:
        target = Path(args.write)
        try:
            target.mkdir(parents=True, exist_ok=True)
            for name, text in files.items():
                (target / name).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise _InputError(f"cannot write to {target}: {_reason(exc)}") from exc
        _warn(f"raf: wrote {len(files)} schemas to {target}")
        return 0
    if args.check:
        folder = Path(args.check)
        if not folder.is_dir():
            raise _InputError(f"no schema folder at {folder}")
        problems = {
            name: problem
            for name, text in files.items()
            if (problem := _schema_problem(folder / name, text)) is not None
        }
        for name, problem in problems.items():
            _warn(f"raf: {folder / name} {problem}")
        if problems:
            _warn(f"raf: run `raf schema --write {args.check}`")
        return 1 if problems else 0
    out.write(json.dumps(json_schemas(), indent=2, ensure_ascii=False) + "\n")
    return 0


def _schema_problem(path: Path, text: str) -> str | None:
    """What is wrong with the schema file ``path`` (``None``: it holds ``text``). Reads at
    most one byte more than ``text`` has; opens nothing that is not a regular file."""
    expected = text.encode("utf-8")
    if os.path.lexists(path) and not is_regular_file(path):
        return "is missing or out of date (not a regular file)"
    try:
        return None if read_limited(path, len(expected)) == expected else "is out of date"
    except FileNotFoundError:
        return "is missing or out of date"
    except FileRefused:
        return "is out of date"


class _Limits(TypedDict):
    max_line_bytes: int
    max_event_bytes: int


def _chunking(text: str) -> str:
    try:
        return check_chunking(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _port(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"not a port number (0-65535): {text!r}")
    return int(text)


def _speed(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"not a speed (a number >= 0): {text!r}")
    return value


def _serve_chunking(text: str) -> str:
    return text if text == "recorded" else _chunking(text)


def _run_clients(args: argparse.Namespace, out: TextIO) -> int:
    from raf.clients import adapter  # noqa: PLC0415 - the matrix only when asked
    from raf.clients.matrix import DEFAULT_CHUNKINGS, Cell, merge, run_client  # noqa: PLC0415
    from raf.clients.report import (  # noqa: PLC0415
        Column,
        matrix_markdown,
        write_json,
    )

    suite_folders = bundled()
    chunkings = tuple(args.chunking or DEFAULT_CHUNKINGS)
    names = args.client or client_names()
    console = _Console(file=out)
    columns: list[Column] = []
    cells: list[Cell] = []
    with contextlib.ExitStack() as stack:
        server = stack.enter_context(_replay_server(suite_folders.cassettes))
        for name in names:
            chosen = adapter(name)
            missing = chosen.missing()
            version = chosen.version() or ""
            columns.append(Column(name, version, chosen.dialects, missing=missing, how=chosen.how))
            if missing is not None:
                _warn(f"raf clients: {name}: {missing}")
                continue
            # The libraries' own warnings (serializer notices and the like) are theirs, not
            # the matrix's: they would bury its output.
            with console.status(f"raf clients: {name}"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                mine = run_client(
                    chosen,
                    server,
                    cassettes=suite_folders.cassettes,
                    goldens=suite_folders.goldens,
                    chunkings=chunkings,
                    select=args.select or (),
                    timeout=args.timeout,
                )
            merged = merge(mine)
            cells += merged
            passed = sum(c.status == "pass" for c in merged)
            judged = sum(c.status != "skip" for c in merged)
            console.print(f"{escape(name)} {escape(columns[-1].version)}: {passed}/{judged} pass")
    if args.client and all(c.missing for c in columns):
        raise _InputError("none of the clients asked for is installed (pip install 'raf[clients]')")
    if args.json is not None:
        try:
            write_json(args.json, columns, cells, chunkings)
        except OSError as exc:
            raise _InputError(f"cannot write {args.json}: {_reason(exc)}") from exc
        _warn(f"raf: wrote {args.json}")
    if args.markdown is not None:
        text = matrix_markdown(columns, cells, chunkings)
        try:
            _write_between_markers(args.markdown, text)
        except OSError as exc:
            raise _InputError(f"cannot write {args.markdown}: {_reason(exc)}") from exc
        _warn(f"raf: wrote {args.markdown}")
    return 0


MATRIX_BEGIN = "<!-- raf clients: begin -->"
MATRIX_END = "<!-- raf clients: end -->"


def _write_between_markers(path: Path, text: str) -> None:
    """Write ``text`` to ``path``, or between its marker lines when it has them."""
    if path.is_file():
        current = path.read_text(encoding="utf-8")
        begin, end = current.find(MATRIX_BEGIN), current.find(MATRIX_END)
        if 0 <= begin < end:
            head = current[: begin + len(MATRIX_BEGIN)]
            path.write_text(f"{head}\n{text}\n{current[end:]}", encoding="utf-8")
            return
    path.write_text(text, encoding="utf-8")


def _run_serve(args: argparse.Namespace, out: TextIO) -> int:
    from raf.serve.app import ServeConfig  # noqa: PLC0415 - aiohttp only for this command
    from raf.serve.journal import Journal  # noqa: PLC0415
    from raf.serve.server import bind, serve_forever  # noqa: PLC0415

    folders = args.cassettes or [bundled().cassettes]
    for folder in folders:
        if not folder.is_dir():
            raise _InputError(f"no cassette folder at {folder}")
    try:
        journal = Journal(file=args.journal)
    except OSError as exc:
        raise _InputError(f"cannot write {args.journal}: {_reason(exc)}") from exc
    config = ServeConfig(
        folders=list(folders),
        speed=args.speed,
        chunking=args.chunking,
        max_body=args.max_body,
        max_streams=args.max_streams,
        max_connections=args.max_connections,
        journal=journal,
    )
    try:
        sock = bind(args.host, args.port)
    except OSError as exc:
        journal.close()
        raise _InputError(f"cannot listen on {args.host}:{args.port}: {_reason(exc)}") from exc
    port = sock.getsockname()[1]
    host = f"[{args.host}]" if ":" in args.host else args.host
    if args.host not in ("127.0.0.1", "::1", "localhost"):
        _warn(
            f"raf serve: listening on {args.host}: any machine that reaches it reads the cassettes"
        )

    def ready() -> None:
        out.write(
            f"raf serve: listening on http://{host}:{port} ({len(config.catalog)} cassettes; "
            "Ctrl-C stops)\n"
        )
        out.flush()

    serve_forever(config, sock, ready)
    out.write(f"raf serve: stopped after {journal.count} request(s)\n")
    return 0


def version_text() -> str:
    """What ``raf --version`` prints: raf's version, which build, and the interpreter."""
    build = "compiled" if getattr(raf, "COMPILED", False) else "pure Python"
    return (
        f"raf {raf.__version__} ({build}; {platform.python_implementation()} "
        f"{platform.python_version()})"
    )


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, got {text}")
    return value


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


def _run_conform(args: argparse.Namespace, out: TextIO) -> int:
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


@contextlib.contextmanager
def _replay_server(cassettes_dir: Path) -> Iterator[Any]:
    """``raf serve`` on the suite's cassettes, on a free port of 127.0.0.1."""
    from raf.serve.server import ReplayServer  # noqa: PLC0415 - aiohttp only when asked

    server = ReplayServer([cassettes_dir])
    try:
        server.start()
    except OSError as exc:
        raise _InputError(f"cannot start raf serve: {_reason(exc)}") from exc
    try:
        yield server
    finally:
        server.stop()


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


def _run_cassette(args: argparse.Namespace, out: TextIO) -> int:
    if args.cassette_command == "lint":
        try:
            files = cassette_files(args.paths)
        except CassetteError as exc:
            raise _InputError(str(exc)) from exc
        findings = [finding for file in files for finding in lint_file(file)]
        errors = [f for f in findings if f.severity == "error"]
        for finding in findings:
            out.write(f"{finding}\n")
        _warn(
            f"raf: {len(files)} cassette(s), {len(errors)} error(s), "
            f"{len(findings) - len(errors)} warning(s)"
        )
        return 1 if errors or not files else 0
    if args.cassette_command == "show":
        try:
            cassette = load_cassette(args.file)
        except CassetteError as exc:
            raise _InputError(str(exc)) from exc
        render(_Console(file=out, no_color=args.no_color, highlight=False), cassette)
        return 0
    return _run_import(args, out)


def _run_import(args: argparse.Namespace, out: TextIO) -> int:
    root: Path = args.output
    if root.is_symlink():
        raise _InputError(f"-o {root} is a symbolic link (links are not followed)")
    if root.exists() and not root.is_dir():
        raise _InputError(f"-o {root} exists and is not a folder")
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _InputError(f"cannot create {root}: {_reason(exc)}") from exc
    resolved_root = root.resolve()
    written: set[Path] = set()
    for source in find_files(args.sources, SUFFIXES):
        try:
            imported = import_file(source, dialect=args.dialect)
        except CassetteError as exc:
            _warn(f"raf: skipped {exc}")
            continue
        assert imported.info is not None
        target = root / imported.info.dialect / f"{imported.info.scenario}.yaml"
        if target in written:  # two sources with one name: qualify by the source's folder
            scenario = f"{scenario_name(source.parent)}__{imported.info.scenario}"
            imported.info = msgspec.structs.replace(imported.info, scenario=scenario)
            target = target.with_name(f"{scenario}.yaml")
        problem = _target_problem(target, resolved_root)
        if problem is not None:
            _warn(f"raf: skipped {source}: {problem}")
            continue
        if target.exists() and not args.force:
            _warn(f"raf: skipped {source}: {target} exists (use --force)")
            continue
        try:
            save_cassette(imported, target)
        except CassetteError as exc:  # e.g. a streamed secret that cannot be scrubbed
            _warn(f"raf: skipped {source}: not written: {exc}")
            continue
        except (OSError, ValueError) as exc:
            _warn(f"raf: skipped {source}: cannot write {target}: {_reason(exc)}")
            continue
        out.write(f"{source} -> {target}\n")
        written.add(target)
    _warn(f"raf: imported {len(written)} cassette(s)")
    return 0 if written else 1


def _target_problem(target: Path, resolved_root: Path) -> str | None:
    """Why ``target`` (``OUT/<dialect>/<scenario>.yaml``) must not be written, if it must not:
    a link (the dialect folder or the file; never followed), something that is not a folder
    or a file, or a place outside the output folder."""
    for path in (target.parent, target):
        if path.is_symlink():
            return f"{path} is a symbolic link (links are not followed)"
    if target.parent.exists() and not target.parent.is_dir():
        return f"{target.parent} is not a folder"
    if target.exists() and not target.is_file():
        return f"{target} is not a regular file"
    if target.resolve().parent.parent != resolved_root:
        return f"{target} is not inside the output folder {resolved_root}"
    return None


def _limits(args: argparse.Namespace) -> _Limits:
    return {
        "max_line_bytes": args.max_line_bytes or DEFAULT_MAX_LINE_BYTES,
        "max_event_bytes": args.max_event_bytes or DEFAULT_MAX_EVENT_BYTES,
    }


def _run_sse(args: argparse.Namespace, out: TextIO) -> int:
    decoder = SSEDecoder(**_limits(args))
    with _open_input(args.input) as stream:
        for chunk in _chunks(stream, args.chunk_size):
            for event in decoder.feed(chunk):
                out.write(to_json(event) + "\n")
    decoder.close()
    if decoder.truncated:
        _warn("raf: the stream ended inside an unfinished event (discarded)")
    return 0


def _run_pipeline(args: argparse.Namespace, out: TextIO) -> int:
    errors = 0
    with _open_input(args.input) as stream:
        chunks = _chunks(stream, args.chunk_size)
        if args.output == "updates":
            decoder = UpdateDecoder(args.dialect, framing=args.framing, **_limits(args))
            for update in drive(decoder, chunks):
                errors += isinstance(update, updates.Error)
                out.write(to_json(update) + "\n")
        else:
            pipeline = Pipeline(args.dialect, framing=args.framing, **_limits(args))
            collector = ResponseCollector()
            for result in drive(pipeline, chunks):
                collector.add(result)
                if args.output == "results":
                    out.write(to_json(result, include_meta=args.meta) + "\n")
            response = collector.response()
            errors = len(response.errors)
            if args.output == "response":
                out.write(to_json(response, include_meta=args.meta, indent=2) + "\n")
    return 1 if errors and args.strict else 0


def _writes_to_stdout(args: argparse.Namespace) -> bool:
    return not (args.command == "schema" and (args.write or args.check))


def _dispatch(args: argparse.Namespace, out: TextIO) -> int:
    if args.command == "sse":
        return _run_sse(args, out)
    if args.command == "schema":
        return _run_schema(args, out)
    if args.command == "conform":
        return _run_conform(args, out)
    if args.command == "cassette":
        return _run_cassette(args, out)
    if args.command == "serve":
        return _run_serve(args, out)
    if args.command == "clients":
        return _run_clients(args, out)
    return _run_pipeline(args, out)


def _output_failed(exc: _OutputError) -> int:
    _discard(sys.stdout)
    _warn(f"raf: cannot write to standard output: {exc}")
    return 2


def _run(argv: Sequence[str] | None) -> int:
    try:
        args = _build_parser().parse_args(argv)
    except SystemExit as exc:  # --help (status 0) or a usage error (2), written by argparse
        if exc.code == 0 and sys.stdout is not None:
            try:
                sys.stdout.flush()
            except BrokenPipeError:
                _discard(sys.stdout)
            except (OSError, ValueError) as error:
                return _output_failed(_OutputError(_reason(error)))
        raise
    if args.command in ("sse", "pipeline") and args.input == "-" and sys.stdin is None:
        _warn("raf: standard input is closed")
        return 2
    if sys.stdout is None and _writes_to_stdout(args):
        _warn("raf: standard output is closed")
        return 2
    out = cast(TextIO, _Output(sys.stdout if sys.stdout is not None else io.StringIO()))
    try:
        code = _dispatch(args, out)
    except _InputError as exc:
        _warn(f"raf: {exc}")
        code = 2
    except _OutputError as exc:
        return _output_failed(exc)
    except RafError as exc:
        _warn(f"raf: {exc}")
        code = 1
    except BrokenPipeError:
        # The reader went away (e.g. `raf pipeline x | head`); that is not an error.
        _discard(sys.stdout)
        return 0
    try:
        out.flush()  # here, not at exit: a full disk is reported, with its exit status
    except _OutputError as exc:
        return _output_failed(exc)
    except BrokenPipeError:
        _discard(sys.stdout)
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``raf`` console script; returns the exit status (module docstring).

    Never raises but ``SystemExit`` (from argument parsing: status 2, or 0 for ``--help``):
    an interruption is status 130 and any unexpected exception status 3, each with a
    ``raf: ...`` message (and the traceback when the environment sets ``RAF_DEBUG=1``).
    """
    try:
        return _run(argv)
    except KeyboardInterrupt:
        _warn("raf: interrupted")
        return 130
    except Exception as exc:
        shown = repr(exc)
        if len(shown) > 500:
            shown = shown[:250] + " ... " + shown[-245:]
        _warn(f"raf: internal error: {shown}; please report it")
        if os.environ.get("RAF_DEBUG") == "1" and sys.stderr is not None:
            with contextlib.suppress(OSError, ValueError):
                traceback.print_exc()
        return 3


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
