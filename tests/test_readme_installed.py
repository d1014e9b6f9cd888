"""The README's tour after a plain ``pip install``, from another folder: what a user of the
published package gets.

One test builds the package into a fresh virtual environment (``pip install <repository>``,
not editable, with pip's cache), then, in a folder that is not the repository, writes the
tour's files (``python -m raf.examples``) and runs every command of the tour that is meant to
run as written, comparing its output with what the README shows (tests/readme_tour.py), and
every Python snippet. The fuzzing snippet needs the ``testing`` extra, as the README says: it
fails without it, and passes once ``pip install '<repository>[testing]'`` has added it.

This is slow (about a minute, most of it pip); ``-m 'not plain_install'`` leaves it out of a
local run. CI runs it as part of the README's test command.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from raf.examples import TOUR
from tests import processes, readme_tour
from tests.conformance.test_example_clients import node

ROOT = readme_tour.ROOT

PIP_STALL = 300.0
"""pip waits on the package index without using CPU; a hang is a longer silence than this."""


def _env(venv: Path) -> dict[str, str]:
    """This environment, with the new venv first on PATH and nothing pointing at the clone."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "PYTHONSTARTUP")
    }
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["COLUMNS"] = "120"  # a terminal's width: the README shows a terminal's output
    return env


def _pip(venv: Path, *args: str) -> None:
    result = processes.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", *args],
        text=True,
        stall=PIP_STALL,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def _shell(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return processes.run(["sh", "-c", command], cwd=cwd, env=env, text=True)


def _serve_first_line(command: str, cwd: Path, env: dict[str, str]) -> tuple[str, str]:
    """The first line a server command prints, and what it printed after Ctrl-C."""
    process = subprocess.Popen(
        ["sh", "-c", f"exec {command}"],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        first = processes.readline(process)
        process.send_signal(signal.SIGINT)
        rest, err = processes.communicate(process)
    finally:
        processes.kill_group(process)
    assert process.returncode == 0, err
    return first, rest


@pytest.mark.plain_install
def test_the_tour_runs_from_another_folder_after_a_plain_pip_install(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    created = processes.run([sys.executable, "-m", "venv", str(venv)], text=True)
    assert created.returncode == 0, created.stderr
    _pip(venv, str(ROOT))
    env = _env(venv)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    python = str(venv / "bin" / "python")

    # The package in use is the installed one, not the clone.
    where = processes.run([python, "-c", "import raf; print(raf.__file__)"], cwd=elsewhere, env=env)
    assert where.stdout.decode().startswith(str(venv)), where

    # The tour's files, written where the tour expects them.
    wrote = _shell("python -m raf.examples", elsewhere, env)
    assert wrote.returncode == 0, wrote.stderr
    assert wrote.stdout.splitlines() == [f"wrote examples/{name}" for name in TOUR]
    assert "python -m raf.examples" in readme_tour.TOUR

    outputs: dict[str, str] = {}
    ran = []
    for command in readme_tour.commands():
        if command.text in readme_tour.NOT_RUN or command.text.startswith("curl "):
            continue
        ran.append(command.text)
        if command.text in readme_tour.SERVERS:
            first, rest = _serve_first_line(command.text, elsewhere, env)
            assert command.shown
            port = re.search(r"127\.0\.0\.1:(\d+)", first)
            assert port, first
            shown = command.shown[0].replace("41237", port.group(1))
            assert readme_tour.mismatch((shown,), first) is None, (shown, first)
            assert "stopped after 0 request(s)" in rest
            continue
        if "examples/clients/node/client.js" in command.text:
            node()  # skips without Node.js, fails under RAF_REQUIRE_NODE=1 (CI)
        result = _shell(command.text, elsewhere, env)
        status = readme_tour.EXIT_STATUS.get(command.text, 0)
        assert result.returncode == status, (command.text, result.stdout[-3000:], result.stderr)
        assert "Traceback" not in result.stderr
        outputs[command.text] = result.stdout
        if command.shown:
            problem = readme_tour.mismatch(command.shown, result.stdout)
            assert problem is None, f"{command.text}: {problem}\n{result.stdout[-3000:]}"
        if command.text in readme_tour.SAME_OUTPUT_AS:
            assert result.stdout == outputs[readme_tour.SAME_OUTPUT_AS[command.text]]
    assert len(ran) >= 7, ran  # the pipeline commands, conform twice, serve

    # The Python snippets, each as a script run from the same folder.
    snippets = readme_tour.python_snippets()
    assert len(snippets) == len(readme_tour.PYTHON_PRINTS)
    scripts = tmp_path / "snippets"
    scripts.mkdir()
    for n, snippet in enumerate(snippets):
        script = scripts / f"snippet_{n + 1}.py"
        script.write_text(snippet, encoding="utf-8")
        result = processes.run([python, str(script)], cwd=elsewhere, env=env, text=True)
        if "from hypothesis import" in snippet:  # the fuzzing snippet: no testing extra yet
            assert result.returncode == 1
            assert "No module named 'hypothesis'" in result.stderr, result.stderr
            assert "pip install 'raf[testing]'" in readme_tour.TOUR
            _pip(venv, f"{ROOT}[testing]")
            result = processes.run([python, str(script)], cwd=elsewhere, env=env, text=True)
        assert result.returncode == 0, (n + 1, result.stdout, result.stderr)
        for printed in readme_tour.PYTHON_PRINTS[n]:
            assert printed in result.stdout, (n + 1, printed, result.stdout)
        for never in readme_tour.PYTHON_NEVER_PRINTS[n]:
            assert never not in result.stdout, (n + 1, never)


def test_every_command_of_the_tour_is_run_or_excused() -> None:
    texts = [command.text for command in readme_tour.commands()]
    assert set(readme_tour.NOT_RUN) <= set(texts)  # no excuse for a command that is gone
    assert set(readme_tour.EXIT_STATUS) <= set(texts)
    assert set(texts) >= readme_tour.SERVERS
    assert set(readme_tour.SAME_OUTPUT_AS) | set(readme_tour.SAME_OUTPUT_AS.values()) <= set(texts)
    shown = [c for c in readme_tour.commands() if c.shown]
    assert len(shown) >= 5  # pipeline x3, conform, serve (and curl)


def test_shown_output_is_matched_line_for_line() -> None:
    mismatch = readme_tour.mismatch
    assert mismatch(("a", "...", "d"), "a\nb\nc\nd") is None
    assert mismatch(("a", "c"), "a\nb\nc") == "shown 'c', got 'b'"
    assert mismatch(("a", "b"), "a\nb\nc") == "more output than shown: 'c'"
    assert mismatch(("a", "b", "..."), "a\nb\nc") is None
    assert mismatch(('{"usage":{"total":146,...}}',), '{"usage":{"total":146,"x":0}}') is None
    assert mismatch(('{"usage":{"total":146,...}}',), '{"usage":{"total":145,"x":0}}')
    table = "┏━━━┳━━━┓\n┃ name ┃ n ┃\n┡━━━╇━━━┩\n│ p    │ 1 │\n│ q    │ 2 │\n└───┴───┘\n3 in 2.4 s"
    assert mismatch(("│ q │ 2 │", "│ ... │", "3 in 0.1 s"), table) is None  # any row, any time
    assert mismatch(("│ q │ 3 │",), table) == "no row of the table is '│ q │ 3 │'"
