"""``raf fuzz --format cohere_v2``: Cohere's streams are generated with the SSE quirks, the
cut stream and the reads, raf's reference reads every one as its ground truth, and the cost
probe has Cohere's long text and long arguments."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from raf.cli import main
from raf.fuzz import cost
from raf.fuzz.generate import GENERATORS, FuzzStream, streams
from raf.pipeline import respond
from tests.properties.support import summary


def test_cohere_v2_is_generated_with_the_sse_quirks_and_the_cut() -> None:
    made = {quirk for quirk, on in GENERATORS.items() if "cohere_v2" in on}
    assert made == {
        "leading_bom",
        "cr_line_ends",
        "crlf_line_ends",
        "comment_lines",
        "multi_line_data",
        "tiny_reads",
        "split_utf8",
        "truncated",
    }


@settings(max_examples=40, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(streams("cohere_v2", {"comment_lines": 1.0, "cr_line_ends": 1.0}))
def test_reframed_streams_keep_the_event_names_and_are_read_as_their_truth(
    fuzzed: FuzzStream,
) -> None:
    assert summary(respond(fuzzed.chunks, "cohere_v2")) == summary(fuzzed.response)
    if fuzzed.stream.profile.event_names:
        assert b"event: message-start\r" in fuzzed.body


@settings(max_examples=40, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(streams("cohere_v2", {"truncated": 1.0}))
def test_a_cut_cohere_stream_has_no_message_end_and_is_reported(fuzzed: FuzzStream) -> None:
    assert "truncated" in fuzzed.quirks
    assert not any('"message-end"' in p for p in fuzzed.stream.payloads)
    assert [e.error_code for e in fuzzed.response.errors][:1] == ["stream_truncated"]
    assert summary(respond(fuzzed.chunks, "cohere_v2")) == summary(fuzzed.response)


@pytest.mark.parametrize("what", ["text", "arguments"])
def test_the_cost_streams_of_cohere_carry_the_long_event_whole(what: str) -> None:
    framing = cost.FORMATS["cohere_v2"]
    assert what in framing.whats
    parts = ["ab", "cd", "é"] if what == "text" else ['{"a"', ':"é"}']
    response = respond([framing.build(parts, what)], "cohere_v2")
    if what == "text":
        assert response.text == "abcdé"
        assert response.finish_reason == "stop"
    else:
        (call,) = response.tool_calls
        assert (call.id, call.name, call.arguments) == ("call_cost", "f", {"a": "é"})
        assert response.finish_reason == "tool_calls"
    assert not response.errors


def test_raf_fuzz_on_cohere_v2_finds_nothing_in_rafs_reference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["fuzz", "--database", str(tmp_path / "db"), "--format", "cohere_v2"]
    assert main([*args, "--examples", "60", "--seed", "3", "-o", str(tmp_path / "out")]) == 0
    assert "0 distinct failure(s)" in capsys.readouterr().out
