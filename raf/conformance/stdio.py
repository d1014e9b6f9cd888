"""The process shell of the stdio protocol: an implementation that is a program.

:class:`StdioImplementation` starts the command (without a shell), says hello, and runs each
case by writing one ``case`` line to the program's standard input and reading one ``result``
line from its standard output, with a timeout. Its standard error is read all along and kept
(the last 64 KiB); each :class:`~raf.conformance.implementation.Outcome` carries what was
written during that case. When a case goes wrong (a timeout, the program exiting, a line that
is not a message, another case's id) that case fails with the reason, the process is killed
(with its process group) and the next case starts it again. Nothing here raises for what the
program does. docs/protocol.md is the specification.
"""

from __future__ import annotations

import base64
import contextlib
import os
import queue
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING

from raf.conformance import protocol
from raf.conformance.cases import Case
from raf.conformance.http import http_request, request_problems
from raf.conformance.implementation import Outcome
from raf.conformance.protocol import (
    PROTOCOL,
    Bye,
    Hello,
    ImplementationHello,
    ProtocolError,
    Result,
    decode_from_implementation,
    encode,
)
from raf.errors import excerpt

if TYPE_CHECKING:  # pragma: no cover
    from raf.serve.server import ReplayServer

__all__ = ["DEFAULT_TIMEOUT", "ImplementationFailed", "StdioImplementation"]

DEFAULT_TIMEOUT = 30.0
"""Seconds an implementation has to answer one case."""

_HELLO_TIMEOUT = 10.0
_BYE_TIMEOUT = 5.0
_MAX_LINE = 64 * 1024 * 1024
_STDERR_KEPT = 64 * 1024
_SHOWN = 200


class ImplementationFailed(Exception):
    """The implementation cannot be used at all (it does not start, or speaks another
    protocol); ``str(exc)`` says why."""


class _Process:
    """One running program: its pipes, a reader thread per output stream."""

    def __init__(self, argv: Sequence[str], cwd: Path | None, env: dict[str, str] | None):
        self.popen = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=env,
            start_new_session=True,  # a process group of its own, killed as one
        )
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.stderr = bytearray()
        self.stderr_total = 0
        self._lock = threading.Lock()
        assert self.popen.stdout is not None
        assert self.popen.stderr is not None
        threading.Thread(target=self._read_lines, args=(self.popen.stdout,), daemon=True).start()
        threading.Thread(target=self._read_stderr, args=(self.popen.stderr,), daemon=True).start()

    def _read_lines(self, stream: IO[bytes]) -> None:
        try:
            while True:
                line = stream.readline(_MAX_LINE + 1)
                if not line:
                    break
                self.lines.put(line)
        except (OSError, ValueError):
            pass
        self.lines.put(None)  # the end of its output

    def _read_stderr(self, stream: IO[bytes]) -> None:
        try:
            while True:
                block = stream.read1(65536)  # type: ignore[attr-defined]
                if not block:
                    break
                with self._lock:
                    self.stderr += block
                    self.stderr_total += len(block)
                    if len(self.stderr) > _STDERR_KEPT:
                        del self.stderr[: len(self.stderr) - _STDERR_KEPT]
        except (OSError, ValueError):
            pass

    def stderr_since(self, mark: int) -> str:
        """What the program wrote to stderr after it had written ``mark`` bytes (as far as
        it is still kept)."""
        with self._lock:
            new = self.stderr_total - mark
            kept = bytes(self.stderr[-new:]) if new > 0 else b""
        return kept.decode("utf-8", "replace")

    def send(self, data: bytes) -> None:
        stdin = self.popen.stdin
        assert stdin is not None
        stdin.write(data)
        stdin.flush()

    def receive(self, timeout: float) -> bytes | None:
        """The next line, ``None`` at the end of its output; ``queue.Empty`` on timeout."""
        return self.lines.get(timeout=timeout)

    def exit_status(self, wait: float = 0.0) -> int | None:
        try:
            return self.popen.wait(timeout=wait) if wait else self.popen.poll()
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        if self.popen.poll() is None:
            try:
                os.killpg(self.popen.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.popen.kill()
        for stream in (self.popen.stdin, self.popen.stdout, self.popen.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        with contextlib.suppress(subprocess.TimeoutExpired):  # SIGKILL does not wait long
            self.popen.wait(timeout=5)


class StdioImplementation:
    """A program speaking ``raf-conformance/1`` on its standard input and output.

    Args:
        command: the program and its arguments, as a list or as one string split the way a
            POSIX shell splits words (no shell runs it: use ``sh -c '...'`` for pipes).
        timeout: seconds the program has to answer each case.
        cwd: its working folder.
        env: its environment (default: this process's).
        server: a running ``raf serve``: every case is sent as an ``http`` case on it
            (:mod:`raf.conformance.http`), and the request the program made is checked.

    Raises:
        ImplementationFailed: from :meth:`hello`, when the program cannot be started, does not
            answer, or speaks another protocol.
    """

    def __init__(
        self,
        command: str | Sequence[str],
        *,
        timeout: float = DEFAULT_TIMEOUT,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        server: ReplayServer | None = None,
        max_timeouts: int = 3,
    ) -> None:
        self.server = server
        self.max_timeouts = max_timeouts
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.argv:
            raise ValueError("an empty command")
        self.command = command if isinstance(command, str) else shlex.join(command)
        self.timeout = timeout
        self.cwd = cwd
        self.env = env
        self.restarts = 0
        self._process: _Process | None = None
        self._hello: ImplementationHello | None = None

    # -- the protocol ---------------------------------------------------------------------

    def hello(self) -> ImplementationHello:
        """Start the program (if it is not running) and return its hello."""
        if self._process is not None and self._hello is not None:
            return self._hello
        process = self._start()
        mark = process.stderr_total
        try:
            process.send(encode(Hello()))
            line = process.receive(_HELLO_TIMEOUT)
        except (OSError, queue.Empty):
            line = b""
        if not line:
            status = process.exit_status(wait=0.2)
            stderr = process.stderr_since(mark)
            process.kill()
            self._process = None
            what = "did not answer hello" if status is None else f"exited (status {status})"
            raise ImplementationFailed(f"{self.command!r} {what}{_tail(stderr)}")
        try:
            message = decode_from_implementation(line)
        except ProtocolError as exc:
            process.kill()
            self._process = None
            raise ImplementationFailed(
                f"{self.command!r} answered hello with a malformed line: {exc}: {_shown(line)}"
            ) from None
        if not isinstance(message, ImplementationHello):
            process.kill()
            self._process = None
            raise ImplementationFailed(f"{self.command!r} answered hello with {_shown(line)}")
        if message.protocol != PROTOCOL:
            process.kill()
            self._process = None
            raise ImplementationFailed(
                f"protocol mismatch: {self.command!r} speaks {message.protocol!r}, "
                f"raf speaks {PROTOCOL!r}"
            )
        self._hello = message
        return message

    def run(self, case: Case, level: str) -> Outcome:
        """Run one case (starting the program again if a previous case stopped it)."""
        if self._process is None:
            try:
                self.hello()
            except ImplementationFailed as exc:
                return Outcome(failure=f"it could not be started again: {exc}")
            self.restarts += 1
        process = self._process
        assert process is not None
        mark = process.stderr_total
        message = protocol.Case(
            id=case.id,
            dialect=case.dialect,
            level=level,
            status=case.status,
            headers=case.headers,
            chunks=[] if self.server is not None else _base64(case.chunks()),
        )
        if self.server is not None:  # the client makes the request itself, on the server
            message.transport = "http"
            message.request = http_request(case, self.server.url)
            journal_mark = self.server.journal.count
        deadline = time.monotonic() + self.timeout
        try:
            process.send(encode(message))
            line = process.receive(max(deadline - time.monotonic(), 0.001))
        except OSError:
            line = None
        except queue.Empty:
            return self._fail(f"timeout after {self.timeout:g} s", mark)
        if line is None:
            status = process.exit_status(wait=1.0)
            shown = "?" if status is None else str(status)
            return self._fail(f"the implementation exited (status {shown})", mark)
        if not line.endswith(b"\n") and len(line) > _MAX_LINE:
            return self._fail(f"malformed line: longer than {_MAX_LINE:,} bytes", mark)
        try:
            answer = decode_from_implementation(line)
        except ProtocolError as exc:
            return self._fail(f"malformed line: {exc}: {_shown(line)}", mark)
        if not isinstance(answer, Result):
            return self._fail(f"malformed line: a {answer.__class__.__name__}, not a result", mark)
        if answer.id != case.id:
            return self._fail(f"wrong id: expected {case.id!r}, got {answer.id!r}", mark)
        problems: tuple[str, ...] = ()
        if self.server is not None:
            problems = tuple(request_problems(self.server.journal, journal_mark, case))
        return Outcome(answer, stderr=process.stderr_since(mark), request_problems=problems)

    def close(self, *, abort: bool = False) -> None:
        """Say bye and wait for the program to exit (killing it after 5 seconds); with
        ``abort``, kill it at once."""
        process, self._process = self._process, None
        if process is None:
            return
        if abort:
            process.kill()
            return
        with contextlib.suppress(OSError):
            process.send(encode(Bye()))
        process.exit_status(wait=_BYE_TIMEOUT)
        process.kill()

    # -- the process ----------------------------------------------------------------------

    def _start(self) -> _Process:
        try:
            self._process = _Process(self.argv, self.cwd, self.env)
        except OSError as exc:
            raise ImplementationFailed(
                f"cannot start {self.command!r}: {exc.strerror or exc}"
            ) from None
        self._hello = None
        return self._process

    def _fail(self, reason: str, mark: int) -> Outcome:
        process = self._process
        stderr = process.stderr_since(mark) if process is not None else ""
        if process is not None:
            process.kill()
        self._process = None
        return Outcome(failure=reason, stderr=stderr)


def _shown(line: bytes) -> str:
    return excerpt(line.rstrip(b"\n"), _SHOWN)


def _base64(chunks: list[bytes]) -> list[str]:
    return [base64.b64encode(chunk).decode("ascii") for chunk in chunks]


def _tail(stderr: str) -> str:
    stderr = stderr.strip()
    if not stderr:
        return ""
    return "; its stderr ends: " + stderr[-500:]
