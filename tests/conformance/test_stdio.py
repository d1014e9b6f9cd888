"""The stdio protocol's process shell, run against real child processes: a correct
implementation passes every level; a timeout, a crash, a malformed line and a wrong id each
fail their own case with the reason and the stderr tail, the process is started again and the
next case passes; an implementation that cannot start or speaks another protocol is reported.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from raf import formats
from raf.conformance.bundled import bundled
from raf.conformance.cases import load_suite
from raf.conformance.runner import run_suite
from raf.conformance.stdio import ImplementationFailed, StdioImplementation

# Processes and servers end to end: the same in both builds (the compiled job in CI leaves
# these out, `-m 'not processes'`; the pure-Python run has them).
pytestmark = pytest.mark.processes

SUITE = bundled()
REFERENCE = [sys.executable, "-m", "raf.conformance.stdio_reference"]

# A correct implementation (raf's reference) that misbehaves on purpose, by scenario.
MISBEHAVING = textwrap.dedent(
    """
    import io, json, sys, time
    from raf.conformance.stdio_reference import serve

    for line in sys.stdin.buffer:
        message = json.loads(line)
        case = message.get("id", "")
        if "plain_text#" in case:
            print("about to crash", file=sys.stderr, flush=True)
            sys.exit(3)
        if "single_tool_call#" in case:
            sys.stdout.write("this is not json\\n"); sys.stdout.flush(); continue
        if "text_then_tool_call#" in case:
            print(json.dumps({"type": "result", "id": "someone/else#0@whole"}), flush=True)
            continue
        if "zero_argument_call#" in case:
            time.sleep(60)
        if "missing_index#" in case:
            print(json.dumps({"type": "result", "id": case, "raised": "ValueError: boom"}),
                  flush=True)
            continue
        out = io.BytesIO()
        serve(io.BytesIO(line), out)
        sys.stdout.buffer.write(out.getvalue()); sys.stdout.flush()
        if message["type"] == "bye":
            break
    """
)

CHAT = ["openai_chat"]  # the scenarios these tests name are Chat Completions ones


def write(tmp_path: Path, name: str, source: str) -> list[str]:
    path = tmp_path / name
    path.write_text(source)
    return [sys.executable, str(path)]


def test_the_reference_passes_every_level_through_the_protocol() -> None:
    suite = load_suite(
        SUITE.cassettes, SUITE.goldens, chunkings=["whole", "bytes", "utf8"], dialects=CHAT
    )
    for level in ("response", "lifecycle", "updates"):
        report = run_suite(suite, StdioImplementation(REFERENCE), level=level)
        assert report.ok, [r.reason for r in report.results if not r.ok][:3]
        assert report.counts() == {
            "pass": len(suite.cases),
            "fail": 0,
            "skip": 0,
            "error": 0,
            "known": 0,
        }
        assert report.implementation == "raf-reference"


def test_each_kind_of_misbehaviour_fails_its_own_case_and_the_run_goes_on(
    tmp_path: Path,
) -> None:
    suite = load_suite(SUITE.cassettes, SUITE.goldens, chunkings=["whole"], dialects=CHAT)
    implementation = StdioImplementation(write(tmp_path, "bad.py", MISBEHAVING), timeout=2)
    report = run_suite(suite, implementation, level="updates")
    failed = {r.scenario: r for r in report.results if r.status == "fail"}
    assert set(failed) == {
        "plain_text",
        "single_tool_call",
        "text_then_tool_call",
        "zero_argument_call",
        "missing_index",
    }
    assert failed["plain_text"].reason.startswith("the implementation exited (status 3)")
    assert "about to crash" in failed["plain_text"].stderr
    assert failed["single_tool_call"].reason.startswith("malformed line: ")
    assert "'this is not json'" in failed["single_tool_call"].reason
    assert failed["text_then_tool_call"].reason == (
        "wrong id: expected 'openai_chat/text_then_tool_call#0@whole', got 'someone/else#0@whole'"
    )
    assert failed["zero_argument_call"].reason.startswith(
        "timeout after 2 s; it wrote nothing on its stdout: if it printed its answer, it did "
        "not flush its stdout"
    )
    # raising is an answer: the case is judged, and text that never came is a mismatch
    assert failed["missing_index"].reason.startswith("text: expected")
    assert report.counts()["pass"] == len(suite.cases) - 5
    # started again for the case after each failure (the last one, zero_argument_call, is last)
    assert implementation.restarts == 3


def test_an_implementation_that_cannot_start_errs_every_case(tmp_path: Path) -> None:
    suite = load_suite(
        SUITE.cassettes, SUITE.goldens, chunkings=["whole"], select=["plain"], dialects=CHAT
    )
    for command, reason in (
        ([str(tmp_path / "nowhere")], "cannot start"),
        (write(tmp_path, "silent.py", "import sys; sys.exit(4)"), "exited (status 4)"),
        (
            write(
                tmp_path,
                "other.py",
                "import sys, json\nsys.stdin.readline()\n"
                'print(json.dumps({"type": "hello", "protocol": "raf-conformance/9"}), flush=True)',
            ),
            "protocol mismatch",
        ),
    ):
        report = run_suite(suite, StdioImplementation(command), level="response")
        assert {r.status for r in report.results} == {"error"}
        assert all(r.not_run for r in report.results)
        # Said once, for the run, not once per case.
        assert reason in report.fatal
        assert not any(reason in r.reason for r in report.results)
    with pytest.raises(ImplementationFailed, match="protocol mismatch"):
        StdioImplementation(command).hello()


def test_undeclared_dialects_levels_and_capabilities_are_skipped_and_counted(
    tmp_path: Path,
) -> None:
    minimal = textwrap.dedent(
        """
        import json, sys
        for line in sys.stdin:
            m = json.loads(line)
            if m["type"] == "hello":
                print(json.dumps({"type": "hello", "protocol": "raf-conformance/1",
                                  "dialects": ["openai_chat"]}), flush=True)
            elif m["type"] == "case":
                print(json.dumps({"type": "result", "id": m["id"], "response": {}}), flush=True)
            else:
                break
        """
    )
    suite = load_suite(SUITE.cassettes, SUITE.goldens, chunkings=["whole"])
    implementation = StdioImplementation(write(tmp_path, "minimal.py", minimal))
    report = run_suite(suite, implementation, level="lifecycle")
    others = {f"dialect {name} not declared" for name in formats.names() if name not in CHAT}
    assert {r.reason for r in report.results} == {"level lifecycle not declared", *others}
    report = run_suite(suite, StdioImplementation(write(tmp_path, "m2.py", minimal)))
    chat_skips = [
        r for r in report.results if r.status == "skip" and r.id.startswith("openai_chat/")
    ]  # one per interaction: a tool loop's scenario has two
    skipped = {r.scenario: r.reason for r in chat_skips}
    assert skipped["parallel_tool_calls"] == "needs capability tool_calls"
    assert skipped["deepseek_reasoning_then_content"] == "needs capability reasoning"
    assert skipped["http_429_json_error"] == "needs capability http_errors"
    assert "plain_text" not in skipped  # run, and failed: it returns an empty response
    other_cases = sum(not r.id.startswith("openai_chat/") for r in report.results)
    assert report.counts()["skip"] == len(chat_skips) + other_cases  # other dialects: all skipped
