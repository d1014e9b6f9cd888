"""The AI SDK's own tool loop (``streamText`` with executing tools and ``stopWhen:
stepCountIs``) as four Node.js columns, over the bundled tool-loop recordings on a real
ReplayServer: each run ends as docs/clients.md traces it, its final answer and its requests
differ from the recording there and nowhere else, and the runs that send back what the
provider needs pass both levels."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from raf.cassettes.tool_loops import tool_loop_specs
from raf.client_matrix.tool_loops import LoopCell
from raf.serve import ReplayServer
from raf.shared.bundled import bundled
from tests.clients.support import node_loop_cells

DEEPSEEK_400 = {
    ("lost", "text"),
    ("lost", "reasoning_text"),
    ("lost", "finish_reason"),
    ("lost", "usage"),
    ("invented", "errors"),
}
"""DeepSeek refuses the follow-up: the stream ends with an error part, and no answer."""

NO_REASONING_SENT_BACK = {
    "rule:chat.reasoning_content_sent_back",
    "messages[1].reasoning_content",
    "count",
}

CELLS: dict[str, dict[str, tuple[set[tuple[str, str]], set[str]]]] = {
    "ai-sdk-openai-loop": {
        "deepseek_three_rounds": (DEEPSEEK_400, NO_REASONING_SENT_BACK),
        "two_tools": (DEEPSEEK_400, NO_REASONING_SENT_BACK | {"messages[3].content"}),
        "mistral_call_ids": (set(), set()),
        "tool_error": (set(), set()),
        "two_parallel_calls": (set(), set()),
    },
    "ai-sdk-anthropic-loop": {
        "omitted_thinking_tool_use": (set(), set()),
        "redacted_thinking_tool_use": (set(), set()),
        "thinking_parallel_tools": (set(), set()),
        "tool_error_result": (set(), set()),
        "two_tools": (set(), {"messages[2].content[1].content"}),
    },
    "ai-sdk-google-loop": {
        "parallel_calls_one_signature": (
            set(),
            {f"contents[2].parts[{n}].functionResponse.response.result" for n in range(3)},
        ),
        "three_rounds_signatures": (
            set(),
            {f"contents[{n}].parts[0].functionResponse.response.result" for n in (2, 4, 6)},
        ),
        "tool_error": (set(), {"contents[2].parts[0].functionResponse.response.error"}),
        "two_tools": (
            set(),
            {
                "contents[2].parts[0].functionResponse.response.error",
                "contents[2].parts[1].functionResponse.response.error",
                "contents[4].parts[0].functionResponse.response.error",
                "contents[6].parts[0].functionResponse.response.result",
            },
        ),
    },
    "ai-sdk-openai-responses-loop": {
        "parallel_function_calls": (set(), {"input[1].id", "input[2].id"}),
        "reasoning_calls_store_false": (set(), {"input[2].id", "input[5].id"}),
        "tool_error": (set(), {"input[1].id"}),
        "two_tools": (
            set(),
            {"input[2].id", "input[3].id", "input[5].output", "input[7].id", "input[10].id"},
        ),
    },
}
"""Per column and recording (docs/clients.md, "Why each tool-loop cell fails"): the
differences of the final answer (kind, field) and where the requests differ from the
recorded ones (the request check's paths in any request of the run, ``rule:<id>`` for a
request rule broken, ``count`` for requests lost)."""

DIALECTS = {
    "ai-sdk-openai-loop": "openai_chat",
    "ai-sdk-anthropic-loop": "anthropic_messages",
    "ai-sdk-google-loop": "gemini",
    "ai-sdk-openai-responses-loop": "openai_responses",
}

_REQUEST = re.compile(r"requests\[\d+\]\.(?P<path>\S+?)(?: \(rule (?P<rule>[\w.]+)\))?: ")


def answer_fields(cell: LoopCell) -> set[tuple[str, str]]:
    """The final answer's differences as (kind, field): ``("lost", "text")``."""
    return {(kind, rest.split(": ", 1)[0]) for kind, rest in _split(cell.response.details)}


def request_paths(cell: LoopCell) -> set[str]:
    """Where the run's requests differ: request-check paths with the request's number left
    out, ``rule:<id>`` for each rule broken, ``count`` for requests lost or invented."""
    found = set()
    for _kind, rest in _split(cell.requests.details):
        if rest.startswith("requests:"):
            found.add("count")
            continue
        match = _REQUEST.match(rest)
        assert match is not None, rest
        found.add(f"rule:{match['rule']}" if match["rule"] else match["path"])
    return found


def _split(details: list[str]) -> Iterator[tuple[str, str]]:
    for detail in details:
        kind, rest = detail.split(": ", 1)
        yield kind, rest


@pytest.fixture(scope="module")
def loop_server() -> Iterator[ReplayServer]:
    with ReplayServer([bundled().tool_loops]) as running:
        yield running


@pytest.fixture(scope="module")
def columns(loop_server: ReplayServer) -> dict[str, dict[str, LoopCell]]:
    """Every column's cells, each run under the chunkings whole and random."""
    return {
        name: node_loop_cells(name, loop_server, chunkings=("whole", "random")) for name in CELLS
    }


def recorded_requests() -> dict[tuple[str, str], int]:
    return {(s.dialect, s.scenario): s.requests for s in tool_loop_specs(bundled().tool_loops)}


@pytest.mark.parametrize("name", sorted(CELLS))
def test_every_recording_of_its_format_is_a_cell(
    columns: dict[str, dict[str, LoopCell]], name: str
) -> None:
    recorded = {scenario for dialect, scenario in recorded_requests() if dialect == DIALECTS[name]}
    assert set(columns[name]) == recorded == set(CELLS[name])
    assert {cell.dialect for cell in columns[name].values()} == {DIALECTS[name]}


@pytest.mark.parametrize(
    ("name", "scenario"), [(n, s) for n in sorted(CELLS) for s in sorted(CELLS[n])]
)
def test_tool_loop_cell(columns: dict[str, dict[str, LoopCell]], name: str, scenario: str) -> None:
    cell = columns[name][scenario]
    answer, requests = CELLS[name][scenario]
    # streamText never throws: an HTTP error is a part of fullStream, reported as an error.
    assert cell.raised is None
    assert answer_fields(cell) == answer, cell.response.details
    assert request_paths(cell) == requests, cell.requests.details
    assert cell.ok == (not answer and not requests)
    if "count" not in requests:
        assert cell.sent == recorded_requests()[(DIALECTS[name], scenario)]


def test_deepseek_refuses_the_follow_up_without_reasoning_content(
    columns: dict[str, dict[str, LoopCell]],
) -> None:
    """@ai-sdk/openai's chat model neither reads nor sends back DeepSeek's reasoning_content:
    the first follow-up is refused (400), the only rule any AI SDK loop breaks, the loop
    stops there and the user reads the APICallError part of fullStream."""
    refused = {("ai-sdk-openai-loop", "deepseek_three_rounds"), ("ai-sdk-openai-loop", "two_tools")}
    for name, cells in columns.items():
        for scenario, cell in cells.items():
            broken = ["chat.reasoning_content_sent_back"] if (name, scenario) in refused else []
            assert cell.rules == broken, (name, scenario, cell.rules)
    for _name, scenario in refused:
        cell = columns["ai-sdk-openai-loop"][scenario]
        assert cell.sent == 2
        assert any("AI_APICallError" in detail for detail in cell.response.details)


def test_the_unknown_tool_gets_the_sdks_own_text(columns: dict[str, dict[str, LoopCell]]) -> None:
    """A call of a tool the run does not offer is answered with NoSuchToolError's message,
    and the loop goes on (Anthropic keeps is_error: only the content differs)."""
    details = columns["ai-sdk-anthropic-loop"]["two_tools"].requests.details
    assert details
    for detail in details:
        assert "Model tried to call unavailable tool 'get_air_quality'" in detail, detail
    assert columns["ai-sdk-anthropic-loop"]["two_tools"].sent == 4
