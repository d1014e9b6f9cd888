"""An asyncio server in a background thread, for the shells that serve HTTP on loopback
(``raf serve``'s :class:`~raf.serve.ReplayServer`, ``raf record``'s
:class:`~raf.record.RecordingProxy`), which import none of each other and share this.

The listening socket is bound before the thread starts (:func:`bind`), so ``port=0`` gives a
free port that is known at once. :meth:`LoopThread.start` runs ``serve(stop, ready)`` on a new
event loop in a daemon thread and returns once ``serve`` called ``ready`` (or failed: the
failure is raised in the caller's thread, never lost in the server's); :meth:`LoopThread.stop`
sets ``stop``, waits for ``serve`` to return, then cancels what is still running on the loop
and closes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from collections.abc import Awaitable, Callable

__all__ = ["LoopThread", "bind"]


def bind(host: str, port: int, *, backlog: int = 128) -> socket.socket:
    """A listening, non-blocking TCP socket on ``host:port`` (``OSError`` when it cannot be
    had)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(backlog)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


def _cancel_pending(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what is still running on ``loop`` (streams past the shutdown timeout) and let
    it unwind, so that nothing is destroyed pending."""
    pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))


Serve = Callable[[asyncio.Event, Callable[[], None]], Awaitable[None]]
"""``serve(stop, ready)``: serves until ``stop`` is set, calls ``ready()`` once it accepts."""


class LoopThread:
    """One server's event loop in a daemon thread named ``name``; ``what`` names the server
    in the error :meth:`start` raises."""

    def __init__(self, name: str, what: str) -> None:
        self.name = name
        self.what = what
        self.loop: asyncio.AbstractEventLoop | None = None
        """The server's loop while it runs (for ``call_soon_threadsafe``)."""
        self._thread: threading.Thread | None = None
        self._stop: asyncio.Event | None = None
        self._failure: BaseException | None = None

    @property
    def running(self) -> bool:
        return self._thread is not None

    def start(self, serve: Serve) -> None:
        """Run ``serve`` in the thread; return once it is ready.

        Raises:
            RuntimeError: ``serve`` failed before it was ready (the message names
                :attr:`what` and the failure).
        """
        started = threading.Event()

        def main() -> None:
            loop = asyncio.new_event_loop()
            self.loop = loop
            self._stop = asyncio.Event()
            try:
                loop.run_until_complete(serve(self._stop, started.set))
            except BaseException as exc:  # raised by start(), never lost in the thread
                self._failure = exc
            finally:
                started.set()
                _cancel_pending(loop)
                loop.close()

        self._thread = threading.Thread(target=main, name=self.name, daemon=True)
        self._thread.start()
        started.wait()
        if self._failure is not None:
            raise RuntimeError(f"{self.what} could not start: {self._failure}")

    def stop(self, timeout: float) -> None:
        """Set ``stop`` and wait up to ``timeout`` seconds for the thread to end."""
        thread, self._thread = self._thread, None
        if thread is None:
            return
        loop, stop = self.loop, self._stop
        if loop is not None and stop is not None:
            with contextlib.suppress(RuntimeError):  # the loop already ended
                loop.call_soon_threadsafe(stop.set)
        thread.join(timeout=timeout)
