"""Which connections ``raf serve`` serves when more arrive than ``--max-connections``. No IO:
the server tells it what happens to each connection and closes the ones it names.

At most ``limit`` connections hold a place (are *admitted*). A connection that arrives when
every place is held takes the place of the admitted connection that has been idle the
longest, which is closed: idle means waiting for a request (its first or its next, keep-alive)
with nothing of it received yet, and the server decides it (``idle``), not this module. When
no admitted connection is idle, the new one is *over* the limit: it may still send its
request, which gets 503 and the connection closed, unless a place has come free by then.
Over connections are bounded too (``waiting``: as many as ``limit``, and at least 1,024, so
that a burst gets its 503s); one more is closed at once, unanswered.

So a thousand idle connections never keep a request from being served, and with every place
busy only the excess is refused: never the connections already being served.

    gate = Connections(100, idle=is_idle, close=close)
    if not gate.opened(conn):  # accepted: False means close it at once
        ...
    if gate.request(conn):     # a request arrived: serve it (True) or refuse it (False)
        ...
        gate.done(conn)        # its response ended
    gate.closed(conn)          # the connection is gone
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

__all__ = ["Connections", "waiting_for"]

C = TypeVar("C", bound=Hashable)


def waiting_for(limit: int) -> int:
    """How many connections over ``limit`` may wait for their 503: as many as ``limit``, at
    least 1,024."""
    return max(limit, 1024)


@dataclass
class _State:
    admitted: bool
    since: float
    """When it last became idle (accepted, or its last response ended)."""
    busy: bool = False
    requests: int = 0


class Connections(Generic[C]):
    """The open connections and their places (see the module docstring).

    Args:
        limit: most admitted connections (``--max-connections``).
        waiting: most connections over the limit, waiting to be refused (default:
            :func:`waiting_for` ``limit``).
        idle: whether a connection is waiting for a request with nothing of it received.
        close: close a connection (it is then reported through :meth:`closed`).
        clock: seconds, for the order in which idle connections are closed.
    """

    def __init__(
        self,
        limit: int,
        *,
        waiting: int | None = None,
        idle: Callable[[C], bool],
        close: Callable[[C], None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if limit < 1:
            raise ValueError(f"the connection limit must be at least 1, got {limit}")
        self.limit = limit
        self.waiting = waiting_for(limit) if waiting is None else waiting
        self._idle = idle
        self._close = close
        self._clock = clock
        self._states: dict[C, _State] = {}
        self._admitted = 0
        self.evicted = 0
        """Idle connections closed to make room, since the start."""
        self.refused = 0
        """Requests refused (503) and connections closed unanswered, since the start."""

    @property
    def open(self) -> int:
        return len(self._states)

    @property
    def admitted(self) -> int:
        return self._admitted

    def opened(self, conn: C) -> bool:
        """A connection was accepted. ``False``: close it at once (the limit of over
        connections is reached too)."""
        admitted = self._make_room()
        if not admitted and self.open - self._admitted >= self.waiting:
            self.refused += 1
            return False
        self._states[conn] = _State(admitted=admitted, since=self._clock())
        if admitted:
            self._admitted += 1
        return True

    def request(self, conn: C) -> bool:
        """A request arrived on ``conn``: ``True`` to serve it, ``False`` to refuse it (503,
        and close the connection)."""
        state = self._states.get(conn)
        if state is None:  # not seen opening (a server without the hook): serve it
            return True
        if not state.admitted:
            if not self._make_room():
                self.refused += 1
                return False
            state.admitted = True
            self._admitted += 1
        state.busy = True
        state.requests += 1
        return True

    def done(self, conn: C) -> None:
        """The response to the request on ``conn`` ended; it may wait for another."""
        state = self._states.get(conn)
        if state is not None:
            state.busy = False
            state.since = self._clock()

    def closed(self, conn: C) -> None:
        """``conn`` is gone; its place is free."""
        state = self._states.pop(conn, None)
        if state is not None and state.admitted:
            self._admitted -= 1

    def awaiting_first_request(self, conn: C) -> bool:
        """``conn`` is open and has not yet sent a complete request (for the header
        timeout)."""
        state = self._states.get(conn)
        return state is not None and state.requests == 0 and not state.busy

    def _make_room(self) -> bool:
        """Whether a place is free, after closing the longest idle admitted connection if
        none was."""
        if self._admitted < self.limit:
            return True
        candidates = [
            (state.since, n, conn)
            for n, (conn, state) in enumerate(self._states.items())
            if state.admitted and not state.busy
        ]
        for _, _, conn in sorted(candidates, key=lambda c: (c[0], c[1])):
            if self._idle(conn):
                self.closed(conn)  # its place is free now, whenever the transport goes
                self.evicted += 1
                self._close(conn)
                return True
        return False
