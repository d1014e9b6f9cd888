"""``raf clients``: the real-client matrix (docs/clients.md)."""

from __future__ import annotations

import argparse
import contextlib
import warnings
from pathlib import Path
from typing import Any, TextIO

from rich.markup import escape

from raf.cli._shell import (
    _chunking,
    _Console,
    _InputError,
    _reason,
    _replay_server,
    _seconds,
    _warn,
)
from raf.clients import names as client_names
from raf.shared.bundled import bundled

__all__ = ["MATRIX_BEGIN", "MATRIX_END", "add_parser", "run"]


MATRIX_BEGIN = "<!-- raf clients: begin -->"
MATRIX_END = "<!-- raf clients: end -->"


def add_parser(sub: Any) -> None:
    """Add ``raf clients`` to the subcommands ``sub``."""
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


def run(args: argparse.Namespace, out: TextIO) -> int:
    from raf.client_matrix.report import (  # noqa: PLC0415
        Column,
        matrix_markdown,
        write_json,
    )
    from raf.client_matrix.run import DEFAULT_CHUNKINGS, Cell, merge, run_client  # noqa: PLC0415
    from raf.clients import adapter  # noqa: PLC0415 - the matrix only when asked

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
            passed = sum(c.status in ("pass", "notice") for c in merged)
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
