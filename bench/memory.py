"""Peak memory of each stage on hostile input, as a multiple of the limit that bounds it.

Each case feeds one stage an input built to make it grow (an endless line, an endless event,
a flood of bad payloads, huge or countless tool calls) in 64 KiB network reads, and measures
the peak of the Python heap with ``tracemalloc`` while the input is streamed from a generator
(so the input itself is never in memory). It prints the peak and the peak divided by the
quantity docs/limits.md says bounds that stage (a limit, or the size of the one payload in
flight): a constant that does not grow with the length of the input. ``--quick`` shrinks the
inputs (same limits, smaller multiples of them). The measurement is the harness's
``peak_heap`` (bench/harness.py); each case's result is checked before its row is printed.

Run: ``python bench/memory.py``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from typing import Any

from harness import peak_heap, print_environment, table

from raf.limits import (
    DEFAULT_MAX_ARGUMENTS_CHARS,
    DEFAULT_MAX_EVENT_BYTES,
    DEFAULT_MAX_LINE_BYTES,
    DEFAULT_MAX_RAW_CHARS,
    DEFAULT_MAX_TOTAL_ARGUMENTS_CHARS,
)
from raf.pipeline import iter_updates, respond, run

READ = 64 * 1024
MIB = 1024 * 1024


def reads(parts: Iterator[bytes]) -> Iterator[bytes]:
    """Re-cut a stream of parts into 64 KiB network reads, lazily."""
    pending = b""
    for part in parts:
        pending += part
        while len(pending) >= READ:
            yield pending[:READ]
            pending = pending[READ:]
    if pending:
        yield pending


def peak(consume: Callable[[], Any]) -> tuple[int, Any]:
    """The peak heap of ``consume()`` in bytes, and its result."""
    heap, result = peak_heap(consume)
    return heap.peak, result


def endless_line(total: int) -> Iterator[bytes]:
    yield b"data: "
    for _ in range(total // READ):
        yield b"x" * READ


def endless_event(total: int) -> Iterator[bytes]:
    line = b"data: " + b"y" * 1000 + b"\n"
    for _ in range(total // len(line)):
        yield line


def bad_payloads(count: int, size: int) -> Iterator[bytes]:
    for _ in range(count):
        yield b"data: {" + b"z" * size + b"\n\n"
    yield b"data: [DONE]\n\n"


def one_huge_call(chars: int) -> Iterator[bytes]:
    def chunk(arguments: str, first: bool = False) -> bytes:
        function: dict[str, Any] = {"arguments": arguments}
        entry: dict[str, Any] = {"index": 0, "function": function}
        if first:
            function["name"] = "write"
            entry["id"] = "call_0"
        return (
            b"data: "
            + json.dumps({"choices": [{"delta": {"tool_calls": [entry]}}]}).encode()
            + b"\n\n"
        )

    yield chunk('{"text": "', first=True)
    piece = "abcdefgh" * 512
    for _ in range(chars // len(piece)):
        yield chunk(piece)
    yield chunk('"}')
    yield b"data: [DONE]\n\n"


def many_calls(count: int, chars: int) -> Iterator[bytes]:
    for n in range(count):
        function = {"name": "f", "arguments": '{"a": "' + "q" * chars + '"}'}
        entry = {"index": n, "id": f"call_{n}", "function": function}
        yield (
            b"data: "
            + json.dumps({"choices": [{"delta": {"tool_calls": [entry]}}]}).encode()
            + b"\n\n"
        )
    yield b"data: [DONE]\n\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller inputs")
    quick = parser.parse_args().quick
    scale = 1 if quick else 2
    print_environment()
    print(f"reads of {READ // 1024} KiB")
    rows: list[list[str]] = []

    def report(name: str, fed: int, high: int, unit: int, unit_name: str) -> None:
        rows.append(
            [name, f"{fed / MIB:.0f}M", f"{high / MIB:.1f}M", f"{high / unit:.2f} x {unit_name}"]
        )

    # SSE: a line that never ends stops at max_line_bytes (the buffer, and one copy when it is
    # measured), whatever the length of the stream.
    total = (1 + scale) * DEFAULT_MAX_LINE_BYTES
    high, out = peak(lambda: list(iter_updates(reads(endless_line(total)))))
    assert [u.error_code for u in out] == ["sse_limit_exceeded"], out
    report("SSE: a line that never ends", total, high, DEFAULT_MAX_LINE_BYTES, "max_line_bytes")

    total = (1 + scale) * DEFAULT_MAX_EVENT_BYTES
    high, out = peak(lambda: list(iter_updates(reads(endless_event(total)))))
    assert [u.error_code for u in out] == ["sse_limit_exceeded"], out
    report("SSE: an event that never ends", total, high, DEFAULT_MAX_EVENT_BYTES, "max_event_bytes")

    # Dialect + collect: each bad payload's error keeps a bounded excerpt, so 200 payloads of
    # 1 MiB cost 200 excerpts, not 200 MiB (plus one payload in flight, decoded once).
    count, size = 100 * scale, MIB
    high, response = peak(lambda: respond(reads(bad_payloads(count, size))))
    assert len(response.errors) == count
    report(
        f"dialect: {count} bad payloads of 1 MiB each, respond()",
        count * size,
        high - count * (DEFAULT_MAX_RAW_CHARS + 2048),
        size,
        "one payload (+ 6 KiB per error)",
    )

    # Converter: one call's arguments are held about once (plus the parser's copy of the open
    # string value) up to max_arguments_chars; past it the call is dropped and memory freed.
    chars = DEFAULT_MAX_ARGUMENTS_CHARS // (2 if quick else 1) - 64
    high, response = peak(lambda: respond(reads(one_huge_call(chars))))
    assert response.tool_calls[0].arguments["text"].startswith("abcdefgh"), response.errors
    report(
        f"converter: one call, {chars / MIB:.0f} Mi chars of arguments",
        chars,
        high,
        chars,
        "its arguments",
    )
    over = DEFAULT_MAX_ARGUMENTS_CHARS * 2
    high, out = peak(lambda: sum(len(r.contents) for r in run(reads(one_huge_call(over)))))
    report(
        "converter: one call past max_arguments_chars, run()",
        over,
        high,
        DEFAULT_MAX_ARGUMENTS_CHARS,
        "max_arguments_chars",
    )

    # Many calls: all the turn's arguments together stop at max_total_arguments_chars.
    calls, each = (48, 2 * MIB) if quick else (80, 2 * MIB)
    high, response = peak(lambda: respond(reads(many_calls(calls, each))))
    dropped = sum(e.error_code == "tool_arguments_too_large" for e in response.errors)
    report(
        f"converter: {calls} calls of 2 Mi chars ({dropped} past the turn's limit)",
        calls * each,
        high,
        DEFAULT_MAX_TOTAL_ARGUMENTS_CHARS,
        "max_total_arguments_chars",
    )
    print(table(["case", "input", "peak", "peak per unit"], rows, align="lrrl"))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
