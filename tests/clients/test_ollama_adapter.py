"""The ``ollama`` library's adapter against ``raf serve``: text, thinking, a cut stream and an
error line pass and the request it sent matches the recorded one (the tool loop's follow-up
too); the calls' ids are the cells it fails, each lost for a reason of its own.

A missing library skips these tests; with ``RAF_REQUIRE_CLIENTS=1`` it fails them instead.
"""

from __future__ import annotations

import pytest

from raf.client_matrix.run import Cell, run_client
from raf.clients import adapter
from raf.conformance.bundled import bundled
from raf.serve import ReplayServer
from tests.clients.support import require

CHUNKINGS = ("whole", "random")


def cells(server: ReplayServer, scenario: str) -> list[Cell]:
    require("ollama")
    b = bundled()
    found = run_client(
        adapter("ollama"),
        server,
        cassettes=b.cassettes,
        goldens=b.goldens,
        chunkings=CHUNKINGS,
        select=[scenario],
    )
    return [cell for cell in found if cell.scenario == scenario]


@pytest.mark.parametrize(
    "scenario",
    [
        "text_with_usage",
        "thinking_then_text",
        "done_reason_length",
        "error_line_after_200",
        "stream_cut_before_done",
    ],
)
def test_cell_passes_and_request_matches(server: ReplayServer, scenario: str) -> None:
    found = cells(server, scenario)
    assert len(found) == len(CHUNKINGS)
    for cell in found:
        assert cell.status == "pass", (cell.chunkings, cell.reason, cell.details, cell.raised)
        assert cell.request == [], cell.request


def test_the_follow_up_request_matches_and_only_the_made_up_call_id_is_missing(
    server: ReplayServer,
) -> None:
    # Interaction 0 streams a call without an id: the library makes none up (raf expects a
    # client to name it, any unique id being a notice). Interaction 1's request, which the
    # library built from the turn and the tool result, is the recorded follow-up.
    found = cells(server, "follow_up_carries_thinking_and_call")
    assert len(found) == 2 * len(CHUNKINGS)
    assert all(cell.request == [] for cell in found), [c.request for c in found]
    assert sorted(cell.reason for cell in found if cell.status != "pass") == ["lost: call id"] * 2


def test_the_ids_newer_servers_send_are_dropped_by_the_library(server: ReplayServer) -> None:
    # ollama/_types.py Message.ToolCall has only `function`: the `id` Ollama 0.12 sends is
    # not kept, so a follow-up cannot name the call it answers.
    found = cells(server, "tool_calls_over_two_lines_same_index")
    assert {cell.reason for cell in found} == {"lost: call id"}
    for cell in found:
        assert any('expected the provider\'s id "call_q2xw8k1d"' in d for d in cell.details)
