"""The campaign engine (raf.fuzz.campaign) on checks in this process: planted bugs are found,
told apart, shrunk, replayed by seed and by the example database, and kept on Ctrl-C."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.database import InMemoryExampleDatabase

from raf.cassettes.format import Interaction
from raf.conformance.goldens import InteractionOutput
from raf.conformance.implementation import FunctionImplementation
from raf.conformance.levels import Mismatch
from raf.conformance.reference import output_for
from raf.fuzz.campaign import (
    Campaign,
    Finding,
    KeepingDatabase,
    Progress,
    StopCampaign,
    explains,
    fuzz,
)
from raf.fuzz.cassette import Signature
from raf.fuzz.check import REFERENCE, ImplementationCheck, reference_check
from raf.fuzz.generate import FuzzStream, streams
from tests.fuzz.drop_finish_text import broken

EXAMPLES = 300
"""Enough for the bug of the text beside the finish reason (found within 160 examples under
each of ten seeds tried)."""
BOTH = 400
"""Enough for both planted bugs (the dropped second call takes up to 200)."""
REPLAYED = 60
"""The budget of the campaigns that only need the bug found, not searched for: seed 7 finds it
at the 6th stream generated."""


def drops_finish_text(interaction: Interaction, dialect: str, chunking: str) -> InteractionOutput:
    """A client that drops the text of the chunk carrying the finish reason."""
    del chunking
    return output_for(200, "", [broken(interaction.response.body)], dialect)


def drops_finish_text_and_second_call(
    interaction: Interaction, dialect: str, chunking: str
) -> InteractionOutput:
    """The same client, which also keeps only the first of parallel tool calls."""
    output = drops_finish_text(interaction, dialect, chunking)
    calls = output.response.get("tool_calls") or []
    if len(calls) >= 2:
        output.response["tool_calls"] = calls[:1]
    return output


def check_of(function: Any) -> ImplementationCheck:
    return ImplementationCheck(FunctionImplementation(function))


def run(function: Any = drops_finish_text, **options: Any) -> Campaign:
    options.setdefault("examples", EXAMPLES)
    return fuzz(streams("openai_chat"), check_of(function), **options)


def small(finding: Finding) -> bool:
    return len(finding.stream.response.tool_calls) <= 2 and len(finding.stream.body) < 2048


def test_a_planted_bug_is_found_and_shrunk_to_a_small_stream() -> None:
    campaign = run(seed=1)
    assert [f.signature.text for f in campaign.findings] == ["text lost [finish_with_text]"]
    finding = campaign.findings[0]
    # shrunk to the one quirk the bug needs: the last text comes with the finish reason
    assert finding.signature.quirks == ("finish_with_text",)
    assert finding.shrunk
    assert small(finding)
    assert finding.mismatches[0].key == "text"
    # the minimal stream really is one the bug shows on: its text comes with the finish
    assert finding.stream.response.text
    assert check_of(drops_finish_text)(finding.stream)
    assert campaign.examples >= EXAMPLES  # the budget is of streams generated; shrinking adds
    assert campaign.rate == campaign.examples / campaign.seconds


def test_two_planted_bugs_are_two_findings_each_shrunk() -> None:
    campaign = run(drops_finish_text_and_second_call, seed=2, examples=BOTH)
    signatures = sorted((f.signature.key, f.signature.kind) for f in campaign.findings)
    assert signatures == [("text", "lost"), ("tool_calls", "lost")]
    for finding in campaign.findings:
        assert finding.shrunk
        assert small(finding)
    calls = next(f for f in campaign.findings if f.signature.key == "tool_calls")
    assert len(calls.stream.response.tool_calls) == 2  # the least that shows the bug


def test_raf_itself_is_found_to_agree_with_the_ground_truth() -> None:
    campaign = fuzz(
        streams("openai_chat"),
        check_of(lambda i, d, c: output_for(200, "", [i.response.body], d)),
        examples=150,
        seed=3,
    )
    assert campaign.findings == ()
    assert not campaign.interrupted


def test_the_same_seed_replays_the_same_findings() -> None:
    first = run(seed=7, examples=REPLAYED)
    again = run(seed=7, examples=REPLAYED)
    assert first.findings  # something to replay
    assert [(f.signature, f.stream.body, f.stream.chunks) for f in first.findings] == [
        (f.signature, f.stream.body, f.stream.chunks) for f in again.findings
    ]
    assert first.seed == again.seed == 7


def test_on_finding_tells_first_the_sighting_then_the_shrunk_stream() -> None:
    seen: list[Finding] = []
    campaign = run(seed=7, examples=REPLAYED, on_finding=seen.append)
    assert [f.shrunk for f in seen] == [False, True]
    # the same bug, shrunk to the quirks it needs (a subset of those first seen)
    assert explains(seen[1].signature, seen[0].signature)
    assert seen[1].signature.quirks == ("finish_with_text",)
    assert len(seen[1].stream.body) <= len(seen[0].stream.body)
    assert seen[1] == campaign.findings[0]


def test_ctrl_c_keeps_what_was_found() -> None:
    calls = itertools.count()
    inner = check_of(drops_finish_text)
    found_at: list[int] = []

    def check(stream: FuzzStream) -> Sequence[Mismatch]:
        n = next(calls)
        if found_at and n >= found_at[0] + 5:  # a few calls into the shrinking
            raise KeyboardInterrupt
        return inner(stream)

    campaign = fuzz(
        streams("openai_chat"),
        check,
        examples=EXAMPLES,
        seed=1,
        on_finding=lambda f: found_at.append(next(calls)),
    )
    assert campaign.interrupted
    assert [f.signature.text.split(" [")[0] for f in campaign.findings] == ["text lost"]
    assert not campaign.findings[0].shrunk


def test_a_check_that_gives_up_stops_the_campaign_with_its_findings() -> None:
    inner = check_of(drops_finish_text)
    sighted: list[Finding] = []

    def check(stream: FuzzStream) -> Sequence[Mismatch]:
        if sighted and sighted[-1].shrunk:
            raise StopCampaign("the implementation gave up")
        return inner(stream)

    campaign = fuzz(
        streams("openai_chat"), check, examples=EXAMPLES, seed=1, on_finding=sighted.append
    )
    assert campaign.stopped == "the implementation gave up"
    assert [f.signature.text for f in campaign.findings] == ["text lost [finish_with_text]"]


def test_a_check_that_raises_is_a_bug_raised_as_it_is() -> None:
    def check(stream: FuzzStream) -> Sequence[Mismatch]:
        raise ZeroDivisionError("in the check")

    with pytest.raises(ZeroDivisionError, match="in the check"):
        fuzz(streams("openai_chat"), check, examples=5, seed=1)


def test_the_time_budget_is_read_on_the_clock_it_is_given() -> None:
    ticks = itertools.count()
    progress: list[Progress] = []
    campaign = fuzz(
        streams("openai_chat"),
        lambda stream: [],
        seconds=20,
        clock=lambda: float(next(ticks)),  # every reading is one second later
        on_progress=progress.append,
    )
    # two readings per example (the budget, then the progress): about ten examples
    assert 5 <= campaign.examples <= 12
    assert progress[-1].examples == campaign.examples
    assert not campaign.findings


def test_the_database_replays_every_known_failure_first(tmp_path: Path) -> None:
    folder = tmp_path / "db"
    first = run(drops_finish_text_and_second_call, database=folder, examples=BOTH)
    assert len(first.findings) == 2
    sighted: list[int] = []
    progress: list[Progress] = []

    def sight(finding: Finding) -> None:
        if not finding.shrunk:
            sighted.append(progress[-1].examples if progress else 0)

    again = run(
        drops_finish_text_and_second_call,
        database=folder,
        on_finding=sight,
        on_progress=progress.append,
        examples=20,  # generation alone rarely finds the dropped call in 20
    )
    assert {f.signature for f in again.findings} == {f.signature for f in first.findings}
    # both are seen at once: the database's examples come before anything is generated
    assert sighted[0] == 1
    assert sighted[1] <= 10


def test_the_database_keeps_the_failures_of_earlier_rounds() -> None:
    inner = InMemoryExampleDatabase()
    keeping = KeepingDatabase(inner, "openai_chat")
    keeping.save(b"k", b"old")
    keeping.end_round()
    keeping.save(b"k", b"step")
    keeping.delete(b"k", b"old")  # a known failure, passing in a later round: kept
    keeping.delete(b"k", b"step")  # a step of this round's shrinking: deleted
    assert set(keeping.fetch(b"k")) == {b"old"}
    assert set(inner.fetch(b"openai_chat\0k")) == {b"old"}


def test_raf_disagreeing_with_the_ground_truth_is_not_blamed_on_the_implementation() -> None:
    stream = _one_stream()
    wrong = InteractionOutput(updates=[], results=[], response={"text": "not it"})
    mismatches = reference_check(stream, wrong)
    assert mismatches
    assert {m.level for m in mismatches} == {REFERENCE}
    assert mismatches[0].key == "text"


def _one_stream() -> FuzzStream:
    out: list[FuzzStream] = []

    @settings(max_examples=20, database=None, deadline=None)
    @given(streams("openai_chat"))
    def draw(stream: FuzzStream) -> None:
        if stream.response.text and not out:
            out.append(stream)

    draw()
    assert out
    return out[0]


def _with_quirks(format: str = "openai_chat") -> st.SearchStrategy[FuzzStream]:
    """Streams tagged with any set of three made-up quirks (what the check below reads)."""
    tags = st.sets(st.sampled_from(["alpha", "beta", "gamma"]))
    return streams(format).flatmap(
        lambda s: tags.map(lambda q: FuzzStream(s.format, s.stream, tuple(sorted(q))))
    )


def _fails_on_text(needs: str | None) -> Any:
    def check(stream: FuzzStream) -> Sequence[Mismatch]:
        if stream.response.text and (needs is None or needs in stream.quirks):
            return [Mismatch("text", "it", "nothing", kind="lost")]
        return []

    return check


@pytest.mark.parametrize(("needs", "involved"), [(None, ()), ("beta", ("beta",))])
def test_a_finding_keeps_only_the_quirks_involved(
    needs: str | None, involved: tuple[str, ...]
) -> None:
    campaign = fuzz(_with_quirks(), _fails_on_text(needs), examples=200, seed=4)
    assert [f.signature.quirks for f in campaign.findings] == [involved]
    assert campaign.findings[0].shrunk


def test_a_known_failure_explains_the_same_one_with_more_quirks() -> None:
    plain = Signature("text", "lost", "response", ())
    beta = Signature("text", "lost", "response", ("beta",))
    assert explains(plain, beta)
    assert not explains(beta, plain)
    assert not explains(plain, Signature("usage", "lost", "response", ()))
