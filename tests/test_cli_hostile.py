"""The CLI on hostile files and paths, and with closed or full standard streams: always a
documented exit status and a ``raf:`` message, never a traceback, within time and memory.

The real entry point, ``python -m raf``, runs in subprocesses side by side, under an
address-space limit and a CPU-time bound, and is watched for hangs by its progress, never by
the clock (tests/processes.py), so a loaded machine slows it without failing it:
``cassette lint``, ``cassette import`` and
``conform`` each read every hostile file in one run (and are checked file by file), the
commands that take one file run on the inputs that would exhaust or hang a reader, and the
standard streams are closed or full. Every hostile input under ``cassette show``, ``pipeline``
and ``sse``, the import output checks and the error paths of ``main`` run in process.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from raf import cli, interop
from raf.cli import main
from tests import processes
from tests.hostile import (
    GOLDEN_CASSETTE,
    PWNED,
    REGULAR,
    SPECIAL,
    Hostile,
    build_cassettes,
    build_goldens,
    fifo_supported,
)

# Processes and servers end to end: the same in both builds (the compiled job in CI leaves
# these out, `-m 'not processes'`; the pure-Python run has them).
pytestmark = pytest.mark.processes

EXIT_CODES = {0, 1, 2, 3, 130}
"""The exit statuses raf documents (raf/cli/__init__.py, README)."""

ADDRESS_SPACE = 1024 * 1024 * 1024
"""The address-space limit of every subprocess (1 GiB)."""

CPU_BOUND = 15.0
"""CPU seconds every subprocess of the batch must stay under (each takes well under one on
its own; the address-space limit's companion, ``RLIMIT_CPU``, kills one at 60). CPU time, not
wall-clock time: other jobs on the machine stretch the one and barely touch the other."""

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "openai_chat_parallel_tools.sse"
STREAM = b'data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\ndata: [DONE]\n\n'


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Hostile]:
    return build_cassettes(tmp_path_factory.mktemp("hostile"))


@pytest.fixture(autouse=True)
def wide_console(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "1000")  # rich wraps long lines at 80 columns otherwise


def names() -> list[str]:
    every = REGULAR + SPECIAL
    return every if fifo_supported() else [n for n in every if n != "fifo"]


def no_fifo(name: str, hostile: dict[str, Hostile]) -> None:
    if name not in hostile:
        pytest.skip("this platform has no FIFOs (os.mkfifo)")


def check_output(code: int, expected: int, out: str, err: str, *, stderr: bool = True) -> None:
    assert code in EXIT_CODES
    assert code == expected, (out, err)
    assert "Traceback" not in out + err
    assert "Exception ignored" not in err
    if code and stderr:
        assert re.search(r"^raf[a-z ]*: ", err, re.MULTILINE), err


# -- in process: every hostile input under every command ---------------------------------------


@pytest.mark.parametrize("name", names())
def test_show(name: str, hostile: dict[str, Hostile], capsys: pytest.CaptureFixture[str]) -> None:
    no_fifo(name, hostile)
    case = hostile[name]
    code = main(["cassette", "show", str(case.path)])
    out, err = capsys.readouterr()
    check_output(code, 2, out, err)
    assert case.problem in err


@pytest.mark.parametrize("command", ["pipeline", "sse"])
@pytest.mark.parametrize("name", [n for n in names() if n != "fifo"])  # FIFOs: the batch
def test_stream_commands(
    command: str, name: str, hostile: dict[str, Hostile], capsys: pytest.CaptureFixture[str]
) -> None:
    code = main([command, str(hostile[name].path)])
    out, err = capsys.readouterr()
    if name in ("directory", "link_loop"):
        expected = 2
    elif name in ("dev_zero", "huge"):  # one endless line: sse raises, pipeline reports it
        expected = 1 if command == "sse" else 0
    else:  # any bytes are a (broken) stream
        expected = 0
    check_output(code, expected, out, err)
    if name in ("dev_zero", "huge") and command == "pipeline":
        assert '"error_code":"sse_limit_exceeded"' in out


@pytest.mark.parametrize(
    "command",
    [["agui", "verify"], *(["pipeline", "--format", name] for name in interop.names())],
    ids=" ".join,
)
@pytest.mark.parametrize("name", [n for n in names() if n != "fifo"])  # FIFOs: the batch
def test_the_message_model_commands(
    command: list[str], name: str, hostile: dict[str, Hostile], capsys: pytest.CaptureFixture[str]
) -> None:
    """Any bytes under ``raf agui verify`` and ``raf pipeline --format M``: a verdict, a
    (broken) stream in the model, or a one-line error, never a traceback or an internal
    error."""
    code = main([*command, str(hostile[name].path)])
    out, err = capsys.readouterr()
    if name in ("directory", "link_loop"):
        expected = 2
    elif command[0] == "pipeline":
        expected = 0  # any bytes are a (broken) stream, reported in the model
    elif code == 1:
        expected = 1  # violations
    else:
        expected = 2  # no complete event, or past a size limit
    # Violations are the verdict, on standard output; a usage problem is a line on stderr.
    check_output(code, expected, out, err, stderr=expected == 2)
    if code == 1:
        assert "violation" in out


@pytest.fixture(scope="module")
def golden_cases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    return build_goldens(tmp_path_factory.mktemp("goldens"))


@pytest.mark.parametrize(
    "name",
    ["not_json", "wrong_shape", "wrong_item", "deep_1e5", "huge", "directory", "dev_zero", "fifo"],
)
def test_conform_with_a_hostile_golden(
    name: str,
    golden_cases: dict[str, tuple[Path, str]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    if name not in golden_cases:
        pytest.skip("this platform has no FIFOs (os.mkfifo)")
    folder, problem = golden_cases[name]
    (tmp_path / "openai_chat").mkdir()
    (tmp_path / "openai_chat" / "hello.yaml").write_text(GOLDEN_CASSETTE)
    code = main(["conform", "--cassettes", str(tmp_path), "--goldens", str(folder)])
    out, err = capsys.readouterr()
    check_output(code, 1, out, err)
    assert "golden is not valid: " in out
    assert problem in out


def test_conform_refuses_a_goldens_path_that_is_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "c").mkdir()
    (tmp_path / "g").write_text("")
    code = main(["conform", "--cassettes", str(tmp_path / "c"), "--goldens", str(tmp_path / "g")])
    check_output(code, 2, *capsys.readouterr())


def test_import_output_that_is_a_file_or_a_link_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "a.sse"
    source.write_bytes(STREAM)
    (tmp_path / "file").write_text("")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "link").symlink_to(elsewhere)
    for output, problem in (("file", "exists and is not a folder"), ("link", "symbolic link")):
        code = main(["cassette", "import", str(source), "-o", str(tmp_path / output)])
        out, err = capsys.readouterr()
        check_output(code, 2, out, err)
        assert problem in err
    assert list(elsewhere.iterdir()) == []


def test_import_never_follows_a_link_inside_the_output_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "a.sse"
    source.write_bytes(STREAM)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    (out_dir / "openai_chat").symlink_to(elsewhere)  # the dialect folder is a link
    code = main(["cassette", "import", str(source), "-o", str(out_dir)])
    out, err = capsys.readouterr()
    check_output(code, 1, out, err)
    assert "is a symbolic link (links are not followed)" in err
    (out_dir / "openai_chat").unlink()
    (out_dir / "openai_chat").mkdir()
    (out_dir / "openai_chat" / "a.yaml").symlink_to(elsewhere / "a.yaml")  # the file is one
    code = main(["cassette", "import", str(source), "-o", str(out_dir), "--force"])
    out, err = capsys.readouterr()
    check_output(code, 1, out, err)
    assert "a.yaml is a symbolic link" in err
    assert list(elsewhere.iterdir()) == []
    (out_dir / "openai_chat" / "a.yaml").unlink()
    assert main(["cassette", "import", str(source), "-o", str(out_dir)]) == 0
    assert (out_dir / "openai_chat" / "a.yaml").is_file()


@pytest.mark.parametrize("dialect", ["../../x", "nonsense", "openai_chat/../../x"])
def test_import_dialect_is_one_of_the_known_names(
    dialect: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.sse").write_bytes(STREAM)
    with pytest.raises(SystemExit) as info:
        main(
            [
                "cassette",
                "import",
                str(tmp_path / "a.sse"),
                "-o",
                str(tmp_path),
                "--dialect",
                dialect,
            ]
        )
    assert info.value.code == 2
    assert "invalid choice" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.sse"]
    assert (
        main(
            [
                "cassette",
                "import",
                str(tmp_path / "a.sse"),
                "-o",
                str(tmp_path / "o"),
                "--dialect",
                "gemini",
            ]
        )
        == 0
    )
    assert (tmp_path / "o" / "gemini" / "a.yaml").is_file()
    capsys.readouterr()


def test_schema_check_on_hostile_files(
    hostile: dict[str, Hostile], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "schemas"
    assert main(["schema", "--write", str(folder)]) == 0
    targets = {
        "update.schema.json": hostile["huge"].path,
        "content.schema.json": hostile["dev_zero"].path,
        "event.schema.json": hostile["directory"].path,
        "agent_response.schema.json": hostile["link_loop"].path,
    }
    if "fifo" in hostile:
        targets["chat_message.schema.json"] = hostile["fifo"].path
    for name, target in targets.items():
        (folder / name).unlink()
        (folder / name).symlink_to(target)
    capsys.readouterr()
    code = main(["schema", "--check", str(folder)])
    out, err = capsys.readouterr()
    check_output(code, 1, out, err)
    assert all(name in err for name in targets)
    code = main(["schema", "--check", str(hostile["empty"].path)])
    check_output(code, 2, *capsys.readouterr())
    code = main(["schema", "--write", str(hostile["empty"].path)])
    check_output(code, 2, *capsys.readouterr())


def test_missing_paths_are_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["cassette", "lint", str(tmp_path / "missing.yaml")])
    out, err = capsys.readouterr()
    check_output(code, 2, out, err)
    assert "cassette not found" in err
    code = main(["cassette", "show", str(tmp_path / "missing.yaml")])
    check_output(code, 2, *capsys.readouterr())


def test_an_interruption_is_130_and_an_internal_error_is_3(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(args: Any, out: Any) -> int:
        raise KeyboardInterrupt

    def broken(args: Any, out: Any) -> int:
        raise RuntimeError("boom")

    monkeypatch.setattr(cli.stream, "run_pipeline", interrupted)
    assert main(["pipeline", str(EXAMPLE)]) == 130
    assert capsys.readouterr().err == "raf: interrupted\n"
    monkeypatch.setattr(cli.stream, "run_pipeline", broken)
    monkeypatch.delenv("RAF_DEBUG", raising=False)
    assert main(["pipeline", str(EXAMPLE)]) == 3
    err = capsys.readouterr().err
    assert err == "raf: internal error: RuntimeError('boom'); please report it\n"
    monkeypatch.setenv("RAF_DEBUG", "1")
    assert main(["pipeline", str(EXAMPLE)]) == 3
    err = capsys.readouterr().err
    assert err.startswith("raf: internal error: RuntimeError('boom')")
    assert "Traceback (most recent call last)" in err


@pytest.mark.parametrize("command", [["pipeline", "-"], ["sse", "-"]])
def test_closed_stdin_is_a_usage_error(
    command: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with monkeypatch.context() as patch:  # undone before capsys restores the streams
        patch.setattr(sys, "stdin", None)  # what Python makes of a closed file descriptor 0
        assert main(command) == 2
    assert capsys.readouterr().err == "raf: standard input is closed\n"


@pytest.mark.parametrize(
    "command", [["pipeline", str(EXAMPLE)], ["cassette", "lint", "cassettes"], ["schema"]]
)
def test_closed_stdout_is_a_usage_error(
    command: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with monkeypatch.context() as patch:  # undone before capsys restores the streams
        patch.setattr(sys, "stdout", None)
        assert main(command) == 2
    assert capsys.readouterr().err == "raf: standard output is closed\n"


def test_schema_write_needs_no_stdout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with monkeypatch.context() as patch:  # undone before capsys restores the streams
        patch.setattr(sys, "stdout", None)
        assert main(["schema", "--write", str(tmp_path)]) == 0
        assert main(["schema", "--check", str(tmp_path)]) == 0
    assert "wrote 12 schemas" in capsys.readouterr().err


class _FullDisk(io.StringIO):
    def flush(self) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")


def test_help_on_a_full_disk_is_an_output_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with monkeypatch.context() as patch:  # undone before capsys restores the streams
        patch.setattr(sys, "stdout", _FullDisk())
        assert main(["--help"]) == 2
        assert main(["pipeline", str(EXAMPLE)]) == 2
    err = capsys.readouterr().err
    assert err == "raf: cannot write to standard output: No space left on device\n" * 2


def test_help_documents_the_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    for code in ("0 ", "1 ", "2 ", "3 ", "130 "):
        assert f"\n  {code}" in out
    assert "RAF_DEBUG=1" in out


# -- the real entry point in subprocesses, side by side ----------------------------------------


@dataclass
class Run:
    """One ``python -m raf`` subprocess and what it did."""

    argv: list[str]
    expected: int
    stderr_has: str = ""
    stdout_has: str = ""
    shell: str | None = None  # run through ``sh -c`` with this redirection (``<&-``...)
    stdout_to: str | None = None  # a path to write the standard output to (/dev/full)
    code: int | None = None
    stdout: str = ""
    stderr: str = ""
    wall: float = 0.0
    cpu: float = 0.0
    hang: str | None = None  # why it was killed: it made no progress (tests/processes.py)
    max_rss_kib: int = 0
    files: list[Path] = field(default_factory=list)


def _limit_address_space() -> None:  # pragma: no cover - runs in the child
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
    resource.setrlimit(resource.RLIMIT_CPU, (60, 60))  # an endless loop ends here


_LAUNCHER = """
import os, sys
report, argv = sys.argv[1], sys.argv[2:]
pid = os.fork()
if pid == 0:
    os.execvp(argv[0], argv)
_, status, usage = os.wait4(pid, 0)
with open(report, "w") as handle:
    handle.write(f"{usage.ru_maxrss} {usage.ru_utime + usage.ru_stime}")
code = os.waitstatus_to_exitcode(status)
sys.exit(code if code >= 0 else 128 - code)
"""
"""Runs the command in a child of a small fresh interpreter and reports the child's rusage:
on Linux a child's ``ru_maxrss`` counts the memory of the process it was forked from, and
the command is forked from this launcher (about 8 MiB), not from pytest."""


def _raf(*args: str) -> list[str]:
    return [sys.executable, "-m", "raf", *args]


def _plan(
    hostile: dict[str, Hostile], goldens: dict[str, tuple[Path, str]], root: Path
) -> dict[str, Run]:
    every = [str(h.path) for h in hostile.values()]
    folder = str(next(iter(hostile.values())).path.parent)
    schemas = root / "schemas"
    assert main(["schema", "--write", str(schemas)]) == 0
    for name in ("update", "content", "event"):  # a sparse 64 MiB file, /dev/zero, a FIFO
        (schemas / f"{name}.schema.json").unlink()
    (schemas / "update.schema.json").symlink_to(hostile["huge"].path)
    (schemas / "content.schema.json").symlink_to(hostile["dev_zero"].path)
    (schemas / "event.schema.json").symlink_to(hostile.get("fifo", hostile["directory"]).path)
    runs: dict[str, Run] = {
        "lint every file": Run(_raf("cassette", "lint", *every), 1, "raf: "),
        "import every file": Run(
            _raf("cassette", "import", *every, "-o", str(root / "out")), 1, "imported 0"
        ),
        "import -o a file": Run(
            _raf("cassette", "import", folder, "-o", str(hostile["empty"].path)), 2, "not a folder"
        ),
        "import -o a link": Run(
            _raf("cassette", "import", folder, "-o", str(hostile["dev_zero"].path)),
            2,
            "symbolic link",
        ),
        "conform every file": Run(
            _raf("conform", "--cassettes", folder, "--goldens", str(root / "g")),
            1,
            "raf: 20 of 20 case(s) do not conform",
        ),
        "schema --check hostile files": Run(
            _raf("schema", "--check", str(schemas)), 1, "update.schema.json is out of date"
        ),
        "pipeline a folder": Run(_raf("pipeline", str(hostile["directory"].path)), 2, "directory"),
        "pipeline /dev/zero": Run(
            _raf("pipeline", str(hostile["dev_zero"].path)), 0, "", "sse_limit_exceeded"
        ),
        "sse /dev/zero": Run(_raf("sse", str(hostile["dev_zero"].path)), 1, "SSE line exceeded"),
        "pipeline, stdin closed": Run(
            _raf("pipeline", "-"), 2, "raf: standard input is closed", shell="<&-"
        ),
        "pipeline, stdout closed": Run(
            _raf("pipeline", str(EXAMPLE)), 2, "raf: standard output is closed", shell=">&-"
        ),
        "pipeline, stdout and stderr closed": Run(
            _raf("pipeline", str(EXAMPLE)), 2, "", shell=">&- 2>&-"
        ),
    }
    for name in ("bomb_header", "deep_1e6", "dev_zero", "fifo"):
        if name in hostile:
            runs[f"show {name}"] = Run(
                _raf("cassette", "show", str(hostile[name].path)), 2, hostile[name].problem
            )
    if fifo_supported():
        stream = root / "stream.fifo"
        os.mkfifo(stream)
        runs["pipeline a FIFO with a writer"] = Run(
            _raf("pipeline", str(stream), "--response"), 0, "", '"text": "hi"', files=[stream]
        )
    cassettes = root / "golden_cassettes" / "openai_chat"
    cassettes.mkdir(parents=True)
    goldens_dir = root / "hostile_goldens"
    for name, (source, _) in goldens.items():
        scenario = f"g_{name}"
        (cassettes / f"{scenario}.yaml").write_text(GOLDEN_CASSETTE.replace("hello", scenario))
        target = goldens_dir / "openai_chat" / f"{scenario}.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        (source / "openai_chat" / "hello.json").rename(target)
    runs["conform every golden"] = Run(
        _raf("conform", "--cassettes", str(cassettes.parent), "--goldens", str(goldens_dir)),
        1,
        f"{len(goldens)} of {len(goldens)} case(s) do not conform",
        "golden is not valid",
    )
    if os.path.exists("/dev/full"):
        plain = str(Path(__file__).resolve().parents[1] / "cassettes/openai_chat/plain_text.yaml")
        for command in (["pipeline", str(EXAMPLE)], ["cassette", "show", plain]):
            runs[f"{command[0]} > /dev/full"] = Run(
                _raf(*command), 2, "No space left on device", stdout_to="/dev/full"
            )
    return runs


def _spawn(run: Run, cwd: Path, log: Path) -> subprocess.Popen[bytes]:
    argv = run.argv
    if run.shell is not None:
        argv = ["sh", "-c", f'exec "$0" "$@" {run.shell}', *run.argv]
    argv = [sys.executable, "-S", "-c", _LAUNCHER, str(log.with_suffix(".usage")), *argv]
    env = {k: v for k, v in os.environ.items() if k != "RAF_DEBUG"}
    env["COLUMNS"] = "1000"
    stdout = open(run.stdout_to or log.with_suffix(".out"), "wb")  # noqa: SIM115
    stderr = log.with_suffix(".err").open("wb")
    try:
        return subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=stderr,
            # A group of its own, the launcher and the command: killed and watched as one.
            start_new_session=True,
            # Every child is spawned before the FIFO feeders start: no other thread runs.
            preexec_fn=_limit_address_space,  # noqa: PLW1509
        )
    finally:
        stdout.close()
        stderr.close()


def _feed_fifo(path: Path, stop: threading.Event) -> None:
    """Write a stream into the FIFO once its reader has opened it, however long that takes
    on a busy machine: until ``stop`` is set (its reader has ended, or been killed). A feeder
    that gave up first would leave the reader blocked in ``open`` for good."""
    while not stop.is_set():
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as exc:
            if exc.errno != errno.ENXIO:  # ENXIO: no reader yet
                raise
            stop.wait(0.01)
            continue
        os.set_blocking(fd, True)
        try:
            os.write(fd, STREAM)
        finally:
            os.close(fd)
        return


@pytest.fixture(scope="module")
def batch(
    tmp_path_factory: pytest.TempPathFactory,
    hostile: dict[str, Hostile],
) -> Iterator[dict[str, Run]]:
    root = tmp_path_factory.mktemp("batch")
    goldens = build_goldens(root / "goldens_source")
    runs = _plan(hostile, goldens, root)
    logs = root / "logs"
    logs.mkdir()
    started = time.monotonic()
    # Keep every Popen alive: a Popen dropped while its child runs goes to subprocess's list
    # of zombies to reap, and the next Popen anywhere would reap our child before we do.
    processes_ = [_spawn(run, root, logs / f"{n}.log") for n, run in enumerate(runs.values())]
    children = {
        process.pid: (n, run)
        for n, (process, run) in enumerate(zip(processes_, runs.values(), strict=True))
    }
    stop = threading.Event()
    feeders = [
        threading.Thread(target=_feed_fifo, args=(path, stop), daemon=True)
        for run in runs.values()
        for path in run.files
    ]
    for feeder in feeders:
        feeder.start()
    pending = dict(children)
    watches = {
        pid: processes.Watch(pid, what=repr(run.argv[3:])) for pid, (_, run) in children.items()
    }
    checked = 0.0  # when progress was last looked at (every half second: /proc is read whole)
    try:
        while pending:
            for pid in list(pending):
                done, status = os.waitpid(pid, os.WNOHANG)
                if done == 0:
                    continue
                n, run = pending.pop(pid)
                run.code = os.waitstatus_to_exitcode(status)
                run.wall = time.monotonic() - started
                report = (logs / f"{n}.usage").read_text().split()
                run.max_rss_kib, run.cpu = int(report[0]), float(report[1])
            if time.monotonic() - checked < 0.5:
                time.sleep(0.05)
                continue
            checked = time.monotonic()
            every = processes.snapshot() if processes.proc_supported() else None
            for pid in list(pending):  # a hang: no progress (CPU time, runnable) for a while
                try:
                    watches[pid].check(every)
                except processes.Hang as hang:
                    _, run = pending.pop(pid)
                    run.hang = str(hang)
                    run.wall = time.monotonic() - started
                    os.killpg(pid, signal.SIGKILL)  # the launcher and the command
                    os.waitpid(pid, 0)
            time.sleep(0.05)
    finally:  # on every way out (a failure here, Ctrl-C): no process of the batch is left
        for pid in pending:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        stop.set()
        for feeder in feeders:
            feeder.join()
        for process in processes_:
            process.returncode = 0  # reaped above with os.waitpid: nothing left for Popen to do
    for n, run in children.values():
        if run.stdout_to is None:
            run.stdout = (logs / f"{n}.out").read_text(errors="replace")
        run.stderr = (logs / f"{n}.err").read_text(errors="replace")
    if os.environ.get("RAF_HOSTILE_REPORT"):
        for name, run in sorted(runs.items(), key=lambda item: -item[1].cpu):
            print(
                f"{run.cpu:6.2f} s cpu {run.wall:6.2f} s wall {run.max_rss_kib / 1024:6.1f} MiB  {name}"
            )
    yield runs
    worst = max(runs.items(), key=lambda item: item[1].cpu)
    largest = max(runs.items(), key=lambda item: item[1].max_rss_kib)
    print(
        f"\nhostile CLI batch: {len(runs)} processes in {max(r.wall for r in runs.values()):.2f} s"
        f"; most CPU: {worst[0]!r} {worst[1].cpu:.2f} s"
        f"; largest max RSS: {largest[0]!r} {largest[1].max_rss_kib / 1024:.0f} MiB"
    )
    shutil.rmtree(root / "out", ignore_errors=True)


BATCH = [
    "lint every file",
    "import every file",
    "import -o a file",
    "import -o a link",
    "conform every file",
    "conform every golden",
    "schema --check hostile files",
    "pipeline a folder",
    "pipeline /dev/zero",
    "pipeline a FIFO with a writer",
    "sse /dev/zero",
    "pipeline, stdin closed",
    "pipeline, stdout closed",
    "pipeline, stdout and stderr closed",
    "pipeline > /dev/full",
    "cassette > /dev/full",
    "show bomb_header",
    "show deep_1e6",
    "show dev_zero",
    "show fifo",
]


@pytest.mark.parametrize("name", BATCH)
def test_the_entry_point_stays_within_bounds(name: str, batch: dict[str, Run]) -> None:
    if name not in batch:
        pytest.skip("needs a FIFO or /dev/full, which this platform lacks")
    run = batch[name]
    assert run.hang is None, run.hang
    assert run.code is not None
    silent = run.shell is not None and "2>&-" in run.shell  # no standard error to write to
    check_output(run.code, run.expected, run.stdout, run.stderr, stderr=not silent)
    assert run.stderr_has in run.stderr
    assert run.stdout_has in run.stdout
    assert run.cpu < CPU_BOUND
    assert run.max_rss_kib < ADDRESS_SPACE // 1024


@pytest.mark.parametrize("name", names())
def test_every_hostile_file_is_reported_by_lint_import_and_conform(
    name: str, batch: dict[str, Run], hostile: dict[str, Hostile]
) -> None:
    no_fifo(name, hostile)
    case = hostile[name]
    lint = batch["lint every file"].stdout
    imported = batch["import every file"].stderr
    conformed = batch["conform every file"].stdout
    if name == "directory":  # a folder named x.yaml is searched like any folder
        assert str(case.path) not in lint + imported
    else:
        line = next(line for line in lint.splitlines() if line.startswith(f"{case.path}:"))
        assert ": error: " in line
        assert case.problem in line
        assert f"raf: skipped {case.path}" in imported
        assert case.problem in imported
    if case.regular:  # inside a folder only regular files are cassettes; others are not opened
        assert case.problem in conformed
    assert not (case.path.parent / PWNED).exists()
    assert not list((case.path.parent.parent).glob("batch*/out/*"))


def test_a_broken_pipe_is_success_and_silent(tmp_path: Path) -> None:
    body = tmp_path / "long.sse"
    body.write_bytes(b'data: {"choices":[{"index":0,"delta":{"content":"x"}}]}\n\n' * 50_000)
    child = subprocess.Popen(
        _raf("pipeline", str(body)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=_limit_address_space,  # noqa: PLW1509 - no other thread runs here
    )
    try:
        assert child.stdout is not None
        assert processes.readline(child).startswith(b'{"type":"text_delta"')
        child.stdout.close()  # the reader goes away, as `head -1` does
        _, err = processes.communicate(child)
    finally:
        processes.kill_group(child)
    assert child.returncode == 0
    assert err == b""
