"""The AI SDK columns for Anthropic and Gemini (``ai`` + ``@ai-sdk/anthropic``,
``ai`` + ``@ai-sdk/google``: ``streamText`` read from ``fullStream``) against ``raf serve``.

What a user of these libraries relies on: the streams they read right stay right (the
recorded request sent again, thinking blocks and signatures replayed, server tools not taken
for the user's calls), and the failures traced in docs/clients.md happen the way they were
traced (a cut Anthropic stream reported as a normal end without usage, Gemini's tool-use
prompt left out of the input tokens, ...). Without Node.js or the npm libraries the tests skip;
with ``RAF_REQUIRE_CLIENTS=1`` they fail instead.
"""

from __future__ import annotations

import os
import subprocess

import pytest

from raf.client_matrix.outside import NODE_FOLDER, node_clients
from raf.client_matrix.run import Cell
from raf.serve import ReplayServer
from tests.clients.support import assert_fails_with, details, node_cells

ANTHROPIC = "ai-sdk-anthropic"
GOOGLE = "ai-sdk-google"


@pytest.fixture(scope="module")
def anthropic(server: ReplayServer) -> dict[str, Cell]:
    return node_cells(ANTHROPIC, server)


@pytest.fixture(scope="module")
def google(server: ReplayServer) -> dict[str, Cell]:
    return node_cells(GOOGLE, server)


# -- @ai-sdk/anthropic --------------------------------------------------------------------


@pytest.mark.parametrize(
    "scenario",
    [
        "plain_text",
        "parallel_calls_after_thinking_and_text",
        # the follow-up sends the signed thinking, the redacted thinking and the calls back
        "thinking_tool_use_follow_up",
        # the system block's cache_control goes as the system message's providerOptions;
        # the prompt count includes the cache reads and writes
        "prompt_cache_read_and_creation",
        # the server's own tools are provider-executed calls, not the user's
        "server_code_execution_is_not_a_client_call",
        "server_web_search_results_and_error",
        "usage_cumulative_in_message_delta",
        # arguments that do not parse: the SDK marks the call invalid and sends a tool-error
        "fine_grained_tool_streaming_invalid_json",
        "max_tokens_inside_tool_arguments",
        "zero_argument_tool_call",
    ],
)
def test_anthropic_streams_read_right(anthropic: dict[str, Cell], scenario: str) -> None:
    cell = anthropic[scenario]
    assert cell.status == "pass", cell.details
    assert cell.request == []


def test_anthropic_sends_every_recorded_request(anthropic: dict[str, Cell]) -> None:
    assert {name: cell.request for name, cell in anthropic.items() if cell.request} == {}


def test_anthropic_cut_stream_is_a_normal_end_without_usage(anthropic: dict[str, Cell]) -> None:
    # The provider emits its finish part (finish reason and usage) only at message_stop; a
    # body cut before it leaves streamText's defaults: finish "other", no usage, no error.
    cell = anthropic["stream_cut_mid_tool_arguments"]
    assert_fails_with(cell, "lost: usage", "unreported: errors")
    assert 'invented: finish_reason: expected null, got "other"' in cell.details


@pytest.mark.parametrize(
    "scenario", ["overloaded_error_after_200", "overloaded_before_any_content"]
)
def test_anthropic_error_event_drops_usage(anthropic: dict[str, Cell], scenario: str) -> None:
    # The error part reaches the user, and message_start's usage does not: it is only ever
    # handed on with message_stop. streamText calls the step's finish "error".
    cell = anthropic[scenario]
    assert_fails_with(cell, "lost: usage")
    assert sorted(cell.kinds) == ["invented", "lost"]
    assert 'invented: finish_reason: expected null, got "error"' in cell.details


def test_anthropic_pause_turn_reads_as_stop(anthropic: dict[str, Cell]) -> None:
    cell = anthropic["pause_turn_long_server_tool_turn"]
    assert cell.status == "fail"
    assert cell.details == ['wrong: finish_reason: expected "pause_turn", got "stop"']


def test_anthropic_second_message_start_ends_the_answer(anthropic: dict[str, Cell]) -> None:
    # The provider reports the second message_start as an error and then ignores the rest of
    # the body: the second generation's text and call, and the usage, never arrive.
    cell = anthropic["spliced_second_generation_after_retry"]
    assert_fails_with(cell, "lost: tool_calls", "lost: usage")
    assert 'lost: text: expected "Checking. Checking again.", got "Checking."' in cell.details
    assert "unreported" not in details(cell)


@pytest.mark.parametrize(
    "scenario",
    [
        "bedrock_invocation_metrics_in_message_stop",
        "data_only_events_without_event_names",
        "refusal_stop_without_block_start",
        "tool_input_only_in_block_start",
    ],
)
def test_anthropic_cache_reads_of_zero_are_made_up(
    anthropic: dict[str, Cell], scenario: str
) -> None:
    # message_start without cache counts: the provider reports 0 cache reads (a notice).
    cell = anthropic[scenario]
    assert cell.status == "notice"
    assert cell.details == [
        "detail: usage.prompt_cache_hit_tokens: expected none (the provider did not send it), got 0"
    ]


def test_anthropic_repeated_message_start_is_ignored(anthropic: dict[str, Cell]) -> None:
    for scenario in ("duplicate_message_start_same_id", "message_start_repeated_mid_stream"):
        cell = anthropic[scenario]
        assert cell.status == "notice", cell.details
        assert 'detail: notices: expected notice(s) ["protocol_notice"], got none' in cell.details


# -- @ai-sdk/google -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "scenario",
    [
        "code_execution_parts",
        "grounding_search_tool_use_tokens",
        "code_execution_failed_then_retried",
    ],
)
def test_google_input_tokens_leave_out_the_tool_use_prompt(
    google: dict[str, Cell], scenario: str
) -> None:
    # convertGoogleGenerativeAIUsage counts promptTokenCount alone, and streamText's total is
    # input + output, so the provider's totalTokenCount is not what the user gets either.
    cell = google[scenario]
    assert cell.status == "fail"
    wrong = [d for d in cell.details if d.startswith("wrong:")]
    assert [d.split(":")[1].strip() for d in wrong] == ["usage.prompt_tokens", "usage.total_tokens"]


def test_google_malformed_function_call_reads_as_error(google: dict[str, Cell]) -> None:
    cell = google["malformed_function_call_signature_only"]
    assert cell.status == "fail"
    assert 'wrong: finish_reason: expected "MALFORMED_FUNCTION_CALL", got "error"' in cell.details


def test_google_follow_up_wraps_the_function_response(google: dict[str, Cell]) -> None:
    # The provider sends a tool result as functionResponse.response = {name, content}: the
    # recorded {result: ...} cannot be sent. Everything else of the follow-up is the recording.
    cell = google["parallel_calls_thought_signature_follow_up"]
    assert cell.status == "fail"
    assert cell.request == [
        'contents[2].parts[0].functionResponse.response.result: missing (expected "Paris: 18°C, '
        'light rain")',
        'contents[2].parts[1].functionResponse.response.result: missing (expected "Tokyo: 24°C, '
        'clear")',
    ]


def test_google_sends_every_other_recorded_request(google: dict[str, Cell]) -> None:
    differ = {name for name, cell in google.items() if cell.request}
    assert differ == {"parallel_calls_thought_signature_follow_up"}


@pytest.mark.parametrize(
    "scenario",
    [
        "parallel_calls_same_function_no_ids",
        "function_call_thought_signature",
        "vertex_partial_args_streaming",
        "vertex_partial_args_array_terminal_chunk",
        "thought_summaries_then_answer",
        "prompt_blocked_no_candidates",
        "vertex_partial_usage_chunks_cached_content",
    ],
)
def test_google_streams_read_right_with_made_up_ids_and_zeros(
    google: dict[str, Cell], scenario: str
) -> None:
    # Passed with notices only: ids of the SDK's own for calls Gemini sends without one, and
    # counts of 0 for cache reads or thoughts the provider did not send.
    cell = google[scenario]
    assert cell.status == "notice", cell.details
    assert all(d.startswith("detail:") for d in cell.details), cell.details


def test_google_never_receives_a_json_array(google: dict[str, Cell], server: ReplayServer) -> None:
    for scenario in (
        "json_array_body_without_alt_sse",
        "json_array_cut_mid_element",
        "json_array_error_element_mid_stream",
    ):
        assert google[scenario].status == "skip"
    asked = [e for e in server.journal.entries() if str(e.get("case", "")).startswith("gemini/")]
    assert asked
    assert {e["query"] for e in asked} == {"alt=sse"}


def test_google_reads_a_json_array_as_an_empty_answer(server: ReplayServer) -> None:
    # Why the skip matters: served a JSON array anyway, the SSE parser finds no event, and
    # streamText ends with finish "other", no text and no error part.
    client = node_clients()[GOOGLE]
    if client.missing is not None:
        if os.environ.get("RAF_REQUIRE_CLIENTS") == "1":
            pytest.fail(f"{GOOGLE} is required (RAF_REQUIRE_CLIENTS=1): {client.missing}")
        pytest.skip(f"{GOOGLE}: {client.missing}")
    script = (
        "globalThis.AI_SDK_LOG_WARNINGS = false;"
        'const { streamText } = await import("ai");'
        'const { createGoogleGenerativeAI } = await import("@ai-sdk/google");'
        'const google = createGoogleGenerativeAI({ baseURL: process.argv[1], apiKey: "k" });'
        'const result = streamText({ model: google("gemini-2.0-flash"), prompt: "Hi!",'
        " maxRetries: 0 });"
        "const parts = [];"
        "for await (const part of result.fullStream) parts.push(part.type === 'finish' ?"
        " 'finish:' + part.finishReason : part.type);"
        "process.stdout.write(JSON.stringify(parts));"
    )
    base = server.url + "/s/gemini/json_array_body_without_alt_sse/c/whole/v1beta"
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script, base],
        cwd=NODE_FOLDER,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout == '["start","start-step","finish-step","finish:other"]'


# -- both columns -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("column", "passed", "judged"), [("anthropic", 20, 25), ("google", 11, 17)]
)
def test_totals(request: pytest.FixtureRequest, column: str, passed: int, judged: int) -> None:
    cells: dict[str, Cell] = request.getfixturevalue(column)
    judged_cells = [cell for cell in cells.values() if cell.status != "skip"]
    passed_cells = [cell for cell in judged_cells if cell.ok]
    assert (len(passed_cells), len(judged_cells)) == (passed, judged)
