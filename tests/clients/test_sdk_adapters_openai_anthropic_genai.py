"""The provider SDK adapters (openai, openai-stream-helper, openai-responses,
openai-completions, anthropic, google-genai) against ``raf serve``, on the simplest bundled
scenarios: every cell passes and the request each library sent matches the recorded one.

A missing library skips its tests; with ``RAF_REQUIRE_CLIENTS=1`` it fails them instead.
"""

from __future__ import annotations

import os

import pytest

from raf.client_matrix.run import Cell, run_client
from raf.clients import adapter
from raf.conformance.bundled import bundled
from raf.serve import ReplayServer
from tests.clients.support import require

CHUNKINGS = ("whole", "random")

CASES = [
    ("openai", "plain_text"),
    ("openai", "single_tool_call"),
    ("openai", "parallel_tool_calls"),
    ("openai", "text_with_usage_chunk"),
    ("openai", "tool_loop_follow_up_request"),  # both requests, the second with the result
    ("openai-stream-helper", "plain_text"),
    ("openai-stream-helper", "single_tool_call"),
    ("openai-stream-helper", "parallel_tool_calls"),
    ("openai-stream-helper", "text_with_usage_chunk"),
    ("openai-stream-helper", "tool_loop_follow_up_request"),
    ("openai-completions", "short_answer_with_usage"),
    ("openai-completions", "vllm_stop_reason_stop_string"),
    ("openai-responses", "parallel_calls_interleaved_arguments"),
    ("openai-responses", "reasoning_summaries_multiple_parts"),
    ("openai-responses", "background_resume_mid_response"),
    ("anthropic", "plain_text"),
    ("anthropic", "zero_argument_tool_call"),
    ("anthropic", "thinking_with_signature"),
    ("google-genai", "sse_usage_repeated_every_chunk"),
    ("google-genai", "thought_summaries_then_answer"),
]

# The Gemini API streams these calls without ids and the SDK hands them on as id=None
# (google/genai/types.py FunctionCall.id is optional); raf expects a client to give every
# call an id (any unique one would be a notice), so the only differences of the cell are the
# ids, each lost.
IDS_LOST = [("google-genai", "parallel_calls_same_function_no_ids", 2)]

MODULES = {
    "openai": "openai",
    "openai-stream-helper": "openai",
    "openai-responses": "openai",
    "openai-completions": "openai",
    "anthropic": "anthropic",
    "google-genai": "google.genai",
}


def cells(server: ReplayServer, name: str, scenario: str) -> list[Cell]:
    require(MODULES[name])
    b = bundled()
    found = run_client(
        adapter(name),
        server,
        cassettes=b.cassettes,
        goldens=b.goldens,
        chunkings=CHUNKINGS,
        select=[scenario],
    )
    found = [cell for cell in found if cell.scenario == scenario]
    interactions = 2 if scenario == "tool_loop_follow_up_request" else 1
    assert len(found) == len(CHUNKINGS) * interactions, found
    return found


@pytest.mark.parametrize(("name", "scenario"), CASES)
def test_cell_passes_and_request_matches(server: ReplayServer, name: str, scenario: str) -> None:
    for cell in cells(server, name, scenario):
        assert cell.status == "pass", (cell.chunkings, cell.reason, cell.details, cell.raised)
        assert cell.request == [], cell.request


@pytest.mark.parametrize(("name", "scenario", "calls"), IDS_LOST)
def test_calls_without_ids_stay_without_ids(
    server: ReplayServer, name: str, scenario: str, calls: int
) -> None:
    for cell in cells(server, name, scenario):
        assert cell.request == [], cell.request
        assert cell.raised is None
        assert (cell.status, cell.kinds) == ("fail", ["lost"])
        assert [d.split(": ", 2)[:2] for d in cell.details] == [
            ["lost", f"tool_calls[{n}].id"] for n in range(calls)
        ], cell.details


JSON_ARRAY_CASES = (
    "json_array_body_without_alt_sse",
    "json_array_cut_mid_element",
    "json_array_error_element_mid_stream",
)


@pytest.mark.parametrize("scenario", JSON_ARRAY_CASES)
def test_google_genai_is_never_given_a_json_array_body(server: ReplayServer, scenario: str) -> None:
    # models.py generate_content_stream always asks for '...:streamGenerateContent?alt=sse'.
    assert adapter("google-genai").framings == ("sse",)
    mark = server.journal.count
    for cell in cells(server, "google-genai", scenario):
        assert (cell.status, cell.reason) == (
            "skip",
            "google-genai always asks for ?alt=sse: it never receives a JSON-array body",
        )
    assert server.journal.count == mark


def test_adapters_declare_what_they_are() -> None:
    for name in dict.fromkeys(name for name, _ in CASES):
        found = adapter(name)
        assert found.name == name
        assert found.how
        assert "http_errors" in found.capabilities
        assert found.missing() is None or os.environ.get("RAF_REQUIRE_CLIENTS") != "1"
