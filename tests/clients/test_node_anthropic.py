"""The npm ``@anthropic-ai/sdk`` columns: ``raf/clients/node/anthropic-node.mjs`` (the
Messages stream helper, ``messages.stream()`` + ``finalMessage()``, over every bundled
Anthropic scenario under both chunkings) and ``anthropic-node-tool-runner.mjs`` (the beta
tool runner over every Anthropic tool-loop recording).

What a user of the SDK relies on: well-formed streams come out right (text, thinking, calls,
stop reason, usage with the cache counts, an error event raised with the answer so far),
every request it sent is the recorded one, the tool runner sends back each turn as the API
wants it, and the cells it fails fail the way docs/clients.md traces them to the library's
code. Without Node.js or the npm libraries the tests skip (fail with
``RAF_REQUIRE_CLIENTS=1``).
"""

from __future__ import annotations

import pytest

from raf.client_matrix.run import Cell
from raf.client_matrix.tool_loops import LoopCell
from raf.serve import ReplayServer
from raf.shared.bundled import bundled
from tests.clients.support import node_cells, node_loop_cells

NAME = "anthropic-node"
RUNNER = "anthropic-node-tool-runner"
VERSION = "1.16.0"

PASSING = [
    "bedrock_invocation_metrics_in_message_stop",
    "overloaded_before_any_content",  # the APIError, with message_start's usage
    "overloaded_error_after_200",  # the APIError, with the text and usage read so far
    "parallel_calls_after_thinking_and_text",
    "pause_turn_long_server_tool_turn",
    "plain_text",
    "prompt_cache_read_and_creation",
    "redacted_thinking_block",
    "refusal_after_partial_text",
    "refusal_stop_without_block_start",  # content.at(index) of no block: nothing, no crash
    "server_code_execution_is_not_a_client_call",
    "server_web_search_results_and_error",
    "thinking_tool_use_follow_up",
    "thinking_with_signature",
    "tool_input_only_in_block_start",
    "tool_use_empty_first_partial_json",
    "usage_cumulative_in_message_delta",
    "zero_argument_tool_call",
]

# lib/MessageStream #accumulateMessage throws at a message_start while it holds a snapshot.
ORDER = 'AnthropicError: Unexpected event order, got message_start before receiving "message_stop"'

# A second message_start, the same message's or mid-stream: the same rejection and losses.
REPEATED_START = (
    ORDER,
    [
        "lost: text",
        "lost: finish_reason",
        "wrong: usage.completion_tokens",
        "wrong: usage.total_tokens",
        "detail: notices",
    ],
)

# scenario: (the start of what finalMessage() rejects with, the differences by kind and field)
RAISING = {
    # core/streaming Stream.fromSSEResponse skips every event without an event name, then
    # #endRequest finds no snapshot
    "data_only_events_without_event_names": (
        "AnthropicError: request ended without sending any chunks",
        ["lost: text", "lost: finish_reason", "lost: usage"],
    ),
    "duplicate_message_start_same_id": REPEATED_START,
    "message_start_repeated_mid_stream": REPEATED_START,
    "spliced_second_generation_after_retry": (
        ORDER,
        [
            "lost: text",
            "lost: tool_calls",
            "lost: finish_reason",
            "wrong: usage.completion_tokens",
            "wrong: usage.total_tokens",
        ],
    ),
    # the vendored partial-JSON parser hands input that is not truncated JSON to JSON.parse,
    # which throws when content_block_stop makes the call's input final
    "fine_grained_tool_streaming_invalid_json": (
        "AnthropicError: Expected ',' or '}' after property value in JSON",
        ["lost: finish_reason", "wrong: usage.completion_tokens", "wrong: usage.total_tokens"],
    ),
    # no message_stop: #endRequest drops the snapshot, finalMessage() finds no message
    "stream_cut_mid_tool_arguments": (
        "AnthropicError: stream ended without producing a Message with role=assistant",
        ["lost: usage"],
    ),
}

# The partial-JSON parser completes input that max_tokens cut: a call that looks whole.
COMPLETED = "max_tokens_inside_tool_arguments"


def heads(cell: Cell) -> list[str]:
    """Each difference as `kind: field` (a field's index left in)."""
    return [": ".join(detail.split(": ", 2)[:2]) for detail in cell.details]


@pytest.fixture(scope="module")
def cells(server: ReplayServer) -> dict[str, Cell]:
    return node_cells(NAME, server, "anthropic_messages/")


def test_every_anthropic_scenario_is_a_cell(cells: dict[str, Cell]) -> None:
    assert sorted(cells) == sorted([*PASSING, *RAISING, COMPLETED])
    assert {cell.version for cell in cells.values()} == {VERSION}


def test_every_request_is_the_recorded_one(cells: dict[str, Cell]) -> None:
    for scenario, cell in cells.items():
        assert cell.request == [], (scenario, cell.request)


@pytest.mark.parametrize("scenario", PASSING)
def test_streams_come_out_right(cells: dict[str, Cell], scenario: str) -> None:
    cell = cells[scenario]
    assert cell.status == "pass", (cell.reason, cell.details, cell.raised)


@pytest.mark.parametrize("scenario", sorted(RAISING))
def test_raising_cells_fail_as_traced(cells: dict[str, Cell], scenario: str) -> None:
    raised, differences = RAISING[scenario]
    cell = cells[scenario]
    assert cell.status == "fail"
    assert (cell.raised or "").startswith(raised), cell.raised
    found = [d for d in heads(cell) if not d.startswith("invented: errors")]
    assert found == differences, cell.details


def test_text_printed_before_the_second_message_start_is_kept(cells: dict[str, Cell]) -> None:
    # stream.on("text") printed it; the rest of the one message is never read.
    details = cells["message_start_repeated_mid_stream"].details
    assert 'lost: text: expected "Two plus two is four.", got "Two plus two"' in details


def test_arguments_cut_by_max_tokens_become_a_call(cells: dict[str, Cell]) -> None:
    cell = cells[COMPLETED]
    assert cell.raised is None
    assert (cell.status, sorted(cell.kinds)) == ("fail", ["invented", "unreported"])
    assert heads(cell) == ["invented: tool_calls", "unreported: errors"], cell.details


@pytest.fixture(scope="module")
def loops() -> dict[str, LoopCell]:
    with ReplayServer([bundled().tool_loops]) as loop_server:
        return node_loop_cells(RUNNER, loop_server, "anthropic_messages/")


LOOPS_PASSING = [
    "omitted_thinking_tool_use",
    "redacted_thinking_tool_use",
    "thinking_parallel_tools",
    "tool_error_result",  # a thrown ToolError goes back with is_error: true
]


def test_every_anthropic_tool_loop_is_a_cell(loops: dict[str, LoopCell]) -> None:
    assert sorted(loops) == sorted([*LOOPS_PASSING, "two_tools"])
    assert {cell.version for cell in loops.values()} == {VERSION}


@pytest.mark.parametrize("scenario", LOOPS_PASSING)
def test_the_runner_sends_each_turn_back_as_recorded(
    loops: dict[str, LoopCell], scenario: str
) -> None:
    # thinking, redacted and signed-empty blocks go back unchanged, in order
    cell = loops[scenario]
    assert cell.status == "pass", (cell.response, cell.requests, cell.raised)
    assert cell.rules == []


def test_the_runner_answers_an_unknown_tool_with_its_own_text(
    loops: dict[str, LoopCell],
) -> None:
    # BetaToolRunner toolNotFoundResult: "Error: Tool '<name>' not found", is_error: true
    cell = loops["two_tools"]
    assert cell.response.status == "pass", cell.response
    assert (cell.sent, cell.rules, cell.raised) == (4, [], None)
    assert cell.requests.details == [
        f'wrong: requests[{n}].messages[2].content[1].content: expected "Tool '
        f"'get_air_quality' not found\" (recorded), got \"Error: Tool 'get_air_quality' not "
        'found"'
        for n in (1, 2, 3)
    ]
