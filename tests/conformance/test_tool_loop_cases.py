"""``tool_loop`` cases of ``raf-conformance/1``: a client runs its own tool loop against
``raf serve``, and the ``requests`` level judges every request of the run.

The reference (raf's own agent, ``python -m raf.conformance.stdio_reference``) must pass
every tool_loop case at ``requests`` under every chunking; a client that answers a call with
the wrong id must fail it, named by the rule it breaks and the field, classified as ``wrong``.
The verdict's parts (:func:`judge_requests`, :func:`skip_reason`) are checked on their own.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from raf.cassettes.tool_loops import tool_loop_specs
from raf.chunking import STANDARD_CHUNKINGS
from raf.cli import main as raf_main
from raf.conformance.bundled import bundled
from raf.conformance.cases import Case
from raf.conformance.implementation import Outcome
from raf.conformance.protocol import ImplementationHello, Result
from raf.conformance.requests_level import judge_requests
from raf.conformance.runner import checked_levels, judge, skip_reason
from raf.conformance.tool_loop import load_tool_loop_cases, loop_case_id, tool_loop_message

SUITE = bundled()
CLIENTS = Path(__file__).resolve().parent / "clients"
SPECS = list(tool_loop_specs(SUITE.tool_loops))


def loop_cases(*, chunkings: tuple[str, ...] = ("whole",)) -> list[Case]:
    suite = load_tool_loop_cases(
        [SUITE.tool_loops], chunkings=chunkings, served_first=[SUITE.cassettes]
    )
    assert suite.problems == []
    return suite.cases


def conform(tmp_path: Path, *args: str) -> tuple[int, dict[str, Any]]:
    report = tmp_path / "report.json"
    status = raf_main(["conform", "--transport", "http", *args, "--json", str(report)])
    return status, json.loads(report.read_text("utf-8"))


# -- the cases ---------------------------------------------------------------------------------


def test_every_tool_loop_recording_is_one_case_per_chunking() -> None:
    assert SPECS, "no tool-loop recording is bundled"
    cases = loop_cases(chunkings=STANDARD_CHUNKINGS)
    assert [c.id for c in cases] == [
        loop_case_id(s.dialect, s.scenario, c) for s in SPECS for c in STANDARD_CHUNKINGS
    ]
    for case in cases:
        assert case.id == f"{case.dialect}/{case.scenario}@{case.chunking}"
        assert case.scenario.endswith("#loop")
        assert case.loop is not None
        assert case.interaction is None
        assert "tool_loop" in case.requires
        assert case.expected.response.get("finish_reason")  # the final answer, read by raf


def test_the_case_message_carries_the_loop() -> None:
    spec = next(s for s in SPECS if s.dialect == "openai_chat")
    message = tool_loop_message(spec)
    assert message.model == spec.model
    assert [t.name for t in message.tools] == [t.name for t in spec.tools]
    assert [(r.name, r.arguments, r.content, r.is_error) for r in message.results] == [
        (r.name, r.arguments, r.content, r.is_error) for r in spec.results
    ]
    assert message.requests == spec.requests


def test_a_recording_shadowed_by_a_cassette_of_the_same_name_is_a_problem(tmp_path: Path) -> None:
    spec = SPECS[0]
    shadow = tmp_path / spec.dialect / f"{spec.scenario}.yaml"
    shadow.parent.mkdir()
    shadow.write_text("whatever", encoding="utf-8")
    suite = load_tool_loop_cases([SUITE.tool_loops], chunkings=["whole"], served_first=[tmp_path])
    assert f"{spec.case}#loop" in {p.id for p in suite.problems}
    assert f"{spec.case}#loop" not in {f"{c.dialect}/{c.scenario}" for c in suite.cases}


def test_a_tool_loop_named_like_a_cassette_runs_on_a_server_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # raf conform serves the tool loops apart from the cassettes: a recording may have the
    # name of a cassette (openai_chat/plain_text here), and each is answered from its own.
    text = (SUITE.tool_loops / "openai_chat" / "two_tools.yaml").read_text("utf-8")
    named = tmp_path / "openai_chat" / "plain_text.yaml"
    named.parent.mkdir()
    named.write_text(text.replace("scenario: two_tools", "scenario: plain_text", 1), "utf-8")
    monkeypatch.setattr("raf.cli.conform._tool_loop_folders", lambda cassettes: [tmp_path])
    status, report = conform(
        tmp_path,
        "--level",
        "requests",
        "--dialect",
        "openai_chat",
        "-k",
        "plain_text",
        "--chunking",
        "whole",
    )
    assert {c["id"]: (c["scenario"], c["status"]) for c in report["cases"]} == {
        "openai_chat/plain_text#0@whole": ("plain_text", "pass"),
        "openai_chat/plain_text#loop@whole": ("plain_text#loop", "pass"),
    }
    assert status == 0


def test_a_tool_loop_case_is_skipped_where_it_cannot_be_judged() -> None:
    case = loop_cases()[0]
    hello = ImplementationHello(
        protocol="raf-conformance/1",
        dialects=[case.dialect],
        levels=["response", "lifecycle", "requests"],
        capabilities=["http", "tool_loop", "reasoning", "tool_calls"],
    )
    assert skip_reason(case, "requests", hello, "http") is None
    assert skip_reason(case, "response", hello, "http") is None
    assert skip_reason(case, "requests", hello, "chunks") == (
        "a tool_loop case needs --transport http"
    )
    assert "judged at levels response and requests" in str(
        skip_reason(case, "lifecycle", hello, "http")
    )
    without = ImplementationHello(
        protocol="raf-conformance/1",
        dialects=[case.dialect],
        levels=["requests"],
        capabilities=["http", "reasoning", "tool_calls"],
    )
    assert skip_reason(case, "requests", without, "http") == "needs capability tool_loop"
    assert checked_levels("requests", "http") == ("request", "response", "requests")


# -- the requests level ------------------------------------------------------------------------


def entry(
    n: int, *, rules: list[dict[str, str]] | None = None, lines: tuple[str, ...] = ()
) -> dict[str, Any]:
    return {
        "seq": n + 1,
        "run": "r",
        "interaction": n,
        "check": {"ok": not lines, "compared": [], "mismatches": list(lines)},
        "rules": rules or [],
        "status": 200,
    }


def test_judge_requests_names_the_rule_and_the_field_and_counts_the_requests() -> None:
    spec = next(s for s in SPECS if s.dialect == "openai_chat")
    entries = [entry(n) for n in range(spec.requests)]
    assert judge_requests(spec, entries) == []
    broken = {"rule": "chat.tool_calls_answered", "field": "messages[1].tool_calls", "message": "x"}
    entries[1] = entry(
        1, rules=[broken], lines=('messages[3].tool_call_id: expected "a", got "b"',)
    )
    found = judge_requests(spec, entries)
    assert [(m.key, m.kind, m.level) for m in found] == [
        ("requests[1].rule:chat.tool_calls_answered", "wrong", "requests"),
        ("requests[1].messages[3].tool_call_id", "wrong", "requests"),
    ]
    assert "rule chat.tool_calls_answered" in found[0].summary()
    assert "messages[1].tool_calls" in found[0].summary()
    assert found[1].summary() == (
        'requests[1].messages[3].tool_call_id: expected "a" (recorded), got "b"'
    )
    assert [m.kind for m in judge_requests(spec, entries[:1])][-1] == "lost"
    assert [m.kind for m in judge_requests(spec, [*entries, entry(9)])][-1] == "invented"
    refused = {"seq": 1, "run": "r", "status": 503, "outcome": "refused: server busy"}
    assert next(m.key for m in judge_requests(spec, [refused])) == "requests[0].status"


def test_a_run_with_no_request_fails_even_at_level_response() -> None:
    case = loop_cases()[0]
    outcome = Outcome(Result(id=case.id, response=None))
    verdict = judge(case, outcome, "response", set(), transport="http")
    assert verdict.status == "fail"
    assert any(d.mismatch.key == "requests.count" for d in verdict.differences)


# -- the reference and a wrong client, through raf conform --------------------------------------


def test_the_reference_passes_every_tool_loop_case_at_requests_under_every_chunking(
    tmp_path: Path,
) -> None:
    status, report = conform(tmp_path, "--level", "requests", "-k", "#loop@")
    assert {c["id"]: c["reason"] for c in report["cases"] if not c["ok"]} == {}
    assert report["summary"]["pass"] == len(SPECS) * len(STANDARD_CHUNKINGS)
    assert report["implementation"]["name"] == "raf-reference"
    assert status == 0


def test_a_client_answering_the_wrong_id_fails_at_requests_naming_the_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    command = shlex.join([sys.executable, str(CLIENTS / "wrong_id_client.py")])
    status, report = conform(
        tmp_path,
        "--impl",
        command,
        "--level",
        "requests",
        "--dialect",
        "openai_chat",
        "-k",
        "two_tools#loop@whole",
        "--junit",
        str(tmp_path / "report.xml"),
        "--html",
        str(tmp_path / "report.html"),
    )
    # every report names the rule and the place in the request
    named = "requests[1].messages[1].tool_calls (rule chat.tool_calls_answered)"
    assert named in capsys.readouterr().out
    assert named in (tmp_path / "report.xml").read_text("utf-8")
    assert "chat.tool_calls_answered" in (tmp_path / "report.html").read_text("utf-8")
    assert status == 1
    (case,) = report["cases"]
    assert case["status"] == "fail"
    assert case["reason"].startswith(named)  # the rule first: it is why the answer differs
    rules = [d for d in case["differences"] if ".rule:" in d["field"]]
    assert rules, case["differences"]
    assert rules[0]["field"] == "requests[1].rule:chat.tool_calls_answered"
    assert rules[0]["kind"] == "wrong"
    assert rules[0]["level"] == "requests"
    assert rules[0]["fails"]
    assert "messages[1].tool_calls" in rules[0]["where"]
    # the server refused the follow-up as the provider would: the loop ended early
    assert any(d["field"] == "requests.count" and d["kind"] == "lost" for d in case["differences"])


def test_the_wrong_client_passes_at_level_response_only_where_the_answer_is_right(
    tmp_path: Path,
) -> None:
    command = shlex.join([sys.executable, str(CLIENTS / "wrong_id_client.py")])
    _, report = conform(
        tmp_path, "--impl", command, "--dialect", "openai_chat", "-k", "two_tools#loop@whole"
    )
    (case,) = report["cases"]
    assert case["level"] == "response"
    assert not any(".rule:" in d["field"] for d in case["differences"])  # not judged there
    assert case["status"] == "fail"  # but its user never got the answer: the 400 ended it


def test_a_recording_whose_last_answer_contradicts_its_expect_gives_no_case(
    tmp_path: Path,
) -> None:
    recording = SUITE.tool_loops / "openai_chat" / "two_tools.yaml"
    text = recording.read_text("utf-8")
    wrong = tmp_path / "openai_chat" / "two_tools.yaml"
    wrong.parent.mkdir()
    wrong.write_text(text.replace("finish_reason: stop", "finish_reason: length", 1), "utf-8")
    suite = load_tool_loop_cases([tmp_path], chunkings=["whole"])
    assert suite.cases == []
    (problem,) = suite.problems
    assert problem.id == "openai_chat/two_tools#loop"
    assert "contradicts raf.expect" in problem.message
    assert "finish_reason" in problem.message
