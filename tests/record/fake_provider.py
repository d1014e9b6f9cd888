"""A provider on 127.0.0.1 for the recording tests: it streams Chat Completions chunks with
pauses between them, counts what it is asked and keeps what it was sent. Never the internet."""

from __future__ import annotations

import asyncio
import gzip
import json
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

from aiohttp import web

SECRET_COOKIE = "session=sk-proj-" + "C0okie" * 6
ECHOED_KEY = "sk-proj-" + "Ech0ed" * 6
GZIP_CONTENT = b'{"choices": [{"message": {"content": "compressed"}}]}'


def sse_chunks(
    words: list[str], model: str = "gpt-4o-mini", *, text_field: str = "content"
) -> list[bytes]:
    """One ``data:`` event per word, a finish event and ``[DONE]``; each word is at
    ``choices[].delta.<text_field>`` (``content``, as Chat Completions has it)."""
    chunks = []
    for word in words:
        data = {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "model": model,
            "choices": [{"index": 0, "delta": {text_field: word}, "finish_reason": None}],
        }
        chunks.append(f"data: {json.dumps(data)}\n\n".encode())
    done = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "model": model,
        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
    }
    chunks.append(f"data: {json.dumps(done)}\n\n".encode())
    chunks.append(b"data: [DONE]\n\n")
    return chunks


@dataclass
class FakeProvider:
    """Serves ``POST /v1/chat/completions`` (``chunks`` ``delay`` seconds apart; the last
    one waits for ``release`` when it is set), ``POST /v1/fail`` (a 429 with an echoed key)
    and ``POST /v1/echo`` (JSON holding the caller's key, with a secret cookie).

    ``answer``, when set, chooses the chunks of each streamed response from the request's
    body (``chunks`` otherwise); it may be replaced between requests."""

    chunks: list[bytes] = field(default_factory=lambda: sse_chunks(["Hello", " there", "!"]))
    delay: float = 0.1
    release: threading.Event | None = None
    requests: list[dict[str, Any]] = field(default_factory=list)
    port: int = 0
    answer: Callable[[bytes], list[bytes]] | None = None

    def __post_init__(self) -> None:
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _stream(self, request: web.Request) -> web.StreamResponse:
        body = await self._note(request)
        answer = self.answer
        chunks = self.chunks if answer is None else answer(body)
        response = web.StreamResponse(headers={"content-type": "text/event-stream"})
        response.headers.add("set-cookie", SECRET_COOKIE)
        response.headers.add("x-request-id", "req_123")
        await response.prepare(request)
        for n, chunk in enumerate(chunks):
            if n:
                await asyncio.sleep(self.delay)
            if n == len(chunks) - 1 and self.release is not None:
                await asyncio.get_running_loop().run_in_executor(None, self.release.wait, 30)
            await response.write(chunk)
        await response.write_eof()
        return response

    async def _fail(self, request: web.Request) -> web.Response:
        await self._note(request)
        body = {"error": {"message": f"Incorrect API key provided: {ECHOED_KEY}"}}
        return web.json_response(body, status=429, headers={"retry-after": "1"})

    async def _echo(self, request: web.Request) -> web.Response:
        await self._note(request)
        response = web.json_response({"api_key": ECHOED_KEY, "note": f"you sent {ECHOED_KEY}"})
        response.headers.add("set-cookie", SECRET_COOKIE)
        return response

    async def _gzip(self, request: web.Request) -> web.Response:
        await self._note(request)
        body = gzip.compress(GZIP_CONTENT, mtime=0)
        return web.Response(
            body=body, headers={"content-type": "application/json", "content-encoding": "gzip"}
        )

    async def _broken(self, request: web.Request) -> web.StreamResponse:
        await self._note(request)
        response = web.StreamResponse(headers={"content-type": "text/event-stream"})
        response.headers["content-length"] = "10000"  # promised, never sent
        await response.prepare(request)
        await response.write(self.chunks[0])
        await asyncio.sleep(self.delay)
        assert request.transport is not None
        request.transport.close()
        return response

    async def _note(self, request: web.Request) -> bytes:
        body = await request.read()
        self.requests.append(
            {"path": request.path_qs, "headers": dict(request.headers), "body": body}
        )
        return body

    def __enter__(self) -> FakeProvider:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", self.port))
        sock.listen(16)
        sock.setblocking(False)
        self.port = sock.getsockname()[1]
        started = threading.Event()

        async def run() -> None:
            app = web.Application()
            app.router.add_post("/v1/chat/completions", self._stream)
            app.router.add_post("/gateway/v1/chat/completions", self._stream)
            app.router.add_post("/v1beta/models/{name}", self._stream)
            app.router.add_post("/v1/fail", self._fail)
            app.router.add_post("/v1/echo", self._echo)
            app.router.add_post("/v1/gzip", self._gzip)
            app.router.add_post("/v1/broken", self._broken)
            runner = web.AppRunner(app, handle_signals=False, access_log=None)
            await runner.setup()
            await web.SockSite(runner, sock).start()
            self._stop = asyncio.Event()
            started.set()
            try:
                await self._stop.wait()
            finally:
                await runner.cleanup()

        def main() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            try:
                loop.run_until_complete(run())
            finally:
                started.set()
                loop.close()

        self._thread = threading.Thread(target=main, daemon=True)
        self._thread.start()
        started.wait()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self.release is not None:
            self.release.set()
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        if self._thread is not None:
            self._thread.join(timeout=30)
