"""``raf agui verify``: an AG-UI event stream from a file or standard input, checked against the
lifecycle rules of AG-UI's verifier (:mod:`raf.interop.agui_verify`), every violation printed."""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO

from raf.cli._shell import _InputError, _positive
from raf.cli.stream import _chunks, _open_input
from raf.errors import SSELimitExceeded
from raf.framing import AutoFraming, ServerSentEvent
from raf.framing.sse import DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_LINE_BYTES
from raf.interop.agui_verify import Verifier, Violation
from raf.safe_json import UnusableJSON, decode_strict

__all__ = ["add_parser", "run"]

_EPILOG = """\
input:
  The framing is judged from the first byte that is not whitespace: "{" is JSON lines (one
  event per line), "[" one JSON array of events, anything else Server-Sent Events, whose
  data fields are the events (what AG-UI's EventEncoder writes: "data: {...}" and a blank
  line). A frame that is not JSON is a violation (not_json) at its position.

output:
  One line per violation, "POSITION: RULE: MESSAGE" (POSITION is the event's index, from 0),
  then a summary line; with --json one JSON object: input, framing, events, valid,
  violations (each with position, rule, message, event_type). The rules and their sources:
  docs/interop.md, or raf/interop/agui_rules.yaml.

exit codes:
  0  the stream is valid
  1  it broke at least one rule
  2  the input cannot be read: a file that is missing or unreadable, not one complete event
     in it, a line or event past the size limits
"""


def add_parser(sub: Any) -> None:
    """Add ``raf agui`` (with its command ``verify``) to the subcommands ``sub``."""
    agui = sub.add_parser(
        "agui",
        help="AG-UI event streams: verify one against AG-UI's lifecycle rules",
        description="Tools for AG-UI event streams.",
    )
    commands = agui.add_subparsers(dest="agui_command", metavar="COMMAND")
    commands.required = True
    verify = commands.add_parser(
        "verify",
        help="check an AG-UI event stream; print every violation with its position",
        description="Check FILE, an AG-UI event stream (SSE or JSON lines), against the\n"
        "lifecycle rules of AG-UI's TypeScript verifier (a run starts first, content and end\n"
        "events need an open start of the same id, nothing after RUN_ERROR, RUN_FINISHED only\n"
        "when everything is closed, ...), and print every violation, not only the first.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    verify.add_argument("input", metavar="FILE", help="the event stream, or - for stdin")
    verify.add_argument(
        "--json", action="store_true", help="print one JSON object instead of lines"
    )
    verify.add_argument(
        "--no-chunks",
        dest="chunks",
        action="store_false",
        help="do not expand *_CHUNK events into start/content/end events before checking "
        "(the TypeScript client expands them; verify.ts alone does not)",
    )
    verify.add_argument(
        "--max-line-bytes",
        type=_positive,
        metavar="N",
        help="longest accepted SSE line (default 16 MiB)",
    )
    verify.add_argument(
        "--max-event-bytes",
        type=_positive,
        metavar="N",
        help="largest accepted event (default 32 MiB)",
    )


def run(args: argparse.Namespace, out: TextIO) -> int:
    """``raf agui verify``: 0 valid, 1 violations; an unusable input raises
    :class:`_InputError` (status 2)."""
    name = "<stdin>" if args.input == "-" else args.input
    framing = AutoFraming(
        max_line_bytes=args.max_line_bytes or DEFAULT_MAX_LINE_BYTES,
        max_event_bytes=args.max_event_bytes or DEFAULT_MAX_EVENT_BYTES,
    )
    verifier = Verifier(chunks=args.chunks)
    found: list[Violation] = []

    def take(frames: list[ServerSentEvent]) -> None:
        for frame in frames:
            try:
                value = decode_strict(frame.data)
            except UnusableJSON as exc:
                new = verifier.feed_unreadable(exc.reason or exc.detail)
            else:
                new = verifier.feed(value)
            found.extend(new)
            if not args.json:
                out.writelines(f"{violation}\n" for violation in new)

    try:
        with _open_input(args.input) as stream:
            for chunk in _chunks(stream, None):
                take(framing.feed(chunk))
        take(framing.close())
    except SSELimitExceeded as exc:
        take(exc.events)
        option = "--max-line-bytes" if exc.kind == "line" else "--max-event-bytes"
        raise _InputError(
            f"{name}: a {exc.kind} is longer than the limit of {exc.limit} bytes ({option}); "
            f"verified the {verifier.position} events before it"
        ) from None
    if verifier.position == 0:
        what = "only an unfinished frame" if framing.truncated else "no SSE data field"
        raise _InputError(f"{name}: no event in it ({what}, JSON line or JSON array)")
    end = verifier.close(truncated=framing.truncated)
    found += end
    if args.json:
        report = {
            "input": name,
            "framing": framing.chosen,
            "events": verifier.position,
            "valid": not found,
            "violations": [violation.to_json() for violation in found],
        }
        out.write(json.dumps(report, ensure_ascii=True) + "\n")
    else:
        out.writelines(f"{violation}\n" for violation in end)
        verdict = "valid" if not found else f"{len(found)} violation{'s' * (len(found) != 1)}"
        events = f"{verifier.position} event{'s' * (verifier.position != 1)}"
        out.write(f"{name}: {events} ({framing.chosen}): {verdict}\n")
    return 1 if found else 0
