"""The ``raf`` command line: argument parsing, file IO and exit codes only.

One module per command, each with its ``add_parser(sub)`` and its ``run``: ``stream`` (``raf
sse``, ``raf pipeline``), ``conform``, ``serve``, ``clients``, ``cassette``, ``schema``,
``chat``, ``kit``, ``agui`` (``raf agui verify``), ``fuzz``, ``cost``;
``_shell`` has what they share (the two errors, the guarded output, argument types). This
module builds the parser, dispatches and turns every exception into an exit status.

Exit codes (also in ``raf --help`` and the README):

* 0: success; also when the reader of the output goes away (``raf pipeline x | head``);
* 1: a check failed: the stream had errors and ``--strict`` was given, ``cassette lint``
  found an error, ``agui verify`` found a violation, ``conform`` found a difference or a
  problem, ``fuzz`` found a failure, ``cost`` found a ``performance`` finding, ``schema
  --check`` found stale files, ``cassette import`` wrote nothing, a stream passed a limit of
  ``raf sse``, or ``chat`` sent a request that differs from the recording;
* 2: usage error, or an input or output raf cannot use: a file that is missing, unreadable,
  not a regular file, too large or not a cassette (``cassette show``), an output folder that
  is a file or a link, standard input or output closed or unwritable;
* 3: internal error (a bug in raf); ``RAF_DEBUG=1`` prints its traceback;
* 130: interrupted (Ctrl-C);
* 143: ``conform`` stopped by SIGTERM (after stopping the implementation and writing the
  partial reports, as for Ctrl-C).

Whatever the input, no other exit code and no traceback: :func:`main` turns every exception
into a one-line ``raf: ...`` message on standard error.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import platform
import sys
import traceback
from collections.abc import Sequence
from typing import TextIO, cast

import raf
from raf.cli import (
    agui,
    cassette,
    chat,
    clients,
    conform,
    cost,
    fuzz,
    kit,
    record,
    schema,
    serve,
    stream,
)
from raf.cli._shell import (
    _discard,
    _InputError,
    _Output,
    _OutputError,
    _reason,
    _warn,
)
from raf.cli.clients import MATRIX_BEGIN, MATRIX_END
from raf.cli.schema import schema_files
from raf.conformance.runner import Interrupted
from raf.errors import RafError

__all__ = ["MATRIX_BEGIN", "MATRIX_END", "main", "schema_files", "version_text"]

_DESCRIPTION = """\
raf: reference streaming pipeline for LLM clients.

Decode Server-Sent Events from a recorded or live body and print what raf makes of it, as
canonical JSON lines (one object per line; see docs/model.md)."""

_EPILOG = """\
examples:
  raf sse examples/openai_chat_parallel_tools.sse
  raf pipeline examples/openai_chat_parallel_tools.sse --chunk-size 1
  raf pipeline examples/openai_chat_parallel_tools.sse --response
  raf pipeline examples/openai_chat_parallel_tools.sse --format ag-ui   (docs/interop.md)
  curl -sN https://api.example.com/v1/chat/completions ... | raf pipeline -

exit codes:
  0    success (also when the reader of the output goes away, as in `raf ... | head`)
  1    a check failed: --strict and the stream had errors, lint found an error, conform
       found a difference, fuzz found a failure, cost found a performance finding, agui
       verify found a violation, schema --check found stale files, import wrote nothing,
       sse met a stream past a size limit, chat sent a request that differs from the
       recording
  2    usage error, or an input or output raf cannot use (missing, unreadable, not a
       regular file, too large, not a cassette; standard input or output closed or full)
  3    internal error: a bug in raf, please report it (RAF_DEBUG=1 prints the traceback)
  130  interrupted (Ctrl-C)
  143  terminated (SIGTERM, while raf conform runs)
"""


def version_text() -> str:
    """What ``raf --version`` prints: raf's version, which build, and the interpreter."""
    build = "compiled" if getattr(raf, "COMPILED", False) else "pure Python"
    return (
        f"raf {raf.__version__} ({build}; {platform.python_implementation()} "
        f"{platform.python_version()})"
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
    for command in (
        stream,
        conform,
        fuzz,
        cost,
        serve,
        record,
        clients,
        cassette,
        schema,
        chat,
        kit,
        agui,
    ):
        command.add_parser(sub)
    return parser


def _writes_to_stdout(args: argparse.Namespace) -> bool:
    if args.command == "kit":
        return bool(args.output == "-")
    return not (args.command == "schema" and (args.write or args.check))


def _dispatch(args: argparse.Namespace, out: TextIO) -> int:
    if args.command == "sse":
        return stream.run_sse(args, out)
    if args.command == "schema":
        return schema.run(args, out)
    if args.command == "conform":
        return conform.run(args, out)
    if args.command == "fuzz":
        return fuzz.run(args, out)
    if args.command == "cost":
        return cost.run(args, out)
    if args.command == "cassette":
        return cassette.run(args, out)
    if args.command == "serve":
        return serve.run(args, out)
    if args.command == "record":
        return record.run(args, out)
    if args.command == "clients":
        return clients.run(args, out)
    if args.command == "chat":
        return chat.run(args, out)
    if args.command == "kit":
        return kit.run(args, out)
    if args.command == "agui":
        return agui.run(args, out)
    return stream.run_pipeline(args, out)


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
    if args.command in ("sse", "pipeline", "agui") and args.input == "-" and sys.stdin is None:
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
    except Interrupted:  # SIGTERM between the run and its reports
        _warn("raf: terminated")
        return 143
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
