"""The power of ``raf fuzz``: given each broken implementation of tests/fuzz/broken (one bug
each, a bug a real library shipped), it finds the bug within a small budget of examples,
shrinks it to a cassette of at most two calls and under 2 KB of body that names the quirk
behind it, and ``raf conform`` then fails the implementation on that cassette while raf's
reference passes it. The honest clients are found to have nothing in the same budget.

Each run's seed and budget are fixed here, so every run of these tests is the same search;
``examples`` in the test's properties (``record_property``, shown in the JUnit report) says
how many examples the search took before it found the bug, the number docs/fuzzing.md quotes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from raf.cassettes import load
from tests.fuzz.test_broken import client, conform, failing, raf

pytestmark = pytest.mark.processes


@dataclass(frozen=True)
class Search:
    """One fuzzing campaign: the broken client, the quirk its bug trips on, and the budget."""

    language: str
    bug: str
    quirk: str
    seed: int = 1
    examples: int = 200
    focus: tuple[str, ...] = ()  # --quirk: the quirks the search is pointed at (none: default)

    @property
    def id(self) -> str:
        return f"{self.language}-{self.bug}"

    def argv(self, impl: str, out: Path) -> list[str]:
        quirks = [arg for quirk in self.focus for arg in ("--quirk", quirk)]
        return [
            "fuzz",
            "--impl",
            impl,
            "--format",
            "openai_chat",
            "--seed",
            str(self.seed),
            "--examples",
            str(self.examples),
            *quirks,
            "-o",
            str(out),
        ]


SEARCHES = (
    Search("python", "index-only", "index_always_zero"),
    Search("python", "concat-names", "name_every_delta"),
    Search("python", "keep-bom", "leading_bom"),
    Search("python", "cr-not-eol", "cr_line_ends"),
    Search("python", "usage-null-erases", "later_usage_null"),
    Search("python", "partial-json", "cut_in_arguments"),
    Search("python", "done-substring", "done_in_text"),
    Search("python", "drop-finish-text", "finish_with_text"),
    Search("node", "done-substring", "done_in_text"),
    Search("node", "index-only", "index_always_zero"),
)

MAX_BODY = 2048
MAX_CALLS = 2

# "... 137 examples ..." in what raf fuzz prints: how many it ran.
_EXAMPLES = re.compile(r"(\d+) examples?\b")


def examples_run(output: str) -> int | None:
    counts = [int(n) for n in _EXAMPLES.findall(output)]
    return counts[-1] if counts else None


@pytest.mark.parametrize("search", SEARCHES, ids=lambda s: s.id)
def test_raf_fuzz_finds_the_bug_and_saves_a_small_cassette_that_reproduces_it(
    search: Search, tmp_path: Path, record_property: pytest.RecordProperty
) -> None:
    impl = client(search.language, search.bug)
    out = tmp_path / "found"
    result = raf(*search.argv(impl, out))
    record_property("examples", examples_run(result.stdout + result.stderr))
    assert result.returncode == 1, result.stdout + result.stderr  # 1: it found something

    saved = sorted((out / "openai_chat").glob("*.yaml"))
    assert saved, f"found, but no cassette written under {out}: {result.stderr}"
    showing = [p for p in saved if search.quirk in (load(p).info.quirks or ())]  # type: ignore[union-attr]
    assert showing, {p.name: load(p).info.quirks for p in saved}  # type: ignore[union-attr]
    for path in showing:
        cassette = load(path)
        assert cassette.info is not None
        assert cassette.info.expect is not None
        assert len(cassette.info.expect.tool_calls) <= MAX_CALLS, path.name
        body = cassette.interactions[-1].response.body
        assert len(body) < MAX_BODY, (path.name, len(body))

    # The saved cassettes reproduce: the client fails them, raf's reference passes them.
    report = conform(impl, "--cassettes", str(out), report=tmp_path / "impl.json")
    assert {p.stem for p in showing} <= set(failing(report)), failing(report)
    reference = raf("conform", "--cassettes", str(out))
    assert reference.returncode == 0, reference.stdout + reference.stderr


BUDGET = max(s.examples for s in SEARCHES)


@pytest.mark.parametrize("language", ["python", "node"])
def test_raf_fuzz_finds_nothing_in_the_honest_client(language: str, tmp_path: Path) -> None:
    out = tmp_path / "found"
    result = raf(*Search(language, "", "", examples=BUDGET).argv(client(language), out))
    assert result.returncode == 0, result.stdout + result.stderr
    assert not list(out.glob("**/*.yaml"))
