"""The openai npm SDK's Node columns against ``raf serve``: the README's create() loop
(openai-node), the chat stream helper (openai-node-stream), the Responses stream helper
(openai-node-responses) and runTools (openai-node-run-tools). Correct streams pass; the cells
traced to the SDK's code in docs/clients.md fail the way they were traced.

Without Node.js or the npm libraries these skip; with ``RAF_REQUIRE_CLIENTS=1`` they fail.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from raf.client_matrix.run import Cell
from raf.client_matrix.tool_loops import LoopCell
from raf.serve import ReplayServer
from raf.shared.bundled import bundled
from tests.clients.support import node_cells, node_loop_cells

CHAT_PASSES = (
    "plain_text",
    "single_tool_call",
    "parallel_tool_calls",
    "text_with_usage_chunk",
    "tool_loop_follow_up_request",
)


@pytest.fixture(scope="module")
def loops() -> Iterator[ReplayServer]:
    with ReplayServer([bundled().tool_loops]) as running:
        yield running


# The create() loop's scenarios besides CHAT_PASSES.
CREATE_LOOP = (
    "deepseek_reasoning_then_content",
    "leading_bom",
    "keep_alive_comments",
    "missing_index",
    "mistral_content_parts",
    "n_two_choices_interleaved",
    "data_colon_keepalive_is_data",
)

# The stream helper's scenarios besides CHAT_PASSES.
HELPER = (
    "n_two_choices_interleaved",
    "deepseek_reasoning_then_content",
    "event_error_frame",
    "missing_index",
    "missing_id",
    "index_starting_at_one",
    "later_usage_null",
    "stream_cut_without_done_or_finish",
    "done_without_finish_reason",
    "choices_null",
)


@pytest.fixture(scope="module")
def create_loop(server: ReplayServer) -> dict[str, Cell]:
    return node_cells("openai-node", server, *CHAT_PASSES, *CREATE_LOOP)


@pytest.fixture(scope="module")
def helper(server: ReplayServer) -> dict[str, Cell]:
    return node_cells("openai-node-stream", server, *CHAT_PASSES, *HELPER)


def assert_pass(cells: dict[str, Cell], *scenarios: str) -> None:
    for scenario in scenarios:
        assert cells[scenario].status == "pass", (scenario, cells[scenario].reason)


def test_the_create_loop_reads_correct_streams(create_loop: dict[str, Cell]) -> None:
    assert_pass(create_loop, *CHAT_PASSES, "deepseek_reasoning_then_content")


def test_the_node_decoder_keeps_what_the_python_one_loses(create_loop: dict[str, Cell]) -> None:
    # The TextDecoder drops a leading BOM and a retry-only block dispatches nothing: the two
    # cells the Python SDK's decoder fails pass here.
    assert create_loop["leading_bom"].status == "pass"
    assert create_loop["keep_alive_comments"].status == "pass"
    # `data: : keepalive` is still parsed unguarded: JSON.parse throws before any content.
    keepalive = create_loop["data_colon_keepalive_is_data"]
    assert (keepalive.raised or "").startswith("SyntaxError")
    assert "lost: text" in keepalive.reason


def test_the_create_loop_cells_traced_to_the_users_loop(create_loop: dict[str, Cell]) -> None:
    # Both calls have no `index`: accumulated by index, they are one call.
    assert "lost: 1 of 2 calls" in create_loop["missing_index"].reason
    # JavaScript joins Mistral's list of content parts as "[object Object]".
    mistral = create_loop["mistral_content_parts"]
    assert mistral.raised is None
    assert any("[object Object]" in d for d in mistral.details)
    # choices[0] of every chunk, whatever its index: both answers, choice 1's finish reason.
    assert 'wrong: finish reason "length"' in create_loop["n_two_choices_interleaved"].reason


def test_the_stream_helper_reads_correct_streams(helper: dict[str, Cell]) -> None:
    assert_pass(helper, *CHAT_PASSES)
    # The helper keeps the choices apart by index and validates no n: choice 0 is the answer.
    assert helper["n_two_choices_interleaved"].status == "pass"


def test_the_stream_helper_keeps_only_the_last_reasoning_fragment(helper: dict[str, Cell]) -> None:
    # Object.assign(choice.message, rest) per delta: the last fragment ("."), or the null
    # DeepSeek sends once the answer starts, is all that is left.
    frame = helper["event_error_frame"]
    assert any('got "."' in d for d in frame.details if d.startswith("lost: reasoning_text"))
    assert "lost: reasoning" in helper["deepseek_reasoning_then_content"].reason


def test_the_stream_helper_loses_calls_by_index(helper: dict[str, Cell]) -> None:
    # tool_calls[undefined] is no array element: both calls vanish.
    assert helper["missing_index"].reason == "lost: 0 of 2 calls"
    # A sparse tool_calls array: the finalizer reads `.type` of the hole and throws, after
    # clearing the snapshot the user would read.
    first = helper["index_starting_at_one"]
    assert "reading 'type'" in (first.raised or "")
    assert first.reason.startswith("raised OpenAIError; lost: 0 of 1 calls, finish reason")


def test_the_stream_helper_generates_ids_and_drops_usage(helper: dict[str, Cell]) -> None:
    missing = helper["missing_id"]
    id_details = [d for d in missing.details if ".id:" in d]
    assert len(id_details) == 2
    assert all(d.startswith("detail:") and "call_" in d for d in id_details)
    assert helper["later_usage_null"].reason == "lost: usage"
    assert "not iterable" in (helper["choices_null"].raised or "")


def test_the_stream_helper_throws_without_a_finish_reason(helper: dict[str, Cell]) -> None:
    # The finalizer throws `missing finish_reason` after clearing the snapshot: on a cut
    # stream that is the error the user should get (the text was printed by the content
    # events); after a [DONE] without a finish reason it is an error the stream never had.
    assert helper["stream_cut_without_done_or_finish"].status == "pass"
    done = helper["done_without_finish_reason"]
    assert "missing finish_reason" in (done.raised or "")
    assert done.reason == "raised OpenAIError"


def test_the_responses_helper(server: ReplayServer) -> None:
    cells = node_cells(
        "openai-node-responses",
        server,
        "parallel_calls_interleaved_arguments",
        "reasoning_summaries_multiple_parts",
        "background_resume_mid_response",
        "stream_cut_inside_arguments",
        "output_index_collision",
        "item_id_changes_between_added_and_done",
        "incomplete_content_filter",
        "events_after_completed",
    )
    assert_pass(
        cells,
        "parallel_calls_interleaved_arguments",
        "reasoning_summaries_multiple_parts",
        "background_resume_mid_response",
        # a cut stream's final response is still in_progress: the example's status check
        "stream_cut_inside_arguments",
        "output_index_collision",
    )
    # routed by output_index without a check: passes, without raf's notice
    assert cells["item_id_changes_between_added_and_done"].status == "notice"
    # no response.content_part.added: the accumulator throws at the first delta
    filtered = cells["incomplete_content_filter"]
    assert "missing content at index 0" in (filtered.raised or "")
    # an event type the SDK does not know ends the stream (assertNever)
    after = cells["events_after_completed"]
    assert "Unhandled response stream event" in (after.raised or "")


def test_run_tools(loops: ReplayServer) -> None:
    cells: dict[str, LoopCell] = node_loop_cells("openai-node-run-tools", loops, "openai_chat/")
    for scenario in ("tool_error", "two_parallel_calls"):
        assert cells[scenario].mark == "✓ / ✓", (scenario, cells[scenario].mark)
    # The replayed assistant message is sanitized to the request fields: DeepSeek's
    # reasoning_content is not sent back and its thinking mode refuses the follow-up.
    refused = cells["deepseek_three_rounds"]
    assert refused.rules == ["chat.reasoning_content_sent_back"]
    assert (refused.raised or "").startswith("BadRequestError")
    # Mistral's call deltas have no `type`: the helper throws when the call is done.
    mistral = cells["mistral_call_ids"]
    assert "missing `type`" in (mistral.raised or "")
    assert mistral.sent == 1
