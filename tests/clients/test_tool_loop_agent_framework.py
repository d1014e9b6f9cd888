"""Agent Framework's agent (``agent-framework-agent``) over the bundled tool-loop recordings, served by a real
ReplayServer: each run ends as it was traced, and its final answer and its requests differ from
the recording where docs/clients.md ("Tool loops") says, and nowhere else."""

from __future__ import annotations

import pytest

from raf.serve import ReplayServer
from tests.clients.support import library
from tests.clients.tool_loop_cells import loop_server, run_cell, specs

library("agent_framework", module_level=True)

__all__ = ["loop_server"]

ADAPTER = "agent-framework-agent"

CELLS = {
    "gemini/parallel_calls_one_signature": (
        None,
        {
            ("wrong", "usage.completion_tokens"),
            ("wrong", "usage.prompt_tokens"),
            ("wrong", "usage.total_tokens"),
        },
        {
            "contents[1].parts",
            "contents[1].parts[0].text",
            "contents[1].parts[0].thought",
            "contents[1].parts[1].functionCall.args.city",
            "contents[1].parts[1].thoughtSignature",
        },
    ),
    "gemini/three_rounds_signatures": (
        None,
        {
            ("wrong", "usage.completion_tokens"),
            ("wrong", "usage.prompt_tokens"),
            ("wrong", "usage.total_tokens"),
        },
        {
            "contents[1].parts",
            "contents[1].parts[0].text",
            "contents[1].parts[0].thought",
            "contents[3].parts",
            "contents[3].parts[0].text",
        },
    ),
    "gemini/tool_error": (
        None,
        {
            ("wrong", "usage.completion_tokens"),
            ("wrong", "usage.prompt_tokens"),
            ("wrong", "usage.total_tokens"),
        },
        {"contents[1].parts", "contents[1].parts[0].text", "contents[1].parts[0].thought"},
    ),
    "gemini/two_tools": (
        None,
        {
            ("wrong", "usage.completion_tokens"),
            ("wrong", "usage.prompt_tokens"),
            ("wrong", "usage.total_tokens"),
        },
        {
            "contents[1].parts",
            "contents[1].parts[0].text",
            "contents[1].parts[0].thought",
            "contents[1].parts[1].functionCall.name",
            "contents[1].parts[1].thoughtSignature",
        },
    ),
    "openai_chat/deepseek_three_rounds": (
        "ChatClientException",
        {
            ("invented", "errors"),
            ("lost", "finish_reason"),
            ("lost", "reasoning_text"),
            ("lost", "text"),
            ("lost", "usage"),
        },
        {"count", "messages[1].reasoning_content", "rule:chat.reasoning_content_sent_back"},
    ),
    "openai_chat/mistral_call_ids": (
        None,
        {
            ("wrong", "usage.completion_tokens"),
            ("wrong", "usage.prompt_tokens"),
            ("wrong", "usage.total_tokens"),
        },
        set(),
    ),
    "openai_chat/two_parallel_calls": (
        None,
        {
            ("wrong", "usage.completion_tokens"),
            ("wrong", "usage.prompt_tokens"),
            ("wrong", "usage.total_tokens"),
        },
        set(),
    ),
    "openai_chat/tool_error": (
        None,
        {
            ("wrong", "usage.completion_tokens"),
            ("wrong", "usage.prompt_tokens"),
            ("wrong", "usage.total_tokens"),
        },
        set(),
    ),
    "openai_chat/two_tools": (
        "ChatClientException",
        {
            ("invented", "errors"),
            ("lost", "finish_reason"),
            ("lost", "reasoning_text"),
            ("lost", "text"),
            ("lost", "usage"),
        },
        {
            "count",
            "messages[1].reasoning_content",
            "messages[3].content",
            "rule:chat.reasoning_content_sent_back",
        },
    ),
    "openai_responses/parallel_function_calls": (
        None,
        {
            ("wrong", "usage.completion_tokens"),
            ("wrong", "usage.prompt_tokens"),
            ("wrong", "usage.total_tokens"),
        },
        {"input", "input[0].content", "input[0].role", "input[1].id", "input[1].type"},
    ),
    "openai_responses/reasoning_calls_store_false": (
        None,
        {
            ("wrong", "usage.completion_tokens"),
            ("wrong", "usage.prompt_tokens"),
            ("wrong", "usage.total_tokens"),
        },
        set(),
    ),
    "openai_responses/tool_error": (
        None,
        {
            ("wrong", "usage.completion_tokens"),
            ("wrong", "usage.prompt_tokens"),
            ("wrong", "usage.total_tokens"),
        },
        {"input", "input[0].content", "input[0].role"},
    ),
    "openai_responses/two_tools": (
        None,
        {
            ("wrong", "usage.completion_tokens"),
            ("wrong", "usage.prompt_tokens"),
            ("wrong", "usage.total_tokens"),
        },
        {"input[5].output", "input[8].output"},
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
