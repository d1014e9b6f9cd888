"""SSE decoder throughput and linearity, as ratios measured in one run.

Workloads:

1. a Chat Completions-like stream of 5,000 events fed in 4 KiB chunks: ``raf.sse.SSEDecoder``
   against a floor that only splits on blank lines and strips ``data: `` (no WHATWG rules,
   no UTF-8 handling across chunks);
2. one event whose single ``data`` line is 1 MiB and 4 MiB, fed 1 byte at a time: the time
   ratio 4 MiB / 1 MiB must stay near 4 (linear); a decoder that re-scans its buffer would
   show ~16. Then a 10 MiB line in 4 KiB chunks, against joining the same chunks.
3. the cost probe's case (``raf cost``, raf.fuzz.cost) through the whole pipeline
   (``raf.run``): one Chat Completions text event of 1 MiB in 1-7 byte reads, against the
   same text in 1 KiB events in the same reads (the baseline measured in the same run), with
   the chunks' JSON compact and spaced (``{"a": 1}``, as some servers write it). Linear is
   about 1x; ``raf cost`` reports above 3x.

Timing is the harness's (bench/harness.py): thread CPU time, the two sides of each ratio run
back to back in paired rounds, the median (min-max) printed; each side's result is checked
first (the events decoded, the length of the one huge event's data).

Run: ``python bench/sse_decoder.py`` (``--quick`` for a smaller run, ``--rounds N``).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any

from harness import Contender, Settings, compare, metered, print_environment

from raf import collect_agent_response, run
from raf.fuzz import cost
from raf.sse import ServerSentEvent, SSEDecoder


def chunked(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def text_stream(n: int) -> bytes:
    parts = []
    for i in range(n):
        chunk = {
            "id": "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
            "object": "chat.completion.chunk",
            "created": 1741569952,
            "model": "gpt-4o-2024-08-06",
            "system_fingerprint": "fp_f85bea6784",
            "choices": [
                {
                    "index": 0,
                    "delta": {"content": f" word{i}"},
                    "logprobs": None,
                    "finish_reason": None,
                }
            ],
        }
        parts.append(f"data: {json.dumps(chunk, separators=(',', ':'))}\n\n")
    parts.append("data: [DONE]\n\n")
    return "".join(parts).encode()


def raf_decode(chunks: list[bytes], *, meter: bool = True) -> list[ServerSentEvent]:
    """Every event of ``chunks``, handed out through ``metered`` unless ``meter`` is false."""
    decoder = SSEDecoder()
    events: list[ServerSentEvent] = []
    for c in metered(chunks) if meter else chunks:
        events += decoder.feed(c)
    events += decoder.close()
    return events


def floor_decode(chunks: list[bytes]) -> list[str]:
    """The least a framer can do: split blocks on b"\\n\\n" and strip the data prefix."""
    buffer = b""
    out: list[str] = []
    for c in metered(chunks):
        buffer += c
        *blocks, buffer = buffer.split(b"\n\n")
        out.extend(b[6:].decode() for b in blocks if b.startswith(b"data: "))
    return out


def counted(want: int) -> Callable[[list[ServerSentEvent] | list[str]], str | None]:
    """A check: the result holds ``want`` events."""
    return lambda got: None if len(got) == want else f"{len(got)} events (want {want})"


def bytewise(pieces: list[bytes]) -> Callable[[], list[ServerSentEvent]]:
    """Decode ``pieces`` (one byte each) without the budget's check per piece: it would cost
    a good part of what is measured."""
    return lambda: raf_decode(pieces, meter=False)


def one_line(size: int) -> bytes:
    return b"data: " + b"x" * size + b"\n\n"


def huge_event(size: int) -> Callable[[list[ServerSentEvent]], str | None]:
    """A check: one event, whose data is the ``size`` bytes of the line."""

    def check(events: list[ServerSentEvent]) -> str | None:
        if len(events) != 1 or len(events[0].data) != size:
            return f"{len(events)} events, data of {[len(e.data) for e in events]} characters"
        return None

    return check


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller inputs")
    parser.add_argument("--rounds", type=int, default=5, help="paired rounds for 1 (5)")
    args = parser.parse_args()
    settings = Settings()
    print_environment(settings=settings)

    events = 1000 if args.quick else 5000
    body = text_stream(events)
    chunks = chunked(body, 4096)
    comparison = compare(
        [
            Contender("floor", lambda: floor_decode(chunks), counted(events + 1)),
            Contender("raf", lambda: raf_decode(chunks), counted(events + 1)),
        ],
        rounds=args.rounds,
        settings=settings,
    )
    mb = len(body) / 1e6
    print(f"1. {mb:.1f} MB text stream in 4 KiB chunks ({args.rounds} paired rounds)")
    for name, label in (("floor", "floor (split + strip)"), ("raf", "raf SSEDecoder")):
        seconds, speed = comparison.seconds(name), comparison.speed(name)
        if seconds is None or speed is None:
            print(f"   {label:<22} {comparison.outcomes[name].verdict}")
            continue
        print(f"   {label:<22} {mb / seconds.median:8.1f} MB/s   {speed.format(unit='x')}")

    small, large = (256 * 1024, 1024 * 1024) if args.quick else (1024 * 1024, 4 * 1024 * 1024)
    rounds = 1 if args.quick else 2  # fed byte by byte, one run takes seconds
    lines = {size: chunked(one_line(size), 1) for size in (small, large)}
    linearity = compare(
        [
            Contender(str(size), bytewise(pieces), huge_event(size))
            for size, pieces in lines.items()
        ],
        rounds=rounds,
        settings=settings,
    )
    ratio = linearity.slowdown(str(large))
    print(f"2. one {small // 1024} KiB and one {large // 1024} KiB line, fed 1 byte at a time")
    shown = ratio.format(unit="x") if ratio else linearity.outcomes[str(large)].verdict
    print(f"   time for {large // small}x the input: {shown}; linear is {large // small}x")

    big = chunked(one_line(10 * 1024 * 1024), 4096)
    join = compare(
        [
            Contender("join", lambda: b"".join(metered(big))),
            Contender("raf", lambda: raf_decode(big), huge_event(10 * 1024 * 1024)),
        ],
        rounds=rounds,
        settings=settings,
    )
    slowdown = join.slowdown("raf")
    shown = slowdown.format(digits=1, unit="x") if slowdown else join.outcomes["raf"].verdict
    print(f"   10 MiB line in 4 KiB chunks: {shown} the time of joining the chunks")

    cost_case(256 * 1024 if args.quick else 1024 * 1024, rounds, settings)


def spaced(body: bytes) -> bytes:
    """``body`` with every ``data:`` JSON written with spaces after ``,`` and ``:``."""
    return b"\n".join(
        b"data: " + json.dumps(json.loads(line[6:])).encode()
        if line.startswith(b"data: {")
        else line
        for line in body.split(b"\n")
    )


def pipeline_text(want: str) -> Callable[[list[Any]], str | None]:
    """A check: the response of the results of ``raf.run`` has ``want`` as its text."""

    def check(results: list[Any]) -> str | None:
        got = collect_agent_response(results).text
        return None if got == want else f"text of {len(got)} characters (want {len(want)})"

    return check


def cost_case(size: int, rounds: int, settings: Settings) -> None:
    print(f"3. one {size // 1024} KiB text event in 1-7 byte reads, against 1 KiB events")
    for style in ("compact", "spaced"):
        contenders = []
        for shape in ("short", "long"):  # the first is the baseline
            built = cost.stream("openai_chat", size, shape)
            body = built.body if style == "compact" else spaced(built.body)
            reads = list(cost.pieces(body, "tiny"))
            contenders.append(
                Contender(
                    shape,
                    lambda reads=reads: list(run(reads, "openai_chat")),
                    pipeline_text(built.expected),
                )
            )
        comparison = compare(contenders, rounds=rounds, settings=settings)
        ratio = comparison.slowdown("long")
        shown = ratio.format(unit="x") if ratio else comparison.outcomes["long"].verdict
        print(f"   {style:<8} long/short: {shown} (linear: about 1x; raf cost reports > 3x)")


if __name__ == "__main__":
    main()
