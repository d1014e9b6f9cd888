"""The scenario library: every cassette's golden (a syrupy snapshot that doubles as the
conformance golden), its review against the cassette's ``expect`` block, and replay through
httpx + respx under every chunking and through vcrpy, which must all give the golden.

Update goldens with ``pytest tests/test_goldens.py --snapshot-update``, then read the diff
(docs/cassettes.md, "Updating goldens").
"""

from __future__ import annotations

from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion

from raf.cassettes import load
from raf.cassettes.lint import cassette_files, lint_file
from raf.chunking import STANDARD_CHUNKINGS
from raf.conformance import goldens
from raf.conformance.reference import golden_of
from raf.conformance.review import expectation_problems
from raf.testing.replay import replay
from raf.testing.snapshot import golden_extension

ROOT = Path(__file__).resolve().parents[1]
GOLDENS = ROOT / "conformance" / "goldens"
CASSETTES = cassette_files([ROOT / "cassettes"])
Extension = golden_extension(GOLDENS)


def ident(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def golden_for(path: Path) -> goldens.Golden:
    cassette = load(path)
    assert cassette.info is not None, f"{path} has no raf block"
    golden = goldens.load(
        goldens.golden_path(GOLDENS, cassette.info.dialect, cassette.info.scenario)
    )
    assert golden is not None, f"no golden for {path}: run pytest --snapshot-update"
    return golden


def test_the_library_has_at_least_thirty_openai_chat_scenarios() -> None:
    assert sum(p.parent.name == "openai_chat" for p in CASSETTES) >= 30


@pytest.mark.parametrize("path", CASSETTES, ids=ident)
def test_cassette_is_clean_and_named_after_its_scenario(path: Path) -> None:
    assert [str(f) for f in lint_file(path)] == []
    cassette = load(path)
    assert cassette.info is not None
    assert cassette.info.scenario == path.stem
    assert cassette.info.dialect == path.parent.name
    assert cassette.info.expect is not None, "every bundled scenario states its expected response"


@pytest.mark.parametrize("path", CASSETTES, ids=ident)
def test_golden(path: Path, snapshot: SnapshotAssertion) -> None:
    cassette = load(path)
    assert cassette.info is not None
    golden = golden_of(cassette, cassette.info.scenario)
    assert (
        snapshot.use_extension(Extension)(name=f"{cassette.info.dialect}/{cassette.info.scenario}")
        == golden
    )


@pytest.mark.parametrize("path", CASSETTES, ids=ident)
def test_golden_satisfies_the_reviewed_expectation(path: Path) -> None:
    cassette = load(path)
    assert cassette.info is not None
    assert cassette.info.expect is not None
    golden = golden_for(path)
    assert expectation_problems(cassette.info.expect, golden.interactions[-1].response) == []


@pytest.mark.parametrize("chunking", STANDARD_CHUNKINGS)
@pytest.mark.parametrize("path", CASSETTES, ids=ident)
def test_replay_through_httpx_gives_the_golden_for_every_chunking(
    path: Path, chunking: str
) -> None:
    assert replay(path, chunking=chunking, via="respx") == golden_for(path).interactions


@pytest.mark.parametrize("chunking", ["whole", "random-3"])
@pytest.mark.parametrize("path", CASSETTES, ids=ident)
def test_replay_through_vcrpy_gives_the_golden(path: Path, chunking: str) -> None:
    assert replay(path, chunking=chunking, via="vcrpy") == golden_for(path).interactions


def test_every_scenario_is_documented() -> None:
    documented = (ROOT / "docs" / "cassettes.md").read_text(encoding="utf-8")
    missing = [p.stem for p in CASSETTES if f"| `{p.stem}` |" not in documented]
    assert missing == []
