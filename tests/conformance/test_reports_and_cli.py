"""``raf conform`` end to end: --impl, -k, --dialect, --level, the JSON and JUnit reports,
--update for a user's own cassettes, and the suite as pytest items (with pytest-xdist)."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from raf import formats
from raf.cassettes import Cassette, Expectation, Interaction, Request, Response, ScenarioInfo, save
from raf.cli import main
from raf.conformance import goldens
from tests import processes

# Processes and servers end to end: the same in both builds (the compiled job in CI leaves
# these out, `-m 'not processes'`; the pure-Python run has them).
pytestmark = pytest.mark.processes

REFERENCE = f"{sys.executable} -m raf.conformance.stdio_reference"
ROOT = Path(__file__).resolve().parents[2]
# The reference, with a bug: tool-call names doubled (as a concatenating client does).
DOUBLING = """
import io, json, sys
from raf.conformance.stdio_reference import serve
for line in sys.stdin.buffer:
    out = io.BytesIO()
    serve(io.BytesIO(line), out)
    if not out.getvalue():
        break
    message = json.loads(out.getvalue())
    for call in (message.get("response") or {}).get("tool_calls", []):
        call["name"] *= 2
    if message["type"] == "result":
        message.pop("results"); message.pop("updates")
    print(json.dumps(message), flush=True)
"""


def conform(*args: str) -> list[str]:
    return ["conform", *args]


def test_conform_impl_with_selection_and_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "doubling.py"
    script.write_text(DOUBLING)
    report_json, report_xml = tmp_path / "r.json", tmp_path / "r.xml"
    code = main(
        conform(
            "--impl", f"{sys.executable} {script}",
            "--dialect", "openai_chat",
            "-k", "parallel_tool_calls",  # a substring: both parallel scenarios
            "-k", "plain_*",  # a glob
            "--chunking", "whole", "--chunking", "bytes",
            "--json", str(report_json), "--junit", str(report_xml),
        )
    )  # fmt: skip
    assert code == 1
    out = capsys.readouterr().out
    assert 'tool_calls[0].name: expected "get_weather", got "get_weatherget_weather"' in out
    document = json.loads(report_json.read_text())
    assert document["protocol"] == "raf-conformance/1"
    assert document["implementation"] == {"name": "raf-reference", "version": "0.1.0"}
    assert document["summary"] == {
        "pass": 2,
        "fail": 4,
        "skip": 0,
        "error": 0,
        "known": 0,
        "notices": 0,
    }
    by_id = {c["id"]: c for c in document["cases"]}
    assert set(by_id) == {
        f"openai_chat/{s}#0@{c}"
        for s in ("parallel_tool_calls", "parallel_tool_calls_interleaved", "plain_text")
        for c in ("whole", "bytes")
    }
    failing = by_id["openai_chat/parallel_tool_calls#0@bytes"]
    assert failing["ok"] is False
    assert failing["reason"].startswith("tool_calls[0].name: expected")
    assert by_id["openai_chat/plain_text#0@whole"]["ok"] is True
    root = ET.parse(report_xml).getroot()
    (suite,) = root.findall("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("6", "4", "0")
    failures = [c for c in suite.iter("testcase") if c.find("failure") is not None]
    assert {c.get("classname") for c in failures} == {
        "raf.openai_chat.parallel_tool_calls",
        "raf.openai_chat.parallel_tool_calls_interleaved",
    }


def test_conform_levels_and_dialects(capsys: pytest.CaptureFixture[str]) -> None:
    for level in ("response", "lifecycle", "updates"):
        args = conform(
            "--impl", REFERENCE, "--level", level, "--dialect", "openai_chat", "-k", "missing_id"
        )
        assert main(args) == 0
        assert "6 cases: 6 passed" in capsys.readouterr().out
    assert main(conform("--impl", REFERENCE, "--dialect", "gemini", "-k", "no_such_case")) == 1
    assert "no cases matched" in capsys.readouterr().out
    for dialect in [d for d in formats.names() if d != "openai_chat"]:  # every level, too
        for level in ("response", "lifecycle", "updates"):
            args = conform(
                "--impl", REFERENCE, "--level", level, "--dialect", dialect, "--chunking", "bytes"
            )
            assert main(args) == 0, (dialect, level)
            assert "all conform" in capsys.readouterr().out


def test_conform_an_impl_that_cannot_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = conform(
        "--impl", str(tmp_path / "missing"), "--dialect", "openai_chat", "-k", "plain_text"
    )
    assert main(args) == 1
    out = capsys.readouterr().out
    assert out.count("cannot start") == 1  # once, not once per case
    assert "6 not run" in out


def cassette(scenario: str, expect: Expectation | None) -> Cassette:
    body = (
        b'data: {"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":"stop"}]}\n\n'
        b"data: [DONE]\n\n"
    )
    return Cassette(
        info=ScenarioInfo(scenario=scenario, expect=expect),
        interactions=[
            Interaction(
                request=Request(uri="https://x/v1/chat/completions"),
                response=Response(headers={"content-type": ["text/event-stream"]}, body=body),
            )
        ],
    )


def test_update_writes_goldens_only_for_reviewed_cassettes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "cassettes" / "openai_chat"
    save(
        cassette("reviewed", Expectation(text="Hi", finish_reason="stop")), folder / "reviewed.yaml"
    )
    save(cassette("unreviewed", None), folder / "unreviewed.yaml")
    save(cassette("wrong", Expectation(text="Bye", finish_reason="stop")), folder / "wrong.yaml")
    args = conform("--cassettes", str(tmp_path / "cassettes"), "--goldens", str(tmp_path / "g"))
    assert main([*args, "--update"]) == 1  # two were not blessed
    out = capsys.readouterr().out
    assert "new" in out
    assert "unreviewed.yaml: no reviewed expect block" in out
    assert "golden contradicts expect: text: expected 'Bye', got 'Hi'" in out
    golden = goldens.load(tmp_path / "g" / "openai_chat" / "reviewed.json")
    assert golden is not None
    assert golden.interactions[0].response["text"] == "Hi"
    assert not (tmp_path / "g" / "openai_chat" / "unreviewed.json").exists()
    assert not (tmp_path / "g" / "openai_chat" / "wrong.json").exists()
    assert main([*args, "--update", "-k", "reviewed"]) == 1  # a substring: "unreviewed" too
    assert main([*args, "--update", "-k", "reviewed*"]) == 0  # a glob: the whole name
    assert "unchanged" in capsys.readouterr().out
    assert main([*args, "-k", "reviewed", "--impl", REFERENCE]) == 1  # unreviewed: no golden
    assert main([*args, "-k", "reviewed*", "--impl", REFERENCE]) == 0  # a glob: only it


PYTEST = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--raf-only"]


def test_the_suite_as_pytest_items_with_k_x_junit_and_xdist(tmp_path: Path) -> None:
    script = tmp_path / "doubling.py"
    script.write_text(DOUBLING)
    junit = tmp_path / "out.xml"
    run = processes.run(
        [*PYTEST, "--raf-impl", f"{sys.executable} {script}", "-k", "parallel_tool_calls and whole",
         f"--junitxml={junit}", "-n", "2"],
        cwd=tmp_path, text=True,
    )  # fmt: skip
    assert run.returncode == 1, run.stdout + run.stderr
    assert "2 failed" in run.stdout
    assert "tool_calls[0].name: expected" in run.stdout
    root = ET.parse(junit).getroot()
    names = sorted(c.get("name") or "" for c in root.iter("testcase"))
    assert names == [
        "openai_chat/parallel_tool_calls#0@whole",
        "openai_chat/parallel_tool_calls_interleaved#0@whole",
    ]
    run = processes.run(
        [*PYTEST, "--raf-impl", REFERENCE, "--raf-level", "updates", "-x", "-k", "missing"],
        cwd=tmp_path, text=True,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert "12 passed" in run.stdout  # missing_id and missing_index, 6 chunkings each


def test_the_pytest_items_run_over_http_on_a_server_per_worker(tmp_path: Path) -> None:
    run = processes.run(
        [*PYTEST, "--raf-impl", REFERENCE, "--raf-transport", "http", "--raf-level", "updates",
         "-k", "missing or tool_loop", "-n", "2"],
        cwd=tmp_path, text=True,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert "24 passed" in run.stdout  # missing_id, missing_index, tool_loop's two interactions
    python_client = ROOT / "examples" / "clients" / "python" / "client.py"
    run = processes.run(
        [*PYTEST, "--raf-impl", f"{sys.executable} {python_client}", "--raf-transport", "http",
         "-k", "leading_bom or plain_text"],
        cwd=tmp_path, text=True,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    # The example client reads Chat Completions: the other formats' plain_text are skipped.
    # Six chunkings each, and a seventh (`eventstream`) for a binary event stream.
    others = [p.parent.name for p in (ROOT / "cassettes").glob("*/plain_text.yaml")]
    others.remove("openai_chat")
    skipped = sum(7 if formats.get(name).framing == "aws_eventstream" else 6 for name in others)
    assert skipped >= 6
    assert f"12 passed, {skipped} skipped" in run.stdout


def test_bad_arguments_are_usage_errors_never_tracebacks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(conform("--impl", "")) == 2
    assert "--impl: an empty command" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:  # argparse's usage error, with the known names
        main(conform("--dialect", "anthropic"))
    assert exited.value.code == 2
    assert "anthropic_messages" in capsys.readouterr().err
    for options, message in (
        (["--raf-impl", ""], "--raf-impl: an empty command"),
        (["--raf-impl", REFERENCE, "--raf-cassettes", str(tmp_path / "nowhere")], "not found"),
        (["--raf-impl", REFERENCE, "--raf-chunking", "halves"], "unknown chunking"),
    ):
        run = processes.run(
            [*PYTEST, *options], cwd=tmp_path, text=True,
        )  # fmt: skip
        assert run.returncode == 4, run.stdout + run.stderr  # pytest's usage error
        assert message in run.stderr
        assert "Traceback" not in run.stdout + run.stderr


def test_the_reference_program_ignores_a_malformed_line() -> None:
    lines = b'garbage\n{"type":"case","id":1}\n{"type":"hello","protocol":"raf-conformance/1"}\n'
    run = processes.run(
        [sys.executable, "-m", "raf.conformance.stdio_reference"],
        input=lines + b'{"type":"bye"}\n',
    )  # fmt: skip
    assert run.returncode == 0
    assert json.loads(run.stdout)["name"] == "raf-reference"  # one answer: to the hello
    assert run.stderr.count(b"ignored a malformed line") == 2
    assert b"Traceback" not in run.stderr
