"""The agent goldens (docs/agent.md, "Recordings and replay"): for every scenario of
conformance/tool_loop_scenarios.yaml, what the agent streams, at
conformance/tool_loops_goldens/<scenario>.json: the tool loop's updates of each run, and the
results a fresh AgentResponseConverter makes of them.

- raf's agent, sync and async, replayed against the recording through ``raf serve``, streams
  exactly the golden (a syrupy snapshot: ``--snapshot-update`` rewrites the files; review the
  diff);
- each golden's updates are those the independent reader of the loop
  (tests/agent/reader_loop.py, written from docs/agent.md) derives from the recording's bodies
  (read by the independent format readers) and the scenario's reviewed expectations;
- each golden's results are what the converter's independent reader makes of those updates,
  and, collected, give the scenario's reviewed outcome;
- a wrongly ordered or wrongly counted stream is caught, and the review names the entry.
"""

from __future__ import annotations

import ast
import copy
import functools
import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from syrupy.assertion import SnapshotAssertion

from raf.agent.loop import Begin, CallModel, Emit, InnerEnded, InnerUpdate, ToolLoop
from raf.agent.tools import ToolRegistry
from raf.cassettes import load as load_cassette
from raf.collect import collect_agent_response
from raf.model.blocks import ToolResult as ToolResultBlock
from raf.model.canonical import from_canonical, to_canonical
from raf.model.messages import ChatMessage
from raf.model.response import AgentResponseResult
from raf.model.updates import AgentResponseUpdate
from raf.model.usage import Usage
from raf.testing.agent_replay import Scenario, load_scenarios, replay
from tests.agent import agent_goldens as ag
from tests.agent.reader_loop import ReaderError, read_runs
from tests.conformance.reader_converter import read_results as read_converter_results

ROOT = Path(__file__).resolve().parents[2]
SCENARIO_FILE = ROOT / "conformance" / "tool_loop_scenarios.yaml"
READER = Path(__file__).resolve().parent / "reader_loop.py"
SCENARIOS = load_scenarios()
NAMES = list(SCENARIOS)

Reader = Callable[[int, str, bytes], list[dict[str, Any]]]
Runs = list[list[Any]]


@pytest.fixture(params=["sync", "async"])
def asynchronous(request: pytest.FixtureRequest) -> bool:
    return bool(request.param == "async")


# -- raf's agent produces the goldens ------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_the_agent_streams_the_golden(
    name: str, asynchronous: bool, snapshot: SnapshotAssertion
) -> None:
    scenario = SCENARIOS[name]
    reports = replay(scenario, asynchronous=asynchronous)
    golden = ag.golden_of(scenario, reports)
    # The agent's own results are the fresh converter's (metadata aside): the golden's
    # results are what the caller of ``agent.run`` gets.
    for report, run in zip(reports, golden.runs, strict=True):
        assert to_canonical(report.results) == run.results
    assert snapshot.use_extension(ag.AgentGoldenExtension)(name=name) == golden


def test_every_golden_is_a_scenarios() -> None:
    """No golden is left behind by a scenario renamed or removed; every scenario has one."""
    found = sorted(
        p.relative_to(ag.GOLDENS).with_suffix("").as_posix() for p in ag.GOLDENS.rglob("*.json")
    )
    assert found == sorted(NAMES)


# -- the independent review ----------------------------------------------------------------------


def format_reader(dialect: str) -> Reader:
    """The independent reader of a format (tests/conformance/reader_<format>.py)."""
    reader: Reader = importlib.import_module(f"tests.conformance.reader_{dialect}").read_updates
    return reader


@functools.cache
def yaml_file(path: Path) -> Any:
    """A YAML file's document, read once (the callers copy what they change)."""
    return yaml.safe_load(path.read_text(encoding="utf-8"))


@functools.cache
def recorded_rounds(path: str) -> list[list[dict[str, Any]]]:
    """The updates of every response of a recording, each read by its format's independent
    reader."""
    cassette = load_cassette(path)
    assert cassette.info is not None
    reader = format_reader(cassette.info.dialect)
    return [
        reader(i.response.status, i.response.reason, i.response.body) for i in cassette.interactions
    ]


def scenario_data(name: str) -> tuple[dict[str, Any], dict[str, Any] | None, str]:
    """The scenario as the reader takes it, read from the YAML files themselves (not through
    raf's loader): its runs with their reviewed expectations, ``max_rounds``,
    ``requires_approval`` and the agent's tools; the recording's ``raf.run.expect`` (``None``
    for a bundled cassette); and the recording's path."""
    document = yaml_file(SCENARIO_FILE)
    (entry,) = [s for s in document["scenarios"] if s["name"] == name]
    case = entry["case"]
    header: dict[str, Any] | None = None
    if entry["recording"] == "tool_loops":
        path = ROOT / "conformance" / "tool_loops" / f"{case}.yaml"
        run = yaml_file(path)["raf"]["run"]
        header = run["expect"]
        agent = run
        max_rounds = entry.get("max_rounds", run.get("max_rounds", 10))
    else:
        path = ROOT / "cassettes" / f"{case}.yaml"
        agent = document["agents"][case]
        max_rounds = entry.get("max_rounds", 10)
    runs = [
        {**run, "expect": header if run["expect"] == "header" else run["expect"]}
        for run in entry["runs"]
    ]
    scenario = {
        "runs": runs,
        "max_rounds": max_rounds,
        "requires_approval": entry.get("requires_approval", []),
        "tools": agent["tools"],
    }
    return scenario, header, str(path)


def derived_updates(name: str) -> Runs:
    """The reader's stream of each run of ``name``."""
    scenario, header, path = scenario_data(name)
    return read_runs(scenario, header, recorded_rounds(path))


def read_results(updates: list[Any]) -> list[Any]:
    """The converter's results of ``updates`` (canonical JSON), as the independent reader of
    the converter derives them (tests/conformance/reader_converter.py)."""
    return list(read_converter_results(updates))


def golden(name: str) -> ag.AgentGolden:
    loaded = ag.load(name)
    if loaded is None:
        pytest.fail(f"{name} has no agent golden: run this file with --snapshot-update")
    return loaded


@pytest.mark.parametrize("name", NAMES)
def test_the_golden_updates_are_the_readers(name: str) -> None:
    kept = golden(name)
    assert kept.recording == ag.recording_of(SCENARIOS[name])
    problems = ag.review(derived_updates(name), [run.updates for run in kept.runs])
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize("name", NAMES)
def test_the_golden_results_are_the_converter_readers(name: str) -> None:
    kept = golden(name)
    derived = [read_results(updates) for updates in derived_updates(name)]
    problems = ag.review(derived, [run.results for run in kept.runs], level="result")
    assert problems == [], "\n".join(problems)


def counted(usage: Usage | None) -> dict[str, int] | None:
    if usage is None:
        return None
    return {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "total_tokens": usage.total_tokens,
    }


@pytest.mark.parametrize("name", NAMES)
def test_the_golden_results_collect_to_the_reviewed_outcome(name: str) -> None:
    """Each run's results, collected, give what the scenario's reviewed expectation states:
    the golden file itself is held to the person-reviewed outcome."""
    scenario, _, _ = scenario_data(name)
    for run, kept in zip(scenario["runs"], golden(name).runs, strict=True):
        expect = run["expect"]
        response = collect_agent_response(from_canonical(kept.results, list[AgentResponseResult]))
        assert response.text == expect["text"]
        assert response.finish_reason == expect["finish_reason"]
        assert response.errors == ()
        if "tool_calls" in expect:
            want = [c if isinstance(c, str) else c["id"] for c in expect["tool_calls"]]
            assert [c.id for c in response.tool_calls] == want
        if "tool_messages" in expect:
            got = []
            for message in response.tool_messages:
                (block,) = [b for b in message.blocks if isinstance(b, ToolResultBlock)]
                got.append((message.tool_call_id, message.content, block.is_error))
            assert got == [
                (m["call_id"], m["content"], m["is_error"]) for m in expect["tool_messages"]
            ]
        if "rounds" in expect:
            assert [(r.finish_reason, counted(r.usage)) for r in response.rounds] == [
                (r["finish_reason"], r["usage"]) for r in expect["rounds"]
            ]
        if "usage" in expect:
            assert counted(response.usage) == expect["usage"]
        if "approval_requests" in expect:
            assert [(a.call_id, a.name, a.arguments) for a in response.approval_requests] == [
                (a["call_id"], a["name"], a["arguments"]) for a in expect["approval_requests"]
            ]


# -- a wrong loop is caught ----------------------------------------------------------------------


def perturbed(name: str, change: Callable[[list[Any]], None]) -> list[str]:
    """The review of the golden of ``name`` with its first run's updates changed."""
    runs = [copy.deepcopy(run.updates) for run in golden(name).runs]
    change(runs[0])
    return ag.review(derived_updates(name), runs)


def positions(updates: list[Any], kind: str) -> list[int]:
    return [n for n, u in enumerate(updates) if u["type"] == kind]


def test_tool_results_in_finish_order_are_caught() -> None:
    """A loop that reports a round's calls as they finish, not in call order: both entries
    are named, with the call each should have been."""
    name = "openai_chat/two_tools"
    first, second = positions(golden(name).runs[0].updates, "tool_called")[:2]

    def swap(updates: list[Any]) -> None:
        updates[first], updates[second] = updates[second], updates[first]

    problems = perturbed(name, swap)
    assert [p.split(":")[0] for p in problems] == [
        f"run 0, update {first} (tool_called id='call_01_Ve3Jn6RqA9tKw2MxZ8pLc4Fg')",
        f"run 0, update {second} (tool_called id='call_00_Qm4Tz8LpW2vXc7NbR5kYd1Hs')",
    ]
    assert '"id":"call_00_Qm4Tz8LpW2vXc7NbR5kYd1Hs"' in problems[0]


def test_a_round_finished_with_another_rounds_usage_is_caught() -> None:
    name = "anthropic_messages/two_tools"
    rounds = positions(golden(name).runs[0].updates, "round_finished")

    def shift(updates: list[Any]) -> None:
        updates[rounds[1]]["usage"] = updates[rounds[0]]["usage"]

    problems = perturbed(name, shift)
    assert len(problems) == 1
    assert problems[0].startswith(f"run 0, update {rounds[1]} (round_finished round=1)")
    assert '"completion_tokens":96' in problems[0]  # round 1's own usage, which the reader has


def test_a_finish_forwarded_in_place_is_caught() -> None:
    """The answering round's Finish comes after everything the round streamed (the usage that
    followed it on OpenAI's wire), not where the provider sent it."""
    name = "openai_chat/tool_error"
    updates = golden(name).runs[0].updates
    last = len(updates) - 1
    assert updates[last]["type"] == "finish"
    assert updates[last - 1]["type"] == "usage"

    def in_place(changed: list[Any]) -> None:
        changed[last - 1], changed[last] = changed[last], changed[last - 1]

    problems = perturbed(name, in_place)
    assert [p.split(" (")[0] for p in problems] == [
        f"run 0, update {last - 1}",
        f"run 0, update {last}",
    ]


def test_a_missing_max_rounds_finish_is_caught() -> None:
    problems = perturbed("gemini/two_tools/max_rounds", lambda updates: updates.pop())
    assert len(problems) == 1
    assert "the golden has" not in problems[0]
    assert problems[0].startswith("run 0: the reader has")
    assert problems[0].endswith("(first unmatched: finish finish_reason='max_rounds')")


def test_a_resumed_call_answered_before_the_model_is_required() -> None:
    """On resume the pending calls' ToolCalled come first, then the model's round."""
    name = "gemini/three_rounds_signatures/approval"
    runs = [copy.deepcopy(run.updates) for run in golden(name).runs]
    resumed = runs[1]
    assert resumed[0]["type"] == "tool_called"
    resumed.append(resumed.pop(0))
    problems = ag.review(derived_updates(name), runs)
    assert problems
    assert problems[0].startswith("run 1, update 0 (")


def test_the_reader_and_the_loop_keep_the_last_finish_of_a_round() -> None:
    """Beyond the recordings: a round that streams two ``Finish`` updates (a usage between
    them) ends the run with the last, after everything else the round streamed, as the reader
    reads docs/agent.md."""
    round_: list[dict[str, Any]] = [
        {"type": "text_delta", "delta": "Hi"},
        {"type": "finish", "finish_reason": "length", "usage": None},
        {"type": "usage", "usage": USAGE},
        {"type": "finish", "finish_reason": "stop", "usage": None},
    ]
    scenario = {"runs": [{"expect": {"requests": 1, "finish_reason": "stop"}}], "tools": []}
    (derived,) = read_runs(scenario, None, [round_])
    loop = ToolLoop([ChatMessage.user("Hi?")], ToolRegistry([]))
    actions = loop.feed(Begin())
    assert isinstance(actions[0], CallModel)
    for update in round_:
        actions += loop.feed(InnerUpdate(from_canonical(update, AgentResponseUpdate)))
    actions += loop.feed(InnerEnded())
    emitted = [to_canonical(a.update) for a in actions if isinstance(a, Emit)]
    assert emitted == derived == [round_[0], round_[2], round_[3]]


def test_the_reader_and_the_loop_call_no_model_with_max_rounds_0() -> None:
    scenario = {
        "runs": [{"expect": {"requests": 0, "finish_reason": "max_rounds"}}],
        "max_rounds": 0,
        "tools": [],
    }
    (derived,) = read_runs(scenario, None, [])
    loop = ToolLoop([ChatMessage.user("Hi?")], ToolRegistry([]), max_rounds=0)
    emitted = [to_canonical(a.update) for a in loop.feed(Begin()) if isinstance(a, Emit)]
    assert emitted == derived == [{"type": "finish", "finish_reason": "max_rounds", "usage": None}]


USAGE = {
    "prompt_tokens": 3,
    "completion_tokens": 1,
    "total_tokens": 4,
    "prompt_cache_hit_tokens": None,
    "prompt_cache_miss_tokens": None,
    "reasoning_tokens": None,
}


# -- the reader itself -----------------------------------------------------------------------------


def test_the_reader_imports_only_the_standard_library() -> None:
    tree = ast.parse(READER.read_text(encoding="utf-8"))
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "relative import in the reader"
            assert node.module is not None
            imported.add(node.module.split(".")[0])
    assert imported <= set(sys.stdlib_module_names) | {"__future__"}, imported


def test_the_reader_refuses_an_expectation_the_bodies_contradict() -> None:
    """The reader checks the reviewed rounds against the bodies, so a wrong review is not
    turned into a wrong reference."""
    scenario, header, path = scenario_data("openai_chat/two_tools")
    rounds = recorded_rounds(path)
    assert read_runs(scenario, header, rounds)
    wrong = copy.deepcopy(scenario)
    wrong["runs"][0]["expect"]["rounds"][1]["usage"]["completion_tokens"] += 1
    with pytest.raises(ReaderError, match="run 0: round 1: the body's last usage"):
        read_runs(wrong, copy.deepcopy(header), rounds)
    unanswered = copy.deepcopy(scenario)
    unanswered["runs"][0]["expect"]["tool_messages"].pop()
    with pytest.raises(ReaderError, match="no tool message left"):
        read_runs(unanswered, copy.deepcopy(header), rounds)


def test_scenarios_are_found() -> None:
    # Guards against an empty parametrization, which pytest would only report as a skip.
    assert len(NAMES) >= 50
    assert isinstance(SCENARIOS[NAMES[0]], Scenario)
