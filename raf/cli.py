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
from typing import Any, BinaryIO, TextIO, TypedDict

from raf import dialects
from raf.collect import ResponseCollector
from raf.errors import RafError
from raf.model import updates
from raf.model.canonical import to_json
from raf.pipeline import Pipeline, UpdateDecoder
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
            for batch in _drive(decoder, chunks):
                for update in batch:
                    errors += isinstance(update, updates.Error)
                    out.write(to_json(update) + "\n")
        else:
            pipeline = Pipeline(args.dialect, **_limits(args))
            collector = ResponseCollector()
            for results in _drive(pipeline, chunks):
                for result in results:
                    collector.add(result)
                    if args.output == "results":
                        out.write(to_json(result, include_meta=args.meta) + "\n")
            response = collector.response()
            errors = len(response.errors)
            if args.output == "response":
                out.write(to_json(response, include_meta=args.meta, indent=2) + "\n")
    return 1 if errors and args.strict else 0


def _drive(machine: UpdateDecoder | Pipeline, chunks: Iterator[bytes]) -> Iterator[list[Any]]:
    """Feed ``chunks`` to a sans-IO machine until it is done, then close it."""
    for chunk in chunks:
        yield machine.feed(chunk)
        if machine.done:
            break
    yield machine.close()


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
