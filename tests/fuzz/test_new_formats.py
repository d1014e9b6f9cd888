"""``raf fuzz --format gemini_interactions`` and ``--format bedrock_converse``: the Interactions
API's streams are generated with the SSE quirks, both formats' streams with the cut and the
reads, raf's reference reads every one as its ground truth, their strategies take ``force``,
and the cost probe has both formats' long text and long arguments."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from raf.cli import main
from raf.formats._strategies.common import GeneratedStream
from raf.formats.bedrock_converse import strategies as bedrock
from raf.formats.gemini_interactions import strategies as interactions
from raf.fuzz import cost
from raf.fuzz.generate import GENERATORS, FuzzStream, streams
from raf.pipeline import respond
from tests.properties.support import summary

SSE_QUIRKS = {"leading_bom", "cr_line_ends", "crlf_line_ends", "comment_lines", "multi_line_data"}
READS_AND_CUT = {"tiny_reads", "split_utf8", "truncated"}
FEW = settings(max_examples=30, deadline=None, database=None,
               suppress_health_check=list(HealthCheck))  # fmt: skip


def test_the_quirks_generated_for_each_new_format() -> None:
    def made(name: str) -> set[str]:
        return {quirk for quirk, on in GENERATORS.items() if name in on}

    assert made("gemini_interactions") == SSE_QUIRKS | READS_AND_CUT
    assert made("bedrock_converse") == READS_AND_CUT  # binary: no SSE framing to vary


@FEW
@given(streams("gemini_interactions", {"comment_lines": 1.0, "cr_line_ends": 1.0}))
def test_reframed_interactions_streams_keep_their_event_names_and_read_as_their_truth(
    fuzzed: FuzzStream,
) -> None:
    assert {"comment_lines", "cr_line_ends"} <= set(fuzzed.quirks)
    assert summary(respond(fuzzed.chunks, "gemini_interactions")) == summary(fuzzed.response)
    if fuzzed.stream.profile.event_names:
        assert b"event: interaction.created\r" in fuzzed.body


@FEW
@given(st.sampled_from(["gemini_interactions", "bedrock_converse"]).flatmap(
    lambda name: streams(name, {"truncated": 1.0, "tiny_reads": 1.0})))  # fmt: skip
def test_a_cut_stream_of_each_new_format_is_reported_truncated(fuzzed: FuzzStream) -> None:
    assert {"truncated", "tiny_reads"} <= set(fuzzed.quirks)
    assert [e.error_code for e in fuzzed.response.errors][:1] == ["stream_truncated"]
    ends = ('"interaction.completed"', '"stopReason"')
    assert not any(end in p for p in fuzzed.stream.payloads for end in ends)
    assert summary(respond(fuzzed.chunks, fuzzed.format)) == summary(fuzzed.response)


@FEW
@given(st.sampled_from(["gemini_interactions", "bedrock_converse"]).flatmap(
    lambda name: streams(name, {"split_utf8": 1.0})))  # fmt: skip
def test_non_ascii_text_cut_inside_its_characters_is_read_whole(fuzzed: FuzzStream) -> None:
    assert "split_utf8" in fuzzed.quirks
    assert not fuzzed.response.text.isascii()
    assert summary(respond(fuzzed.chunks, fuzzed.format)) == summary(fuzzed.response)


@FEW
@given(st.sampled_from([interactions, bedrock]).flatmap(
    lambda module: module.streams(force=frozenset({"calls", "text"}))))  # fmt: skip
def test_forced_calls_and_text_are_in_every_stream(stream: GeneratedStream) -> None:
    assert stream.response.tool_calls
    assert stream.response.text


@pytest.mark.parametrize("module", [interactions, bedrock])
def test_an_unknown_shape_to_force_is_refused_with_the_ones_there_are(module: object) -> None:
    with pytest.raises(InvalidArgument, match="non_ascii_text"):
        module.streams(force=frozenset({"interleaved_calls"}))  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", ["gemini_interactions", "bedrock_converse"])
@pytest.mark.parametrize("what", ["text", "arguments"])
def test_the_cost_streams_carry_the_long_event_whole(name: str, what: str) -> None:
    framing = cost.FORMATS[name]
    assert what in framing.whats
    parts = ["ab", "cd", "é"] if what == "text" else ['{"a"', ':"é"}']
    response = respond([framing.build(parts, what)], name)
    assert not response.errors
    if what == "text":
        assert (response.text, response.finish_reason) == ("abcdé", "stop")
    else:
        (call,) = response.tool_calls
        assert (call.id, call.name, call.arguments) == ("call_cost", "f", {"a": "é"})
        assert response.finish_reason == "tool_calls"


@pytest.mark.parametrize("name", ["gemini_interactions", "bedrock_converse"])
def test_raf_fuzz_on_each_new_format_finds_nothing_in_rafs_reference(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["fuzz", "--database", str(tmp_path / "db"), "--format", name]
    assert main([*args, "--examples", "40", "--seed", "3", "-o", str(tmp_path / "out")]) == 0
    assert "0 distinct failure(s)" in capsys.readouterr().out
