"""raf serve against hostile and old HTTP clients (issue 21, items 3, 5, 6 and 7): HTTP/1.0,
more connections than the limit, idle and silent connections, clients that never read, and
malformed requests. The hostile cases run `raf serve` in a process of its own, on 127.0.0.1,
with a cap on its address space, reaped on every path (tests/processes.py); every wait is
for the server's reaction, with a generous cap that only guards against a hang."""

from __future__ import annotations

import json
import resource
import select
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from raf.cassettes.format import Cassette, Interaction, Response, ScenarioInfo
from raf.cassettes.persister import load, save
from raf.conformance.bundled import bundled
from raf.serve.server import ReplayServer
from tests import processes

# Processes and servers end to end: the same in both builds (the compiled job in CI leaves
# these out, `-m 'not processes'`; the pure-Python run has them).
pytestmark = pytest.mark.processes

PLAIN = bundled().cassettes / "openai_chat" / "plain_text.yaml"
CASE = "/s/openai_chat/plain_text/v1/chat/completions"
ADDRESS_SPACE = 2 * 1024**3
"""The server's address space in these tests: far above what it needs (~100 MB resident),
far below what the old copies per client took."""
GUARD = 120.0
"""Seconds after which a wait for the server's reaction is a hang (it takes milliseconds)."""


def _recorded_body() -> bytes:
    return load(PLAIN).interactions[0].response.body


def _limit_memory() -> None:  # pragma: no cover - runs in the child
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


@contextmanager
def _serve(*args: str) -> Iterator[tuple[subprocess.Popen[str], int]]:
    """``raf serve`` in a session of its own with a capped address space, and its port."""
    process = subprocess.Popen(
        [sys.executable, "-m", "raf", "serve", "--port", "0", "--speed", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=_limit_memory,  # noqa: PLW1509 - only setrlimit, before exec
    )
    try:
        line = processes.readline(process)
        assert line.startswith("raf serve: listening on http://127.0.0.1:"), line
        yield process, int(line.split(" on ", 1)[1].split(" ", 1)[0].rsplit(":", 1)[1])
    finally:
        processes.kill_group(process)


def _stop(process: subprocess.Popen[str]) -> str:
    """SIGINT, then the server's stderr once it has exited."""
    process.send_signal(signal.SIGINT)
    _, err = processes.communicate(process)
    assert process.returncode == 0, err
    return str(err)


def _until(condition: object, what: str) -> None:
    """Wait for ``condition()`` (the server's reaction), polling; GUARD seconds is a hang."""
    end = time.monotonic() + GUARD
    while time.monotonic() < end:
        if condition():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise AssertionError(f"the server never did it: {what}")


def _health(port: int) -> dict[str, object]:
    return dict(httpx.get(f"http://127.0.0.1:{port}/_raf/health").json())


def _read_all(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    sock.settimeout(GUARD)
    out = bytearray()
    while chunk := sock.recv(65536):
        out += chunk
    return bytes(out)


def _split(answer: bytes) -> tuple[str, dict[str, str], bytes]:
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return lines[0], headers, body


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


# -- item 3: HTTP/1.0 ---------------------------------------------------------------------------


def test_item_3_http_1_0_gets_a_content_length_body_and_the_journal_its_status() -> None:
    expected = _recorded_body()
    with ReplayServer(speed=0) as server:
        for path, outcome in [
            ("/s/openai_chat/plain_text/c/fixed-64/v1/chat/completions", "complete"),
            ("/s/openai_chat/plain_text/f/cut-100/v1/chat/completions", "cut"),
            ("/s/openai_chat/plain_text/f/truncated-chunked/v1/chat/completions", "truncated"),
        ]:
            with socket.create_connection(("127.0.0.1", server.port)) as sock:
                sock.sendall(
                    f"POST {path} HTTP/1.0\r\nContent-Length: 2\r\n\r\n{{}}".encode("ascii")
                )
                status, headers, body = _split(_read_all(sock))
            assert status == "HTTP/1.0 200 OK"
            assert "transfer-encoding" not in headers  # HTTP/1.0 has no chunked encoding
            length = int(headers["content-length"])
            if outcome == "complete":
                assert body == expected
                assert length == len(expected)
            else:  # the client sees the body end before its Content-Length: incomplete
                assert expected.startswith(body)
                assert len(body) < length
            entry = server.journal.entries()[-1]
            assert (entry["status"], entry["outcome"]) == (200, outcome)
            assert entry["bytes_sent"] == len(body)


# -- item 5: connection limits and read timeouts ------------------------------------------------


def _requests(port: int, count: int, path: str, *, close: bool = False) -> list[socket.socket]:
    """``count`` connections, each with its request sent before the next one opens."""
    connection = "Connection: close\r\n" if close else ""
    request = (
        f"POST {path} HTTP/1.1\r\nHost: x\r\n{connection}Content-Length: 2\r\n\r\n{{}}"
    ).encode()
    socks = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port))
        sock.sendall(request)
        socks.append(sock)
    return socks


def _answers(socks: list[socket.socket]) -> list[bytes]:
    """What each connection got before the server closed it (read together, so that the
    servers' streams go on while one is read)."""
    answers = {s: bytearray() for s in socks}
    poller = select.poll()
    by_fd = {s.fileno(): s for s in socks}
    for sock in socks:
        poller.register(sock, select.POLLIN)
    open_ = set(by_fd)
    last = time.monotonic()
    while open_:
        events = poller.poll(1000)
        if events:
            last = time.monotonic()
        elif time.monotonic() - last > GUARD:
            raise AssertionError(f"{len(open_)} connections got nothing more for {GUARD} s")
        for fd, _ in events:
            sock = by_fd[fd]
            try:
                chunk = sock.recv(65536)
            except ConnectionError:
                chunk = b""
            if chunk:
                answers[sock] += chunk
            else:
                poller.unregister(fd)
                open_.discard(fd)
                sock.close()
    return [bytes(answers[s]) for s in socks]


def test_item_5_connection_limits_refuse_only_the_excess_and_reads_time_out() -> None:
    expected = _recorded_body()
    args = ("--max-connections", "100", "--header-timeout", "1", "--body-timeout", "1")
    with _serve(*args) as (process, port):
        # 1,000 concurrent requests, each stream pausing so that they are all in progress:
        # the first 100 connections are served, only the 900 over the limit get 503.
        stalled = "/s/openai_chat/plain_text/f/stall-3000/v1/chat/completions"
        answers = _answers(_requests(port, 1000, stalled, close=True))
        statuses = [_split(a)[0] for a in answers]
        served = [a for a in answers if a.startswith(b"HTTP/1.1 200")]
        refused = [a for a in answers if a.startswith(b"HTTP/1.1 503")]
        assert len(served) >= 100, statuses[:5]
        assert len(served) + len(refused) == 1000, set(statuses)
        for answer in served:
            assert b"".join(_dechunk(_split(answer)[2])) == expected
        assert (
            "limit of 100 open connections" in json.loads(_split(refused[0])[2])["error"]["message"]
        )

        # 1,000 idle connections that send nothing do not keep a request from being served:
        # the one idle the longest gives up its place.
        idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(1000)]
        try:
            reply = httpx.post(f"http://127.0.0.1:{port}{CASE}", content=b"{}")
            assert reply.status_code == 200
            assert reply.content == expected
            # ...and the header timeout closes the ones that never send a request.
            for sock in idle[-50:]:
                assert _read_all(sock) == b""
        finally:
            for sock in idle:
                sock.close()

        # So is one that sends part of a request head and then nothing (a slow-headers attack).
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(f"POST {CASE} HTTP/1.1\r\nHost: x\r\n".encode())
            assert _read_all(sock) == b""

        # A request whose body never comes gets 408 once the body timeout has passed, and
        # its connection is closed: its place is free again.
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(f"POST {CASE} HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n".encode())
            status, _, body = _split(_read_all(sock))
        assert status == "HTTP/1.1 408 Request Timeout"
        assert "did not arrive within 1 s" in json.loads(body)["error"]["message"]
        _until(lambda: _health(port)["active"] == 0, "free every place")
        err = _stop(process)
    assert "Traceback" not in err


def _dechunk(body: bytes) -> Iterator[bytes]:
    while body:
        size, _, rest = body.partition(b"\r\n")
        n = int(size, 16)
        if n == 0:
            return
        yield rest[:n]
        body = rest[n + 2 :]


# -- item 6: clients that never read ------------------------------------------------------------


def test_item_6_clients_that_never_read_hold_a_bounded_buffer_not_a_copy(tmp_path: Path) -> None:
    plain = load(PLAIN).interactions[0]
    big = plain.response.body * 460  # about 8.4 MB, served whole (one write)
    save(
        Cassette(
            interactions=[
                Interaction(
                    request=plain.request,
                    response=Response(headers={"content-type": ["text/event-stream"]}, body=big),
                )
            ],
            info=ScenarioInfo(scenario="big"),
        ),
        tmp_path / "openai_chat" / "big.yaml",
    )
    path = "/s/openai_chat/big/c/whole/v1/chat/completions"
    with _serve("--cassettes", str(tmp_path)) as (process, port):
        # A client that reads gets the body whole, as one chunk.
        with httpx.stream("POST", f"http://127.0.0.1:{port}{path}", content=b"{}") as response:
            assert b"".join(response.iter_bytes()) == big
        baseline = _rss_mb(process.pid)
        socks = []
        for sock in _requests(port, 20, path):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            socks.append(sock)
        try:
            _until(lambda: _health(port)["active"] == 20, "start 20 responses")
            samples = [_rss_mb(process.pid)]

            def settled() -> bool:  # the writes stall once the buffers are full
                samples.append(_rss_mb(process.pid))
                return len(samples) > 10 and max(samples[-10:]) - min(samples[-10:]) < 1

            _until(settled, "stop growing with 20 clients that do not read")
            holding = samples[-1]
        finally:
            for sock in socks:
                sock.close()
        _until(lambda: _health(port)["active"] == 0, "end the 20 responses")
        after = _rss_mb(process.pid)
        err = _stop(process)
    # A full copy per client would be 20 x 8.4 MB (x2 while it was joined with its chunk
    # header); a bounded buffer is about 128 KiB each.
    assert holding - baseline < 30, (baseline, holding)
    assert after - baseline < 30, (baseline, after)
    assert "Traceback" not in err


# -- item 7: malformed requests -----------------------------------------------------------------

_C = CASE.encode()
MALFORMED: list[bytes] = [
    b"GARBAGE\r\n\r\n",
    b"\x00\x01\x02\x03\xff\xfe\r\n\r\n",
    b"GET\r\n\r\n",
    b"GET / HTTP/9.9\r\n\r\n",
    b"GET / HTTP/1.1\r\nContent-Length: 99999999999999999999999999\r\n\r\n",
    b"POST " + _C + b" HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
    b"POST " + _C + b" HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
    b"POST " + _C + b" HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    b"POST "
    + _C
    + b" HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n",
    b"GET / HTTP/1.1\r\nBad Header\r\n\r\n",
    b"GET / HTTP/1.1\r\n: novalue\r\n\r\n",
    b"GET / HTTP/1.1\r\nX: " + b"a" * 100_000 + b"\r\n\r\n",
    b"GET /" + b"a" * 100_000 + b" HTTP/1.1\r\n\r\n",
    b"GET / HTTP/1.1\r\n" + b"X-A: b\r\n" * 500 + b"\r\n",
    b"GET / HTTP/1.1\r\nHost: \x00\r\n\r\n",
    b"\r\n\r\n\r\n",
    b"GET /\xff\xfe HTTP/1.1\r\n\r\n",
    b"G\xc3\xa9T / HTTP/1.1\r\n\r\n",
    b"GET / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
    b"GET / HTTP/1.1\n\n",
    b"GET / HTTP/1.1\r\nX:\x7f\r\n\r\n",
    b"POST " + _C + b" HTTP/1.1\r\nContent-Length: 5\r\n\r\n",
    b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
    b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",
    b"GET / HTTP/1.1\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n",
    b"POST " + _C + b" HTTP/1.1\r\nContent-Length: 10\r\nExpect: 100-continue\r\n\r\n",
    b"POST " + _C + b" HTTP/1.1\r\nContent-Encoding: gzip\r\nContent-Length: 4\r\n\r\nabcd",
    b"POST " + _C + b" HTTP/1.1\r\nContent-Encoding: br\r\nContent-Length: 4\r\n\r\nabcd",
    b"POST " + _C + b" HTTP/1.1\r\nContent-Encoding: deflate\r\nContent-Length: 4\r\n\r\nabcd",
    b"POST " + _C + b" HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffffff\r\n",
    b"POST "
    + _C
    + b" HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5;e=\x00\r\nhello\r\n0\r\n\r\n",
    b"GET /_raf/journal?\xff=\xff HTTP/1.1\r\n\r\n",
    b"GET /_raf/%zz HTTP/1.1\r\n\r\n",
    b"GET http://[::1 HTTP/1.1\r\n\r\n",
    b"CONNECT x:1 HTTP/1.1\r\n\r\n",
    b"OPTIONS * HTTP/1.1\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
    b"GET / HTTP/1.0\r\nContent-Length: 3\r\n\r\nabc",
    b"POST " + _C + b" HTTP/1.0\r\n\r\n{}",
    b"GET / HTTP/1.1\r\n X: folded\r\n\r\n",
    b"GET / HTTP/1.1\r\nX: a\r\n folded\r\n\r\n",
    b"GET /s/%00/x HTTP/1.1\r\n\r\n",
    b"GET /s/../../etc/passwd HTTP/1.1\r\n\r\n",
    b"DELETE /s/openai_chat/plain_text HTTP/1.1\r\n\r\n",
    b"GET " + _C + b" HTTP/1.1\r\n\r\n",
    b"POST " + _C + b" HTTP/1.1\r\nContent-Length: 2\r\n\r\n[[",
    b"POST " + _C + b" HTTP/1.1\r\nContent-Length: 4\r\n\r\n\xff\xfe\x00\x01",
    b"POST "
    + _C
    + b" HTTP/1.1\r\nContent-Type: text/x; charset=nope\r\nContent-Length: 2\r\n\r\n{}",
    b"GET / HTTP/1.1\r\nContent-Length: 1e3\r\n\r\n",
    b"GET / HTTP/1.1\r\nContent-Length: +3\r\n\r\nabc",
    b"GET / HTTP/1.1\r\nContent-Length: 0x10\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nX: \xff\xfe\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer sk-proj-" + b"A1b2" * 12 + b"\r\n\r\n",
]


def _malformed(shape: bytes) -> bytes:
    """``shape`` with a Host header and ``Connection: close`` where it is HTTP/1.1 without
    them (so the server answers and closes rather than waits)."""
    marker = b" HTTP/1.1\r\n"
    if marker in shape and b"Connection:" not in shape:
        shape = shape.replace(marker, marker + b"Connection: close\r\n", 1)
    if marker in shape and b"Host:" not in shape:
        shape = shape.replace(marker, marker + b"Host: x\r\n", 1)
    return shape


def test_item_7_malformed_requests_get_an_answer_and_one_line_each_never_a_traceback() -> None:
    with _serve("--header-timeout", "1", "--body-timeout", "1") as (process, port):
        for shape in MALFORMED:
            with socket.create_connection(("127.0.0.1", port)) as sock:
                try:
                    sock.sendall(_malformed(shape))
                    _read_all(sock)  # until the server answers and closes, or just closes
                except ConnectionError:
                    pass  # closed before it read everything (a line too long): fine
        # The server still serves.
        answer = httpx.post(f"http://127.0.0.1:{port}{CASE}", content=b"{}")
        assert answer.status_code == 200
        err = _stop(process)
    lines = err.splitlines()
    assert err.count("Traceback") == 0, err
    assert all(line.startswith("raf serve: ") for line in lines), err
    assert len(lines) <= len(MALFORMED), err  # at most one line per problem
    assert "sk-proj-A1b2" not in err
