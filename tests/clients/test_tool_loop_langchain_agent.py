"""LangChain's create_agent's own tool loop (``langchain-agent``) over the bundled tool-loop recordings, served by
a real ReplayServer: the run completes (or stops where the library stops it), and what the
final answer and the requests differ in is what docs/clients.md traces to the library's code."""

from __future__ import annotations

import pytest

from raf.serve import ReplayServer
from tests.clients.support import library
from tests.clients.tool_loop_cells import loop_server, run_cell, specs

library("langchain.agents", module_level=True)

__all__ = ["loop_server"]

ADAPTER = "langchain-agent"

CELLS = {
    # langchain-anthropic reads usage from message_delta only (the recording's gives output_tokens alone); the unknown tool's text is LangChain's own
    "anthropic_messages/two_tools": (
        None,
        {("wrong", "usage.prompt_tokens"), ("wrong", "usage.total_tokens")},
        {"messages[2].content[1].content"},
    ),
    # google-genai refuses the recording's first thoughtSignature (not valid base64): the loop stops after one request
    "gemini/two_tools": (
        "ValidationError",
        {("lost", "text"), ("invented", "errors"), ("lost", "finish_reason"), ("lost", "usage")},
        {"count"},
    ),
    # ChatOpenAI reads no reasoning_content, so it neither reports it nor sends it back (DeepSeek asks for it within a turn)
    "openai_chat/two_tools": (
        None,
        {("lost", "reasoning_text")},
        {
            "messages[4].reasoning_content",
            "messages[3].content",
            "messages[1].reasoning_content",
            "messages[6].reasoning_content",
        },
    ),
    # only the unknown tool's text differs
    "openai_responses/two_tools": (
        None,
        set(),
        {"input[5].output"},
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
