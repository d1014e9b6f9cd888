"""Pydantic AI's ``Agent`` (``pydantic-ai-agent``) over the bundled tool-loop recordings, served by a real
ReplayServer: each run ends as it was traced, and its final answer and its requests differ from
the recording where docs/clients.md ("Tool loops") says, and nowhere else."""

from __future__ import annotations

import pytest

from raf.serve import ReplayServer
from tests.clients.support import library
from tests.clients.tool_loop_cells import loop_server, run_cell, specs

library("pydantic_ai", module_level=True)

__all__ = ["loop_server"]

ADAPTER = "pydantic-ai-agent"

CELLS: dict[str, tuple[str | None, set[tuple[str, str]], set[str]]] = {
    "anthropic_messages/omitted_thinking_tool_use": (
        None,
        set(),
        set(),
    ),
    "anthropic_messages/redacted_thinking_tool_use": (
        None,
        set(),
        set(),
    ),
    "anthropic_messages/thinking_parallel_tools": (
        None,
        set(),
        set(),
    ),
    "anthropic_messages/tool_error_result": (
        None,
        set(),
        set(),
    ),
    "anthropic_messages/two_tools": (
        None,
        set(),
        {"messages[2].content[1].content"},
    ),
    "gemini/parallel_calls_one_signature": (
        None,
        set(),
        set(),
    ),
    "gemini/three_rounds_signatures": (
        None,
        set(),
        set(),
    ),
    "gemini/tool_error": (
        None,
        set(),
        set(),
    ),
    "gemini/two_tools": (
        None,
        set(),
        {"contents[2].parts[1].functionResponse.response.error"},
    ),
    "openai_chat/deepseek_three_rounds": (
        None,
        set(),
        set(),
    ),
    "openai_chat/mistral_call_ids": (
        None,
        set(),
        set(),
    ),
    "openai_chat/two_parallel_calls": (
        None,
        set(),
        set(),
    ),
    "openai_chat/tool_error": (
        None,
        set(),
        set(),
    ),
    "openai_chat/two_tools": (
        None,
        set(),
        {"messages[3].content"},
    ),
    "openai_responses/parallel_function_calls": (
        None,
        set(),
        {"input[1].id", "input[2].id"},
    ),
    "openai_responses/reasoning_calls_store_false": (
        None,
        set(),
        set(),
    ),
    "openai_responses/tool_error": (
        None,
        set(),
        {"input[1].id"},
    ),
    "openai_responses/two_tools": (
        None,
        set(),
        {"input[5].output"},
    ),
}
"""Per recording (each traced in docs/clients.md, "Tool loops"): what the library raises (a type name, or None), the differences of its final
answer from the reviewed one (kind, field) and where its requests differ from the recorded
ones (request-check paths, ``rule:<id>``, ``count``)."""


def test_every_recording_of_its_formats_is_pinned() -> None:
    from raf.clients import tool_loop_adapter  # noqa: PLC0415

    dialects = tool_loop_adapter(ADAPTER).dialects
    assert {c for c, s in specs().items() if s.dialect in dialects} == set(CELLS)


@pytest.mark.parametrize("case", sorted(CELLS))
def test_tool_loop_cell(loop_server: ReplayServer, case: str) -> None:
    raised, answer, requests = CELLS[case]
    cell = run_cell(loop_server, ADAPTER, specs()[case])
    assert (cell.raised or "").split(":")[0] == (raised or ""), cell.raised
    assert cell.answer_fields() == answer, [m.summary() for m in cell.answer]
    assert cell.request_paths() == requests, [m.actual for m in cell.requests]
    if raised is None:
        assert len(cell.sent) == specs()[case].requests
