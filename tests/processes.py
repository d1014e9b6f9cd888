"""Processes started by the tests: waited for by their progress, never by the clock, and
reaped on every path.

A test that runs a program must tell a hang from a slow machine. A wall-clock bound cannot:
on a machine running other CPU-bound jobs a healthy program takes many times longer than on
an idle one. What a hung program does not do is make progress, so a program here is hung
when neither it nor any process it started (its descendants, and the members of its process
group) has used CPU time or been runnable for :data:`STALL` seconds. A program that loops
forever uses CPU: that is bounded by ``RLIMIT_CPU`` where a test sets one, never by the clock.
Where ``/proc`` is missing (not Linux) progress cannot be seen, and :data:`LAST_RESORT`
seconds of wall-clock time are the only guard.

:func:`run` is :func:`subprocess.run` on those terms: the program gets a session (and so a
process group) of its own, and whatever way the call ends (an answer, a hang, an exception,
Ctrl-C) the whole group is killed and the program reaped before it returns.

:func:`no_process_outlives_the_session` is the session fixture that checks it (tests/conftest.py
uses it): every process started during a test session carries the session's mark in its
environment (:data:`MARK`), and at the end of the session no process with the mark may be
alive. Under pytest-xdist each worker is a session of its own, with a mark of its own, and
checks its own processes; a nested session (a test that runs pytest) adds its mark to its
parent's, so both see what it leaves.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

STALL = 30.0

"""Seconds without progress (no CPU time used and never runnable, by the program and every
process it started) after which a program is hung. A blocked program that will never be
woken stays blocked; one that is slow on a loaded machine keeps using CPU or waiting to run."""

LAST_RESORT = 600.0
"""Wall-clock seconds a program may take where progress cannot be seen (no ``/proc``)."""

MARK = "RAF_TEST_SESSIONS"
"""The environment variable naming the test sessions a process was started in (a ``:``
separated list of marks, the innermost last)."""

EXIT_GRACE = 5.0
"""Seconds the end-of-session check waits for marked processes that are exiting (killed just
now, their parent reaping them) before it calls them leaked: a leaked process stays."""

# A command line that runs ``python ARGS...`` with SIGINT at its default, as a terminal's
# Ctrl-C finds a program: a pytest-xdist worker ignores SIGINT, and a program started with it
# ignored never gets a KeyboardInterrupt (Python installs its handler only over the default).
_WITH_DEFAULT_SIGINT = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])"
)


def with_default_sigint(python: str, *args: str) -> list[str]:
    """``[python, *args]``, started with SIGINT at its default (see above)."""
    return [python, "-c", _WITH_DEFAULT_SIGINT, *args]


_PROC = Path("/proc")


class Hang(AssertionError):
    """The program made no progress for :data:`STALL` seconds (it was killed and reaped)."""


@dataclass(frozen=True)
class Proc:
    """One process as ``/proc/PID/stat`` shows it."""

    pid: int
    ppid: int
    pgid: int
    state: str
    cpu_ticks: int

    @property
    def running(self) -> bool:
        """Runnable (``R``: on a CPU or waiting for one) or in uninterruptible I/O (``D``):
        moving, however slowly, not blocked for good."""
        return self.state in ("R", "D")


def proc_supported() -> bool:
    return (_PROC / "self" / "stat").exists()


def _read_stat(pid: int) -> Proc | None:
    try:
        raw = (_PROC / str(pid) / "stat").read_text()
    except OSError:  # gone meanwhile, or not ours to read
        return None
    fields = raw.rpartition(")")[2].split()  # the command name may hold spaces and parens
    return Proc(pid, int(fields[1]), int(fields[2]), fields[0], int(fields[11]) + int(fields[12]))


def snapshot() -> dict[int, Proc]:
    """Every process on the machine, by pid."""
    every: dict[int, Proc] = {}
    for entry in os.listdir(_PROC):
        if entry.isdigit():
            proc = _read_stat(int(entry))
            if proc is not None:
                every[proc.pid] = proc
    return every


def family(root: int, every: Mapping[int, Proc]) -> list[Proc]:
    """``root``, its descendants, and the members of the process group it leads (which keeps
    a process whose parent has exited, as long as it stays in the group)."""
    children: dict[int, list[int]] = {}
    for proc in every.values():
        children.setdefault(proc.ppid, []).append(proc.pid)
    found = {pid for pid, proc in every.items() if proc.pgid == root} | {root}
    todo = list(found)
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return [every[pid] for pid in sorted(found) if pid in every]


class Watch:
    """Tells, each time :meth:`check` is called, whether a process family is still making
    progress; raises :class:`Hang` once it has made none for ``stall`` seconds."""

    def __init__(self, pid: int, *, stall: float = STALL, what: str = "") -> None:
        self.pid = pid
        self.stall = stall
        self.what = what or f"process {pid}"
        self.started = self.since = time.monotonic()
        self.cpu = -1
        self.members: frozenset[int] = frozenset()
        self.last: list[Proc] = []

    def check(self, every: Mapping[int, Proc] | None = None) -> None:
        """Raise :class:`Hang` if the family has made no progress for ``stall`` seconds;
        ``every`` is a :func:`snapshot` to use (one for many watches), else one is taken."""
        now = time.monotonic()
        if not proc_supported():
            if now - self.started > LAST_RESORT:
                raise Hang(f"{self.what} still running after {LAST_RESORT:g} s (no /proc here)")
            return
        members = family(self.pid, snapshot() if every is None else every)
        cpu = sum(p.cpu_ticks for p in members)
        pids = frozenset(p.pid for p in members)
        if cpu != self.cpu or pids != self.members or any(p.running for p in members):
            self.cpu, self.members, self.since = cpu, pids, now
        self.last = members
        if now - self.since > self.stall:
            raise Hang(f"{self.what} made no progress for {self.stall:g} s (a hang): {self.show()}")

    def show(self) -> str:
        """The family as last seen: pid, state, CPU seconds, what it waits in, its command."""
        return "; ".join(
            f"{p.pid} {p.state} cpu {p.cpu_ticks / 100:.2f} s wchan {_wchan(p.pid)} {_cmdline(p.pid)}"
            for p in self.last
        )


def _cmdline(pid: int) -> str:
    try:
        raw = (_PROC / str(pid) / "cmdline").read_bytes()
    except OSError:
        return "?"
    return raw.replace(b"\0", b" ").decode("utf-8", "replace").strip()[:300]


def _wchan(pid: int) -> str:
    try:
        return (_PROC / str(pid) / "wchan").read_text() or "-"
    except OSError:
        return "?"


def kill_group(process: subprocess.Popen[Any]) -> None:
    """SIGKILL the process group ``process`` leads (started with ``start_new_session``), reap
    ``process``, and return once no other member of the group is alive (its other members
    are reaped by their own parents, or by init; a SIGKILLed process ends however loaded the
    machine is, but not at once: it must be scheduled to)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        process.kill()
    process.wait()  # SIGKILL cannot be ignored: this returns once the kernel has ended it
    if not proc_supported():
        return
    give_up = time.monotonic() + LAST_RESORT  # a guard against a kernel bug, not a bound
    while time.monotonic() < give_up:
        group = [p for p in snapshot().values() if p.pgid == process.pid]
        if all(p.state in "ZX" for p in group):  # gone, or zombies waiting to be reaped
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        time.sleep(0.01)


def communicate(
    process: subprocess.Popen[Any],
    input: Any = None,
    *,
    stall: float = STALL,
    what: str = "",
) -> tuple[Any, Any]:
    """:meth:`subprocess.Popen.communicate` without a wall-clock bound: waits as long as the
    program makes progress; on a hang, kills its group and raises :class:`Hang`."""
    watch = Watch(process.pid, stall=stall, what=what or _what(process))
    pause = 0.02
    while True:
        try:
            return process.communicate(input, timeout=pause)
        except subprocess.TimeoutExpired:
            input = None  # sent already: communicate goes on from where it was
        try:
            watch.check()
        except Hang:
            kill_group(process)
            raise
        pause = min(pause * 2, 0.5)


def wait(process: subprocess.Popen[Any], *, stall: float = STALL, what: str = "") -> int:
    """:meth:`subprocess.Popen.wait` on the same terms as :func:`communicate`."""
    watch = Watch(process.pid, stall=stall, what=what or _what(process))
    pause = 0.02
    while True:
        try:
            return process.wait(timeout=pause)
        except subprocess.TimeoutExpired:
            pass
        try:
            watch.check()
        except Hang:
            kill_group(process)
            raise
        pause = min(pause * 2, 0.5)


def readline(process: subprocess.Popen[Any], *, stall: float = STALL, what: str = "") -> Any:
    """The next line of ``process.stdout`` (a pipe), waiting on the same terms as
    :func:`communicate` (the program writes its lines whole)."""
    assert process.stdout is not None
    watch = Watch(process.pid, stall=stall, what=what or _what(process))
    pause = 0.02
    while not select.select([process.stdout], [], [], pause)[0]:
        try:
            watch.check()
        except Hang:
            kill_group(process)
            raise
        pause = min(pause * 2, 0.5)
    return process.stdout.readline()


def _what(process: subprocess.Popen[Any]) -> str:
    args = process.args
    shown = " ".join(map(str, args)) if isinstance(args, (list, tuple)) else str(args)
    return repr(shown[:200])


def run(
    argv: Sequence[str | os.PathLike[str]],
    *,
    input: str | bytes | None = None,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    text: bool = False,
    check: bool = False,
    stall: float = STALL,
) -> subprocess.CompletedProcess[Any]:
    """Run ``argv`` to its end with its output captured, as ``subprocess.run(...,
    capture_output=True)`` does, in a session of its own; no wall-clock bound (see the module
    docstring). The program and every process in its group are gone when this returns or
    raises. ``env``, when given, keeps the session marks (:data:`MARK`)."""
    if env is not None and MARK in os.environ:
        env = {**env, MARK: os.environ[MARK]}
    process = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=env,
        text=text,
        start_new_session=True,
    )
    try:
        out, err = communicate(process, input, stall=stall)
    finally:
        kill_group(process)  # also on success: whatever it left running in its group
    result = subprocess.CompletedProcess(process.args, process.returncode, out, err)
    if check:
        result.check_returncode()
    return result


# -- the end-of-session check -------------------------------------------------------------------


def marked(mark: str) -> list[int]:
    """The live processes (not zombies) started in the session ``mark``, this one excepted."""
    found = []
    for entry in os.listdir(_PROC):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            environ = (_PROC / entry / "environ").read_bytes()
        except OSError:
            continue
        for variable in environ.split(b"\0"):
            name, _, value = variable.partition(b"=")
            if name == MARK.encode() and mark in value.decode("utf-8", "replace").split(":"):
                proc = _read_stat(int(entry))
                if proc is not None and proc.state not in ("Z", "X"):
                    found.append(proc.pid)
    return found


def leaked(mark: str, *, grace: float = EXIT_GRACE) -> list[str]:
    """The processes of session ``mark`` still alive after ``grace`` seconds, described; they
    are killed (they must not outlive the run) before this returns."""
    end = time.monotonic() + grace
    alive = marked(mark)
    while alive and time.monotonic() < end:
        time.sleep(0.05)
        alive = marked(mark)
    shown = []
    for pid in alive:
        proc = _read_stat(pid)
        state = f"ppid {proc.ppid} state {proc.state}" if proc else "gone"
        shown.append(f"{pid} ({state}): {_cmdline(pid)}")
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    return shown


@pytest.fixture(scope="session", autouse=True)
def no_process_outlives_the_session() -> Iterator[None]:
    """Every process a test started has ended by the end of the session (see the module
    docstring); fails the session, naming each, when one is still alive."""
    if not proc_supported():
        yield  # the marks cannot be read back without /proc
        return
    mark = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
    before = os.environ.get(MARK)
    os.environ[MARK] = f"{before}:{mark}" if before else mark
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(MARK, None)
        else:
            os.environ[MARK] = before
    left = leaked(mark)
    if left:
        pytest.fail(
            f"{len(left)} process(es) started by the tests outlived the session (killed now):\n"
            + "\n".join(left),
            pytrace=False,
        )
