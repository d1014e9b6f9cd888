"""``raf fuzz`` end to end: a broken program is found, its failure saved as a cassette that
``raf conform`` fails it on and raf's reference passes; bad arguments get one line, no
traceback; nothing is overwritten."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from raf.cassettes.persister import load
from raf.cli import main
from raf.conformance.cases import load_suite
from raf.conformance.goldens import beside
from tests import processes

BROKEN = f"{sys.executable} {Path(__file__).with_name('drop_finish_text.py')}"
SEED = "1"
EXAMPLES = "40"
"""The budget of the campaigns that find the broken program: its seed finds the bug at the
27th stream generated (the search's power is tests/fuzz/test_power.py's to show; a larger
budget only adds streams that find nothing more)."""


def fuzz(tmp_path: Path, *args: str) -> int:
    return main(["fuzz", "--database", str(tmp_path / "db"), *args])


def test_a_broken_program_is_found_saved_and_reproduced_by_conform(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "found"
    report = tmp_path / "report.json"
    args = ["--impl", BROKEN, "--examples", EXAMPLES, "--seed", SEED, "-o", str(out)]
    assert fuzz(tmp_path, *args, "--json", str(report)) == 1
    shown = capsys.readouterr()
    assert "text lost" in shown.out
    assert f"reproduce: raf conform --impl '{BROKEN}' --cassettes {out}" in shown.out
    assert "Traceback" not in shown.err

    (cassette_file,) = (out / "openai_chat").glob("fuzz_openai_chat_*.yaml")
    cassette = load(cassette_file)
    assert cassette.info is not None
    assert cassette.info.expect is not None
    assert cassette.info.expect.reviewed
    assert cassette.info.expect.text  # the text the program drops
    assert f"Seed {SEED}." in cassette.info.notes
    assert "text lost" in cassette.info.notes
    interaction = cassette.interactions[0]
    assert interaction.timing is not None  # the generated reads
    assert sum(size for size, _ in interaction.timing) == len(interaction.response.body)
    assert len(interaction.response.body) < 2048
    assert json.loads(interaction.request.body or "")["stream"] is True
    assert (beside(out) / "openai_chat" / f"{cassette_file.stem}.json").is_file()

    document = json.loads(report.read_text("utf-8"))
    (finding,) = document["campaigns"][0]["findings"]
    assert finding["signature"] == "text lost [finish_with_text]"
    assert finding["cassette"] == str(cassette_file)

    # the recorded reads are a case of their own
    suite = load_suite(out, beside(out))
    assert any(c.chunking == "recorded" for c in suite.cases)

    assert main(["conform", "--impl", BROKEN, "--cassettes", str(out)]) == 1
    assert main(["conform", "--cassettes", str(out)]) == 0  # raf's reference passes
    capsys.readouterr()

    # the same campaign again: the cassette is there with the same content
    assert fuzz(tmp_path, *args) == 1
    assert "already saved" in capsys.readouterr().out
    assert list((out / "openai_chat").glob("*.yaml")) == [cassette_file]


def test_a_file_in_the_way_is_never_overwritten(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "found"
    args = ["--impl", BROKEN, "--examples", EXAMPLES, "--seed", SEED, "-o", str(out)]
    assert fuzz(tmp_path, *args) == 1
    capsys.readouterr()
    (cassette_file,) = (out / "openai_chat").glob("*.yaml")
    cassette_file.write_text("mine\n", "utf-8")
    assert fuzz(tmp_path, *args) == 1
    assert "not overwritten" in capsys.readouterr().out
    assert cassette_file.read_text("utf-8") == "mine\n"


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_raf_itself_finds_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], transport: str
) -> None:
    args = ["--transport", transport, "--examples", "30", "--seed", SEED, "-o", str(tmp_path)]
    assert fuzz(tmp_path, *args, "--format", "openai_chat", "--format", "gemini") == 0
    shown = capsys.readouterr()
    assert "0 distinct failure(s)" in shown.out
    assert not list(tmp_path.glob("openai_chat"))


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--examples", "0"], "must be at least 1"),
        (["--examples", "3", "--time", "3"], "not allowed with argument"),
        (["--quirk", "no_such_quirk"], "unknown quirk no_such_quirk"),
        (["--format", "smoke_signals"], "invalid choice"),
        (["--severity", "lost=maybe"], "--severity"),
        (["--impl", ""], "--impl"),
    ],
)
def test_bad_arguments_get_one_line_and_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], said: str
) -> None:
    try:
        code = fuzz(tmp_path, *args)
    except SystemExit as exc:  # argparse's own refusal
        code = int(exc.code or 0)
    assert code == 2
    err = capsys.readouterr().err
    assert said in err
    assert "Traceback" not in err


def test_an_output_folder_that_is_a_file_is_refused_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("", "utf-8")
    assert fuzz(tmp_path, "--impl", BROKEN, "-o", str(blocker)) == 2
    assert "is not a folder" in capsys.readouterr().err


def test_a_program_that_cannot_start_is_said_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert fuzz(tmp_path, "--impl", str(tmp_path / "missing-program"), "--examples", "5") == 1
    err = capsys.readouterr().err
    assert "could not be started" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(("sent", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_stopped_campaign_keeps_and_shows_what_it_found(
    tmp_path: Path, sent: signal.Signals, status: int
) -> None:
    out = tmp_path / "found"
    command = processes.with_default_sigint(sys.executable, "-m", "raf", "fuzz")
    command += ["--impl", BROKEN, "--time", "600"]
    command += ["--seed", SEED, "-o", str(out), "--database", str(tmp_path / "db")]
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env={**os.environ, "COLUMNS": "400"},  # one line per finding: nothing wrapped
    )
    try:
        # the shrunk failure is saved as soon as it is shrunk, long before the time is up
        watch = processes.Watch(process.pid)
        while not list(out.glob("openai_chat/*.yaml")) and process.poll() is None:
            watch.check()
            time.sleep(0.05)
        process.send_signal(sent)
        stdout, stderr = processes.communicate(process)
    finally:
        processes.kill_group(process)
    assert process.returncode == status, stderr
    assert "text lost" in stdout
    assert "(written)" in stdout, stdout
    assert "Traceback" not in stderr
    assert "what was found is saved" in stderr


def test_streams_the_implementation_does_not_declare_are_not_run_and_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the program declares openai_chat only, and not the capability http
    assert fuzz(tmp_path, "--impl", BROKEN, "--format", "gemini", "--examples", "5") == 1
    err = capsys.readouterr().err
    assert "not run: dialect gemini not declared" in err
    assert "no stream was run" in err


def test_the_command_line_needs_no_hypothesis_until_raf_fuzz_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code = "import sys, raf.cli\nprint('hypothesis' in sys.modules)"
    result = processes.run([sys.executable, "-c", code], text=True, check=True)
    assert result.stdout.strip() == "False"
    with monkeypatch.context() as patch:
        patch.setitem(sys.modules, "hypothesis", None)  # not installed
        assert fuzz(tmp_path, "--examples", "5") == 2
    assert "needs hypothesis" in capsys.readouterr().err
