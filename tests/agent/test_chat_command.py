"""``raf chat`` and examples/agent_loop.py, run for real in a subprocess: the agent loop
replayed end to end from the command line (issue 23, "Done means")."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from raf.testing.agent_replay import load_scenarios
from tests import processes

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = load_scenarios()


def chat(*args: str) -> tuple[int, list[str], str]:
    done = processes.run([sys.executable, "-m", "raf", "chat", *args, "--no-color"], text=True)
    return done.returncode, done.stdout.splitlines(), done.stderr


def test_list_names_every_scenario_with_its_kind() -> None:
    done = processes.run([sys.executable, "-m", "raf", "chat", "--list"], text=True)
    assert done.returncode == 0
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    assert [line.split()[0] for line in lines] == list(SCENARIOS)
    assert all(SCENARIOS[line.split()[0]].kind in line for line in lines)


def test_it_prints_the_four_rounds_and_every_request_s_verdict() -> None:
    code, lines, err = chat("--cassette", "anthropic_messages/two_tools")
    assert (code, err) == (0, "")
    text = "\n".join(lines)
    calls = [line for line in lines if line.startswith("call ")]
    assert [c.split()[2].split("(")[0] for c in calls] == [
        "get_weather",
        "get_air_quality",
        "book_table",
        "book_table",
    ]
    assert 'call toolu_01Wd6HqZp3Lk8RtV2nXb5CjM get_weather({"city": "Paris"})' in lines
    assert "Framework error: RuntimeError: weather service unavailable" in text
    assert "Tool 'get_air_quality' not found" in text
    assert '"confirmation":"CJ-1930-2"' in text
    assert [line for line in lines if line.startswith("round ")] == [
        "round 1 finished: tool_calls, 688 prompt + 142 completion = 830 tokens",
        "round 2 finished: tool_calls, 845 prompt + 96 completion = 941 tokens",
        "round 3 finished: tool_calls, 1032 prompt + 88 completion = 1120 tokens",
    ]
    assert "finish: stop" in lines
    assert "booked for 19:30 (confirmation CJ-1930-2)" in text
    assert "usage 3725 prompt + 367 completion = 4092 tokens" in text
    assert [line for line in lines if "request" in line and "interaction" in line] == [
        f"✓ request {n + 1} (interaction {n}): matches the recorded request" for n in range(4)
    ]
    assert lines[-1] == "4 request(s) sent, every one the recorded request"


def test_async_max_rounds_stops_after_two_requests() -> None:
    code, lines, err = chat("--cassette", "gemini/two_tools", "--async", "--max-rounds", "2")
    assert (code, err) == (0, "")
    assert "finish: max_rounds" in lines
    assert lines[-1] == "2 request(s) sent, every one the recorded request"


def test_approval_pauses_and_resumes_and_a_rejection_is_a_request_that_differs() -> None:
    name = "openai_responses/reasoning_function_call_follow_up/approval"
    code, lines, err = chat("--cassette", name)
    assert (code, err) == (0, "")
    assert "approval requested call_Wq7rT2zK9mPx4LbN8vYc3Hd get_weather" in "\n".join(lines)
    assert "finish: awaiting_approval" in lines
    assert "approvals given: call_Wq7rT2zK9mPx4LbN8vYc3Hd approved" in lines
    assert lines[-1] == "2 request(s) sent, every one the recorded request"

    code, lines, err = chat("--cassette", name, "--approve", "none")
    assert (code, err) == (1, "")
    assert "approvals given: call_Wq7rT2zK9mPx4LbN8vYc3Hd rejected" in lines
    assert "✗ request 2 (interaction 1): differs from the recorded request" in lines
    assert lines[-1] == "2 request(s) sent, 1 differ from the recording"


def test_approving_some_calls_by_id_rejects_the_others() -> None:
    name = "anthropic_messages/thinking_tool_use_follow_up/approval"
    code, lines, err = chat("--cassette", name, "--approve", "toolu_01D7FbxTg3oR9JqZb6WnK2mE")
    assert (code, err) == (1, "")
    assert (
        "approvals given: toolu_01D7FbxTg3oR9JqZb6WnK2mE approved, "
        "toolu_01Q4vLp8sY2nXcH5tM9aJ3dF rejected"
    ) in lines
    assert "✓ request 1 (interaction 0): matches the recorded request" in lines
    assert "✗ request 2 (interaction 1): differs from the recorded request" in lines


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--cassette", "nope"], "raf: unknown scenario 'nope' (raf chat --list lists them)"),
        ([], "raf: raf chat needs --cassette NAME (raf chat --list lists them)"),
    ],
)
def test_errors_are_one_line_with_status_2(args: list[str], message: str) -> None:
    code, _lines, err = chat(*args)
    assert code == 2
    assert err == message + "\n"


@pytest.mark.parametrize(
    "fmt", ["anthropic_messages", "openai_chat", "openai_responses", "gemini", "ollama_chat"]
)
def test_the_example_script_replays_the_loop(fmt: str) -> None:
    done = processes.run([sys.executable, str(ROOT / "examples" / "agent_loop.py"), fmt], text=True)
    assert done.stderr == ""
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert [line.split("(")[0] for line in lines if line.startswith("call ")] == [
        "call   get_weather",
        "call   get_air_quality",
        "call   book_table",
        "call   book_table",
    ]
    assert lines[-1] == "requests matching the recording: 4 of 4"
    assert lines[-3].startswith("answer: Your table for two at Chez Janou is booked for 19:30")
