"""Strategies for Anthropic Messages streams: the drawn streams aggregate to their ground
truth under raf, and every listed stream feature is drawn."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from raf.formats._strategies.common import GeneratedStream
from raf.formats.anthropic_messages.strategies import (
    FEATURES,
    PROFILES,
    coverage,
    render,
    responses,
    streams,
)
from raf.model import AgentResponse, ToolCall, Usage
from raf.pipeline import respond

NAME = "anthropic_messages"


def check(stream: GeneratedStream) -> None:
    got = respond(list(stream.chunks), NAME)
    want = stream.response
    assert got.text == want.text
    assert got.reasoning_text == want.reasoning_text
    assert [(c.id, c.name, c.arguments) for c in got.tool_calls] == [
        (c.id, c.name, c.arguments) for c in want.tool_calls
    ]
    assert got.finish_reason == want.finish_reason
    assert got.usage == want.usage
    assert got.id == want.id
    assert got.model == want.model
    assert [e.error_code for e in got.errors] == [e.error_code for e in want.errors]


@pytest.mark.parametrize("profile", sorted(PROFILES))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_round_trip_per_profile(profile: str, data: st.DataObject) -> None:
    check(data.draw(streams(profile)))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams())
def test_round_trip_any_profile(stream: GeneratedStream) -> None:
    check(stream)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_render_adjusts_what_the_format_cannot_express(data: st.DataObject) -> None:
    truth = AgentResponse(
        text="hi",
        tool_calls=(ToolCall(id="", name="f", arguments={}),),
        finish_reason="end_turn",
        usage=Usage(prompt_tokens=5, completion_tokens=2, total_tokens=99, reasoning_tokens=1),
    )
    stream = data.draw(render(truth, "anthropic"))
    assert stream.response.finish_reason == "stop"
    assert stream.response.usage == Usage(prompt_tokens=5, completion_tokens=2, total_tokens=7)
    assert stream.response.tool_calls[0].id.startswith("toolu_")
    check(stream)


def test_every_feature_is_drawn() -> None:
    seen: Counter[str] = Counter()

    @settings(
        max_examples=300,
        deadline=None,
        database=None,
        derandomize=True,  # the count is of what the strategy reaches, not of luck
        suppress_health_check=list(HealthCheck),
    )
    @given(streams())
    def sample(stream: GeneratedStream) -> None:
        seen.update(coverage(stream))

    sample()
    rare = {f: seen[f] for f in FEATURES if seen[f] < 3}
    assert rare == {}, rare


def test_responses_rejects_negative_limits() -> None:
    with pytest.raises(InvalidArgument):
        responses(max_tool_calls=-1).example()
