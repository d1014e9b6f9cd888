"""The framework adapters (langchain-openai, agent-framework, pydantic-ai, litellm) against
``raf serve``, on the simplest openai_chat scenarios: every cell passes, under both
chunkings, and the request each library sent matches the recorded one.

A missing library skips its tests; with ``RAF_REQUIRE_CLIENTS=1`` it fails them instead.
"""

from __future__ import annotations

import pytest

from raf.client_matrix.run import Cell, run_client
from raf.clients import adapter
from raf.conformance.bundled import bundled
from raf.serve import ReplayServer
from tests.clients.support import require

CHUNKINGS = ("whole", "random")

NAMES = ("langchain-openai", "agent-framework", "pydantic-ai", "litellm")

SCENARIOS = (
    "plain_text",
    "single_tool_call",
    "parallel_tool_calls",
    "text_with_usage_chunk",
    # Two requests: the follow-up carries the assistant's call and the tool's result, which
    # the adapter must hand the library as the library's own message types.
    "tool_loop_follow_up_request",
)

MODULES = {
    "langchain-openai": ("langchain_openai",),
    # The Chat Completions client is in agent-framework-openai, beside agent-framework-core.
    "agent-framework": ("agent_framework", "agent_framework_openai"),
    "pydantic-ai": ("pydantic_ai",),
    "litellm": ("litellm",),
}


def cells(server: ReplayServer, name: str, scenario: str) -> list[Cell]:
    # The adapter module first: importing it keeps its library offline (litellm's cost map).
    found_adapter = adapter(name)
    require(*MODULES[name])
    b = bundled()
    found = run_client(
        found_adapter,
        server,
        cassettes=b.cassettes,
        goldens=b.goldens,
        chunkings=CHUNKINGS,
        select=[scenario],
    )
    found = [c for c in found if c.scenario == scenario]
    interactions = 2 if scenario == "tool_loop_follow_up_request" else 1
    assert sorted(c.chunkings[0] for c in found) == sorted(CHUNKINGS * interactions)
    return found


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("name", NAMES)
def test_simplest_scenarios_pass_with_the_recorded_request(
    server: ReplayServer, name: str, scenario: str
) -> None:
    for cell in cells(server, name, scenario):
        assert (cell.status, cell.reason, cell.details) == ("pass", "", []), cell
        assert cell.raised is None
        assert cell.request == [], cell.request


@pytest.mark.parametrize("name", NAMES)
def test_adapter_declares_what_it_reports(name: str) -> None:
    found = adapter(name)
    assert found.name == name
    assert found.dialects == ("openai_chat",)
    assert {"tool_calls", "usage", "http_errors"} <= set(found.capabilities)
    assert len(found.how) > 200  # one paragraph on how the user reads the result


def test_the_recorded_429_is_seen_not_retried(server: ReplayServer) -> None:
    for name in NAMES:
        for cell in cells(server, name, "http_429_json_error"):
            assert cell.status == "pass", cell
            assert cell.raised, cell  # the library raised the 429 to its user
