"""The example clients, and two deliberately wrong ones, through the real harness: the
correct clients in Python and Node.js pass every case at the response level; a client with
tool-call bugs fails exactly the scenarios those bugs touch, with a diff that names the field;
a client that crashes, writes garbage, answers another id, hangs or raises is reported case by
case and the run goes on."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from raf.conformance.bundled import bundled
from raf.conformance.cases import Suite, load_suite
from raf.conformance.runner import RunReport, run_suite
from raf.conformance.stdio import StdioImplementation

# Processes and servers end to end: the same in both builds (the compiled job in CI leaves
# these out, `-m 'not processes'`; the pure-Python run has them).
pytestmark = pytest.mark.processes

ROOT = Path(__file__).resolve().parents[2]
CLIENTS = Path(__file__).resolve().parent / "clients"
SUITE = bundled()


@pytest.fixture(scope="module")
def suite() -> Suite:
    # The example clients read Chat Completions (their hello says so); the cases of the other
    # dialects would only be skipped, and are, as the undeclared-dialect test shows.
    return load_suite(SUITE.cassettes, SUITE.goldens, dialects=["openai_chat"])


def node() -> str:
    found = shutil.which("node")
    if found is None:
        if os.environ.get("RAF_REQUIRE_NODE") == "1":
            pytest.fail("Node.js is required here (RAF_REQUIRE_NODE=1) but `node` is missing")
        pytest.skip("Node.js is not installed: the Node example client cannot run")
    return found


HANG_TIMEOUT = 15.0
"""The per-case timeout of the run with a client that hangs on one case."""


def failing(report: RunReport) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for result in report.results:
        if not result.ok:
            out.setdefault(result.scenario, set()).add(result.reason)
    return out


def test_the_python_example_client_passes_every_case(suite: Suite) -> None:
    command = [sys.executable, str(ROOT / "examples" / "clients" / "python" / "client.py")]
    report = run_suite(suite, StdioImplementation(command), level="response")
    assert failing(report) == {}
    assert report.counts() == {
        "pass": len(suite.cases),
        "fail": 0,
        "skip": 0,
        "error": 0,
        "known": 0,
    }
    assert report.implementation == "example-python"


def test_the_node_example_client_passes_every_case(suite: Suite) -> None:
    command = [node(), str(ROOT / "examples" / "clients" / "node" / "client.js")]
    report = run_suite(suite, StdioImplementation(command), level="response")
    assert failing(report) == {}
    assert report.counts()["pass"] == len(suite.cases)
    assert report.implementation == "example-node"


@pytest.mark.parametrize(
    ("bugs", "scenarios"),
    [
        (
            ["concat-names"],
            {"id_and_name_repeated_every_delta", "tool_call_header_repeated_type_null"},
        ),
        (["index-only"], {"index_always_zero_distinct_ids", "missing_index"}),
        (
            ["finish-delta"],
            {"text_beside_finish_reason", "tool_arguments_beside_finish_reason", "missing_index"},
        ),
        (["all-choices"], {"n_two_choices_interleaved"}),
    ],
)
def test_a_broken_client_fails_exactly_the_scenarios_its_bug_touches(
    suite: Suite, bugs: list[str], scenarios: set[str]
) -> None:
    command = [sys.executable, str(CLIENTS / "broken_client.py")]
    for bug in bugs:
        command += ["--bug", bug]
    report = run_suite(suite, StdioImplementation(command), level="response")
    failures = failing(report)
    assert set(failures) == scenarios
    # every chunking of those scenarios fails, and nothing else
    assert report.counts()["fail"] == 6 * len(scenarios)
    if "concat-names" in bugs:
        (reason,) = failures["id_and_name_repeated_every_delta"]
        assert reason.startswith(
            'tool_calls[0].name: expected "read_file", got "read_fileread_file'
        )
        (reason,) = failures["tool_call_header_repeated_type_null"]
        assert reason.startswith(
            'tool_calls[0].name: expected "get_weather", got "get_weatherget_weather'
        )
    elif "index-only" in bugs:
        reasons = failures["index_always_zero_distinct_ids"]
        assert all(r.startswith("tool_calls: expected 3 call(s)") for r in reasons), reasons
    elif "finish-delta" in bugs:
        (reason,) = failures["text_beside_finish_reason"]
        assert reason.startswith('text: expected "A mutex'), reason
        assert reason.endswith('by two threads"'), reason  # " at once." lost
    else:
        (reason,) = failures["n_two_choices_interleaved"]
        assert reason.startswith('text: expected "Crumb & Corner:'), reason


def test_a_misbehaving_client_is_reported_case_by_case_and_the_run_goes_on(suite: Suite) -> None:
    # The timeout is the one wall-clock bound here, and it is raf's behaviour under test: a
    # case that hangs costs all of it, so leading_bom (which hangs) keeps one chunking, and it
    # is long enough that a case answered on a loaded machine never reaches it (each takes
    # milliseconds of CPU). Without the 200 KB cassette, whose one-byte chunking is slow.
    suite = Suite(
        cases=[
            c
            for c in suite.cases
            if c.scenario != "large_tool_argument_200kb"
            and (c.scenario != "leading_bom" or c.chunking == "whole")
        ],
        problems=suite.problems,
    )
    command = [sys.executable, str(CLIENTS / "misbehaving_client.py")]
    implementation = StdioImplementation(command, timeout=HANG_TIMEOUT)
    report = run_suite(suite, implementation, level="response")
    failures = failing(report)
    assert set(failures) == {
        "missing_id",
        "choices_null",
        "missing_index",
        "leading_bom",
        "keep_alive_comments",
    }
    assert failures["missing_id"] == {"the implementation exited (status 3)"}
    assert all(r.startswith("malformed line: ") for r in failures["choices_null"])
    assert all(r.startswith("wrong id: expected ") for r in failures["missing_index"])
    assert failures["leading_bom"] == {
        f"timeout after {HANG_TIMEOUT:g} s; it wrote nothing on its stdout: if it printed its "
        "answer, it did not flush its stdout (Python: print(..., flush=True); C: "
        "fflush(stdout), as stdio buffers a pipe)"
    }
    (raised,) = {r.diff for r in report.results if r.scenario == "keep_alive_comments"}
    assert 'errors: expected no error, got ["raised ValueError: boom"]' in raised
    crashed = [r for r in report.results if r.scenario == "missing_id"]
    assert all("Traceback" in r.stderr for r in crashed)
    failed = 4 * 6 + 1  # four scenarios under six chunkings, leading_bom under one
    assert report.counts() == {
        "pass": len(suite.cases) - failed,
        "fail": failed,
        "skip": 0,
        "error": 0,
        "known": 0,
    }
