"""Running the replay server: in a background thread (tests, ``raf conform --transport
http``, ``raf clients``) or in the foreground until a signal (``raf serve``).

The listening socket is bound before the server starts, so ``port=0`` gives a free port
that is known at once; the host is 127.0.0.1 unless asked otherwise. Stopping is clean:
the socket stops accepting, responses in progress get ``shutdown_timeout`` seconds to end,
then their connections are closed.

    with ReplayServer() as server:                     # the bundled cassettes
        base_url = server.case_url("openai_chat", "plain_text", chunking="bytes") + "/v1"
        client = openai.OpenAI(base_url=base_url, api_key="sk-test")
        ...
        server.journal.entries()                       # what the client sent
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Final

from aiohttp import web

from raf.serve.app import ServeConfig, make_app
from raf.serve.journal import Journal
from raf.serve.routes import case_path

__all__ = ["DEFAULT_HOST", "ReplayServer", "bind", "serve_forever"]

DEFAULT_HOST: Final = "127.0.0.1"
_SHUTDOWN_TIMEOUT: Final = 2.0
_BACKLOG: Final = 1024
_KEEPALIVE: Final = 15.0


def bind(host: str = DEFAULT_HOST, port: int = 0) -> socket.socket:
    """A listening TCP socket on ``host:port`` (``OSError`` when it cannot be had)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(_BACKLOG)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


async def _run(
    config: ServeConfig, sock: socket.socket, stop: asyncio.Event, ready: Callable[[], None]
) -> None:
    runner = web.AppRunner(
        make_app(config),
        shutdown_timeout=_SHUTDOWN_TIMEOUT,
        access_log=None,
        keepalive_timeout=_KEEPALIVE,
        handle_signals=False,
        # A client that goes away mid-stream ends its response at once (a stalled one
        # included), so it does not hold one of the --max-streams slots.
        handler_cancellation=True,
    )
    await runner.setup()
    server = runner.server
    if server is not None:
        config.open_connections = lambda: len(server.connections)
    try:
        await web.SockSite(runner, sock, backlog=_BACKLOG).start()
        ready()
        await stop.wait()
    finally:
        await runner.cleanup()
        config.journal.close()


def _cancel_pending(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what is still running on ``loop`` (streams past the shutdown timeout) and let
    it unwind, so that nothing is destroyed pending."""
    pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))


class ReplayServer:
    """``raf serve`` in a background thread, bound to 127.0.0.1 by default.

    Args:
        folders: cassette folders (default: the bundled cassettes).
        host, port: where to listen (``port=0``: a free port).
        speed, chunking, max_body, max_streams, max_connections: as for ``raf serve``
            (:class:`raf.serve.app.ServeConfig`).
        journal_file: also append every journal entry to this file.
    """

    def __init__(
        self,
        folders: Sequence[Path] | None = None,
        *,
        host: str = DEFAULT_HOST,
        port: int = 0,
        speed: float = 1.0,
        chunking: str | None = None,
        max_body: int | None = None,
        max_streams: int | None = None,
        max_connections: int | None = None,
        journal_file: Path | None = None,
    ) -> None:
        if folders is None:
            from raf.conformance.bundled import bundled  # noqa: PLC0415

            folders = [bundled().cassettes]
        self.config = ServeConfig(
            folders=list(folders),
            speed=speed,
            chunking=chunking,
            journal=Journal(file=journal_file),
        )
        if max_body is not None:
            self.config.max_body = max_body
        if max_streams is not None:
            self.config.max_streams = max_streams
        if max_connections is not None:
            self.config.max_connections = max_connections
        self.host = host
        self.port = port
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._failure: BaseException | None = None

    @property
    def journal(self) -> Journal:
        return self.config.journal

    @property
    def url(self) -> str:
        """``http://host:port`` (after :meth:`start`)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def case_url(
        self,
        dialect: str,
        scenario: str,
        *,
        chunking: str | None = None,
        faults: Sequence[str] = (),
        interaction: int | None = None,
    ) -> str:
        """The base URL of a case (a client appends its provider path)."""
        path = case_path(
            dialect, scenario, chunking=chunking, faults=list(faults), interaction=interaction
        )
        return self.url + path

    def start(self) -> str:
        """Start listening and serving; return :attr:`url`. ``OSError`` if the address
        cannot be bound."""
        if self._thread is not None:
            return self.url
        sock = bind(self.host, self.port)
        self.port = sock.getsockname()[1]
        started = threading.Event()

        def main() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            self._stop = asyncio.Event()
            try:
                loop.run_until_complete(_run(self.config, sock, self._stop, started.set))
            except BaseException as exc:  # reported by start(), never lost in the thread
                self._failure = exc
            finally:
                started.set()
                _cancel_pending(loop)
                loop.close()

        self._thread = threading.Thread(target=main, name=f"raf-serve-{self.port}", daemon=True)
        self._thread.start()
        started.wait()
        if self._failure is not None:
            raise RuntimeError(f"raf serve could not start: {self._failure}")
        return self.url

    def stop(self) -> None:
        """Stop accepting, let responses in progress end (2 s at most), close."""
        thread, self._thread = self._thread, None
        if thread is None:
            return
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None:
            with contextlib.suppress(RuntimeError):  # the loop already ended
                loop.call_soon_threadsafe(stop.set)
        thread.join(timeout=_SHUTDOWN_TIMEOUT + 5)

    def __enter__(self) -> ReplayServer:
        self.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


def serve_forever(config: ServeConfig, sock: socket.socket, on_ready: Callable[[], None]) -> None:
    """Serve on ``sock`` in this thread until SIGINT or SIGTERM, then stop cleanly."""

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(signum, stop.set)
        await _run(config, sock, stop, on_ready)

    asyncio.run(main())
