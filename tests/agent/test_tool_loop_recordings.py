"""The data of the agent's recordings and scenarios (docs/agent.md, "Recordings and replay"):
every multi-round recording lints, holds no secret, and every value its header and the
scenario file expect agrees with the recordings' own bodies, read independently
(tests/agent/recorded_turns.py: SSE and JSON lines parsed here, not by raf's pipeline)."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import jsonschema
import pytest
import yaml

from raf import formats
from raf.agent.tools import ToolResult
from raf.cassettes import load
from raf.cassettes.lint import cassette_files, lint_file
from raf.cassettes.scrub import scrub_cassette
from raf.cassettes.tool_loops import recorded_responses
from raf.formats.request_rules import check_rules, prior_of
from raf.serve.request_check import check_request
from raf.shared.bundled import bundled
from raf.testing.agent_replay import Scenario, load_scenarios, scenarios_table
from tests.agent import recorded_turns as rt

SUITE = bundled()
RECORDINGS = sorted(cassette_files([SUITE.tool_loops]))
SCENARIOS = load_scenarios()
TOOL_FORMATS = (
    "openai_chat",
    "anthropic_messages",
    "openai_responses",
    "gemini",
    "ollama_chat",
    "cohere_v2",
    "gemini_interactions",
    "bedrock_converse",
)
HOSTED = ("openai_chat", "anthropic_messages", "openai_responses", "gemini")
TWO_TOOLS = [p for p in RECORDINGS if p.stem == "two_tools"]
SIGNED = ("anthropic_messages", "gemini", "gemini_interactions", "bedrock_converse")
"""The formats whose reasoning comes with a signature that must go back in every tool round."""
ERROR_FLAGS = ("anthropic_messages", "gemini", "gemini_interactions", "bedrock_converse")
"""The formats whose tool results carry a flag for a failed call."""


def _name(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def test_every_format_with_tools_has_multi_round_recordings() -> None:
    """The two-tools loop on every format with tools, and at least three recordings of the
    shapes providers require of a follow-up on each of the four hosted formats."""
    counts = Counter(p.parent.name for p in RECORDINGS)
    assert set(counts) == set(TOOL_FORMATS)
    assert {_name(p) for p in RECORDINGS if p.stem == "two_tools"} == {
        f"{f}/two_tools" for f in TOOL_FORMATS
    }
    assert all(counts[f] >= 4 for f in HOSTED)
    assert sum(counts[f] for f in HOSTED) >= 16
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
        "tool error": set(HOSTED),
        "parallel calls": {"openai_chat", "openai_responses"},
        "three rounds": {"openai_chat", "gemini"},
        "thinking and parallel calls": {"anthropic_messages"},
        "signed empty thinking": {"anthropic_messages"},
        "redacted thinking": {"anthropic_messages"},
        "parallel calls with one signature": {"gemini"},
        "reasoning and calls under store false": {"openai_responses"},
        "provider call ids": {"openai_chat"},
    }
    # every recording of conformance/tool_loops is replayed by at least one scenario
    assert {s.case for s in SCENARIOS.values() if s.recording == "tool_loops"} == {
        _name(p) for p in RECORDINGS
    }
    follow_ups = {s.case for s in SCENARIOS.values() if s.recording == "cassettes"}
    assert follow_ups == {
        "openai_chat/tool_loop_follow_up_request",
        "openai_chat/deepseek_reasoning_tool_call_follow_up",
        "anthropic_messages/thinking_tool_use_follow_up",
        "gemini/parallel_calls_thought_signature_follow_up",
        "openai_responses/reasoning_function_call_follow_up",
        "ollama_chat/follow_up_carries_thinking_and_call",
        "cohere_v2/tool_plan_parallel_calls_follow_up",
        "gemini_interactions/function_call_then_result_follow_up",
        "bedrock_converse/nova_tool_round_then_answer",
    }


@pytest.mark.parametrize("path", RECORDINGS, ids=_name)
def test_the_recording_lints_clean_and_holds_no_secret(path: Path) -> None:
    assert [str(f) for f in lint_file(path)] == []
    cassette = load(path)
    assert scrub_cassette(cassette).to_dict() == cassette.to_dict()
    for interaction in cassette.interactions:
        for name in ("authorization", "x-api-key", "x-goog-api-key"):
            assert interaction.request.headers.get(name, ["REDACTED"]) == ["REDACTED"]


@pytest.mark.parametrize("path", TWO_TOOLS, ids=_name)
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
        if path.parent.name in SIGNED:
            assert turn.signatures
        if path.parent.name == "openai_responses":
            assert turn.encrypted


def _turns(path: Path) -> list[rt.Turn]:
    cassette = load(path)
    dialect = path.parent.name
    turns = [rt.read_turn(dialect, i.response.content()) for i in cassette.interactions]
    rt.name_calls(turns)
    return turns


def _bodies(path: Path) -> list[dict[str, Any]]:
    return [json.loads(i.request.body or "{}") for i in load(path).interactions]


# -- the shape each of the other recordings is named for ---------------------------------------

Turns = list[rt.Turn]
Bodies = list[dict[str, Any]]


def _assistant(body: dict[str, Any], n: int) -> list[dict[str, Any]]:
    """The content blocks (Anthropic) or parts (Gemini) of the n-th assistant turn sent back."""
    role = "model" if "contents" in body else "assistant"
    items = body.get("contents", body.get("messages"))
    assert isinstance(items, list)
    turns = [m for m in items if m["role"] == role]
    content = turns[n]["content" if role == "assistant" else "parts"]
    assert isinstance(content, list)
    return content


def _types(content: list[dict[str, Any]]) -> list[str]:
    return [b["type"] for b in content]


def _errors(path: Path, turns: Turns, bodies: Bodies) -> None:
    """One call, to a tool that raises; the follow-up answers it as an error where the format
    has a flag for it (Anthropic's is_error, Gemini's response.error), then the answer."""
    run = load(path).info.run  # type: ignore[union-attr]
    assert run is not None
    tools = {t["name"]: t for t in run["tools"]}
    assert [len(t.calls) for t in turns] == [1, 0]
    assert tools[turns[0].calls[0].name]["does"] == "raise"
    dialect = path.parent.name
    (answer,) = rt.answers(dialect, rt.conversation(dialect, bodies[1]))
    assert "RuntimeError" in answer.content
    if dialect in ("anthropic_messages", "gemini"):
        assert answer.is_error


def _anthropic_thinking_parallel(path: Path, turns: Turns, bodies: Bodies) -> None:
    assert [len(t.calls) for t in turns] == [2, 0]
    assert len(turns[0].signatures) == 1
    assert turns[0].reasoning
    assert _types(_assistant(bodies[1], 0)) == ["thinking", "tool_use", "tool_use"]
    assert _types(bodies[1]["messages"][-1]["content"]) == ["tool_result", "tool_result"]


def _anthropic_omitted(path: Path, turns: Turns, bodies: Bodies) -> None:
    assert bodies[0]["thinking"] == {"type": "adaptive", "display": "omitted"}
    assert [len(t.calls) for t in turns] == [1, 1, 0]
    for turn in turns:
        assert turn.reasoning == ""
        assert len(turn.signatures) == 1
    last = bodies[-1]
    for n, turn in enumerate(turns[:-1]):
        thinking, _ = _assistant(last, n)
        assert thinking == {"type": "thinking", "thinking": "", "signature": turn.signatures[0]}


def _anthropic_redacted(path: Path, turns: Turns, bodies: Bodies) -> None:
    assert [len(t.calls) for t in turns] == [1, 0]
    assert len(turns[0].redacted) == 1
    sent = _assistant(bodies[1], 0)
    assert _types(sent) == ["thinking", "redacted_thinking", "tool_use"]
    assert sent[1] == {"type": "redacted_thinking", "data": turns[0].redacted[0]}


def _gemini_one_signature(path: Path, turns: Turns, bodies: Bodies) -> None:
    assert [len(t.calls) for t in turns] == [3, 0]
    assert [c.signature is not None for c in turns[0].calls] == [True, False, False]
    calls = [p for p in _assistant(bodies[1], 0) if "functionCall" in p]
    assert [p.get("thoughtSignature") for p in calls] == [c.signature for c in turns[0].calls]
    (answers,) = [c for c in bodies[1]["contents"][2:] if c["role"] == "user"]
    assert [list(p) for p in answers["parts"]] == [["functionResponse"]] * 3


def _gemini_three_rounds(path: Path, turns: Turns, bodies: Bodies) -> None:
    assert [len(t.calls) for t in turns] == [1, 1, 1, 0]
    signatures = [t.calls[0].signature for t in turns[:3]]
    assert None not in signatures
    assert len(set(signatures)) == 3
    for n, signature in enumerate(signatures):
        (call,) = [p for p in _assistant(bodies[-1], n) if "functionCall" in p]
        assert call["thoughtSignature"] == signature


def _responses_store_false(path: Path, turns: Turns, bodies: Bodies) -> None:
    assert [len(t.calls) for t in turns] == [1, 1, 0]
    for body in bodies:
        assert body["store"] is False
        assert "reasoning.encrypted_content" in body["include"]
        assert "previous_response_id" not in body
    items = bodies[-1]["input"]
    kinds = [i.get("type", "message") for i in items]
    assert kinds == [
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
        "reasoning",
        "function_call",
        "function_call_output",
    ]
    assert [i["encrypted_content"] for i in items if i.get("type") == "reasoning"] == [
        t.encrypted[0] for t in turns[:2]
    ]


def _parallel(path: Path, turns: Turns, bodies: Bodies) -> None:
    assert [len(t.calls) for t in turns] == [2, 0]
    dialect = path.parent.name
    answers = rt.answers(dialect, rt.conversation(dialect, bodies[1]))
    assert [a.call_id for a in answers] == [c.id for c in turns[0].calls]


def _deepseek_three_rounds(path: Path, turns: Turns, bodies: Bodies) -> None:
    assert [len(t.calls) for t in turns] == [1, 1, 0]
    assert all(t.reasoning for t in turns)
    sent = [m for m in bodies[-1]["messages"] if m["role"] == "assistant"]
    assert [m["reasoning_content"] for m in sent] == [t.reasoning for t in turns[:2]]


def _mistral_ids(path: Path, turns: Turns, bodies: Bodies) -> None:
    _parallel(path, turns, bodies)
    assert all(re.fullmatch(r"[a-zA-Z0-9]{9}", str(c.id)) for c in turns[0].calls)
    # Mistral refuses stream_options (422 extra_forbidden): the run's client asks for none
    assert all("stream_options" not in body for body in bodies)
    run = load(path).info.run  # type: ignore[union-attr]
    assert run is not None
    assert run["client"] == {"stream_usage": False}


SHAPES: dict[str, Callable[[Path, Turns, Bodies], None]] = {
    "anthropic_messages/thinking_parallel_tools": _anthropic_thinking_parallel,
    "anthropic_messages/omitted_thinking_tool_use": _anthropic_omitted,
    "anthropic_messages/redacted_thinking_tool_use": _anthropic_redacted,
    "anthropic_messages/tool_error_result": _errors,
    "gemini/parallel_calls_one_signature": _gemini_one_signature,
    "gemini/three_rounds_signatures": _gemini_three_rounds,
    "gemini/tool_error": _errors,
    "openai_responses/reasoning_calls_store_false": _responses_store_false,
    "openai_responses/parallel_function_calls": _parallel,
    "openai_responses/tool_error": _errors,
    "openai_chat/two_parallel_calls": _parallel,
    "openai_chat/tool_error": _errors,
    "openai_chat/deepseek_three_rounds": _deepseek_three_rounds,
    "openai_chat/mistral_call_ids": _mistral_ids,
}
OTHERS = [p for p in RECORDINGS if p.stem != "two_tools"]


def test_every_other_recording_has_its_shape_checked() -> None:
    assert sorted(SHAPES) == sorted(_name(p) for p in OTHERS)


@pytest.mark.parametrize("path", OTHERS, ids=_name)
def test_the_recording_has_the_shape_it_is_named_for(path: Path) -> None:
    """What the recording is for (its title) is in its bodies: the blocks, parts, items and
    ids a provider requires back, as the stream gave them."""
    SHAPES[_name(path)](path, _turns(path), _bodies(path))


@pytest.mark.parametrize("path", RECORDINGS, ids=_name)
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
        if "redacted" in echo:
            assert echo["redacted"] == turn.redacted
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
                if scenario.dialect in ERROR_FLAGS:
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


def _model_in(uri: str) -> str:
    """The model a URL names: Gemini's ``.../models/<model>:<method>``, Bedrock's
    ``.../model/<percent-encoded id>/converse-stream``."""
    if "/models/" in uri:
        return uri.split("/models/")[1].split(":", maxsplit=1)[0]
    return unquote(uri.split("/model/")[1].split("/", maxsplit=1)[0])


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
    messages = scenario.agent.messages
    assert [m["content"] for m in messages if m["role"] != "system"] == [
        rt.first_user_text(scenario.dialect, body)
    ]
    assert [m["content"] for m in messages if m["role"] == "system"] == rt.system_texts(
        scenario.dialect, body
    )
    model = body.get("model") or _model_in(first.uri)
    assert model == scenario.agent.model


@pytest.mark.parametrize("path", RECORDINGS, ids=_name)
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


def test_docs_agent_md_lists_every_other_recording() -> None:
    """docs/agent.md's table of the recordings beside two_tools names each of them, once."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "agent.md").read_text(encoding="utf-8")
    rows = re.findall(r"^  \| `(\w+)` \| `(\w+)` \|", text, flags=re.MULTILINE)
    assert sorted(f"{f}/{name}" for f, name in rows) == sorted(SHAPES)


# -- the request rules on the recorded requests ------------------------------------------------


@pytest.mark.parametrize("path", RECORDINGS, ids=_name)
def test_no_request_rule_fires_on_a_recorded_request(path: Path) -> None:
    """The recorded requests are what a correct client sends: none breaks a rule of the
    catalogue (raf/formats/request_rules.yaml), each read after the rounds streamed before it."""
    dialect = path.parent.name
    responses = recorded_responses(dialect, load(path))
    for n, body in enumerate(_bodies(path)):
        prior = [prior_of(dialect, response) for response in responses[:n]]
        assert check_rules(dialect, body, prior) == [], f"request {n}"


ANSWER_KEYS = {
    "openai_chat": "tool_call_id",
    "anthropic_messages": "tool_use_id",
    "openai_responses": "call_id",
    "cohere_v2": "tool_call_id",
    "gemini_interactions": "call_id",
}
"""Where a tool result names the call it answers, in the formats whose calls have ids."""
WRONG_ID_RULES = {
    "openai_chat": "chat.tool_message_answers_call",
    "anthropic_messages": "anthropic.tool_result_answers_previous",
    "openai_responses": "responses.outputs_answer_calls",
}
"""The rule a follow-up that answers another id than its call's breaks, per format."""
WITH_IDS = [p for p in RECORDINGS if p.parent.name in ANSWER_KEYS]


def _first_answer(dialect: str, body: dict[str, Any]) -> dict[str, Any]:
    """The first tool result of a follow-up (the object holding the id it answers)."""
    if dialect == "anthropic_messages":
        block = body["messages"][-1]["content"][0]
        assert isinstance(block, dict)
        return block
    items = rt.conversation(dialect, body)
    return next(
        i
        for i in items
        if i.get("role") == "tool" or i.get("type") in ("function_call_output", "function_result")
    )


@pytest.mark.parametrize("path", WITH_IDS, ids=_name)
def test_an_answer_for_the_wrong_id_is_told_apart(path: Path) -> None:
    """The negative case: the first follow-up with its first result answering an id of the
    same form that no call has is not the recorded request (the replay server's request check
    names the field), and breaks the format's rule where the catalogue has it."""
    dialect = path.parent.name
    cassette = load(path)
    body = _bodies(path)[1]
    answer = _first_answer(dialect, body)
    key = ANSWER_KEYS[dialect]
    right = answer[key]
    answer[key] = right[:-4] + ("Zz99" if not right.endswith("Zz99") else "Yy88")
    check = check_request(dialect, cassette.interactions[1].request.body, json.dumps(body).encode())
    assert not check.ok
    assert any(key in line for line in check.mismatches)
    if dialect in WRONG_ID_RULES:
        prior = [prior_of(dialect, recorded_responses(dialect, cassette)[0])]
        assert WRONG_ID_RULES[dialect] in {b.rule for b in check_rules(dialect, body, prior)}
