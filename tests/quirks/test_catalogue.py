"""The bundled quirk catalogue: it loads, it has the quirks the fuzzer and its tests use, it
cites every known client bug of the survey, and its generators are the generator's."""

from __future__ import annotations

import importlib
import re

import pytest

from raf import formats
from raf.conformance import severity
from raf.quirks import KINDS, catalogue, load
from raf.shared.bundled import bundled
from tests.quirks.support import CATALOGUE, PEERS

SHARED_IDS = (
    "index_always_zero",
    "name_every_delta",
    "leading_bom",
    "cr_line_ends",
    "crlf_line_ends",
    "later_usage_null",
    "cut_in_arguments",
    "done_in_text",
    "finish_with_text",
    "interleaved_calls",
    "no_call_ids",
    "no_index",
    "one_based_index",
    "comment_lines",
    "multi_line_data",
    "split_utf8",
    "tiny_reads",
    "truncated",
    "long_event",
)
"""The quirks ``raf fuzz``, its generator and its proof-of-power tests are built on: each must
be in the catalogue, generated for Chat Completions at least."""


def test_the_bundled_catalogue_loads_and_is_the_repository_file() -> None:
    assert bundled().quirks == CATALOGUE
    quirks = catalogue()
    assert quirks == load(CATALOGUE)
    assert 40 <= len(quirks) <= 80
    assert {q.kind for q in quirks.values()} <= set(KINDS)


def test_the_kinds_are_the_severity_vocabulary() -> None:
    # performance (a right answer, slowly) is the cost probe's kind
    assert set(KINDS) == set(severity.KINDS) | {"performance"}


def test_every_format_has_quirks() -> None:
    covered = {name for q in catalogue().values() for name in q.formats}
    assert covered == set(formats.names())


@pytest.mark.parametrize("ident", SHARED_IDS)
def test_the_quirks_the_fuzzer_uses_are_catalogued_and_generated_for_chat(ident: str) -> None:
    quirk = catalogue().get(ident)
    assert quirk is not None, f"{ident} is not in conformance/quirks.yaml"
    assert "openai_chat" in quirk.generators


def test_every_quirk_has_a_cassette_or_a_generator() -> None:
    bare = [q.id for q in catalogue().values() if not q.cassettes and not q.generators]
    assert bare == [], "quirks no cassette shows and raf fuzz cannot make"


def peer_bugs() -> dict[int, set[str]]:
    """The known client bugs of the survey (Part 2 of peers.md): number -> the issues and
    pull requests its row names, as owner/repo#N."""
    assert PEERS.is_file(), f"{PEERS} is missing: the research corpus must sit beside the repo"
    part = PEERS.read_text(encoding="utf-8").split("## Part 2", 1)[1]
    bugs: dict[int, set[str]] = {}
    for number, column in re.findall(r"^\| (\d+) \| ([^|]*) \|", part, re.M):
        refs = set()
        for repo, numbers in re.findall(
            r"([A-Za-z0-9][\w.-]*/[\w.-]+)((?:(?: PRs?)? ?#\d+(?:/#\d+)*(?:, )?)+)", column
        ):
            refs |= {f"{repo}#{n}" for n in re.findall(r"#(\d+)", numbers)}
        bugs[int(number)] = refs
    return bugs


def test_the_survey_is_read_whole() -> None:
    bugs = peer_bugs()
    assert sorted(bugs) == list(range(1, 46))
    assert all(bugs.values()), "a row without an owner/repo#N reference"


def test_every_known_client_bug_is_cited_by_a_quirk() -> None:
    cited = {report for q in catalogue().values() for report in q.reports}
    uncited = {n: sorted(refs) for n, refs in peer_bugs().items() if not refs & cited}
    assert uncited == {}, "peers.md bugs no quirk's reports cite"


def test_generators_are_the_generators_table() -> None:
    module = importlib.import_module("raf.fuzz.generate")
    table = getattr(module, "GENERATORS", None)
    if table is None:
        pytest.fail(
            "raf.fuzz.generate.GENERATORS (quirk id -> frozenset of formats) is missing: "
            "the catalogue's generators cannot be checked against what the generator makes"
        )
    quirks = catalogue()
    unknown = sorted(set(table) - set(quirks))
    assert unknown == [], "the generator makes quirks the catalogue does not have"
    differ = {
        q.id: (sorted(q.generators), sorted(table.get(q.id, frozenset())))
        for q in quirks.values()
        if set(q.generators) != set(table.get(q.id, frozenset()))
    }
    assert differ == {}, "quirk: (the catalogue's generators, the generator's formats)"
