"""The broken implementations of tests/fuzz/broken are what they claim: without ``--bug``
each conforms to every bundled Chat Completions case, and each bug fails exactly the one
hand-written cassette of its quirk (tests/fuzz/quirk_cassettes.py), with the kind of
difference that bug makes, and no other. So every bug is real, and each is the only
difference from the honest client: what raf fuzz must find (tests/fuzz/test_power.py)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from tests import processes
from tests.conformance.test_example_clients import node
from tests.fuzz import quirk_cassettes
from tests.fuzz.quirk_cassettes import CASSETTES, QuirkCassette

pytestmark = pytest.mark.processes

ROOT = Path(__file__).resolve().parents[2]
BROKEN = ROOT / "tests" / "fuzz" / "broken"
BUGS = tuple(c.bug for c in CASSETTES)


def client(language: str, bug: str | None = None) -> str:
    """The ``--impl`` command line of a broken client (``bug``: its one bug, or none)."""
    program = (
        [sys.executable, str(BROKEN / "chat_client.py")]
        if language == "python"
        else [node(), str(BROKEN / "chat_client.mjs")]
    )
    return shlex.join([*program, *(["--bug", bug] if bug else [])])


def raf(*args: str) -> Any:
    return processes.run([sys.executable, "-m", "raf", *args], cwd=ROOT, text=True)


def conform(impl: str, *args: str, report: Path) -> dict[str, Any]:
    """``raf conform --impl impl ARGS --json report``: the JSON report."""
    result = raf("conform", "--impl", impl, *args, "--json", str(report))
    assert result.returncode in (0, 1), result.stderr
    document: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
    assert (result.returncode == 1) == (document["summary"]["fail"] > 0)
    return document


def failing(report: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The failing differences of each failing scenario."""
    found: dict[str, list[dict[str, Any]]] = {}
    for case in report["cases"]:
        if case["status"] == "fail":
            found.setdefault(case["scenario"], []).extend(
                d for d in case["differences"] if d["fails"]
            )
    return found


@pytest.fixture(scope="module")
def quirks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The quirk cassettes, blessed: their goldens written by raf's reference."""
    folder = quirk_cassettes.write(tmp_path_factory.mktemp("quirks") / "cassettes")
    result = raf("conform", "--cassettes", str(folder), "--update")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 cassette(s) not blessed" in result.stderr + result.stdout
    return folder


LANGUAGES = ("python", "node")


@pytest.mark.parametrize("language", LANGUAGES)
def test_without_a_bug_the_client_conforms_to_the_bundled_chat_suite(
    language: str, tmp_path: Path
) -> None:
    report = conform(client(language), "--dialect", "openai_chat", report=tmp_path / "r.json")
    assert report["summary"]["fail"] == 0, failing(report)
    assert report["summary"]["skip"] == 0
    assert report["summary"]["pass"] > 200


@pytest.mark.parametrize("language", LANGUAGES)
def test_without_a_bug_the_client_reads_every_quirk_cassette(
    language: str, quirks: Path, tmp_path: Path
) -> None:
    report = conform(client(language), "--cassettes", str(quirks), report=tmp_path / "r.json")
    assert report["summary"] == {**report["summary"], "fail": 0, "skip": 0, "error": 0}
    assert {c["scenario"] for c in report["cases"]} == {c.scenario for c in CASSETTES}


@pytest.mark.parametrize("cassette", CASSETTES, ids=BUGS)
@pytest.mark.parametrize("language", LANGUAGES)
def test_each_bug_fails_exactly_its_quirk_cassette(
    language: str, cassette: QuirkCassette, quirks: Path, tmp_path: Path
) -> None:
    impl = client(language, cassette.bug)
    report = conform(impl, "--cassettes", str(quirks), report=tmp_path / "r.json")
    found = failing(report)
    assert set(found) == {cassette.scenario}, found
    kinds = {(d["kind"], d["field"]) for d in found[cassette.scenario]}
    assert any(
        kind == cassette.kind and field.startswith(cassette.field) for kind, field in kinds
    ), kinds
    # Under every chunking: the bug is in the reading, not in how the body was cut.
    chunkings = {c["chunking"] for c in report["cases"] if c["scenario"] == cassette.scenario}
    failed = {c["chunking"] for c in report["cases"] if c["status"] == "fail"}
    assert failed == chunkings


@pytest.mark.parametrize("language", LANGUAGES)
def test_an_unknown_bug_is_a_usage_error(language: str) -> None:
    result = processes.run([*shlex.split(client(language)), "--bug", "no-such-bug"], text=True)
    assert result.returncode == 2
    assert result.stderr.startswith("usage: chat_client")
    assert result.stdout == ""
