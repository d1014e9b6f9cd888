"""The agent end to end against recordings, not mocks of itself (issue 23, "Done means"): for
every scenario of conformance/tool_loop_scenarios.yaml, a replay server on 127.0.0.1 serves
the recording, the agent's leaf client (sync and async) is pointed at it, and the test checks
the results stream, the final AgentResponse (text, calls, tool messages, transcript, rounds
and summed usage), the tools that ran, and every request the agent sent against the recorded
one with raf's request check (the server's journal)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from raf.model import contents
from raf.model.blocks import ToolCall as ToolCallBlock
from raf.model.blocks import ToolResult as ToolResultBlock
from raf.model.messages import MessageRole
from raf.model.usage import Usage
from raf.testing.agent_replay import (
    RunReport,
    Scenario,
    ScenarioError,
    load_scenarios,
    replay,
)

SCENARIOS = load_scenarios()


def _usage(usage: Usage | None) -> dict[str, int] | None:
    if usage is None:
        return None
    return {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "total_tokens": usage.total_tokens,
    }


def _call_ids(expect: dict[str, Any]) -> list[str]:
    return [c if isinstance(c, str) else c["id"] for c in expect.get("tool_calls", ())]


@pytest.fixture(params=["sync", "async"])
def asynchronous(request: pytest.FixtureRequest) -> bool:
    return bool(request.param == "async")


@pytest.mark.parametrize("scenario", list(SCENARIOS.values()), ids=list(SCENARIOS))
def test_the_agent_replays_the_scenario(scenario: Scenario, asynchronous: bool) -> None:
    reports = replay(scenario, asynchronous=asynchronous)
    assert len(reports) == len(scenario.runs)
    answered = 0
    previous: RunReport | None = None
    for report, run in zip(reports, scenario.runs, strict=True):
        expect = dict(run.expect)
        _check_requests(report, expect, answered)
        answered += expect["requests"]
        _check_stream(report, expect)
        _check_response(report, expect)
        _check_tools_ran(scenario, report, expect, previous)
        previous = report


def _check_requests(report: RunReport, expect: dict[str, Any], answered: int) -> None:
    """Every request was the recorded one, answered in order."""
    assert [r.interaction for r in report.requests] == list(
        range(answered, answered + expect["requests"])
    )
    for request in report.requests:
        assert request.mismatches == ()
        assert request.ok
        assert request.status == 200


def _check_stream(report: RunReport, expect: dict[str, Any]) -> None:
    """ToolCalled per executed call in call order, RoundFinished per tool round, the finish."""
    streamed = [c for r in report.results for c in r.contents]
    rounds = [c for c in streamed if isinstance(c, contents.RoundFinished)]
    called = [c.call_id for c in streamed if isinstance(c, contents.ToolCalled)]
    asked = [c for c in streamed if isinstance(c, contents.ToolApprovalRequest)]
    finishes = [r.finish_reason for r in report.results if r.finish_reason is not None]
    assert finishes[-1:] == [expect["finish_reason"]]
    if "rounds" in expect:
        tool_rounds = [r for r in expect["rounds"] if r["finish_reason"] == "tool_calls"]
        assert [r.round for r in rounds] == list(range(len(tool_rounds)))
        assert [r.finish_reason for r in rounds] == ["tool_calls"] * len(tool_rounds)
        assert [_usage(r.usage) for r in rounds] == [r["usage"] for r in tool_rounds]
        assert called == _call_ids(expect)
    if "approval_requests" in expect:
        # every round of the run ended; the calls before the paused round ran, none after
        assert len(rounds) == expect["requests"]
        waiting = {a["call_id"] for a in expect["approval_requests"]}
        assert called == [c for c in _call_ids(expect) if c not in waiting]
        assert [(a.call_id, a.name, a.arguments) for a in asked] == [
            (a["call_id"], a["name"], a["arguments"]) for a in expect["approval_requests"]
        ]


def _check_response(report: RunReport, expect: dict[str, Any]) -> None:
    response = report.response
    assert response.text == expect["text"]
    assert response.finish_reason == expect["finish_reason"]
    assert response.errors == ()
    if "tool_calls" in expect:
        want = expect["tool_calls"]
        if want and isinstance(want[0], dict):
            assert [
                {"id": c.id, "name": c.name, "arguments": c.arguments} for c in response.tool_calls
            ] == want
        else:
            assert [c.id for c in response.tool_calls] == want
    if "rounds" in expect:
        assert [(r.finish_reason, _usage(r.usage)) for r in response.rounds] == [
            (r["finish_reason"], r["usage"]) for r in expect["rounds"]
        ]
    if "usage" in expect:
        assert _usage(response.usage) == expect["usage"]
    if "approval_requests" in expect:
        assert [
            {"call_id": a.call_id, "name": a.name, "arguments": a.arguments}
            for a in response.approval_requests
        ] == expect["approval_requests"]
    if "tool_messages" in expect:
        got = []
        for message in response.tool_messages:
            assert message.role == MessageRole.TOOL
            (block,) = [b for b in message.blocks if isinstance(b, ToolResultBlock)]
            assert block.call_id == message.tool_call_id
            got.append(
                {
                    "call_id": message.tool_call_id,
                    "name": block.name,
                    "content": message.content,
                    "is_error": block.is_error,
                }
            )
        assert got == expect["tool_messages"]
    if expect.get("rounds") and "calls" in expect["rounds"][0]:
        _check_transcript(report, expect)


def _check_transcript(report: RunReport, expect: dict[str, Any]) -> None:
    """The transcript rebuilds the conversation: per round, the assistant turn with its calls
    then one tool message per call in call order; last, the answer."""
    shape: list[tuple[str, tuple[str | None, ...]]] = []
    for message in report.response.turn_transcript:
        if message.role == MessageRole.ASSISTANT:
            calls = tuple(b.id for b in message.blocks if isinstance(b, ToolCallBlock))
            shape.append(("assistant", calls))
        else:
            assert message.role == MessageRole.TOOL
            shape.append(("tool", (message.tool_call_id,)))
    want: list[tuple[str, tuple[str, ...]]] = []
    for round_ in expect["rounds"]:
        want.append(("assistant", tuple(round_["calls"])))
        want.extend(("tool", (call,)) for call in round_["calls"])
    assert shape == want
    # the text of the run is its assistant turns' text (a tool round may say something too)
    transcript = report.response.turn_transcript
    assert (
        "".join(m.content for m in transcript if m.role == MessageRole.ASSISTANT) == expect["text"]
    )


def _unordered(invocations: dict[str, list[Any]]) -> dict[str, list[str]]:
    """Each tool's invocations as sorted canonical JSON (the order threads start them in is
    not the calls' order)."""
    return {
        name: sorted(json.dumps(arguments, sort_keys=True) for arguments in calls)
        for name, calls in invocations.items()
    }


def _check_tools_ran(
    scenario: Scenario, report: RunReport, expect: dict[str, Any], previous: RunReport | None
) -> None:
    """Each tool ran once per call that reached it (known, arguments valid, not waiting for
    approval; on a resumed run, the approved calls of the run before), with the call's
    arguments, in call order."""
    tools = {t.name: t for t in scenario.agent.tools}
    want: dict[str, list[Any]] = {name: [] for name in tools}
    if report.approvals:
        assert previous is not None
        approved = {a.call_id for a in report.approvals if a.approved}
        for asked in previous.response.approval_requests:
            if asked.call_id in approved:
                want[asked.name].append(asked.arguments)
    waiting = {a.call_id for a in report.response.approval_requests}
    for call in report.response.tool_calls:
        tool = tools.get(call.name)
        if tool is None or call.id in waiting:
            continue
        if jsonschema.Draft202012Validator(dict(tool.parameters)).is_valid(call.arguments):
            want[call.name].append(call.arguments)
    # Parallel calls run concurrently: each tool's invocations may start in any order.
    assert _unordered(report.invocations) == _unordered(want)


def test_a_scenario_sets_only_the_client_settings_it_may(tmp_path: Path) -> None:
    """``client`` in a scenario's agent takes only CLIENT_SETTINGS; any other key is a
    ScenarioError naming it, not a TypeError from the client."""
    case = "openai_chat/tool_loop_follow_up_request"
    agent = {
        "messages": [{"role": "user", "content": "hi"}],
        "model": "m",
        "tools": [],
        "client": {"base_url": "http://elsewhere"},
    }
    path = tmp_path / "scenarios.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "agents": {case: agent},
                "scenarios": [{"name": "x", "recording": "cassettes", "case": case, "runs": []}],
            }
        ),
        encoding="utf-8",
    )
    with pytest.raises(ScenarioError, match="base_url"):
        load_scenarios(path)
    agent["client"] = {"stream_usage": False}
    path.write_text(
        yaml.safe_dump(
            {
                "agents": {case: agent},
                "scenarios": [{"name": "x", "recording": "cassettes", "case": case, "runs": []}],
            }
        ),
        encoding="utf-8",
    )
    assert load_scenarios(path)["x"].agent.client == {"stream_usage": False}
