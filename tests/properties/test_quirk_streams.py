"""The fuzzer's streams (raf.fuzz.generate): their ground truth is what raf's reference reads,
each quirk forced alone is shown, the quirks a stream lists are the ones it shows, and a
failing case shrinks to a small stream with only the quirks it needs."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from raf.fuzz.generate import EVERY, GENERATORS, FuzzStream, streams
from raf.pipeline import respond
from tests.properties.support import summary

FORMATS = sorted(EVERY)
PAIRS = [(quirk, format) for quirk, on in GENERATORS.items() for format in sorted(on)]


def read_by_raf(fuzzed: FuzzStream) -> dict[str, object]:
    return summary(respond(fuzzed.chunks, fuzzed.format))


@pytest.mark.parametrize("format", FORMATS)
@given(data=st.data())
def test_the_ground_truth_is_what_raf_reads_for_every_quirk_profile(
    format: str, data: st.DataObject
) -> None:
    fuzzed = data.draw(streams(format))
    assert read_by_raf(fuzzed) == summary(fuzzed.response)
    assert set(fuzzed.quirks) <= {q for q, on in GENERATORS.items() if format in on}


# 30 streams a pair, derandomized: the rate is the same on every run.
_FORCED = settings(
    max_examples=30,
    derandomize=True,
    database=None,
    phases=[Phase.generate],
    suppress_health_check=list(HealthCheck),
    deadline=None,
)


@pytest.mark.parametrize(("quirk", "format"), PAIRS)
def test_a_quirk_forced_alone_is_shown_with_the_right_ground_truth(quirk: str, format: str) -> None:
    shown: list[bool] = []

    @_FORCED
    @given(streams(format, {quirk: 1.0}))
    def check(fuzzed: FuzzStream) -> None:
        assert read_by_raf(fuzzed) == summary(fuzzed.response)
        shown.append(quirk in fuzzed.quirks)

    check()
    assert sum(shown) >= 0.9 * len(shown), f"{quirk} shown in {sum(shown)} of {len(shown)}"


@given(streams("openai_chat", {"interleaved_calls": 1.0}, max_tool_calls=1))
def test_a_quirk_a_stream_cannot_show_is_not_listed(fuzzed: FuzzStream) -> None:
    # interleaving needs two calls
    assert "interleaved_calls" not in fuzzed.quirks
    assert read_by_raf(fuzzed) == summary(fuzzed.response)


@given(streams("openai_chat", {"cut_in_arguments": 1.0}))
def test_a_stream_cut_inside_arguments_reports_the_call_incomplete(fuzzed: FuzzStream) -> None:
    codes = [e.error_code for e in fuzzed.response.errors]
    assert codes[0] == "stream_truncated"
    assert fuzzed.response.finish_reason is None
    assert "[DONE]" not in fuzzed.stream.payloads
    if "cut_in_arguments" in fuzzed.quirks:
        assert "tool_call_incomplete" in codes


@given(streams("openai_chat", {"done_in_text": 1.0, "finish_with_text": 1.0}))
def test_text_with_done_in_it_and_with_the_finish_reason_is_kept(fuzzed: FuzzStream) -> None:
    assert "[DONE]" in fuzzed.response.text
    assert {"done_in_text", "finish_with_text"} <= set(fuzzed.quirks)


_SHRINK = settings(database=None, derandomize=True, max_examples=2000)


@pytest.mark.parametrize("format", ["openai_chat", "anthropic_messages", "gemini", "ollama_chat"])
def test_a_failure_needing_two_calls_shrinks_to_two_calls_under_2_kb(format: str) -> None:
    found = find(streams(format), lambda s: len(s.response.tool_calls) >= 2, settings=_SHRINK)
    assert len(found.response.tool_calls) == 2
    assert len(found.body) < 2048


@pytest.mark.parametrize("quirk", ["index_always_zero", "interleaved_calls"])
def test_a_failure_needing_one_quirk_shrinks_to_that_quirk_alone(quirk: str) -> None:
    found = find(streams("openai_chat"), lambda s: quirk in s.quirks, settings=_SHRINK)
    assert found.quirks == (quirk,)
    assert len(found.response.tool_calls) <= 2
    assert len(found.body) < 2048


def test_a_failure_needing_a_cut_in_arguments_shrinks_to_it_and_the_cut() -> None:
    found = find(streams("openai_chat"), lambda s: "cut_in_arguments" in s.quirks, settings=_SHRINK)
    assert found.quirks == ("cut_in_arguments", "truncated")
    assert len(found.body) < 2048


@pytest.mark.parametrize(
    ("format", "quirks", "message"),
    [
        ("openai_chat", ["no_such_quirk"], "use some of"),
        ("gemini", {"index_always_zero": 1.0}, "cannot be generated for gemini"),
        ("openai_chat", {"leading_bom": 1.5}, "from 0 to 1"),
        ("no_such_format", None, "unknown format"),
        ("openai_chat", "leading_bom", "a list of ids"),
    ],
)
def test_a_bad_profile_is_refused_with_the_valid_ids(
    format: str, quirks: object, message: str
) -> None:
    with pytest.raises(InvalidArgument, match=message) as refused:
        streams(format, quirks)  # type: ignore[arg-type]
    if message == "use some of":
        assert "index_always_zero" in str(refused.value)
