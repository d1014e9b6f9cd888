"""``raf clients``: the real-client matrix (docs/clients.md)."""

from __future__ import annotations

import argparse
import contextlib
import shlex
import warnings
from pathlib import Path
from typing import Any, TextIO

import msgspec
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
from raf.clients import TOOL_LOOP_ADAPTERS, node_names
from raf.clients import names as client_names
from raf.shared.bundled import bundled

__all__ = [
    "HISTORY_BEGIN",
    "HISTORY_END",
    "LOOPS_BEGIN",
    "LOOPS_END",
    "MATRIX_BEGIN",
    "MATRIX_END",
    "add_parser",
    "run",
]


MATRIX_BEGIN = "<!-- raf clients: begin -->"
MATRIX_END = "<!-- raf clients: end -->"
LOOPS_BEGIN = "<!-- raf clients tool loops: begin -->"
LOOPS_END = "<!-- raf clients tool loops: end -->"
HISTORY_BEGIN = "<!-- raf clients history: begin -->"
HISTORY_END = "<!-- raf clients history: end -->"


def _all_names() -> list[str]:
    return client_names() + list(TOOL_LOOP_ADAPTERS) + node_names()


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
        "and versions, cells: pass or a short reason). Then the tool loops: each library's own "
        "tool loop run over every tool-loop recording of its format, judged at levels "
        "response (the final answer) and requests (every request it sent: the request rules "
        "it broke, by id). docs/clients.md explains each cell.",
        epilog="examples:\n"
        "  raf clients --markdown matrix.md --json matrix.json --html matrix.html\n"
        "  raf clients --client openai --client anthropic -k tool\n"
        "  raf clients --tool-loops-only --client openai-loop\n"
        "  raf clients --markdown docs/clients.md   # replaces the parts between its markers\n"
        "  raf clients --history .tox/history --markdown docs/clients.md\n"
        "  raf clients --impl 'node my-adapter.mjs' --name mine --client openai-node\n\n"
        "clients: " + ", ".join(client_names()) + "\n"
        "tool loops: " + ", ".join(TOOL_LOOP_ADAPTERS) + "\n"
        "Node.js (raf/clients/node, npm ci there first): " + ", ".join(node_names()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    clients.add_argument(
        "--client",
        action="append",
        choices=_all_names(),
        metavar="NAME",
        help="only this client or tool loop (repeatable; default: every one whose library is "
        "installed)",
    )
    sections = clients.add_mutually_exclusive_group()
    sections.add_argument(
        "--no-tool-loops",
        dest="tool_loops",
        action="store_false",
        help="only the stream matrix, not the tool loops",
    )
    sections.add_argument(
        "--tool-loops-only",
        action="store_true",
        help="only the tool loops, not the stream matrix",
    )
    sections.add_argument(
        "--history",
        type=Path,
        metavar="DIR",
        help="only the request-side bugs of earlier releases (conformance/client_history.yaml): "
        "each release installed in a virtual environment of its own under DIR (kept, reused) "
        "and its tool loop run on the bug's recording",
    )
    clients.add_argument(
        "--impl",
        action="append",
        default=[],
        metavar="CMD",
        help="also a program of your own speaking raf-conformance/1 with the capability http "
        "(docs/protocol.md; the Node kit: raf kit node) as a column, named by --name "
        "(repeatable, in pairs); its hello decides its dialects, and whether it is also run "
        "over the tool loops (capability tool_loop)",
    )
    clients.add_argument(
        "--name",
        action="append",
        default=[],
        metavar="NAME",
        help="the column's name of the --impl of the same position (default: its hello's name)",
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
        help="how long one call may take (default 20; a whole tool-loop run, three times that)",
    )
    clients.add_argument("--json", type=Path, metavar="FILE", help="write the matrix as JSON")
    clients.add_argument(
        "--html",
        type=Path,
        metavar="FILE",
        help="write the matrix as one self-contained HTML page (a table per format, the "
        "columns grouped by language, each cell's details in its tooltip)",
    )
    clients.add_argument(
        "--markdown",
        type=Path,
        metavar="FILE",
        help="write the matrix as Markdown (into an existing file between its "
        f"{MATRIX_BEGIN} and {MATRIX_END} lines, the tool loops between {LOOPS_BEGIN} and "
        f"{LOOPS_END}, the history between {HISTORY_BEGIN} and {HISTORY_END}, when it has "
        "them)",
    )


def run(args: argparse.Namespace, out: TextIO) -> int:
    if args.history is not None:
        return _run_history(args, out)
    from raf.client_matrix.report import Column, matrix_json, matrix_markdown  # noqa: PLC0415
    from raf.client_matrix.run import DEFAULT_CHUNKINGS  # noqa: PLC0415

    chunkings = tuple(args.chunking or DEFAULT_CHUNKINGS)
    outside = _outside(args)
    given = [name for name in outside if name not in node_names()]  # --impl
    # --impl alone: only the programs given; with --client, those and the programs.
    chosen = args.client or ([] if given else _all_names())
    stream_names = [] if args.tool_loops_only else [n for n in chosen if n in client_names()]
    loop_names = [n for n in chosen if n in TOOL_LOOP_ADAPTERS] if args.tool_loops else []
    programs = [c for n, c in outside.items() if n in chosen or n in given]
    console = _Console(file=out)
    columns: list[Column] = []
    cells: list[Any] = []
    loop_columns: list[Column] = []
    loop_cells: list[Any] = []
    if stream_names or (programs and not args.tool_loops_only):
        columns, cells = _stream_matrix(args, console, stream_names, chunkings, programs)
    if loop_names or (programs and args.tool_loops):
        loop_columns, loop_cells = _tool_loops(args, console, loop_names, chunkings, programs)
    stream_section = bool(columns)
    loop_section = bool(loop_columns)
    every = columns + loop_columns
    if (args.client or given) and every and all(c.missing for c in every):
        if all(c.language == "Python" for c in every):
            raise _InputError(
                "none of the clients asked for is installed (pip install 'raf[clients]')"
            )
        why = {c.name: c.missing for c in every}
        reasons = "; ".join(f"{name}: {reason}" for name, reason in why.items())
        raise _InputError(f"raf clients: none of the clients asked for could run ({reasons})")
    if args.json is not None:
        document: dict[str, Any] = {}
        if stream_section:
            document = matrix_json(columns, cells, chunkings)
        if loop_section:
            from raf.client_matrix.tool_loop_report import tool_loops_json  # noqa: PLC0415

            document["tool_loops"] = tool_loops_json(loop_columns, loop_cells, chunkings)
        _write_file(args.json, msgspec.json.format(msgspec.json.encode(document), indent=2) + b"\n")
    if args.markdown is not None:
        parts = []
        if stream_section:
            parts.append((MATRIX_BEGIN, MATRIX_END, matrix_markdown(columns, cells, chunkings)))
        if loop_section:
            from raf.client_matrix.tool_loop_report import tool_loops_markdown  # noqa: PLC0415

            text = tool_loops_markdown(loop_columns, loop_cells, chunkings)
            parts.append((LOOPS_BEGIN, LOOPS_END, text))
        _write_markdown(args.markdown, parts)
    if args.html is not None:
        from raf.client_matrix.html_report import render_matrix_html  # noqa: PLC0415

        page = render_matrix_html(
            columns, cells, loop_columns=loop_columns, loop_cells=loop_cells, chunkings=chunkings
        )
        _write_file(args.html, page.encode("utf-8"))
    return 0


def _outside(args: argparse.Namespace) -> dict[str, Any]:
    """The columns that are programs: the Node.js adapters, then each ``--impl`` under its
    ``--name`` (default: ``impl-N``; its hello's name is shown in the report)."""
    from raf.client_matrix.outside import OutsideClient, node_clients  # noqa: PLC0415

    if len(args.name) > len(args.impl):
        raise _InputError("raf clients: --name names the --impl of the same position")
    found: dict[str, Any] = dict(node_clients())
    for number, command in enumerate(args.impl):
        name = args.name[number] if number < len(args.name) else f"impl-{number + 1}"
        if name in found or name in client_names() or name in TOOL_LOOP_ADAPTERS:
            raise _InputError(f"raf clients: --name {name}: a column of that name exists")
        try:
            argv = tuple(shlex.split(command))
        except ValueError as exc:
            raise _InputError(f"raf clients: --impl {command!r}: {exc}") from exc
        if not argv:
            raise _InputError("raf clients: --impl: an empty command")
        found[name] = OutsideClient(name, argv)
    return found


def _program_columns(
    console: _Console,
    programs: list[Any],
    open_session: Any,
    wanted: str,
    run: Any,
    *,
    say_missing: bool,
) -> tuple[list[Any], list[Any]]:
    """The columns and cells of the programs of one section (``wanted``: ``streams`` or
    ``loops``, the :class:`~raf.client_matrix.outside.Session` property that says whether a
    program's hello puts it there), each run by ``run(session)``; a program that cannot run
    is a column (``missing``) of the first section run (``say_missing``)."""
    from raf.client_matrix.report import Column  # noqa: PLC0415

    columns: list[Column] = []
    cells: list[Any] = []
    for program in programs:
        with open_session(program) as session:
            if session.missing is not None:
                if say_missing:  # said once, in the first section
                    columns.append(
                        Column(
                            program.name,
                            "",
                            (),
                            missing=session.missing,
                            language=program.language,
                            library="",
                        )
                    )
                    _warn(f"raf clients: {program.name}: {session.missing}")
                continue
            if not getattr(session, wanted):
                continue
            columns.append(
                Column(
                    program.name,
                    session.version,
                    session.dialects,
                    how=session.how,
                    language=program.language,
                    library=session.hello.library or "",
                )
            )
            with console.status(f"raf clients: {program.name}"):
                mine = run(session)
            cells += mine
            passed = sum(c.status in ("pass", "notice") for c in mine)
            judged = sum(c.status != "skip" for c in mine)
            what = "pass" if wanted == "streams" else "tool loops pass"
            console.print(
                f"{escape(program.name)} {escape(session.version)}: {passed}/{judged} {what}"
            )
    return columns, cells


def _library_column(name: str, chosen: Any, missing: str | None) -> Any:
    """The column of a Python library's adapter (an ``Adapter`` or a ``ToolLoopAdapter``)."""
    from raf.client_matrix.report import Column  # noqa: PLC0415

    return Column(
        name,
        chosen.version() or "",
        chosen.dialects,
        missing=missing,
        how=chosen.how,
        library=chosen.distribution,
    )


def _stream_matrix(
    args: argparse.Namespace,
    console: _Console,
    names: list[str],
    chunkings: tuple[str, ...],
    programs: list[Any] = [],  # noqa: B006 - never changed
) -> tuple[list[Any], list[Any]]:
    """The stream matrix: every adapter in ``names`` over the bundled scenarios, then every
    program of ``programs`` whose hello takes one-request cases."""
    from raf.client_matrix.outside import Session, run_outside  # noqa: PLC0415
    from raf.client_matrix.report import Column  # noqa: PLC0415
    from raf.client_matrix.run import Cell, merge, run_client  # noqa: PLC0415
    from raf.clients import adapter  # noqa: PLC0415 - the matrix only when asked

    suite_folders = bundled()
    columns: list[Column] = []
    cells: list[Cell] = []
    with contextlib.ExitStack() as stack:
        server = stack.enter_context(_replay_server(suite_folders.cassettes))
        for name in names:
            chosen = adapter(name)
            missing = chosen.missing()
            columns.append(_library_column(name, chosen, missing))
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
        more, found = _program_columns(
            console,
            programs,
            lambda program: Session.open(program, server, timeout=args.timeout),
            "streams",
            lambda session: merge(
                run_outside(
                    session,
                    cassettes=suite_folders.cassettes,
                    goldens=suite_folders.goldens,
                    chunkings=chunkings,
                    select=args.select or (),
                )
            ),
            say_missing=True,
        )
        columns += more
        cells += found
    return columns, cells


def _tool_loops(
    args: argparse.Namespace,
    console: _Console,
    names: list[str],
    chunkings: tuple[str, ...],
    programs: list[Any] = [],  # noqa: B006 - never changed
) -> tuple[list[Any], list[Any]]:
    """The tool loops: every tool-loop adapter in ``names`` over the tool-loop recordings,
    then every program of ``programs`` whose hello has the capability ``tool_loop``."""
    from raf.cassettes.tool_loops import ToolLoopError, tool_loop_specs  # noqa: PLC0415
    from raf.client_matrix.outside import Session, run_outside_loops  # noqa: PLC0415
    from raf.client_matrix.report import Column  # noqa: PLC0415
    from raf.client_matrix.tool_loops import (  # noqa: PLC0415
        LoopCell,
        merge_loops,
        run_tool_loops,
    )
    from raf.clients import tool_loop_adapter  # noqa: PLC0415

    folder = bundled().tool_loops
    try:
        specs = list(tool_loop_specs(folder))
    except ToolLoopError as exc:
        raise _InputError(f"raf clients: {exc}") from exc
    columns: list[Column] = []
    cells: list[LoopCell] = []
    with contextlib.ExitStack() as stack:
        server = stack.enter_context(_replay_server(folder))
        for name in names:
            chosen = tool_loop_adapter(name)
            missing = chosen.missing()
            columns.append(_library_column(name, chosen, missing))
            if missing is not None:
                _warn(f"raf clients: {name}: {missing}")
                continue
            with console.status(f"raf clients: {name}"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                mine = run_tool_loops(
                    chosen,
                    server,
                    specs,
                    chunkings=chunkings,
                    select=args.select or (),
                    timeout=args.timeout * 3,
                )
            merged = merge_loops(mine)
            cells += merged
            passed = sum(c.status in ("pass", "notice") for c in merged)
            judged = sum(c.status != "skip" for c in merged)
            console.print(
                f"{escape(name)} {escape(columns[-1].version)}: {passed}/{judged} tool loops pass"
            )
        more, found = _program_columns(
            console,
            programs,
            lambda program: Session.open(program, server, timeout=args.timeout * 3),
            "loops",
            lambda session: merge_loops(
                run_outside_loops(
                    session,
                    folder=folder,
                    specs=specs,
                    chunkings=chunkings,
                    select=args.select or (),
                )
            ),
            say_missing=args.tool_loops_only,
        )
        columns += more
        cells += found
    return columns, cells


def _run_history(args: argparse.Namespace, out: TextIO) -> int:
    """``raf clients --history DIR``: every request-side bug of an earlier release,
    reproduced on it and shown fixed on the release after."""
    from raf.client_matrix.history import (  # noqa: PLC0415
        HistoryError,
        history_markdown,
        load_history,
        run_history,
    )

    if args.html is not None or args.impl:
        given = "--html" if args.html is not None else "--impl"
        raise _InputError(f"raf clients: {given} does not go with --history")
    console = _Console(file=out)
    try:
        bugs = load_history()
    except HistoryError as exc:
        raise _InputError(f"raf clients: {exc}") from exc
    chosen = [b for b in bugs if not args.client or b.library in args.client]
    chosen = [b for b in chosen if not args.select or any(k in b.id for k in args.select)]
    results = []
    for bug in chosen:
        with console.status(f"raf clients --history: {bug.id}"):
            result = run_history(bug, args.history, timeout=args.timeout * 3)
        results.append(result)
        console.print(f"{escape(bug.id)}: {escape(result.summary)}")
    if args.json is not None:
        document = {"history": [r.to_builtins() for r in results]}
        _write_file(args.json, msgspec.json.format(msgspec.json.encode(document), indent=2) + b"\n")
    if args.markdown is not None:
        _write_markdown(args.markdown, [(HISTORY_BEGIN, HISTORY_END, history_markdown(results))])
    return 0 if all(r.shown for r in results) else 1


def _write_file(path: Path, data: bytes) -> None:
    try:
        path.write_bytes(data)
    except OSError as exc:
        raise _InputError(f"cannot write {path}: {_reason(exc)}") from exc
    _warn(f"raf: wrote {path}")


def _write_markdown(path: Path, parts: list[tuple[str, str, str]]) -> None:
    """Write each ``(begin, end, text)`` between its marker lines of ``path``; a file with
    none of the markers (or none at all) becomes the texts, in order. A file with some of
    them but not those of a text is an input error (nothing is written)."""
    try:
        current = path.read_text(encoding="utf-8") if path.is_file() else ""
        placed = current
        missing = []
        for begin, end, text in parts:
            updated = _between_markers(placed, begin, end, text)
            if updated is None:
                missing.append(begin)
            else:
                placed = updated
        if len(missing) == len(parts):
            placed = "\n".join(text for _, _, text in parts)
        elif missing:
            raise _InputError(f"{path} has no {' or '.join(missing)} line (and its end line)")
        path.write_text(placed, encoding="utf-8")
    except OSError as exc:
        raise _InputError(f"cannot write {path}: {_reason(exc)}") from exc
    _warn(f"raf: wrote {path}")


def _between_markers(current: str, begin: str, end: str, text: str) -> str | None:
    """``current`` with ``text`` between its ``begin`` and ``end`` lines; ``None`` when it
    has no such lines."""
    start, stop = current.find(begin), current.find(end)
    if 0 <= start < stop:
        return f"{current[: start + len(begin)]}\n{text}\n{current[stop:]}"
    return None
