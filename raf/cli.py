"""The ``raf`` command line: argument parsing, file IO and exit codes only.

Exit codes: 0 success; 1 the stream had errors and ``--strict`` was given, or a check failed;
2 usage error or unreadable input.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import BinaryIO, TextIO, TypedDict

import msgspec
from rich.console import Console

from raf import dialects
from raf.cassettes.importers import SUFFIXES, import_file, scenario_name
from raf.cassettes.lint import cassette_files, lint_paths
from raf.cassettes.persister import load as load_cassette
from raf.cassettes.persister import save as save_cassette
from raf.cassettes.show import render
from raf.chunking import STANDARD_CHUNKINGS, check_chunking
from raf.collect import ResponseCollector
from raf.conformance.report import conform
from raf.errors import CassetteError, RafError
from raf.model import updates
from raf.model.canonical import to_json
from raf.pipeline import Pipeline, UpdateDecoder, drive
from raf.schema import json_schemas
from raf.sse import DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_LINE_BYTES, SSEDecoder

__all__ = ["main", "schema_files"]

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
"""


class _InputError(Exception):
    pass


def _open_input(path: str) -> BinaryIO:
    if path == "-":
        return sys.stdin.buffer
    try:
        return Path(path).open("rb")
    except OSError as exc:
        raise _InputError(f"cannot read {path}: {exc.strerror or exc}") from exc


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
        description="Run FILE through the SSE decoder, a dialect, the converter and the "
        "aggregation, and print one stage as canonical JSON: the updates (default), the "
        "results, or the aggregated response. The output does not depend on --chunk-size.",
    )
    _add_input(pipeline)
    pipeline.add_argument(
        "--dialect",
        default="openai_chat",
        choices=dialects.names(),
        help="wire format of the stream (default: openai_chat)",
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
        help="run every bundled cassette through the pipeline and compare with the goldens",
        description="Run every cassette under CASSETTES through raf's reference pipeline, "
        "under several network chunkings, and compare the updates, results and aggregated "
        "response with the goldens under GOLDENS. Prints a progress bar, a summary table and "
        "a diff for each difference; exits 1 when anything differs.",
    )
    conform_parser.add_argument(
        "--cassettes", type=Path, metavar="DIR", help="cassette folder (default: ./cassettes)"
    )
    conform_parser.add_argument(
        "--goldens", type=Path, metavar="DIR", help="golden folder (default: ./conformance/goldens)"
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
        "-k",
        dest="select",
        metavar="PATTERN",
        help="only scenarios whose name matches this shell pattern",
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
        target.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            (target / name).write_text(text, encoding="utf-8")
        print(f"raf: wrote {len(files)} schemas to {target}", file=sys.stderr)
        return 0
    if args.check:
        stale = [
            name
            for name, text in files.items()
            if not (Path(args.check) / name).is_file()
            or (Path(args.check) / name).read_text(encoding="utf-8") != text
        ]
        for name in stale:
            print(f"raf: {Path(args.check) / name} is missing or out of date", file=sys.stderr)
        if stale:
            print(f"raf: run `raf schema --write {args.check}`", file=sys.stderr)
        return 1 if stale else 0
    out.write(json.dumps(json_schemas(), indent=2, ensure_ascii=False) + "\n")
    return 0


class _Limits(TypedDict):
    max_line_bytes: int
    max_event_bytes: int


def _chunking(text: str) -> str:
    try:
        return check_chunking(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _data_root() -> Path:
    """Where the bundled cassettes and goldens are: the working folder when it has them,
    else the repository this package was installed from (editable installs)."""
    here = Path.cwd()
    if (here / "conformance").is_dir():
        return here
    return Path(__file__).resolve().parents[1]


def _run_conform(args: argparse.Namespace) -> int:
    root = _data_root()
    cassettes_dir = args.cassettes or root / "cassettes"
    goldens_dir = args.goldens or root / "conformance" / "goldens"
    if not cassettes_dir.is_dir():
        raise _InputError(f"no cassette folder at {cassettes_dir} (pass --cassettes DIR)")
    console = Console()
    reports = conform(
        console,
        cassettes_dir,
        goldens_dir,
        chunkings=args.chunking or STANDARD_CHUNKINGS,
        select=args.select,
    )
    if not reports:
        console.print("no cassettes matched")
        return 1
    return 0 if all(r.ok for r in reports) else 1


def _run_cassette(args: argparse.Namespace, out: TextIO) -> int:
    if args.cassette_command == "lint":
        findings = lint_paths(args.paths)
        errors = [f for f in findings if f.severity == "error"]
        for finding in findings:
            out.write(f"{finding}\n")
        files = len(cassette_files(args.paths))
        print(
            f"raf: {files} cassette(s), {len(errors)} error(s), "
            f"{len(findings) - len(errors)} warning(s)",
            file=sys.stderr,
        )
        return 1 if errors or not files else 0
    if args.cassette_command == "show":
        try:
            cassette = load_cassette(args.file)
        except CassetteError as exc:
            raise _InputError(str(exc)) from exc
        render(Console(no_color=args.no_color, highlight=False), cassette)
        return 0
    written: set[Path] = set()
    for source in _import_sources(args.sources):
        try:
            imported = import_file(source, dialect=args.dialect)
        except CassetteError as exc:
            print(f"raf: skipped {exc}", file=sys.stderr)
            continue
        assert imported.info is not None
        target = args.output / imported.info.dialect / f"{imported.info.scenario}.yaml"
        if target in written:  # two sources with one name: qualify by the source's folder
            scenario = f"{scenario_name(source.parent)}__{imported.info.scenario}"
            imported.info = msgspec.structs.replace(imported.info, scenario=scenario)
            target = target.with_name(f"{scenario}.yaml")
        if target.exists() and not args.force:
            print(f"raf: skipped {source}: {target} exists (use --force)", file=sys.stderr)
            continue
        save_cassette(imported, target)
        out.write(f"{source} -> {target}\n")
        written.add(target)
    print(f"raf: imported {len(written)} cassette(s)", file=sys.stderr)
    return 0 if written else 1


def _import_sources(sources: Sequence[str]) -> list[Path]:
    out: list[Path] = []
    for source in map(Path, sources):
        if source.is_dir():
            out.extend(sorted(p for p in source.rglob("*") if p.suffix.lower() in SUFFIXES))
        else:
            out.append(source)
    return out


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
        print("raf: the stream ended inside an unfinished event (discarded)", file=sys.stderr)
    return 0


def _run_pipeline(args: argparse.Namespace, out: TextIO) -> int:
    errors = 0
    with _open_input(args.input) as stream:
        chunks = _chunks(stream, args.chunk_size)
        if args.output == "updates":
            decoder = UpdateDecoder(args.dialect, **_limits(args))
            for update in drive(decoder, chunks):
                errors += isinstance(update, updates.Error)
                out.write(to_json(update) + "\n")
        else:
            pipeline = Pipeline(args.dialect, **_limits(args))
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


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``raf`` console script."""
    parser = _build_parser()
    args = parser.parse_args(argv)
    out = sys.stdout
    try:
        if args.command == "sse":
            return _run_sse(args, out)
        if args.command == "schema":
            return _run_schema(args, out)
        if args.command == "conform":
            return _run_conform(args)
        if args.command == "cassette":
            return _run_cassette(args, out)
        return _run_pipeline(args, out)
    except _InputError as exc:
        print(f"raf: {exc}", file=sys.stderr)
        return 2
    except RafError as exc:
        print(f"raf: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader went away (e.g. `raf pipeline x | head`); that is not an error.
        sys.stderr.close()
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
