"""The Vercel AI SDK with @ai-sdk/openai, both columns (raf/clients/node/ai-sdk-openai.mjs
for Chat Completions, ai-sdk-openai-responses.mjs for Responses): what an AI SDK user reads
from ``result.fullStream``, cell by cell, as docs/clients.md traces it to the libraries' code.
"""

from __future__ import annotations

import pytest

from raf.client_matrix.run import Cell
from raf.serve import ReplayServer
from tests.clients.support import assert_fails_with, node_cells


@pytest.fixture(scope="module")
def chat(server: ReplayServer) -> dict[str, Cell]:
    return node_cells("ai-sdk-openai", server)


@pytest.fixture(scope="module")
def responses(server: ReplayServer) -> dict[str, Cell]:
    return node_cells("ai-sdk-openai-responses", server)


# Well-formed streams each column reads as they were sent.
READ_AS_SENT = [
    *(
        ("chat", scenario)
        for scenario in (
            "plain_text",
            "parallel_tool_calls",
            "parallel_tool_calls_interleaved",
            "tool_call_header_repeated_type_null",
            "later_usage_null",
            "leading_bom",
            "no_usage_reported",
            "http_429_json_error",
        )
    ),
    *(
        ("responses", scenario)
        for scenario in (
            "arguments_only_in_done_event",
            "builtin_web_search_is_not_a_client_call",
            "custom_tool_call_freeform_input",
            "incomplete_max_output_tokens",
            "reasoning_summaries_multiple_parts",
            "output_index_collision",
            "refusal_delta",
        )
    ),
]


@pytest.mark.parametrize(("column", "scenario"), READ_AS_SENT)
def test_reads_well_formed_streams_as_sent(
    request: pytest.FixtureRequest, column: str, scenario: str
) -> None:
    cells: dict[str, Cell] = request.getfixturevalue(column)
    assert cells[scenario].status == "pass", cells[scenario].mark


# -- Chat Completions ------------------------------------------------------------------------


def test_chat_asks_the_recorded_question_in_every_cell(chat: dict[str, Cell]) -> None:
    # messages, tools (jsonSchema), the follow-up's assistant call and tool result: the
    # provider writes a request the check cannot tell from the recorded one
    assert not [s for s, cell in chat.items() if cell.request], {
        s: cell.request for s, cell in chat.items() if cell.request
    }
    assert chat["tool_loop_follow_up_request"].status == "pass"


def test_chat_reports_cut_arguments_as_an_invalid_call_not_a_call(chat: dict[str, Cell]) -> None:
    # the cut JSON makes parseToolCall mark the call invalid; the SDK emits a tool-error part
    assert chat["finish_length_inside_tool_arguments"].status == "pass"


def test_chat_loses_the_usage_of_a_choices_null_chunk_to_the_schema(chat: dict[str, Cell]) -> None:
    assert_fails_with(chat["choices_null"], "lost: usage", "AI_TypeValidationError")


def test_chat_loses_both_calls_without_index_to_the_schema(chat: dict[str, Cell]) -> None:
    assert_fails_with(chat["missing_index"], "got 0 call(s)", "AI_TypeValidationError")


def test_chat_drops_id_less_fragments_of_calls_sharing_index_zero(chat: dict[str, Cell]) -> None:
    cell = chat["index_always_zero_distinct_ids"]
    assert_fails_with(cell, 'got 1 call(s) ["get_weather"]', "tool-error")


@pytest.mark.parametrize("scenario", ["stream_cut_without_done_or_finish", "empty_200_body"])
def test_chat_ends_a_cut_stream_quietly_with_finish_other(
    chat: dict[str, Cell], scenario: str
) -> None:
    assert_fails_with(chat[scenario], "unreported: errors", 'got "other"')


def test_chat_joins_the_two_choices_of_n_2(chat: dict[str, Cell]) -> None:
    cell = chat["n_two_choices_interleaved"]
    assert cell.status == "fail"
    assert 'wrong: finish reason "length"' in cell.reason


def test_chat_reports_cache_and_reasoning_counts_of_zero_it_never_got(
    chat: dict[str, Cell],
) -> None:
    cell = chat["usage_beside_finish_reason"]
    assert cell.status == "notice"
    assert "prompt_cache_hit_tokens" in cell.reason
    assert "reasoning_tokens" in cell.reason


def test_chat_reads_no_reasoning(chat: dict[str, Cell]) -> None:
    assert chat["deepseek_reasoning_then_content"].status == "skip"


# -- Responses -------------------------------------------------------------------------------


def test_responses_lists_parallel_calls_in_completion_order(responses: dict[str, Cell]) -> None:
    cell = responses["parallel_calls_interleaved_arguments"]
    assert_fails_with(cell, 'tool_calls[0].name: expected "get_weather", got "get_time"')


def test_responses_asks_the_recorded_question_but_for_one_item_id(
    responses: dict[str, Cell],
) -> None:
    # hosted tools through openai.tools, custom tools, store/include/reasoning options: only
    # the follow-up's function_call item differs (below)
    differing = {s for s, cell in responses.items() if cell.request}
    assert differing == {"reasoning_function_call_follow_up"}


def test_responses_sends_function_calls_back_without_their_item_id(
    responses: dict[str, Cell],
) -> None:
    # everything else of the follow-up (the reasoning item, its encrypted content, the
    # output) is the recorded request
    cell = responses["reasoning_function_call_follow_up"]
    assert cell.status == "fail"
    assert len(cell.request) == 1
    assert cell.request[0].startswith("input[2].id: missing")


def test_responses_ignores_raw_reasoning_text_events(responses: dict[str, Cell]) -> None:
    # this case makes the AI SDK warn (reasoningEffort for a model it does not take as a
    # reasoning model): the warning stays off stdout, and only the reasoning is lost
    cell = responses["openrouter_raw_reasoning_interleaved"]
    assert cell.status == "fail"
    assert cell.reason == "lost: reasoning"


@pytest.mark.parametrize(
    "scenario", ["done_marker_before_terminal_event", "stream_cut_inside_arguments"]
)
def test_responses_ends_a_stream_without_its_terminal_event_quietly(
    responses: dict[str, Cell], scenario: str
) -> None:
    assert_fails_with(responses[scenario], "unreported: errors")


def test_responses_finishes_a_client_tool_search_call_with_stop(responses: dict[str, Cell]) -> None:
    cell = responses["client_tool_search_call"]
    assert cell.status == "fail"
    assert cell.reason == 'wrong: finish reason "stop"'


def test_responses_reports_an_error_event_with_finish_reason_error(
    responses: dict[str, Cell],
) -> None:
    cell = responses["error_event_top_level_message"]
    assert cell.reason == 'invented: finish reason "error"'
