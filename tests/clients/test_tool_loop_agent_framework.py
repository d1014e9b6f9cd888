"""Agent Framework's agent's own tool loop (``agent-framework-agent``) over the bundled tool-loop recordings, served by
a real ReplayServer: the run completes (or stops where the library stops it), and what the
final answer and the requests differ in is what docs/clients.md traces to the library's code."""

from __future__ import annotations

import pytest

from raf.serve import ReplayServer
from tests.clients.support import library
from tests.clients.tool_loop_cells import loop_server, run_cell, specs

library("agent_framework", module_level=True)

__all__ = ["loop_server"]

ADAPTER = "agent-framework-agent"

CELLS = {
    # google-genai refuses the recording's first thoughtSignature (not valid base64): the loop stops after one request
    "gemini/two_tools": (
        "ChatClientException",
        {("lost", "text"), ("invented", "errors"), ("lost", "finish_reason"), ("lost", "usage")},
        {"count"},
    ),
    # no reasoning_content read or sent back; the run's usage summed over its rounds; the schema check's own text for people='two'
    "openai_chat/two_tools": (
        None,
        {
            ("wrong", "usage.completion_tokens"),
            ("wrong", "usage.prompt_tokens"),
            ("lost", "reasoning_text"),
            ("wrong", "usage.total_tokens"),
        },
        {
            "messages[4].reasoning_content",
            "messages[1].reasoning_content",
            "messages[3].content",
            "messages[5].content",
            "messages[6].reasoning_content",
        },
    ),
    # the run's usage summed over its rounds; the framework's own texts for the unknown tool and the schema failure
    "openai_responses/two_tools": (
        None,
        {
            ("wrong", "usage.completion_tokens"),
            ("wrong", "usage.prompt_tokens"),
            ("wrong", "usage.total_tokens"),
        },
        {"input[8].output", "input[5].output"},
    ),
}
"""Per recording: what the library raises (a type name, or None), the differences of its final
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
