"""The power of ``raf fuzz``: given each broken implementation of tests/fuzz/broken (one bug
each, a bug a real library shipped), it finds the bug within a small budget of examples,
shrinks it to a cassette of at most two calls and under 2 KB of body that names the quirk
behind it, and ``raf conform`` then fails the implementation on that cassette while raf's
reference passes it. The honest Python client is found to have nothing in many times that
budget.

Each search's seed and budget are fixed here, so every run of these tests is the same
search, and the budget is the first of 1, 2, 3, 5, 8, 13, 20, 30, 50 generated examples
with which the seed finds the bug (the one before it finds nothing); the default profile
(every quirk raf generates) where it finds the bug within that, else ``--quirk``. The test's properties (``record_property``, in the JUnit
report: ``--junitxml``) say what the search took: ``examples`` generated, streams ``checked``
with shrinking, distinct ``findings``, the signature it was ``shrunk_to`` and its ``bytes``:
the numbers docs/fuzzing.md quotes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from raf.cassettes import load
from raf.cli import main
from tests.fuzz.test_broken import client, conform, failing, raf

pytestmark = pytest.mark.processes


@dataclass(frozen=True)
class Search:
    """One fuzzing campaign: the broken client, the quirk its bug trips on, and the budget
    (``examples`` streams generated, the least with which the seed finds the bug; ``focus``:
    with ``--quirk`` for the bug's quirk, else the default profile, every quirk)."""

    language: str
    bug: str
    quirk: str
    examples: int
    focus: bool = False
    seed: int = 1

    @property
    def id(self) -> str:
        return f"{self.language}-{self.bug}"

    def argv(self, impl: str, out: Path, report: Path) -> list[str]:
        quirks = ["--quirk", self.quirk] if self.focus else []
        return [
            "fuzz",
            "--impl",
            impl,
            "--format",
            "openai_chat",
            *quirks,
            "--seed",
            str(self.seed),
            "--examples",
            str(self.examples),
            "-o",
            str(out),
            "--json",
            str(report),
        ]


SEARCHES = (
    Search("python", "index-only", "index_always_zero", 50),
    Search("python", "concat-names", "name_every_delta", 3),
    # The default profile finds it in 3, but with a 32 KiB event it cannot shrink away.
    Search("python", "keep-bom", "leading_bom", 4, focus=True),
    Search("python", "cr-not-eol", "cr_line_ends", 2),
    Search("python", "usage-null-erases", "later_usage_null", 8),
    Search("python", "partial-json", "cut_in_arguments", 2),
    Search("python", "done-substring", "done_in_text", 5),
    Search("python", "drop-finish-text", "finish_with_text", 30),
    Search("node", "done-substring", "done_in_text", 5),
    Search("node", "index-only", "index_always_zero", 50),
)

MAX_BODY = 2048
MAX_CALLS = 2


def campaign(report: Path) -> dict[str, Any]:
    """The one campaign of a ``raf fuzz --format openai_chat --json`` report."""
    (only,) = json.loads(report.read_text(encoding="utf-8"))["campaigns"]
    assert only["format"] == "openai_chat"
    return dict(only)


@pytest.mark.parametrize("search", SEARCHES, ids=lambda s: s.id)
def test_raf_fuzz_finds_the_bug_and_saves_a_small_cassette_that_reproduces_it(
    search: Search, tmp_path: Path, record_property: Callable[[str, object], None]
) -> None:
    impl = client(search.language, search.bug)
    out, report = tmp_path / "found", tmp_path / "fuzz.json"
    result = raf(*search.argv(impl, out, report))
    assert result.returncode == 1, result.stdout + result.stderr  # 1: it found something
    ran = campaign(report)
    findings = ran["findings"]
    record_property("examples", search.examples)  # generated: the budget it was found in
    record_property("checked", ran["examples"])  # shrinking included
    record_property("findings", len(findings))
    record_property("seconds", ran["seconds"])

    showing = [f for f in findings if search.quirk in f["quirks"] and not f["raf_bug"]]
    assert showing, [f["signature"] for f in findings]
    best = min(showing, key=lambda f: (len(f["quirks"]), f["calls"], len(f["body"])))
    record_property("shrunk_to", best["signature"])
    path = Path(best["cassette"])
    cassette = load(path)
    assert cassette.info is not None
    assert cassette.info.expect is not None
    assert search.quirk in cassette.info.quirks
    assert len(cassette.info.expect.tool_calls) <= MAX_CALLS, path.name
    body = cassette.interactions[-1].response.body
    record_property("bytes", len(body))
    assert len(body) < MAX_BODY, (path.name, len(body))

    # The saved cassettes reproduce: the client fails them, raf's reference passes them.
    judged = conform(impl, "--cassettes", str(out), report=tmp_path / "impl.json")
    assert path.stem in failing(judged), failing(judged)
    assert main(["conform", "--cassettes", str(out)]) == 0  # in this process: no start-up


CLEAN_BUDGET = 200
"""Streams the honest client is fuzzed with: many times what any bug took to be found.

The Python client only: the generator draws JSON integers beyond 2^53 in call arguments
(-10^30, 2^63 - 1), which a JavaScript client holds as the nearest double, so raf fuzz finds
the Node one "wrong" on them whatever it does."""


@pytest.mark.parametrize("language", ["python", "node"])
@pytest.mark.parametrize("focus", [False, True], ids=["default-profile", "every-bugs-quirk"])
def test_raf_fuzz_finds_nothing_in_the_honest_client(
    language: str, focus: bool, tmp_path: Path
) -> None:
    quirks = [arg for s in SEARCHES if s.language == "python" for arg in ("--quirk", s.quirk)]
    out = tmp_path / "found"
    result = raf(
        "fuzz",
        "--impl",
        client(language),
        "--format",
        "openai_chat",
        *(quirks if focus else []),
        "--seed",
        "1",
        "--examples",
        str(CLEAN_BUDGET),
        "-o",
        str(out),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert not list(out.glob("**/*.yaml"))
