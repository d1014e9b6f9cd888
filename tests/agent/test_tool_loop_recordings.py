"""The data of the agent's recordings and scenarios (docs/agent.md, "Recordings and replay"):
every multi-round recording lints, holds no secret, and every value its header and the
scenario file expect agrees with the recordings' own bodies, read independently
(tests/agent/recorded_turns.py: SSE and JSON lines parsed here, not by raf's pipeline)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from raf import formats
from raf.agent.tools import ToolResult
from raf.cassettes import load
from raf.cassettes.lint import cassette_files, lint_file
from raf.cassettes.scrub import scrub_cassette
from raf.shared.bundled import bundled
from raf.testing.agent_replay import Scenario, load_scenarios, scenarios_table
from tests.agent import recorded_turns as rt

SUITE = bundled()
RECORDINGS = sorted(cassette_files([SUITE.tool_loops]))
SCENARIOS = load_scenarios()
TOOL_FORMATS = ("openai_chat", "anthropic_messages", "openai_responses", "gemini", "ollama_chat")


def test_every_format_with_tools_has_a_multi_round_recording() -> None:
    assert sorted(p.parent.name for p in RECORDINGS) == sorted(TOOL_FORMATS)
    assert set(formats.names()) - set(TOOL_FORMATS) == {"openai_completions"}  # no tools


def test_every_kind_of_scenario_runs_on_every_format_it_can() -> None:
    kinds: dict[str, set[str]] = {}
    for scenario in SCENARIOS.values():
        kinds.setdefault(scenario.kind, set()).add(scenario.dialect)
    assert kinds == {
        "two tools": set(TOOL_FORMATS),
        "max rounds": set(TOOL_FORMATS),
        "call then answer": set(TOOL_FORMATS),
        "approval pause and resume": set(TOOL_FORMATS),
    }
    follow_ups = {s.case for s in SCENARIOS.values() if s.recording == "cassettes"}
    assert follow_ups == {
        "openai_chat/tool_loop_follow_up_request",
        "openai_chat/deepseek_reasoning_tool_call_follow_up",
        "anthropic_messages/thinking_tool_use_follow_up",
        "gemini/parallel_calls_thought_signature_follow_up",
        "openai_responses/reasoning_function_call_follow_up",
        "ollama_chat/follow_up_carries_thinking_and_call",
    }


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.parent.name)
def test_the_recording_lints_clean_and_holds_no_secret(path: Path) -> None:
    assert [str(f) for f in lint_file(path)] == []
    cassette = load(path)
    assert scrub_cassette(cassette).to_dict() == cassette.to_dict()
    for interaction in cassette.interactions:
        for name in ("authorization", "x-api-key", "x-goog-api-key"):
            assert interaction.request.headers.get(name, ["REDACTED"]) == ["REDACTED"]


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.parent.name)
def test_the_recording_is_two_tools_over_four_rounds(path: Path) -> None:
    run = load(path).info.run  # type: ignore[union-attr]
    assert run is not None
    turns = _turns(path)
    assert [len(t.calls) for t in turns] == [2, 1, 1, 0]
    tools = {t["name"]: t for t in run["tools"]}
    first, unknown = turns[0].calls
    assert tools[first.name]["does"] == "raise"
    assert unknown.name not in tools
    bad, good = turns[1].calls[0], turns[2].calls[0]
    assert bad.name == good.name
    assert tools[bad.name]["does"] == "result"
    validator = jsonschema.Draft202012Validator(tools[bad.name]["parameters"])
    assert not validator.is_valid(bad.arguments)
    assert validator.is_valid(good.arguments)
    # reasoning with what must be echoed back in every tool round
    for turn in turns[:3]:
        assert turn.reasoning
        if path.parent.name in ("anthropic_messages", "gemini"):
            assert turn.signatures
        if path.parent.name == "openai_responses":
            assert turn.encrypted


def _turns(path: Path) -> list[rt.Turn]:
    cassette = load(path)
    dialect = path.parent.name
    turns = [rt.read_turn(dialect, i.response.content().decode()) for i in cassette.interactions]
    rt.name_calls(turns)
    return turns


def _bodies(path: Path) -> list[dict[str, Any]]:
    return [json.loads(i.request.body or "{}") for i in load(path).interactions]


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.parent.name)
def test_each_follow_up_carries_the_turn_before_and_answers_its_calls(path: Path) -> None:
    """Request n+1 is request n's conversation, then the assistant turn of response n with
    everything that must be echoed (reasoning, signatures, encrypted items, calls by id), then
    one answer per call in call order."""
    dialect = path.parent.name
    turns, bodies = _turns(path), _bodies(path)
    for n, turn in enumerate(turns[:-1]):
        before, after = rt.conversation(dialect, bodies[n]), rt.conversation(dialect, bodies[n + 1])
        assert after[: len(before)] == before
        given = rt.answers(dialect, after)
        assert len(given) == len(turn.calls)
        echo = rt.echoed(dialect, after, len(given) if dialect != "gemini" else 0)
        assert echo["reasoning"].strip() == turn.reasoning.strip()
        ids = [c.id if not c.id.startswith("__tc_") else None for c in turn.calls]  # type: ignore[union-attr]
        assert echo["calls"] == [
            (i, c.name, c.arguments) for i, c in zip(ids, turn.calls, strict=True)
        ]
        if "signatures" in echo:
            assert echo["signatures"] == turn.signatures
        if "encrypted" in echo:
            assert echo["encrypted"] == turn.encrypted
        for answer, call in zip(given, turn.calls, strict=True):
            if answer.call_id is not None:
                assert answer.call_id == call.id
            if answer.name is not None:
                assert answer.name == call.name


def _expected_content(tool: dict[str, Any] | None, call: rt.Call) -> tuple[str | None, bool]:
    """What the tool message of ``call`` must say, by the tool's script (``None``: an error
    text of the loop's, checked by its start)."""
    if tool is None:
        return f"Tool '{call.name}' not found", True
    if not jsonschema.Draft202012Validator(tool["parameters"]).is_valid(call.arguments):
        return None, True
    value = tool.get("value")
    for entry in tool.get("values", ()):
        if entry["arguments"] == call.arguments:
            value = entry["value"]
    if tool["does"] == "raise":
        return (
            json.dumps(
                {"data": None, "error": f"Framework error: RuntimeError: {value}", "ok": False},
                separators=(",", ":"),
            ),
            True,
        )
    if tool["does"] == "result":
        return ToolResult.success(value).to_json(), False
    if tool["does"] == "failure":
        return ToolResult.failure(str(value)).to_json(), False
    return str(value), False


def _scenario_cases() -> list[tuple[str, Scenario]]:
    return list(SCENARIOS.items())


@pytest.mark.parametrize(("name", "scenario"), _scenario_cases(), ids=list(SCENARIOS))
def test_every_expected_value_of_the_scenario_agrees_with_the_recording(
    name: str, scenario: Scenario
) -> None:
    turns, bodies = _turns(scenario.path), _bodies(scenario.path)
    tools = {t.name: t for t in scenario.agent.tools}
    scripts = {
        t.name: {
            "does": t.does,
            "value": t.value,
            "values": [{"arguments": a, "value": v} for a, v in t.values],
            "parameters": t.parameters,
        }
        for t in scenario.agent.tools
    }
    first = 0
    for run in scenario.runs:
        expect = run.expect
        used = turns[first : first + expect["requests"]]
        assert len(used) == expect["requests"] > 0
        assert expect["text"] == "".join(t.text for t in used)
        calls = [c for t in used for c in t.calls]
        last = used[-1]
        if expect["finish_reason"] == "max_rounds":
            assert len(used) == scenario.max_rounds
            assert last.calls
        elif expect["finish_reason"] == "awaiting_approval":
            assert last.calls
            assert {c.name for c in last.calls} <= set(scenario.requires_approval)
            assert expect["approval_requests"] == [
                {"call_id": c.id, "name": c.name, "arguments": c.arguments} for c in last.calls
            ]
        else:
            assert expect["finish_reason"] == last.finish_reason
        if "tool_calls" in expect:
            got = expect["tool_calls"]
            if got and isinstance(got[0], dict):
                assert got == [
                    {"id": c.id, "name": c.name, "arguments": c.arguments} for c in calls
                ]
            else:
                assert got == [c.id for c in calls]
        if "rounds" in expect:
            assert len(expect["rounds"]) == len(used)
            for want, turn in zip(expect["rounds"], used, strict=True):
                assert want["finish_reason"] == turn.finish_reason
                assert want["usage"] == turn.usage
                if "calls" in want:
                    assert want["calls"] == [c.id for c in turn.calls]
            assert expect["usage"] == {
                k: sum(t.usage[k] for t in used)
                for k in ("prompt_tokens", "completion_tokens", "total_tokens")
            }
        elif "usage" in expect:
            assert expect["usage"] == last.usage
        if "tool_messages" in expect:
            # A resumed run first answers the calls the previous run paused on, in its first
            # request; then each of its own rounds' calls, in the request after the round.
            resumed = (
                list(
                    zip(
                        turns[first - 1].calls,
                        rt.answers(
                            scenario.dialect, rt.conversation(scenario.dialect, bodies[first])
                        ),
                        strict=True,
                    )
                )
                if run.approve is not None and first > 0
                else []
            )
            answered = resumed + [
                (call, answer)
                for n, turn in enumerate(used[:-1] if not last.calls else used)
                if first + n + 1 < len(bodies)
                for call, answer in zip(
                    turn.calls,
                    rt.answers(
                        scenario.dialect, rt.conversation(scenario.dialect, bodies[first + n + 1])
                    ),
                    strict=True,
                )
            ]
            assert len(expect["tool_messages"]) == len(answered)
            for want, (call, answer) in zip(expect["tool_messages"], answered, strict=True):
                assert want["call_id"] == call.id
                assert want["name"] == call.name
                assert want["content"] == answer.content
                content, is_error = _expected_content(scripts.get(call.name), call)
                assert want["is_error"] is is_error
                if content is None:
                    assert answer.content.startswith(f"Tool '{call.name}' was called with invalid")
                else:
                    assert answer.content == content
                if scenario.dialect in ("anthropic_messages", "gemini"):
                    assert answer.is_error is is_error
        first += expect["requests"]
    assert tools  # every scenario has tools
    assert first <= len(turns)


def test_the_scenario_file_is_bundled_data_with_unique_names() -> None:
    document = yaml.safe_load(SUITE.tool_loop_scenarios.read_text(encoding="utf-8"))
    names = [s["name"] for s in document["scenarios"]]
    assert len(names) == len(set(names)) == len(SCENARIOS)


def test_docs_agent_md_lists_the_scenarios_as_the_data_has_them() -> None:
    text = (Path(__file__).resolve().parents[2] / "docs" / "agent.md").read_text(encoding="utf-8")
    shown = text.split("<!-- scenarios:begin -->\n", 1)[1].split("<!-- scenarios:end -->", 1)[0]
    assert shown == scenarios_table(SCENARIOS)


@pytest.mark.parametrize(("name", "scenario"), _scenario_cases(), ids=list(SCENARIOS))
def test_the_agent_of_the_scenario_is_the_recorded_one(name: str, scenario: Scenario) -> None:
    """Its tools are the definitions the recording sent, its question the recorded one, its
    model the recorded one."""
    first = load(scenario.path).interactions[0].request
    body = json.loads(first.body or "{}")
    assert rt.recorded_tools(scenario.dialect, body) == [
        {"name": t.name, "description": t.description, "parameters": t.parameters}
        for t in scenario.agent.tools
    ]
    assert [m["content"] for m in scenario.agent.messages] == [
        rt.first_user_text(scenario.dialect, body)
    ]
    model = body.get("model") or first.uri.split("/models/")[1].split(":")[0]
    assert model == scenario.agent.model


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.parent.name)
def test_the_header_expectation_is_the_last_interaction_s(path: Path) -> None:
    info = load(path).info
    assert info is not None
    assert info.expect is not None
    last = _turns(path)[-1]
    assert info.expect.text == last.text
    assert (info.expect.reasoning or "") == last.reasoning
    assert info.expect.finish_reason == last.finish_reason
    assert info.expect.tool_calls == ()
    assert info.expect.usage is not None
    assert {
        "prompt_tokens": info.expect.usage.prompt_tokens,
        "completion_tokens": info.expect.usage.completion_tokens,
        "total_tokens": info.expect.usage.total_tokens,
    } == last.usage
