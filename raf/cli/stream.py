"""``raf sse`` and ``raf pipeline``: a stream from a file or standard input, decoded and printed as
canonical JSON lines."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO, TextIO, TypedDict

from raf import dialects
from raf import framing as framings
from raf.cli._shell import (
    _InputError,
    _positive,
    _reason,
    _warn,
)
from raf.collect import ResponseCollector
from raf.framing.sse import DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_LINE_BYTES, SSEDecoder
from raf.model import updates
from raf.model.canonical import to_json
from raf.model.codes import is_notice
from raf.pipeline import Pipeline, UpdateDecoder, drive

__all__ = ["add_parser", "run_pipeline", "run_sse"]


_READ_SIZE = 64 * 1024


def add_parser(sub: Any) -> None:
    """Add ``raf sse`` and ``raf pipeline`` to the subcommands ``sub``."""
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


class _Limits(TypedDict):
    max_line_bytes: int
    max_event_bytes: int


def _limits(args: argparse.Namespace) -> _Limits:
    return {
        "max_line_bytes": args.max_line_bytes or DEFAULT_MAX_LINE_BYTES,
        "max_event_bytes": args.max_event_bytes or DEFAULT_MAX_EVENT_BYTES,
    }


def run_sse(args: argparse.Namespace, out: TextIO) -> int:
    decoder = SSEDecoder(**_limits(args))
    with _open_input(args.input) as stream:
        for chunk in _chunks(stream, args.chunk_size):
            for event in decoder.feed(chunk):
                out.write(to_json(event) + "\n")
    decoder.close()
    if decoder.truncated:
        _warn("raf: the stream ended inside an unfinished event (discarded)")
    return 0


def run_pipeline(args: argparse.Namespace, out: TextIO) -> int:
    errors = 0
    with _open_input(args.input) as stream:
        chunks = _chunks(stream, args.chunk_size)
        if args.output == "updates":
            decoder = UpdateDecoder(args.dialect, framing=args.framing, **_limits(args))
            for update in drive(decoder, chunks):
                errors += isinstance(update, updates.Error) and not is_notice(update.error_code)
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
