"""litellm's hand-written loop's own tool loop (``litellm-loop``) over the bundled tool-loop recordings, served by
a real ReplayServer: the run completes (or stops where the library stops it), and what the
final answer and the requests differ in is what docs/clients.md traces to the library's code."""

from __future__ import annotations

import pytest

from raf.serve import ReplayServer
from tests.clients.support import library
from tests.clients.tool_loop_cells import loop_server, run_cell, specs

library("litellm", module_level=True)

__all__ = ["loop_server"]

ADAPTER = "litellm-loop"

CELLS = {
    # an OpenAI tool message has no error flag: tool_result blocks go without is_error
    "anthropic_messages/two_tools": (
        None,
        set(),
        {
            "messages[2].content[0].is_error",
            "messages[4].content[0].is_error",
            "messages[2].content[1].is_error",
        },
    ),
    # litellm writes the parts in the proto's snake_case (function_call, function_response), which the request check does not equate with camelCase
    "gemini/two_tools": (
        None,
        set(),
        {
            "contents[1].parts[1].functionCall",
            "contents[3].parts[1].functionCall",
            "contents[2].parts[0].functionResponse",
            "contents[1].parts[2].functionCall",
            "contents[2].parts[1].functionResponse",
        },
    ),
    # every request is the recorded one
    "openai_chat/two_tools": (
        None,
        set(),
        set(),
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
