"""Stopping a fuzz campaign from a signal handler, safely (:class:`StopRequest`).

Imports nothing of hypothesis: the command line installs its handlers before the campaigns,
and needs no hypothesis until they run.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

__all__ = ["StopRequest"]


class StopRequest:
    """A request to stop a campaign, made by a shell's signal handler (Ctrl-C, SIGTERM).

    A signal handler that raises ``KeyboardInterrupt`` at whatever line the signal lands on
    may land inside hypothesis's engine (its bookkeeping between examples, a garbage-collector
    callback), which then fails its own assertions or swallows the exception. The handler
    calls :meth:`request` instead: outside a campaign, or while the campaign runs the check
    (raf's code or the implementation's), it raises ``KeyboardInterrupt`` there and then;
    anywhere else in a campaign it is noted, and the campaign stops at its next step (before
    or after checking a stream, or when its rounds end), with what it found.
    """

    def __init__(self) -> None:
        self.requested = False
        self._deferred = False

    def request(self) -> None:
        """Stop: at once where that is safe, else at the campaign's next step."""
        self.requested = True
        if not self._deferred:
            raise KeyboardInterrupt

    def checkpoint(self) -> None:
        """Where a campaign may stop: raises ``KeyboardInterrupt`` once stopping was asked."""
        if self.requested:
            raise KeyboardInterrupt

    @contextlib.contextmanager
    def deferred(self) -> Iterator[None]:
        """While hypothesis's engine runs: a request is noted, acted on at a checkpoint."""
        before, self._deferred = self._deferred, True
        try:
            yield
        finally:
            self._deferred = before
        self.checkpoint()

    @contextlib.contextmanager
    def immediate(self) -> Iterator[None]:
        """While the check runs: a request raises ``KeyboardInterrupt`` at once."""
        before, self._deferred = self._deferred, False
        try:
            self.checkpoint()
            yield
        finally:
            self._deferred = before
