"""The npm ``@google/genai`` columns: ``google-genai-node`` (the README's
``generateContentStream`` loop over every bundled Gemini scenario, under both chunkings) and
``google-genai-node-afc`` (automatic function calling with a ``CallableTool``, streamed in a
chat, over the Gemini tool-loop recordings).

What a user of the SDK relies on: the SSE streams it reads come out right (text without the
thought parts, thoughts, calls, finish reason, usage, a blocked prompt), every request it sent
is the recorded one (thought signatures sent back on the follow-up), it is never given a
JSON-array body, that AFC runs the recorded rounds and answers right, and the cells they
fail fail the way docs/clients.md traces them to the library's code. Without Node.js or the npm libraries the tests skip (fail with
``RAF_REQUIRE_CLIENTS=1``).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from raf.client_matrix.run import Cell
from raf.client_matrix.tool_loops import LoopCell
from raf.serve import ReplayServer
from raf.shared.bundled import bundled
from tests.clients.support import node_cells, node_loop_cells

NAME = "google-genai-node"

PASSING = [
    "code_execution_failed_then_retried",
    "code_execution_parts",
    "cr_line_ends_last_event_at_end_of_body",  # a final bare CR still ends the last line
    "grounding_search_tool_use_tokens",  # toolUsePromptTokenCount read from usageMetadata
    "malformed_function_call_signature_only",
    "max_tokens_while_thinking",
    "prompt_blocked_no_candidates",  # promptFeedback.blockReason, no candidates
    "safety_finish_without_content",
    "signed_text_and_final_signature_part",
    "sse_usage_repeated_every_chunk",
    "thought_summaries_then_answer",  # chunk.text leaves the thought parts out
    "vertex_partial_usage_chunks_cached_content",  # Vertex express mode, cachedContent in config
]

# The Gemini API streams these calls without ids; FunctionCall.id is optional and the SDK
# makes none up. The number is how many calls lose their id.
IDS_LOST = {
    "function_call_thought_signature": 1,
    "parallel_calls_same_function_no_ids": 2,
    "parallel_calls_thought_signature_follow_up": 2,
}

# Streamed function-call arguments (Vertex's streamFunctionCallArguments): every functionCall
# part, the named start, each partialArgs fragment and the empty end, is one of
# chunk.functionCalls. The number is how many the user gets for the one call.
PARTIAL_ARGS = {
    "vertex_partial_args_streaming": 5,
    "vertex_partial_args_array_terminal_chunk": 4,
}

JSON_ARRAY = [
    "json_array_body_without_alt_sse",
    "json_array_cut_mid_element",
    "json_array_error_element_mid_stream",
]


@pytest.fixture(scope="module")
def cells(server: ReplayServer) -> dict[str, Cell]:
    return node_cells(NAME, server, "gemini/")


def test_every_gemini_scenario_is_a_cell(cells: dict[str, Cell]) -> None:
    assert sorted(cells) == sorted([*PASSING, *IDS_LOST, *PARTIAL_ARGS, *JSON_ARRAY])
    assert {cell.version for cell in cells.values()} == {"2.32.0"}


def test_every_request_is_the_recorded_one(cells: dict[str, Cell]) -> None:
    # Including both requests of parallel_calls_thought_signature_follow_up: each
    # thoughtSignature goes back on the part that carried it.
    for scenario, cell in cells.items():
        assert cell.request == [], (scenario, cell.request)
        assert "sent another request" not in cell.reason, (scenario, cell.reason)


@pytest.mark.parametrize("scenario", PASSING)
def test_sse_streams_come_out_right(cells: dict[str, Cell], scenario: str) -> None:
    cell = cells[scenario]
    assert cell.status == "pass", (cell.reason, cell.details, cell.raised)
    assert cell.chunkings == ["whole", "random"]


@pytest.mark.parametrize(("scenario", "calls"), sorted(IDS_LOST.items()))
def test_calls_without_ids_reach_the_user_without_ids(
    cells: dict[str, Cell], scenario: str, calls: int
) -> None:
    cell = cells[scenario]
    assert (cell.status, cell.kinds, cell.raised) == ("fail", ["lost"], None)
    assert len(cell.details) == calls, cell.details
    assert all("tool_calls[" in d and "].id" in d for d in cell.details), cell.details


@pytest.mark.parametrize(("scenario", "calls"), sorted(PARTIAL_ARGS.items()))
def test_streamed_arguments_are_handed_over_fragment_by_fragment(
    cells: dict[str, Cell], scenario: str, calls: int
) -> None:
    cell = cells[scenario]
    assert (cell.status, cell.raised) == ("fail", None), cell.reason
    assert f"invented: {calls} calls for 1" in cell.reason, cell.reason
    # The first call has the name and no args; the fragments that follow have no name.
    assert any(d.startswith("lost: tool_calls[0].arguments") for d in cell.details), cell.details


@pytest.mark.parametrize("scenario", JSON_ARRAY)
def test_never_given_a_json_array_body(server: ReplayServer, scenario: str) -> None:
    mark = server.journal.count
    cell = node_cells(NAME, server, f"gemini/{scenario}")[scenario]
    assert (cell.status, cell.reason) == (
        "skip",
        f"{NAME} always asks for ?alt=sse: it never receives a JSON-array body",
    )
    assert server.journal.count == mark


# --- automatic function calling --------------------------------------------------------------

AFC = "google-genai-node-afc"
# Runs whose every round AFC sends, with the answer right: only the model turns differ.
AFC_RUNS = {"parallel_calls_one_signature": 2, "three_rounds_signatures": 4, "tool_error": 2}


@pytest.fixture(scope="module")
def loop_cells() -> Iterator[dict[str, LoopCell]]:
    with ReplayServer([bundled().tool_loops]) as running:
        yield node_loop_cells(AFC, running, "gemini/")


def test_afc_runs_every_gemini_recording(loop_cells: dict[str, LoopCell]) -> None:
    assert sorted(loop_cells) == sorted([*AFC_RUNS, "two_tools"])


@pytest.mark.parametrize(("scenario", "requests"), sorted(AFC_RUNS.items()))
def test_afc_answers_right_and_sends_each_chunk_as_a_model_turn(
    loop_cells: dict[str, LoopCell], scenario: str, requests: int
) -> None:
    cell = loop_cells[scenario]
    assert cell.response.status == "pass", (cell.response.reason, cell.raised)
    assert cell.sent == requests
    assert cell.rules == []  # every signature goes back on its part: Gemini takes them
    details = cell.requests.details
    assert cell.requests.status == "fail"
    # processAfcStream keeps each chunk's content as a content of its own: the model turn is
    # sent back as several `model` contents, so the function responses move down.
    assert any('.contents[2].role: expected "user" (recorded), got "model"' in d for d in details)
    # The declarations go as written (parametersJsonSchema): nothing of the tools differs.
    assert not any(".tools" in d for d in details), details


def test_afc_raises_on_a_call_of_a_function_it_was_not_given(
    loop_cells: dict[str, LoopCell],
) -> None:
    cell = loop_cells["two_tools"]
    assert cell.raised is not None
    assert cell.raised.startswith("Error: Automatic function calling was requested"), cell.raised
    assert cell.raised.endswith("missing tool: get_air_quality"), cell.raised
    assert cell.sent == 1  # the answer is lost: no round after the first
    assert "lost: text" in cell.response.reason, cell.response.reason
