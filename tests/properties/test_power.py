"""The properties are strong enough to catch real bugs: for each deliberately broken
converter, hypothesis finds a stream on which it disagrees with the ground truth, within the
budget of the active settings profile (``ci`` in CI), and shrinks it to a small case."""

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
    budget = settings.default.max_examples
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
    budget = settings.default.max_examples
    with pytest.raises(Exception, match="No examples"):  # hypothesis.errors.NoSuchExample
        find(
            streams(),
            disagrees(AgentResponseConverter),
            settings=settings(max_examples=budget, database=None, derandomize=True, deadline=None),
        )  # type: ignore[arg-type]
