"""The google-genai Interactions column (``client.interactions.create(stream=True)``) against
``raf serve``, on every bundled ``gemini_interactions`` scenario: the cells docs/clients.md
publishes (every one passes but the cut stream, which the SDK ends quietly) and the request
each case sent matches the recorded one.

A missing library skips these tests; with ``RAF_REQUIRE_CLIENTS=1`` it fails them instead.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from raf.cassettes.persister import load
from raf.client_matrix.run import Cell, run_client
from raf.clients import adapter, names
from raf.conformance.bundled import bundled
from raf.serve import ReplayServer
from tests.clients.support import require

NAME = "google-genai-interactions"
CHUNKINGS = ("whole", "random")
FOLDER = Path(__file__).resolve().parents[2] / "cassettes" / "gemini_interactions"
SCENARIOS = sorted(path.stem for path in FOLDER.glob("*.yaml"))
FAILING = {
    # _gaos/utils/eventstreaming.py stream_events returns at the end of the body whatever
    # came, and _interactions_continuation.py StreamContinuation.end_hop starts no new hop
    # for a status of in_progress without a token: no exception, no terminal event.
    "cut_before_completed": [
        'unreported: errors: expected at least one error ["stream_truncated"], got none'
    ],
}


@pytest.fixture(scope="module")
def cells(server: ReplayServer) -> dict[str, list[Cell]]:
    require("google.genai")
    b = bundled()
    found = run_client(
        adapter(NAME), server, cassettes=b.cassettes, goldens=b.goldens, chunkings=CHUNKINGS
    )
    out: dict[str, list[Cell]] = {}
    for cell in found:
        out.setdefault(cell.scenario, []).append(cell)
    return out


def test_the_column_is_registered_after_google_genai() -> None:
    order = names()
    assert order.index(NAME) == order.index("google-genai") + 1
    assert adapter(NAME).dialects == ("gemini_interactions",)


def test_every_scenario_has_a_cell_per_chunking(cells: dict[str, list[Cell]]) -> None:
    """A cell per chunking of each interaction (a follow-up cassette has two)."""
    assert sorted(cells) == SCENARIOS
    for scenario, found in cells.items():
        cassette = load(FOLDER / f"{scenario}.yaml")
        expected = sorted(CHUNKINGS * len(cassette.interactions))
        assert sorted(c for cell in found for c in cell.chunkings) == expected, scenario


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_cell_is_what_the_matrix_publishes_and_the_request_matches(
    cells: dict[str, list[Cell]], scenario: str
) -> None:
    for cell in cells[scenario]:
        assert cell.request == [], (scenario, cell.request)
        assert cell.raised is None, (scenario, cell.raised)
        if scenario in FAILING:
            assert cell.status == "fail"
            assert cell.details == FAILING[scenario]
        else:
            assert cell.status == "pass", (scenario, cell.details)
