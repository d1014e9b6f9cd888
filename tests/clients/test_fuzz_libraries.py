"""``raf fuzz --client`` on real libraries (the OpenAI SDK for Python, and for Node.js): a
bounded campaign runs its examples through the library as the matrix drives it, and every
failure it finds is a saved cassette on which the matrix's own judging fails the library.

The campaigns are bounded by a clock that counts streams (one tick per stream checked), not
by the wall clock: the same number of streams on a loaded machine.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from raf.cassettes.persister import load
from raf.client_matrix.outside import Session, node_clients, run_outside
from raf.client_matrix.run import Cell, run_client
from raf.clients import adapter
from raf.conformance.goldens import beside
from raf.fuzz.campaign import Campaign, fuzz
from raf.fuzz.check import LiveCases
from raf.fuzz.generate import streams
from raf.fuzz.libraries import Library, library_cassette, open_library
from raf.fuzz.save import save_cassette
from raf.serve.server import ReplayServer
from tests.clients.support import library, node_session_or_skip

STREAMS = 30
"""Streams generated (the clock's ticks); shrinking gets as many again at most."""


def counting_clock() -> Callable[[], float]:
    ticks = iter(range(10**9))
    return lambda: float(next(ticks))


def bounded_campaign(name: str, folder: Path) -> tuple[Library, Campaign]:
    """``STREAMS`` streams of openai_chat through the library ``name``, each finding saved
    under ``folder``."""
    with LiveCases() as live, open_library(name, live) as fuzzed:
        campaign = fuzz(
            streams("openai_chat"),
            fuzzed.check,
            seconds=STREAMS,
            shrink_seconds=STREAMS,
            clock=counting_clock(),
            seed=11,
        )
        for finding in campaign.findings:
            saved = save_cassette(library_cassette(fuzzed, finding), folder)
            assert saved.written, saved.reason
            assert saved.golden is not None, saved.reason
            info = load(saved.path).info
            assert info is not None
            assert info.title.startswith(f"{fuzzed.label}: ")
    assert 0 < campaign.examples <= 2 * STREAMS + 2
    assert campaign.generated <= STREAMS
    return fuzzed, campaign


def assert_every_finding_fails(cells: list[Cell], campaign: Campaign) -> None:
    assert len(cells) == len(campaign.findings)
    assert all(cell.status == "fail" for cell in cells), [
        (cell.scenario, cell.status, cell.reason) for cell in cells
    ]


def test_openai_python_findings_are_cassettes_the_matrix_fails_it_on(tmp_path: Path) -> None:
    library("openai")
    found = tmp_path / "found"
    fuzzed, campaign = bounded_campaign("openai", found)
    assert fuzzed.version == adapter("openai").version()
    assert campaign.findings, "the OpenAI SDK fails some generated streams (docs/fuzzing.md)"
    with ReplayServer([found]) as server:
        cells = run_client(
            adapter("openai"),
            server,
            cassettes=found,
            goldens=beside(found),
            chunkings=("recorded",),
        )
    assert_every_finding_fails(cells, campaign)


def test_openai_node_findings_are_cassettes_the_matrix_fails_it_on(tmp_path: Path) -> None:
    with ReplayServer() as probe:  # the skip (or, required, the failure) when Node is missing
        node_session_or_skip("openai-node", probe).close()
    found = tmp_path / "found"
    _, campaign = bounded_campaign("openai-node", found)
    assert campaign.findings, "the OpenAI SDK for Node.js fails some generated streams"
    with (
        ReplayServer([found]) as server,
        Session.open(node_clients()["openai-node"], server) as session,
    ):
        cells = run_outside(
            session, cassettes=found, goldens=beside(found), chunkings=("recorded",)
        )
    assert_every_finding_fails(cells, campaign)
