"""The tests' own process handling (tests/processes.py): a hang is told from a slow program
by its progress, every process is reaped, and the session check catches a leaked one."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from tests import processes

ROOT = Path(__file__).resolve().parents[1]

pytestmark = [
    pytest.mark.skipif(
        not processes.proc_supported(), reason="progress is read from /proc (Linux)"
    ),
    # Processes end to end: the same in both builds (the compiled job in CI leaves these out).
    pytest.mark.processes,
]


def _alive(marker: str) -> list[int]:
    """Live processes whose command line holds ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_text().rpartition(")")[2].split()[0]
        except OSError:
            continue
        if marker.encode() in cmdline and state != "Z":
            found.append(int(entry))
    return found


def test_a_blocked_program_is_a_hang_and_is_killed_with_what_it_started() -> None:
    marker = f"blocked-{uuid.uuid4().hex}"
    # A parent waiting for a child that waits for ever: both asleep, neither using CPU.
    script = (
        "import subprocess, sys\n"
        "subprocess.run([sys.executable, '-c', 'import time; time.sleep(600)', sys.argv[1]])\n"
    )
    with pytest.raises(processes.Hang, match=r"made no progress for 1 s \(a hang\)") as info:
        processes.run([sys.executable, "-c", script, marker], stall=1.0)
    assert f"time.sleep(600) {marker}" in str(info.value)  # the family is shown: the child too
    assert _alive(marker) == []


def test_a_busy_program_is_not_a_hang_however_long_it_takes() -> None:
    # Two seconds of CPU with a stall limit of a quarter of a second: it keeps using CPU (or
    # waits to run on a loaded machine), so it is waited for to the end.
    spin = "import time\nt = time.process_time()\nwhile time.process_time() - t < 2: pass\nprint('done')"
    result = processes.run([sys.executable, "-c", spin], stall=0.25, text=True)
    assert (result.returncode, result.stdout) == (0, "done\n")


def test_run_is_subprocess_run_with_the_group_gone_afterwards() -> None:
    marker = f"left-{uuid.uuid4().hex}"
    # The program starts a child in its own group and exits at once, leaving it behind.
    script = (
        "import subprocess, sys\n"
        f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)', '{marker}'],\n"
        "                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        "print(sys.stdin.read().upper(), end='')\n"
        "sys.exit(3)\n"
    )
    result = processes.run([sys.executable, "-c", script], input="abc", text=True)
    assert (result.returncode, result.stdout, result.stderr) == (3, "ABC", "")
    assert _alive(marker) == []
    with pytest.raises(subprocess.CalledProcessError):
        processes.run([sys.executable, "-c", "raise SystemExit(1)"], check=True)


LEAKY = """
import subprocess, sys

def test_leaks_an_orphan():
    # sh starts a sleeper in the background and exits: the sleeper is reparented to init,
    # no longer a descendant of the test process.
    sleeper = f"{sys.executable} -c 'import time; time.sleep(600)' MARKER-orphan"
    subprocess.run(["sh", "-c", sleeper + " >/dev/null 2>&1 &"], check=True)

def test_leaks_a_child_it_never_waits_for():
    global child
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", "MARKER-child"])

def test_reaps_what_it_starts():
    subprocess.run([sys.executable, "-c", "pass", "MARKER-reaped"], check=True)
"""

CLEAN = """
import subprocess, sys

def test_reaps_what_it_starts():
    subprocess.run([sys.executable, "-c", "pass", "MARKER-reaped"], check=True)

def test_reaps_a_killed_group():
    child = subprocess.Popen(["sleep", "600"], start_new_session=True)
    child.kill()
    child.wait()
"""


def _session(
    tmp_path: Path, tests: str, *options: str
) -> tuple[subprocess.CompletedProcess[str], str]:
    marker = f"m{uuid.uuid4().hex}"
    (tmp_path / "conftest.py").write_text(
        "from tests.processes import no_process_outlives_the_session  # noqa: F401\n"
    )
    (tmp_path / "test_it.py").write_text(textwrap.dedent(tests).replace("MARKER", marker))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # -rN: no short summary, whose lines repeat each report (or not, by terminal width).
    argv = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rN"]
    argv += [*options, str(tmp_path)]
    return processes.run(argv, cwd=tmp_path, env=env, text=True), marker


def test_the_session_check_names_and_kills_a_process_that_outlives_it(tmp_path: Path) -> None:
    # Under pytest-xdist, as the README runs the suite: each worker checks its own processes.
    result, marker = _session(tmp_path, LEAKY, "-n", "2")
    out = result.stdout + result.stderr
    assert result.returncode == 1, out
    assert "3 passed" in out
    # One report per worker that ran a leaking test: one or two, as xdist shares them out.
    assert out.count("outlived the session") in (1, 2)
    assert f"time.sleep(600) {marker}-orphan" in out
    assert f"{marker}-child" in out
    assert f"{marker}-reaped" not in out
    deadline = time.monotonic() + processes.EXIT_GRACE  # killed: SIGKILL was sent
    while _alive(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _alive(marker) == []


def test_the_session_check_passes_when_every_process_is_reaped(tmp_path: Path) -> None:
    result, _ = _session(tmp_path, CLEAN)
    out = result.stdout + result.stderr
    assert result.returncode == 0, out
    assert "2 passed" in out
    assert "outlived" not in out
