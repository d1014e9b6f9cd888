"""The properties are strong enough to catch real bugs: for each deliberately broken
converter, hypothesis finds a stream on which it disagrees with the ground truth, within a
budget of 400 examples (or the active profile's, if larger), and shrinks it to a small case.

The budget is not the ``ci`` profile's 60: which examples hypothesis generates after the first
few depends on process-wide state (importing an unrelated module changes the sequence), and
60 examples catch the rarest of these bugs (every parallel call at index 0) only sometimes.
Finding stops at the first failing example, so a larger budget costs nothing when it works."""

from __future__ import annotations

import time

import pytest
from hypothesis import find, settings

from raf.converter import AgentResponseConverter
from raf.pipeline import respond
from raf.testing.strategies import GeneratedStream, streams
from tests.properties.broken import VARIANTS
from tests.properties.support import summary


def disagrees(converter: type[AgentResponseConverter]) -> object:
    def check(stream: GeneratedStream) -> bool:
        return summary(respond(stream.chunks, converter=converter())) != summary(stream.response)

    return check


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_properties_catch_the_broken_converter(
    name: str, record_property: pytest.RecordProperty
) -> None:
    budget = max(settings.default.max_examples, 400)
    started = time.perf_counter()
    example = find(
        streams(),
        disagrees(VARIANTS[name]),  # type: ignore[arg-type]
        settings=settings(max_examples=budget, database=None, derandomize=True, deadline=None),
    )
    record_property("seconds_to_catch", round(time.perf_counter() - started, 2))
    # shrunk to a small case: at most two calls, a short body
    assert len(example.response.tool_calls) <= 2
    assert len(example.body) < 2000


def test_the_reference_converter_passes_the_same_search() -> None:
    budget = max(settings.default.max_examples, 400)
    with pytest.raises(Exception, match="No examples"):  # hypothesis.errors.NoSuchExample
        find(
            streams(),
            disagrees(AgentResponseConverter),
            settings=settings(max_examples=budget, database=None, derandomize=True, deadline=None),
        )  # type: ignore[arg-type]
