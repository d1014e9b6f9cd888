"""``raf sse`` and ``raf pipeline``: a stream from a file or standard input, decoded and printed as
canonical JSON lines, or (``raf pipeline --format NAME``) in one of the message models of
:mod:`raf.interop`, framed as that model's consumers read it."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO, TextIO, TypedDict

from raf import dialects, interop
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
from raf.model.response import AgentResponseResult
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
        "results, or the aggregated response. The output does not depend on --chunk-size. "
        "With --format NAME, the results are printed in another message model instead "
        "(docs/interop.md), in that model's framing: one JSON item per line, or for a model "
        "carried as Server-Sent Events the SSE bytes themselves (data: ... events, then its "
        "end marker), byte for byte what `raf serve` sends for a case asked /as/NAME; with "
        "--response, the model's own form of the whole response.",
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
    pipeline.set_defaults(output=None)
    pipeline.add_argument(
        "--format",
        default="canonical",
        choices=["canonical", *interop.names()],
        help="the message model to print: canonical (raf's own JSON, the default) or one of "
        "raf.interop's models; NAME prints the results (or with --response the whole "
        "response) as NAME's items, framed as NAME's consumers read them (JSON lines, or SSE "
        "events for the models carried as SSE)",
    )
    pipeline.add_argument(
        "--meta",
        action="store_true",
        help="include per-content metadata (timestamps) in --results and --response "
        "(canonical output only)",
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
    if args.format != "canonical":
        return _run_model(args, out)
    output = args.output or "updates"
    errors = 0
    with _open_input(args.input) as stream:
        chunks = _chunks(stream, args.chunk_size)
        if output == "updates":
            decoder = UpdateDecoder(args.dialect, framing=args.framing, **_limits(args))
            for update in drive(decoder, chunks):
                errors += isinstance(update, updates.Error) and not is_notice(update.error_code)
                out.write(to_json(update) + "\n")
        else:
            pipeline = Pipeline(args.dialect, framing=args.framing, **_limits(args))
            collector = ResponseCollector()
            for result in drive(pipeline, chunks):
                collector.add(result)
                if output == "results":
                    out.write(to_json(result, include_meta=args.meta) + "\n")
            response = collector.response()
            errors = len(response.errors)
            if output == "response":
                out.write(to_json(response, include_meta=args.meta, indent=2) + "\n")
    return 1 if errors and args.strict else 0


def _run_model(args: argparse.Namespace, out: TextIO) -> int:
    """``--format NAME``: the results as NAME's items in NAME's framing, written as they come
    (a live stream stays live), or with ``--response`` NAME's form of the whole response.
    Usage errors are found before the input is read."""
    name = args.format
    if args.output == "updates":
        raise _InputError(
            f"--updates prints raf's own updates; --format {name} encodes raf's results: "
            "drop --updates (or use --format canonical)"
        )
    if args.meta:
        raise _InputError(f"--meta applies to the canonical output, not to --format {name}")
    model = interop.get(name)  # a model that cannot be loaded is a bug: status 3
    if args.output == "response" and model.aggregate is None:
        raise _InputError(
            f"{model.title} ({name}) has no form of a whole response: drop --response to "
            f"print its stream, or use --format canonical"
        )
    collector = ResponseCollector()
    with _open_input(args.input) as stream:
        pipeline = Pipeline(args.dialect, framing=args.framing, **_limits(args))
        results = drive(pipeline, _chunks(stream, args.chunk_size))
        if args.output == "response":
            for result in results:
                collector.add(result)
        else:
            for item in interop.encode_all(model, _kept(results, collector)):
                out.write(interop.frame(model, item).decode())
            if model.trailer:
                out.write(model.trailer.decode())
    response = collector.response()
    if args.output == "response":
        assert model.aggregate is not None
        aggregate = model.aggregate(response)
        out.write(json.dumps(aggregate, ensure_ascii=False, indent=2) + "\n")
    return 1 if response.errors and args.strict else 0


def _kept(
    results: Iterator[AgentResponseResult], collector: ResponseCollector
) -> Iterator[AgentResponseResult]:
    for result in results:
        collector.add(result)
        yield result
