"""SSE decoder throughput and linearity, as ratios measured in one run.

Workloads:

1. a Chat Completions-like stream of 5,000 events fed in 4 KiB chunks: ``raf.sse.SSEDecoder``
   against a floor that only splits on blank lines and strips ``data: `` (no WHATWG rules,
   no UTF-8 handling across chunks);
2. one event whose single ``data`` line is 1 MiB and 4 MiB, fed 1 byte at a time, and 10 MiB
   fed in 4 KiB chunks: the time ratio 4 MiB / 1 MiB must stay near 4 (linear); a decoder
   that re-scans its buffer would show ~16.

Run: ``python bench/sse_decoder.py`` (add ``--quick`` for a smaller run).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable

from raf.sse import SSEDecoder


def best_of(fn: Callable[[], object], repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


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


def raf_decode(chunks: list[bytes]) -> int:
    decoder = SSEDecoder()
    n = 0
    for c in chunks:
        n += len(decoder.feed(c))
    decoder.close()
    return n


def floor_decode(chunks: list[bytes]) -> int:
    """The least a framer can do: split blocks on b"\\n\\n" and strip the data prefix."""
    buffer = b""
    out = []
    for c in chunks:
        buffer += c
        *blocks, buffer = buffer.split(b"\n\n")
        out.extend(b[6:].decode() for b in blocks if b.startswith(b"data: "))
    return len(out)


def main() -> None:
    quick = "--quick" in sys.argv
    body = text_stream(1000 if quick else 5000)
    chunks = chunked(body, 4096)
    assert raf_decode(chunks) == floor_decode(chunks)
    t_raf = best_of(lambda: raf_decode(chunks))
    t_floor = best_of(lambda: floor_decode(chunks))
    mb = len(body) / 1e6
    print(f"1. {len(body) / 1e6:.1f} MB text stream in 4 KiB chunks")
    print(f"   floor (split + strip)   {mb / t_floor:8.1f} MB/s   1.00x")
    print(
        f"   raf SSEDecoder          {mb / t_raf:8.1f} MB/s   {t_floor / t_raf:.2f}x of the floor"
    )

    small, large = (256 * 1024, 1024 * 1024) if quick else (1024 * 1024, 4 * 1024 * 1024)

    def one_line(size: int) -> bytes:
        return b"data: " + b"x" * size + b"\n\n"

    def bytewise(size: int) -> float:
        data = one_line(size)
        pieces = [data[i : i + 1] for i in range(len(data))]
        return best_of(lambda: raf_decode(pieces), repeat=1)

    t_small, t_large = bytewise(small), bytewise(large)
    print(f"2. one {small // 1024} KiB and one {large // 1024} KiB line, fed 1 byte at a time")
    print(
        f"   {large // small}x the input -> {t_large / t_small:.2f}x the time "
        f"(linear = {large // small})"
    )
    big = one_line(10 * 1024 * 1024)
    t_big = best_of(lambda: raf_decode(chunked(big, 4096)), repeat=1)
    t_copy = best_of(lambda: b"".join(chunked(big, 4096)), repeat=1)
    print(f"   10 MiB line in 4 KiB chunks: {t_big / t_copy:.1f}x the time of joining the chunks")


if __name__ == "__main__":
    main()
