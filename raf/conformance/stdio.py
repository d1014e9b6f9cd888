"""The process shell of the stdio protocol: an implementation that is a program.

:class:`StdioImplementation` starts the command (without a shell, in a process group of its
own), says hello, and runs each case by writing one ``case`` line to the program's standard
input and reading one ``result`` line from its standard output, with a timeout. One loop on
:mod:`selectors` writes the input and reads both outputs as each pipe is ready, in this
thread: a program that reads its input slowly or writes much to stderr never blocks raf, and
the timeout bounds the whole exchange. Once a case's result line has arrived, the stderr pipe
is read to its bottom without waiting: whatever the program wrote to stderr before that line
is that case's :attr:`~raf.conformance.implementation.Outcome.stderr`, never the next one's
(the last 64 KiB are kept).

A case that leaves the conversation out of step (a timeout, the program exiting, a line that
is not a message, another case's id) fails with the reason; the program is killed with its
process group, and the next case starts it again. A result whose fields break the schema fails
its own case only. After ``max_timeouts`` timeouts in a row, or when the program cannot be
started again, the implementation gives up (``Outcome.give_up``) and starts nothing more.
Every process started is reaped. Nothing here raises for what the program does.
docs/protocol.md is the specification.
"""

from __future__ import annotations

import base64
import contextlib
import os
import selectors
import shlex
import signal
import subprocess
import time
import uuid
from collections import deque
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from types import TracebackType
from typing import Literal

from raf.conformance import protocol
from raf.conformance.cases import Case
from raf.conformance.http import CaseServer, http_request, request_problems, run_entries
from raf.conformance.implementation import Outcome
from raf.conformance.protocol import (
    PROTOCOL,
    Bye,
    Hello,
    ImplementationHello,
    InvalidResult,
    ProtocolError,
    Result,
    decode_from_implementation,
    encode,
)
from raf.conformance.tool_loop import tool_loop_message
from raf.errors import excerpt

__all__ = [
    "DEFAULT_MAX_TIMEOUTS",
    "DEFAULT_TIMEOUT",
    "HELLO_TIMEOUT",
    "ImplementationFailed",
    "StdioImplementation",
]

DEFAULT_TIMEOUT = 30.0
"""Seconds an implementation has to answer one case."""

DEFAULT_MAX_TIMEOUTS = 3
"""Timeouts in a row after which an implementation is given up as hung."""

HELLO_TIMEOUT = 10.0
"""Seconds a program has to start and answer hello."""

_EXIT_WAIT = 5.0  # after its stdout closed: a bound on waiting for its exit status
_BYE_TIMEOUT = 5.0
_ABORT_GRACE = 1.0  # close(abort=True): from SIGTERM to SIGKILL, unless it exits sooner
_MAX_LINE = 64 * 1024 * 1024
_READ = 65536
_DRAIN = 1 << 20  # at most this much stderr read at once without waiting (a pipe holds less)
_STDERR_KEPT = 64 * 1024
_SHOWN = 200
_TAIL = 2000

_FLUSH_HINT = (
    "if it printed its answer, it did not flush its stdout (Python: print(..., flush=True); "
    "C: fflush(stdout), as stdio buffers a pipe)"
)
_NOT_RUN = "not run: raf gave up on the implementation"
_STOPPED = "not run: the implementation was stopped"

_Ending = Literal["answered", "other", "timeout", "silent timeout"]


class ImplementationFailed(Exception):
    """The implementation cannot be used at all (it does not start, or speaks another
    protocol); ``str(exc)`` says why, with the end of what it wrote to stderr."""


class _Process:
    """One running program and its three pipes, served by one selector loop (no threads).

    :meth:`send` queues bytes for its stdin; :meth:`receive` waits for the next line of its
    stdout, meanwhile writing what is queued and reading stderr into :attr:`stderr`;
    :meth:`interrupt` ends that wait from a signal handler.
    """

    def __init__(self, argv: Sequence[str], cwd: Path | None, env: dict[str, str] | None):
        self._wake, self._waker = os.pipe()  # interrupt() writes, the selector wakes
        try:
            self.popen = self._spawn(argv, cwd, env)
        except BaseException:
            os.close(self._wake)
            os.close(self._waker)
            raise
        try:
            self._setup()
        except BaseException:  # pragma: no cover - out of file descriptors
            self._signal(signal.SIGKILL)
            self.popen.wait()
            raise

    def _setup(self) -> None:
        assert self.popen.stdin is not None
        assert self.popen.stdout is not None
        assert self.popen.stderr is not None
        self._stdin = self.popen.stdin.fileno()
        self._stdout = self.popen.stdout.fileno()
        self._stderr = self.popen.stderr.fileno()
        for fd in (self._stdin, self._stdout, self._stderr, self._wake, self._waker):
            os.set_blocking(fd, False)
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._stdout, selectors.EVENT_READ)
        self._selector.register(self._stderr, selectors.EVENT_READ)
        self._selector.register(self._wake, selectors.EVENT_READ)
        self._open = {self._stdout, self._stderr}  # the outputs not yet at their end
        self._stdin_open = True
        self._stdin_watched = False
        self._outbox = bytearray()
        self._lines: deque[bytes] = deque()
        self.partial = bytearray()
        """What it wrote on stdout after its last complete line."""
        self.stdout_total = 0
        self.stderr = bytearray()
        self.stderr_total = 0
        self.interrupted = False
        self._released = False

    @staticmethod
    def _spawn(
        argv: Sequence[str], cwd: Path | None, env: dict[str, str] | None
    ) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=env,
            bufsize=0,
            start_new_session=True,  # a process group of its own, stopped as one
        )

    # -- the pipes ------------------------------------------------------------------------

    def send(self, data: bytes) -> None:
        """Queue ``data`` for its stdin (written by :meth:`receive` as the pipe takes it)."""
        if self._stdin_open and not self._released:
            self._outbox += data
            self._write()

    def receive(self, deadline: float) -> bytes | None:
        """The next line (with its LF unless it is its last or longer than 64 MiB), then
        everything already in the stderr pipe read; ``None`` at the end of its stdout, or
        once :meth:`interrupt` was called.

        Raises:
            TimeoutError: no line by ``deadline`` (``time.monotonic()``).
        """
        while not self._lines:
            if self._stdout not in self._open or self.interrupted:
                self.drain_stderr()
                return None
            remaining = deadline - time.monotonic()
            self._pump(max(remaining, 0.0))
            if remaining <= 0 and not self._lines and self._stdout in self._open:
                self.drain_stderr()
                raise TimeoutError
        line = self._lines.popleft()
        self.drain_stderr()  # everything it wrote before that line is in the pipe by now
        return line

    def drain_stderr(self) -> None:
        """Read what is in the stderr pipe now, without waiting for more."""
        left = _DRAIN
        while left > 0 and (read := self._read_stderr()):
            left -= read

    def wait_exit(self, timeout: float) -> int | None:
        """Its exit status, waiting up to ``timeout`` seconds for it (reading stderr and
        writing stdin meanwhile); ``None`` while it is still running."""
        deadline = time.monotonic() + timeout
        while (status := self.popen.poll()) is None:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or self.interrupted:
                break
            self._pump(min(remaining, 0.05))
        self.drain_stderr()
        return status

    def stderr_since(self, mark: int) -> str:
        """What the program wrote to stderr after it had written ``mark`` bytes (as far as
        it is still kept)."""
        new = self.stderr_total - mark
        kept = bytes(self.stderr[-new:]) if new > 0 else b""
        return kept.decode("utf-8", "replace")

    def _pump(self, timeout: float) -> None:
        if self._released:
            return
        watch = bool(self._outbox) and self._stdin_open
        if watch != self._stdin_watched:
            if watch:
                self._selector.register(self._stdin, selectors.EVENT_WRITE)
            else:
                self._selector.unregister(self._stdin)
            self._stdin_watched = watch
        for key, _ in self._selector.select(timeout):
            if key.fd == self._wake:
                with contextlib.suppress(OSError):
                    os.read(self._wake, _READ)
            elif key.fd == self._stdin:
                self._write()
            elif key.fd == self._stdout:
                self._read_stdout()
            else:
                self._read_stderr()

    def _write(self) -> None:
        try:
            written = os.write(self._stdin, self._outbox)
        except BlockingIOError:
            return
        except OSError:  # it closed its stdin, or exited: what it did not read is lost
            self._outbox.clear()
            self._stdin_open = False
            return
        del self._outbox[:written]

    def _read(self, fd: int) -> bytes | None:
        """A block from ``fd``; ``None`` when there is nothing now, ``b""`` at its end."""
        try:
            block = os.read(fd, _READ)
        except BlockingIOError:
            return None
        except OSError:
            block = b""
        if not block:
            self._open.discard(fd)
            with contextlib.suppress(KeyError, ValueError):
                self._selector.unregister(fd)
        return block

    def _read_stdout(self) -> None:
        block = self._read(self._stdout)
        if block is None:
            return
        if not block:  # its end: a last line without its LF is still a line
            if self.partial:
                self._lines.append(bytes(self.partial))
                self.partial.clear()
            return
        self.stdout_total += len(block)
        start = 0
        while (end := block.find(b"\n", start)) != -1:
            self.partial += block[start : end + 1]
            self._lines.append(bytes(self.partial))
            self.partial.clear()
            start = end + 1
        self.partial += block[start:]
        if len(self.partial) > _MAX_LINE:  # handed on as it is: the caller rejects it
            self._lines.append(bytes(self.partial))
            self.partial.clear()

    def _read_stderr(self) -> int:
        """How much it read: 0 when there is nothing now, or at the end."""
        if self._released or self._stderr not in self._open:
            return 0
        block = self._read(self._stderr)
        if not block:
            return 0
        self.stderr += block
        self.stderr_total += len(block)
        if len(self.stderr) > _STDERR_KEPT:
            del self.stderr[: len(self.stderr) - _STDERR_KEPT]
        return len(block)

    # -- the process ----------------------------------------------------------------------

    def interrupt(self) -> None:
        """Send SIGTERM to its process group and make :meth:`receive` return ``None`` now
        (safe in a signal handler: it neither waits nor takes a lock)."""
        self.interrupted = True
        self._signal(signal.SIGTERM)
        with contextlib.suppress(OSError):
            os.write(self._waker, b"!")

    def stop(self, grace: float = 0.0) -> None:
        """Stop its whole process group and reap it: with ``grace``, SIGTERM first and up to
        ``grace`` seconds for the program to exit; then SIGKILL (to what is left of the
        group too, even when the program itself has exited)."""
        if grace > 0 and self.popen.poll() is None:
            self._signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.popen.wait(timeout=grace)
        self._signal(signal.SIGKILL)
        self.popen.wait()  # SIGKILL cannot be refused

    def kill(self, grace: float = 0.0) -> None:
        """:meth:`stop`, keep what it wrote to stderr meanwhile, close the pipes."""
        self.stop(grace)
        if self._released:
            return
        self.drain_stderr()
        self._released = self.interrupted = True  # nothing waits on closed pipes
        self._selector.close()
        for stream in (self.popen.stdin, self.popen.stdout, self.popen.stderr):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()
        for fd in (self._wake, self._waker):
            with contextlib.suppress(OSError):
                os.close(fd)

    def _signal(self, sig: signal.Signals) -> None:
        try:
            os.killpg(self.popen.pid, sig)  # the group outlives the program while it has members
        except ProcessLookupError:  # nothing left of the group
            pass
        except PermissionError:  # pragma: no cover - a group that is not ours any more
            if self.popen.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.popen.pid, sig)


class StdioImplementation:
    """A program speaking ``raf-conformance/1`` on its standard input and output.

    Args:
        command: the program and its arguments, as a list or as one string split the way a
            POSIX shell splits words (no shell runs it: use ``sh -c '...'`` for pipes).
        timeout: seconds the program has to answer each case.
        cwd: its working folder.
        env: its environment (default: this process's).
        server: a running ``raf serve`` (a :class:`~raf.serve.ReplayServer`): every case is
            sent as an ``http`` case on it (:mod:`raf.conformance.http`), and the request
            the program made is checked.
        loop_server: the server of the ``tool_loop`` cases, when it is not ``server`` (their
            recordings may have the names of cassettes ``server`` answers).
        max_timeouts: give up after this many timeouts in a row (a case that ends any other
            way starts the count again); ``0`` never gives up.
        hello_timeout: seconds the program has to start and answer hello.

    Raises:
        ImplementationFailed: from :meth:`hello`, when the program cannot be started, does not
            answer, or speaks another protocol; later calls raise the same without trying
            again.
    """

    def __init__(
        self,
        command: str | Sequence[str],
        *,
        timeout: float = DEFAULT_TIMEOUT,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        server: CaseServer | None = None,
        max_timeouts: int = DEFAULT_MAX_TIMEOUTS,
        hello_timeout: float = HELLO_TIMEOUT,
        loop_server: CaseServer | None = None,
    ) -> None:
        self.server = server
        self.loop_server = loop_server
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.argv:
            raise ValueError("an empty command")
        if max_timeouts < 0:
            raise ValueError(f"max_timeouts must be 0 or more, not {max_timeouts}")
        self.command = command if isinstance(command, str) else shlex.join(command)
        self.timeout = timeout
        self.hello_timeout = hello_timeout
        self.max_timeouts = max_timeouts
        self.cwd = cwd
        self.env = env
        self.starts = 0
        """How many times the program was started."""
        self._process: _Process | None = None
        self._hello: ImplementationHello | None = None
        self._timeouts = 0  # in a row
        self._given_up: str | None = None
        self._stopped = False
        self._waiting = False

    @property
    def restarts(self) -> int:
        """How many times the program was started again after a case stopped it."""
        return max(self.starts - 1, 0)

    @property
    def given_up(self) -> str | None:
        """Why the implementation was given up (the message shown once), or ``None``."""
        return self._given_up

    def __enter__(self) -> StdioImplementation:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close(abort=kind is not None)

    # -- the protocol ---------------------------------------------------------------------

    def hello(self) -> ImplementationHello:
        """Start the program (if it is not running) and return its hello."""
        if self._given_up is not None:
            raise ImplementationFailed(self._given_up)
        try:
            return self._greet()
        except ImplementationFailed as exc:
            if not self._stopped:
                self._given_up = str(exc)
            raise

    def run(self, case: Case, level: str) -> Outcome:
        """Run one case (starting the program again if a previous case stopped it)."""
        if self._given_up is not None:
            return Outcome(failure=_NOT_RUN, give_up=self._given_up)
        if self._stopped:
            return Outcome(failure=_STOPPED)
        if self._process is None:
            again = self.starts > 0
            try:
                self._greet()
            except ImplementationFailed as exc:
                if self._stopped:  # close(abort=True) ran meanwhile
                    return Outcome(failure=_STOPPED)
                if again:
                    self._given_up = f"gave up: it could not be started again: {exc}"
                    failure = "not run: the implementation could not be started again"
                else:
                    self._given_up, failure = str(exc), _NOT_RUN
                return Outcome(failure=failure, give_up=self._given_up)
        outcome, ending = self._exchange(case, level)
        if ending not in ("timeout", "silent timeout"):
            self._timeouts = 0
            return outcome
        self._timeouts += 1
        if self.max_timeouts and self._timeouts >= self.max_timeouts:
            count = self._timeouts
            self._given_up = (
                f"gave up after {count} timeouts in a row: the implementation seems hung (it "
                f"answered none of the last {count} cases within {self.timeout:g} s)"
            )
            if ending == "silent timeout":
                self._given_up += f"; it wrote nothing on its stdout: {_FLUSH_HINT}"
            return replace(outcome, give_up=self._given_up)
        return outcome

    def close(self, *, abort: bool = False) -> None:
        """Say bye and wait for the program to exit (killing its process group after 5
        seconds); with ``abort``, stop it at once: SIGTERM to its process group, SIGKILL
        after a second unless it exited sooner, no bye. Either way it is reaped. After an
        abort nothing is started again."""
        process = self._process
        if abort:
            self._stopped = True
            if process is not None and self._waiting:  # from a signal handler, in a wait
                process.interrupt()  # the wait ends, and its caller stops the program
                return
        self._process = None
        if process is None:
            return
        if abort:
            process.kill(_ABORT_GRACE)
            return
        process.send(encode(Bye()))
        process.wait_exit(_BYE_TIMEOUT)
        process.kill()

    # -- the conversation -----------------------------------------------------------------

    def _greet(self) -> ImplementationHello:
        if self._stopped:
            raise ImplementationFailed(f"{self.command!r} was stopped")
        if self._process is not None and self._hello is not None:
            return self._hello
        process = self._start()
        process.send(encode(Hello()))
        try:
            line = self._receive(process, time.monotonic() + self.hello_timeout)
        except TimeoutError:
            status = process.popen.poll()
            if status is not None:  # its stdout is held open by another process
                why = f"exited (status {status}) without answering hello"
                raise self._failed_start(process, why) from None
            why = f"did not answer hello within {self.hello_timeout:g} s"
            raise self._failed_start(process, why + _silence(process, 0)) from None
        if self._stopped:
            self._stop(process, _ABORT_GRACE)
            raise ImplementationFailed(f"{self.command!r} was stopped")
        if line is None:
            status = process.wait_exit(_EXIT_WAIT)
            why = "closed its stdout" if status is None else f"exited (status {status})"
            raise self._failed_start(process, f"{why} without answering hello")
        try:
            message = decode_from_implementation(line)
        except ProtocolError as exc:
            raise self._failed_start(
                process,
                f"answered hello with a malformed line: {exc}: {_shown(line)} (only messages "
                "of the protocol go to stdout; print anything else to stderr)",
            ) from None
        if not isinstance(message, ImplementationHello):
            raise self._failed_start(process, f"answered hello with {_shown(line)}")
        if message.protocol != PROTOCOL:
            self._stop(process)
            raise ImplementationFailed(
                f"protocol mismatch: {self.command!r} speaks {message.protocol!r}, "
                f"raf speaks {PROTOCOL!r}"
            )
        self._hello = message
        return message

    def _exchange(self, case: Case, level: str) -> tuple[Outcome, _Ending]:
        """The outcome of one case, and how it ended."""
        process = self._process
        assert process is not None
        mark, written = process.stderr_total, process.stdout_total
        message = protocol.Case(
            id=case.id,
            dialect=case.dialect,
            level=level,
            status=case.status,
            headers=case.headers,
            chunks=[] if self.server is not None else _base64(case.chunks()),
        )
        journal_mark = 0
        run: str | None = None
        server = self.server
        if server is not None:  # the client makes the request itself, on the server
            message.transport = "http"
            if case.loop is not None:  # its own run: its requests, in its own order
                server = self.loop_server or server
                run = f"run-{uuid.uuid4().hex[:16]}"
                message.tool_loop = tool_loop_message(case.loop)
            message.request = http_request(case, server.url, run)
            journal_mark = server.journal.count
        process.send(encode(message))
        outcome, ending = self._answer(process, case, mark, written)
        if run is not None and server is not None:
            outcome = replace(outcome, requests=run_entries(server.journal, journal_mark, run))
        elif ending == "answered" and server is not None:
            problems = tuple(request_problems(server.journal, journal_mark, case))
            outcome = replace(outcome, request_problems=problems)
        return outcome, ending

    def _answer(
        self, process: _Process, case: Case, mark: int, written: int
    ) -> tuple[Outcome, _Ending]:
        """The outcome of a case sent to ``process``, and how it ended."""
        try:
            line = self._receive(process, time.monotonic() + self.timeout)
        except TimeoutError:
            reason = f"timeout after {self.timeout:g} s"
            alive = process.popen.poll() is None
            if alive:
                reason += _silence(process, written)
            silent = alive and process.stdout_total == written
            return self._fail(process, reason, mark), "silent timeout" if silent else "timeout"
        if self._stopped:  # close(abort=True) ran meanwhile
            self._stop(process, _ABORT_GRACE)
            reason = "not finished: the implementation was stopped"
            return Outcome(failure=reason, stderr=process.stderr_since(mark)), "other"
        if line is None:
            status = process.wait_exit(_EXIT_WAIT)
            shown = "?" if status is None else str(status)
            return self._fail(process, f"the implementation exited (status {shown})", mark), "other"
        if not line.endswith(b"\n") and len(line) > _MAX_LINE:
            reason = f"malformed line: longer than {_MAX_LINE:,} bytes"
            return self._fail(process, reason, mark), "other"
        try:
            answer = decode_from_implementation(line)
        except InvalidResult as exc:
            if exc.case_id != case.id:
                reason = f"wrong id: expected {case.id!r}, got {exc.case_id!r}"
                return self._fail(process, reason, mark), "other"
            # It answered this case, wrongly: the conversation is still in step.
            reason = f"the result breaks the schema: {exc}"
            return Outcome(failure=reason, stderr=process.stderr_since(mark)), "other"
        except ProtocolError as exc:
            return self._fail(process, f"malformed line: {exc}: {_shown(line)}", mark), "other"
        if not isinstance(answer, Result):
            reason = f"malformed line: a {answer.__class__.__name__}, not a result"
            return self._fail(process, reason, mark), "other"
        if answer.id != case.id:
            reason = f"wrong id: expected {case.id!r}, got {answer.id!r}"
            return self._fail(process, reason, mark), "other"
        return Outcome(answer, stderr=process.stderr_since(mark)), "answered"

    # -- the process ----------------------------------------------------------------------

    def _start(self) -> _Process:
        try:
            process = _Process(self.argv, self.cwd, self.env)
        except OSError as exc:
            raise ImplementationFailed(
                f"cannot start {self.command!r}: {exc.strerror or exc}"
            ) from None
        self._process = process
        self._hello = None
        self.starts += 1
        return process

    def _receive(self, process: _Process, deadline: float) -> bytes | None:
        self._waiting = True  # close(abort=True) from a signal handler interrupts it
        try:
            return process.receive(deadline)
        finally:
            self._waiting = False

    def _stop(self, process: _Process, grace: float = 0.0) -> None:
        if self._process is process:  # first: a signal handler's close() then leaves it be
            self._process = None
        process.kill(grace)

    def _failed_start(self, process: _Process, why: str) -> ImplementationFailed:
        self._stop(process)
        return ImplementationFailed(f"{self.command!r} {why}{_tail(process.stderr_since(0))}")

    def _fail(self, process: _Process, reason: str, mark: int) -> Outcome:
        self._stop(process)  # what it wrote until it died is its stderr too
        return Outcome(failure=reason, stderr=process.stderr_since(mark))


def _silence(process: _Process, written: int) -> str:
    """What its stdout says of a program that did not answer in time, having written
    ``written`` bytes on it before it was asked."""
    if process.stdout_total == written:
        return f"; it wrote nothing on its stdout: {_FLUSH_HINT}"
    if process.partial:
        return f"; its stdout ends with {_shown(bytes(process.partial))} and no LF"
    return ""


def _shown(line: bytes) -> str:
    return excerpt(line.rstrip(b"\n"), _SHOWN)


def _base64(chunks: list[bytes]) -> list[str]:
    return [base64.b64encode(chunk).decode("ascii") for chunk in chunks]


def _tail(stderr: str) -> str:
    stderr = stderr.strip()
    if not stderr:
        return ""
    return "; its stderr ends: " + stderr[-_TAIL:]
