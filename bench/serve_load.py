"""raf serve under load: 200 concurrent streaming clients on this machine.

Two servers run as their own processes, on 127.0.0.1, one after the other:

* ``raf serve`` (``raf serve --port 0 --speed 0``), serving a bundled cassette with a chunking;
* the baseline: a bare aiohttp handler in a process of its own that writes the same chunks
  with the same chunked encoding and does nothing else (no routing, no catalog, no plan, no
  journal, no request check): the floor any aiohttp server pays on this machine.

Against each, ``--clients`` asyncio clients (aiohttp's client, one connection each) make
``--streams`` requests each, one after the other, reading every body to its end. Printed per
server: streams per second, the p50 and p99 time to first body byte, the server's peak
resident memory (``VmHWM`` of its process) and the most streams it had in progress at once
(raf serve's ``/_raf/health``). Then raf serve's throughput as a ratio of the baseline
measured in the same run.

A second raf serve run holds every client's stream open at once (``stall-MS`` after the first
chunk), to show memory with ``--clients`` streams in progress together.

Run: ``python bench/serve_load.py`` (``--clients 200 --streams 10 --scenario
openai_chat/plain_text --chunking fixed-512``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
import httpx
from harness import print_environment

from raf.cassettes.persister import load
from raf.chunking import chunk
from raf.conformance.bundled import bundled

_BASELINE = r"""
import sys, socket
from aiohttp import web
body = open(sys.argv[1], "rb").read()
sizes = [int(n) for n in open(sys.argv[2]).read().split()]
chunks, start = [], 0
for size in sizes:
    chunks.append(body[start:start + size]); start += size
async def handle(request):
    await request.read()
    response = web.StreamResponse(headers={"content-type": "text/event-stream"})
    response.enable_chunked_encoding()
    await response.prepare(request)
    for piece in chunks:
        await response.write(piece)
    await response.write_eof()
    return response
app = web.Application()
app.router.add_route("*", "/{tail:.*}", handle)
sock = socket.socket(); sock.bind(("127.0.0.1", 0)); sock.listen(1024)
print(f"listening on http://127.0.0.1:{sock.getsockname()[1]}", flush=True)
web.run_app(app, sock=sock, print=None, access_log=None)
"""


def _peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _start(argv: list[str]) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    line = process.stdout.readline()
    url = line.split("listening on ", 1)[1].split()[0]
    return process, url


async def _load(
    url: str, clients: int, streams: int, body: bytes
) -> tuple[float, list[float], int]:
    ttfb: list[float] = []
    failures = 0

    async def client() -> None:
        nonlocal failures
        connector = aiohttp.TCPConnector(limit=1)
        async with aiohttp.ClientSession(connector=connector) as session:
            for _ in range(streams):
                began = time.perf_counter()
                async with session.post(url, data=b'{"stream": true}') as response:
                    first = True
                    size = 0
                    async for piece in response.content.iter_any():
                        if first:
                            ttfb.append(time.perf_counter() - began)
                            first = False
                        size += len(piece)
                    if size != len(body) and response.status == 200:
                        failures += 1

    began = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(clients)))
    return time.perf_counter() - began, ttfb, failures


def _report(
    name: str,
    *,
    seconds: float,
    ttfb: list[float],
    count: int,
    rss: float,
    failures: int,
    peak: object,
) -> float:
    rate = count / seconds
    quantiles = statistics.quantiles(ttfb, n=100)
    print(
        f"{name:<28} {rate:8.0f} streams/s   TTFB p50 {quantiles[49] * 1000:6.1f} ms  "
        f"p99 {quantiles[98] * 1000:6.1f} ms   peak RSS {rss:6.1f} MB   "
        f"in progress at once: {peak}   incomplete: {failures}"
    )
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--streams", type=int, default=10)
    parser.add_argument("--scenario", default="openai_chat/plain_text")
    parser.add_argument("--chunking", default="fixed-512")
    parser.add_argument("--hold-ms", type=int, default=2000)
    args = parser.parse_args()
    dialect, scenario = args.scenario.split("/")
    suite = bundled()
    body = load(suite.cassettes / dialect / f"{scenario}.yaml").interactions[0].response.body
    chunks = chunk(body, args.chunking)
    path = {
        "openai_chat": "/v1/chat/completions",
        "anthropic_messages": "/v1/messages",
        "openai_responses": "/v1/responses",
    }.get(dialect, "/v1beta/models/m:streamGenerateContent")
    count = args.clients * args.streams
    print_environment(("aiohttp",))
    print(
        f"{args.clients} clients x {args.streams} streams of {args.scenario} "
        f"({len(body):,} bytes in {len(chunks)} chunks)"
    )

    tmp = Path(subprocess.check_output(["mktemp", "-d"], text=True).strip())
    (tmp / "body").write_bytes(body)
    (tmp / "sizes").write_text(" ".join(str(len(c)) for c in chunks))
    baseline, base_url = _start(
        [sys.executable, "-c", _BASELINE, str(tmp / "body"), str(tmp / "sizes")]
    )
    try:
        seconds, ttfb, failures = asyncio.run(
            _load(base_url + path, args.clients, args.streams, body)
        )
        base_rate = _report(
            "bare aiohttp (baseline)",
            seconds=seconds,
            ttfb=ttfb,
            count=count,
            rss=_peak_rss_mb(baseline.pid),
            failures=failures,
            peak="-",
        )
    finally:
        baseline.terminate()
        baseline.wait()

    raf_serve = [sys.executable, "-m", "raf", "serve", "--port", "0", "--speed", "0"]
    server, url = _start(raf_serve)
    try:
        prefix = f"{url}/s/{dialect}/{scenario}/c/{args.chunking}"
        seconds, ttfb, failures = asyncio.run(
            _load(prefix + path, args.clients, args.streams, body)
        )
        peak = httpx.get(url + "/_raf/health").json()["peak"]
        rate = _report(
            "raf serve",
            seconds=seconds,
            ttfb=ttfb,
            count=count,
            rss=_peak_rss_mb(server.pid),
            failures=failures,
            peak=peak,
        )
    finally:
        server.terminate()
        server.wait()

    server, url = _start(raf_serve)
    try:
        held = f"{url}/s/{dialect}/{scenario}/c/{args.chunking}/f/stall-{args.hold_ms}"
        seconds, ttfb, failures = asyncio.run(_load(held + path, args.clients, 1, body))
        health = httpx.get(url + "/_raf/health").json()
        journal = len(httpx.get(url + "/_raf/journal").content)
        _report(
            f"raf serve, all held {args.hold_ms} ms",
            seconds=seconds,
            ttfb=ttfb,
            count=args.clients,
            rss=_peak_rss_mb(server.pid),
            failures=failures,
            peak=health["peak"],
        )
        print(f"  (journal kept: {journal:,} bytes of JSON)")
    finally:
        server.terminate()
        server.wait()
    print(f"raf serve / baseline throughput: {rate / base_rate:.2f}")
    print(json.dumps({"ratio": round(rate / base_rate, 3)}))


if __name__ == "__main__":
    main()
