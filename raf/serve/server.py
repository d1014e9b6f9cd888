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
import logging
import re
import select
import signal
import socket
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Final

from aiohttp import web

from raf.cassettes.scrub import scrub_text
from raf.serve.app import ServeConfig, make_app
from raf.serve.connections import Connections, waiting_for
from raf.serve.journal import Journal
from raf.serve.verdicts import DEFAULT_MODE, Mode
from raf.shared import loop_thread
from raf.shared.case_paths import case_path

__all__ = ["DEFAULT_HOST", "ReplayServer", "bind", "serve_forever"]

DEFAULT_HOST: Final = "127.0.0.1"
_SHUTDOWN_TIMEOUT: Final = 2.0
_BACKLOG: Final = 1024
_KEEPALIVE: Final = 15.0
_LINGER: Final = 1.0
"""Seconds the rest of a request body is read and dropped after an early answer (413, 408),
so that the client sees the answer rather than a reset; then the connection closes."""
_LINE_CHARS: Final = 400
"""Longest log line (a problem's message with the exception it carries)."""


class _OneLine(logging.Handler):
    """Writes each record as one line on the stderr of the moment: ``raf serve: what
    happened: the exception's type and message``, never a traceback (a malformed request is
    the client's problem, and a line is all it deserves)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
            if record.exc_info and record.exc_info[1] is not None:
                exc = record.exc_info[1]
                text += f": {type(exc).__name__}: {exc}"
            sys.stderr.write(f"raf serve: {_one_line(text)}\n")
            sys.stderr.flush()
        except Exception:  # a closed stderr must not stop the server
            return


def _one_line(text: str) -> str:
    text = scrub_text(re.sub(r"\s+", " ", text).strip())
    return text if len(text) <= _LINE_CHARS else text[: _LINE_CHARS - 3] + "..."


def _logger() -> logging.Logger:
    """The logger aiohttp's connections report their problems to (bad request lines,
    invalid headers, errors of a handler), each as one line on stderr."""
    logger = logging.getLogger("raf.serve")
    if not any(isinstance(h, _OneLine) for h in logger.handlers):
        logger.addHandler(_OneLine())
        logger.propagate = False
        logger.setLevel(logging.DEBUG)  # aiohttp reports garbage bytes at DEBUG
    return logger


def _loop_problem(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The event loop's exception handler: one line, no traceback."""
    exc = context.get("exception")
    message = str(context.get("message") or "error in the event loop")
    _logger().error(message, exc_info=exc if isinstance(exc, BaseException) else None)


def _is_idle(handler: Any) -> bool:
    """Whether an aiohttp connection waits for a request with nothing of it received: its
    handler waits for a message (aiohttp's own test for an idle keep-alive connection),
    none is queued, and its socket has nothing unread."""
    waiter = getattr(handler, "_waiter", None)
    if waiter is None or waiter.done() or getattr(handler, "_messages", None):
        return False
    transport = getattr(handler, "transport", None)
    if transport is None or transport.is_closing():
        return False
    sock = transport.get_extra_info("socket")
    if sock is None:
        return False
    try:
        poller = select.poll()
        poller.register(sock.fileno(), select.POLLIN)
        return not poller.poll(0)
    except (OSError, ValueError, AttributeError):
        return False


def _close_handler(handler: Any) -> None:
    with contextlib.suppress(Exception):
        handler.force_close()


def _gate(server: web.Server, config: ServeConfig, loop: asyncio.AbstractEventLoop) -> None:
    """Admit connections through :class:`raf.serve.connections.Connections` and time out
    those that send no complete request within ``config.header_timeout``."""
    gate: Connections[Any] = Connections(
        config.max_connections, idle=_is_idle, close=_close_handler
    )
    config.connections = gate
    made, lost = server.connection_made, server.connection_lost
    deadlines: dict[Any, asyncio.TimerHandle] = {}

    def deadline(handler: Any) -> None:
        deadlines.pop(handler, None)
        if not gate.awaiting_first_request(handler):
            return
        if _is_idle(handler):  # nothing, or part of a request head, and no more to read
            _close_handler(handler)
        else:  # its request has arrived and waits for a busy server: look again soon
            again = min(1.0, config.header_timeout)
            deadlines[handler] = loop.call_later(again, deadline, handler)

    def connection_made(handler: Any, transport: asyncio.Transport) -> None:
        made(handler, transport)
        if not gate.opened(handler):
            transport.abort()
            return
        deadlines[handler] = loop.call_later(config.header_timeout, deadline, handler)

    def connection_lost(handler: Any, exc: BaseException | None = None) -> None:
        gate.closed(handler)
        timer = deadlines.pop(handler, None)
        if timer is not None:
            timer.cancel()
        lost(handler, exc)

    server.connection_made = connection_made  # type: ignore[method-assign]
    server.connection_lost = connection_lost  # type: ignore[method-assign]


def bind(host: str = DEFAULT_HOST, port: int = 0) -> socket.socket:
    """A listening TCP socket on ``host:port`` (``OSError`` when it cannot be had)."""
    return loop_thread.bind(host, port, backlog=_BACKLOG)


async def _run(
    config: ServeConfig, sock: socket.socket, stop: asyncio.Event, ready: Callable[[], None]
) -> None:
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(_loop_problem)
    runner = web.AppRunner(
        make_app(config),
        shutdown_timeout=_SHUTDOWN_TIMEOUT,
        access_log=None,
        keepalive_timeout=_KEEPALIVE,
        lingering_time=_LINGER,
        handle_signals=False,
        # A client that goes away mid-stream ends its response at once (a stalled one
        # included), so it does not hold one of the --max-streams slots.
        handler_cancellation=True,
        logger=_logger(),
    )
    await runner.setup()
    if runner.server is not None:
        _gate(runner.server, config, loop)
    try:
        await web.SockSite(runner, sock, backlog=_BACKLOG).start()
        ready()
        await stop.wait()
    finally:
        await runner.cleanup()
        config.journal.close()


class ReplayServer:
    """``raf serve`` in a background thread, bound to 127.0.0.1 by default.

    Args:
        folders: cassette folders (default: the bundled cassettes).
        host, port: where to listen (``port=0``: a free port).
        speed, chunking, max_body, max_streams, max_connections, header_timeout,
            body_timeout: as for ``raf serve`` (:class:`raf.serve.app.ServeConfig`).
        journal_file: also append every journal entry to this file.
        rules: what a request that breaks a request rule gets: ``reject`` (the default:
            the provider's error for a rule it refuses), ``report`` (the recorded answer, the
            rules in the journal) or ``off`` (not checked); :mod:`raf.serve.verdicts`.
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
        header_timeout: float | None = None,
        body_timeout: float | None = None,
        journal_file: Path | None = None,
        rules: Mode = DEFAULT_MODE,
    ) -> None:
        if folders is None:
            from raf.shared.bundled import bundled  # noqa: PLC0415

            folders = [bundled().cassettes]
        self.config = ServeConfig(
            folders=list(folders),
            speed=speed,
            chunking=chunking,
            rules=rules,
            journal=Journal(file=journal_file),
        )
        if max_body is not None:
            self.config.max_body = max_body
        if max_streams is not None:
            self.config.max_streams = max_streams
        if max_connections is not None:
            self.config.max_connections = max_connections
        if header_timeout is not None:
            self.config.header_timeout = header_timeout
        if body_timeout is not None:
            self.config.body_timeout = body_timeout
        self.host = host
        self.port = port
        self._thread: loop_thread.LoopThread | None = None

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
        run: str | None = None,
        model: str | None = None,
    ) -> str:
        """The base URL of a case (a client appends its provider path); ``run`` names one
        run of a tool loop (``/r/<run>``: an order of its own, ``run`` in the journal);
        ``model`` asks for the answer re-encoded in that message model (``/as/<model>``)."""
        path = case_path(
            dialect, scenario, chunking=chunking, faults=list(faults), interaction=interaction
        )
        path += f"/r/{run}" if run is not None else ""
        return self.url + path + (f"/as/{model}" if model is not None else "")

    def start(self) -> str:
        """Start listening and serving; return :attr:`url`. ``OSError`` if the address
        cannot be bound."""
        if self._thread is not None:
            return self.url
        sock = bind(self.host, self.port)
        self.port = sock.getsockname()[1]
        thread = loop_thread.LoopThread(f"raf-serve-{self.port}", "raf serve")
        thread.start(lambda stop, ready: _run(self.config, sock, stop, ready))
        self._thread = thread
        return self.url

    def stop(self) -> None:
        """Stop accepting, let responses in progress end (2 s at most), close."""
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.stop(timeout=_SHUTDOWN_TIMEOUT + 5)

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
    _enough_files(config.max_connections + waiting_for(config.max_connections) + 64)

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(signum, stop.set)
        await _run(config, sock, stop, on_ready)

    asyncio.run(main())


def _enough_files(wanted: int) -> None:
    """Raise this process's limit of open files towards ``wanted`` (each connection is one,
    and over-the-limit connections are answered too), as far as the hard limit allows."""
    try:
        import resource  # noqa: PLC0415 - POSIX only

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft != resource.RLIM_INFINITY and soft < wanted:
            target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    except (ImportError, ValueError, OSError):
        return
