"""Strategies for openai_responses: round trip through raf, and what they exercise."""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from raf.dialects import names, register
from raf.formats._strategies.common import GeneratedStream
from raf.formats.openai_responses.dialect import OpenAIResponsesDialect
from raf.formats.openai_responses.strategies import PROFILES, coverage, streams
from raf.pipeline import respond

if "openai_responses" not in names():  # the built-in table may be edited elsewhere meanwhile
    register("openai_responses", OpenAIResponsesDialect)

FEATURES = {
    "text",
    "reasoning",
    "tool_call",
    "parallel_calls",
    "interleaved_or_switching_args",
    "args_done_only_or_empty",
    "incomplete",
    "usage",
    "obfuscation",
    "keep_alive",
    "unknown_event",
    "done_marker",
    *(f"profile:{name}" for name in PROFILES),
}


def check(stream: GeneratedStream) -> None:
    got = respond(list(stream.chunks), "openai_responses")
    want = stream.response
    assert got.text == want.text
    assert got.reasoning_text == want.reasoning_text
    assert [(c.id, c.name, c.arguments) for c in got.tool_calls] == [
        (c.id, c.name, c.arguments) for c in want.tool_calls
    ]
    assert got.finish_reason == want.finish_reason
    if want.usage is None:
        assert got.usage is None
    else:
        assert got.usage is not None
        assert (got.usage.prompt_tokens, got.usage.completion_tokens, got.usage.total_tokens) == (
            want.usage.prompt_tokens,
            want.usage.completion_tokens,
            want.usage.total_tokens,
        )
    assert [e.error_code for e in got.errors] == [e.error_code for e in want.errors]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams())
def test_round_trip(stream: GeneratedStream) -> None:
    check(stream)


def test_coverage_over_300_examples() -> None:
    counts: Counter[str] = Counter()

    @settings(
        max_examples=300,
        deadline=None,
        database=None,
        derandomize=True,  # the count is of what the strategy reaches, not of luck
        suppress_health_check=list(HealthCheck),
    )
    @given(st.data())
    def draw(data: st.DataObject) -> None:
        counts.update(coverage(data.draw(streams())))

    draw()
    missing = {f: counts[f] for f in FEATURES if counts[f] < 3}
    assert not missing, (missing, counts)
