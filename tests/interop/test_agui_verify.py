"""raf's AG-UI verifier (raf.interop.agui_verify) and ``raf agui verify``: the test cases of
AG-UI's TypeScript verifier and raf's own, as data (agui_verify_cases.yaml); the rules' data;
input that is not an event stream; the command in a real process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from raf.interop import agui_verify, get, model_items
from raf.interop.agui_verify import Verifier, Violation, rules, rules_markdown, verify
from tests import processes
from tests.interop.support import agent_runs, bundled_streams, library, results_of

CASES = yaml.safe_load((Path(__file__).with_name("agui_verify_cases.yaml")).read_text("utf-8"))
TYPESCRIPT: list[dict[str, Any]] = CASES["typescript"]
MORE: list[dict[str, Any]] = CASES["more"]

RUN_STARTED = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
RUN_FINISHED = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}


# -- the cases of the TypeScript verifier -----------------------------------------------------


@pytest.mark.parametrize("case", TYPESCRIPT, ids=[case["source"] for case in TYPESCRIPT])
def test_typescript_case(case: dict[str, Any]) -> None:
    found = verify(case["events"])
    if case["expect"] == "valid":
        at_end = len(case["events"])
        assert [(v.position, v.rule) for v in found] == [
            (at_end, rule) for rule in case.get("at_end", [])
        ]
        return
    expected = case["expect"]
    assert found, "the verifier accepted a stream the TypeScript verifier rejects"
    first = found[0]
    assert (first.position, first.rule) == (expected["position"], expected["rule"])
    assert expected["message"] in first.message  # the TypeScript test's own words
    assert first.event_type == case["events"][expected["position"]]["type"]


def test_the_typescript_cases_cover_both_verdicts_and_every_file() -> None:
    valid = [case for case in TYPESCRIPT if case["expect"] == "valid"]
    files = {case["source"].split(" > ")[0] for case in TYPESCRIPT}
    assert len(TYPESCRIPT) == 73
    assert len(valid) == 43
    assert len(files) == 8
    assert sum("at_end" in case for case in TYPESCRIPT) == 1


# -- raf's own cases ---------------------------------------------------------------------------


@pytest.mark.parametrize("case", MORE, ids=[case["says"] for case in MORE])
def test_more_case(case: dict[str, Any]) -> None:
    found = verify(case["events"])
    assert [[v.position, v.rule] for v in found] == case["violations"]


@pytest.mark.parametrize("case", MORE + TYPESCRIPT, ids=lambda c: c.get("says") or c["source"])
def test_fed_one_at_a_time_each_answer_belongs_to_its_event(case: dict[str, Any]) -> None:
    verifier = Verifier()
    for position, event in enumerate(case["events"]):
        assert all(v.position == position for v in verifier.feed(event))
    assert all(v.position == len(case["events"]) for v in verifier.close())
    assert verifier.close() == []


def test_chunk_expansion_can_be_turned_off() -> None:
    events = [RUN_STARTED, {"type": "TEXT_MESSAGE_CHUNK", "delta": "x"}, RUN_FINISHED]
    assert [v.rule for v in verify(events)] == ["chunk_without_id"]
    assert verify(events, chunks=False) == []
    after = [RUN_STARTED, RUN_FINISHED, {"type": "TOOL_CALL_CHUNK", "delta": "x"}]
    assert [v.rule for v in verify(after, chunks=False)] == ["after_run_finished"]


def test_a_message_names_the_event_expanded_from_a_chunk() -> None:
    events = [RUN_STARTED, RUN_FINISHED, {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m"}]
    (found,) = verify(events)
    assert found.event_type == "TEXT_MESSAGE_CHUNK"
    assert found.message.endswith("(an event implied by the chunk events, at this position)")


def test_unreadable_frames_and_a_cut_stream() -> None:
    verifier = Verifier()
    assert verifier.feed(RUN_STARTED) == []
    (bad,) = verifier.feed_unreadable("JSON is malformed")
    assert (bad.position, bad.rule, bad.event_type) == (1, "not_json", None)
    assert "JSON is malformed" in bad.message
    assert verifier.feed(RUN_FINISHED) == []
    assert [(v.position, v.rule) for v in verifier.close(truncated=True)] == [
        (3, "unfinished_frame")
    ]


def test_a_message_shows_ids_safely() -> None:
    hostile = "\x1b[31m\n" + "x" * 10_000
    (found, _) = verify([RUN_STARTED, {"type": "TEXT_MESSAGE_END", "messageId": hostile}])
    assert "\x1b" not in found.message
    assert "\n" not in found.message
    assert "\\u001b" in found.message
    assert len(found.message) < 400
    assert str(found).startswith("1: text_message_end_not_open: Cannot send")
    assert found.to_json() == {
        "position": 1,
        "rule": "text_message_end_not_open",
        "message": found.message,
        "event_type": "TEXT_MESSAGE_END",
    }


# -- never raises ------------------------------------------------------------------------------

_SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5)
_JSON = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=8,
)
_TYPES = st.sampled_from([*sorted(agui_verify.event_types()), "NOPE", ""])
_IDS = st.sampled_from(["a", "b"]) | _JSON
_EVENTS = st.fixed_dictionaries(
    {"type": _TYPES},
    optional={
        "messageId": _IDS,
        "toolCallId": _IDS,
        "toolCallName": _IDS,
        "stepName": _IDS,
        "delta": _JSON,
    },
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_EVENTS | _JSON, max_size=12), st.booleans())
def test_never_raises_and_positions_are_in_order(events: list[Any], chunks: bool) -> None:
    found = verify(events, chunks=chunks)
    assert all(isinstance(v, Violation) and v.rule in rules() for v in found)
    positions = [v.position for v in found]
    assert positions == sorted(positions)
    assert all(0 <= p <= len(events) for p in positions)


# -- the rules as data -------------------------------------------------------------------------


def test_every_rule_has_its_sentence_message_and_source() -> None:
    raw = yaml.safe_load(Path(agui_verify.__file__).with_name("agui_rules.yaml").read_text())
    ids = [entry["id"] for entry in raw["rules"]]
    assert len(ids) == len(set(ids))
    for rule in rules().values():
        assert rule.says, rule.id
        assert rule.message, rule.id
        assert rule.source, rule.id


def test_every_rule_is_exercised_by_a_case() -> None:
    seen = {case["expect"]["rule"] for case in TYPESCRIPT if case["expect"] != "valid"}
    seen |= {rule for case in MORE for _, rule in case["violations"]}
    seen |= {"not_json", "unfinished_frame"}  # frames: test_unreadable_frames_and_a_cut_stream
    assert seen == set(rules())


def test_rules_markdown_has_one_row_per_rule_and_the_sources() -> None:
    text = rules_markdown()
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert [row.split("`")[1] for row in rows] == list(rules())
    assert "- VERIFY: AG-UI's TypeScript verifier" in text


# -- raf agui verify, in a real process --------------------------------------------------------


def _raf(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[Any]:
    return processes.run([sys.executable, "-m", "raf", "agui", "verify", *args], input=stdin)


def _sse(events: list[Any]) -> bytes:
    """What AG-UI's EventEncoder writes: one ``data:`` line and a blank line per event."""
    return b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events)


VALID = [
    RUN_STARTED,
    {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "Hi"},
    {"type": "TEXT_MESSAGE_END", "messageId": "m"},
    RUN_FINISHED,
]
BROKEN = [RUN_STARTED, {"type": "TOOL_CALL_ARGS", "toolCallId": "c9", "delta": "{}"}]


@pytest.mark.processes
def test_cli_valid_sse_file_exits_0(tmp_path: Path) -> None:
    path = tmp_path / "run.sse"
    path.write_bytes(_sse(VALID))
    result = _raf(str(path))
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode() == f"{path}: {len(VALID)} events (sse): valid\n"
    assert result.stderr == b""


@pytest.mark.processes
def test_cli_violations_on_stdin_exit_1_one_line_each() -> None:
    body = b"".join(json.dumps(e).encode() + b"\n" for e in BROKEN)
    result = _raf("-", stdin=body)
    assert result.returncode == 1, result.stderr
    lines = result.stdout.decode().splitlines()
    assert lines[0].startswith("1: tool_call_args_not_open: Cannot send 'TOOL_CALL_ARGS' event")
    assert lines[1].startswith("2: run_not_ended: ")
    assert lines[2] == "<stdin>: 2 events (json_lines): 2 violations"


@pytest.mark.processes
def test_cli_json_output(tmp_path: Path) -> None:
    path = tmp_path / "run.sse"
    path.write_bytes(_sse(BROKEN[:1]) + b"data: {oops\n\n" + _sse([RUN_FINISHED]))
    result = _raf("--json", str(path))
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert (report["framing"], report["events"], report["valid"]) == ("sse", 3, False)
    assert [(v["position"], v["rule"], v["event_type"]) for v in report["violations"]] == [
        (1, "not_json", None)
    ]


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (b"", "no event in it"),
        (b"hello world\n\x00\xff\xfe binary", "no event in it"),
        (bytes(range(256)) * 4, "no event in it"),
        (b'data: {"type": "RUN_STARTED"}', "only an unfinished frame"),
    ],
    ids=["empty", "text", "binary", "cut"],
)
@pytest.mark.processes
def test_cli_garbage_exits_2_without_a_traceback(body: bytes, said: str) -> None:
    result = _raf("-", stdin=body)
    assert result.returncode == 2
    assert result.stdout == b""
    assert said in result.stderr.decode()
    assert b"Traceback" not in result.stderr


@pytest.mark.processes
def test_cli_missing_file_and_limit_exit_2(tmp_path: Path) -> None:
    missing = _raf(str(tmp_path / "nope.sse"))
    assert missing.returncode == 2
    assert missing.stderr.decode().startswith("raf: cannot read ")
    long = _raf("--max-line-bytes", "100", "-", stdin=b"data: " + b"x" * 1000 + b"\n\n")
    assert long.returncode == 2
    assert "--max-line-bytes" in long.stderr.decode()
    assert b"Traceback" not in long.stderr


# -- the AG-UI library's own events ------------------------------------------------------------


def test_the_libraries_encoder_output_verifies() -> None:
    core = library("ag_ui.core")
    encoder = library("ag_ui.encoder").EventEncoder()
    events = [
        core.RunStartedEvent(thread_id="t", run_id="r"),
        core.TextMessageStartEvent(message_id="m", role="assistant"),
        core.TextMessageContentEvent(message_id="m", delta="Hi"),
        core.TextMessageEndEvent(message_id="m"),
        core.ToolCallStartEvent(tool_call_id="c", tool_call_name="get"),
        core.ToolCallArgsEvent(tool_call_id="c", delta="{}"),
        core.ToolCallEndEvent(tool_call_id="c"),
        core.RunFinishedEvent(thread_id="t", run_id="r"),
    ]
    body = "".join(encoder.encode(event) for event in events).encode()
    from raf.framing import SSEDecoder  # noqa: PLC0415

    decoder = SSEDecoder()
    decoded = [json.loads(frame.data) for frame in [*decoder.feed(body), *decoder.close()]]
    assert verify(decoded) == []
    broken = [decoded[0], *decoded[4:6], decoded[-1]]  # the tool call never ends
    assert [v.rule for v in verify(broken)] == ["run_finished_tool_calls_open"]


# -- raf's own AG-UI export ----------------------------------------------------------------------


def test_rafs_ag_ui_export_breaks_no_rule() -> None:
    """Every bundled stream and agent run exported by raf.interop.agui verifies clean (raf's
    results, and so the export, do not depend on the chunking)."""
    model = get("ag-ui")
    runs = [(s.name, results_of(s, "whole")) for s in bundled_streams()] + list(agent_runs())
    broken = {
        name: [str(v) for v in found]
        for name, results in runs
        if (found := verify(model_items(model, results)))
    }
    assert broken == {}
