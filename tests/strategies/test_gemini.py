"""raf.testing.strategies.gemini: drawn streams aggregate to their ground truth, and the
strategies exercise every listed feature."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from raf import dialects
from raf.formats._strategies.common import GeneratedStream
from raf.formats.gemini.dialect import GeminiDialect
from raf.model import AgentResponse
from raf.pipeline import respond
from raf.testing.strategies import gemini

if "gemini" not in dialects.names():
    # raf/dialects/__init__.py registers gemini lazily; keep these tests independent of it.
    dialects.register("gemini", GeminiDialect)


def summary(response: AgentResponse) -> dict[str, object]:
    return {
        "text": response.text,
        "reasoning": response.reasoning_text,
        "calls": [(c.id, c.name, c.arguments) for c in response.tool_calls],
        "hosted": [(h.id, h.name, h.arguments, h.output) for h in response.hosted_tool_calls],
        "finish": response.finish_reason,
        "usage": response.usage,
        "errors": [e.error_code for e in response.errors],
    }


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(gemini.streams())
def test_drawn_streams_aggregate_to_the_ground_truth(stream: GeneratedStream) -> None:
    assert summary(respond(list(stream.chunks), "gemini")) == summary(stream.response)


@pytest.mark.parametrize("profile", sorted(gemini.PROFILES))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_each_profile_round_trips(profile: str, data: st.DataObject) -> None:
    stream = data.draw(gemini.streams(profile))
    assert stream.profile.name == profile
    assert summary(respond(list(stream.chunks), "gemini")) == summary(stream.response)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_render_keeps_what_the_format_can_express(data: st.DataObject) -> None:
    response = data.draw(gemini.responses(max_tool_calls=2))
    stream = data.draw(gemini.render(response, "gemini_array"))
    assert stream.body.startswith(b"[")
    assert stream.response.text == response.text
    assert [c.arguments for c in stream.response.tool_calls] == [
        c.arguments for c in response.tool_calls
    ]


def test_unknown_profile_and_bad_arguments_are_refused() -> None:
    with pytest.raises(InvalidArgument):
        gemini.streams("nope")
    with pytest.raises(InvalidArgument):
        gemini.streams(max_tool_calls=-1)


def test_every_feature_occurs_in_300_examples() -> None:
    counts: Counter[str] = Counter()

    @settings(
        max_examples=300,
        deadline=None,
        database=None,
        derandomize=True,  # the count is of what the strategy reaches, not of luck
        suppress_health_check=list(HealthCheck),
    )
    @given(gemini.streams())
    def collect(stream: GeneratedStream) -> None:
        counts.update(gemini.coverage(stream))

    collect()
    missing = {f: counts[f] for f in gemini.FEATURES if counts[f] < 3}
    assert not missing, (missing, counts)
