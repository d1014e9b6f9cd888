"""The properties are strong enough to catch real bugs: for each deliberately broken
converter, hypothesis finds a stream on which it disagrees with the ground truth, within a
budget of 400 examples (or the active profile's, if larger), and shrinks it to a small case.

The budget is not the ``ci`` profile's 60: which examples hypothesis generates after the first
few depends on process-wide state (importing an unrelated module changes the sequence), and
60 examples catch the rarest of these bugs (every parallel call at index 0) only sometimes.
Finding stops at the first failing example, so a larger budget costs nothing when it works.

Each broken converter must fail by its bug, not by crashing: a counterexample on which it
reports ``internal_error`` would be caught by any stream at all."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import find, settings

from raf.converter import AgentResponseConverter
from raf.pipeline import respond
from raf.testing.strategies import GeneratedStream, streams
from tests.properties.broken import VARIANTS
from tests.properties.support import summary


def disagrees(converter: type[AgentResponseConverter]) -> Callable[[GeneratedStream], bool]:
    def check(stream: GeneratedStream) -> bool:
        return summary(respond(stream.chunks, converter=converter())) != summary(stream.response)

    return check


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_properties_catch_the_broken_converter(
    name: str, record_property: Callable[[str, object], None]
) -> None:
    assert settings.default is not None
    budget = max(settings.default.max_examples, 400)
    started = time.perf_counter()
    example = find(
        streams(),
        disagrees(VARIANTS[name]),
        settings=settings(max_examples=budget, database=None, derandomize=True, deadline=None),
    )
    record_property("seconds_to_catch", round(time.perf_counter() - started, 2))
    # the bug, not a crash
    got = respond(example.chunks, converter=VARIANTS[name]())
    assert "internal_error" not in [e.error_code for e in got.errors]
    # shrunk to a small case: at most two calls, a short body
    assert len(example.response.tool_calls) <= 2
    assert len(example.body) < 2000


def _event(delta: dict[str, Any]) -> bytes:
    choice = {"index": 0, "delta": delta, "finish_reason": None}
    return b"data: " + json.dumps({"choices": [choice]}).encode() + b"\n\n"


def _call(arguments: str, index: int = 0, **fields: Any) -> bytes:
    function = {
        "arguments": arguments,
        **({"name": fields.pop("name")} if "name" in fields else {}),
    }
    return _event({"tool_calls": [{"index": index, **fields, "function": function}]})


# For each broken converter, a stream that shows its bug: what it must get wrong.
BUGS = {
    "index_only": (  # two parallel calls, both at index 0 (ollama): merged into one
        [_call("{}", id="a", name="f"), _call("{}", id="b", name="g")],
        [("a", "f", {}), ("b", "g", {})],
    ),
    "concatenating_names": (  # the name repeated on a later delta (gpt5): "ff"
        [_call('{"x":', id="a", name="f"), _call("1}", id="a", name="f")],
        [("a", "f", {"x": 1})],
    ),
    "lenient_early": (  # a string value cut: called with its first half
        [_call('{"x":"ab', id="a", name="f"), _call('c"}')],
        [("a", "f", {"x": "abc"})],
    ),
}


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_each_broken_converter_has_its_bug_and_nothing_else(name: str) -> None:
    events, calls = BUGS[name]
    body = b"".join([*events, b"data: [DONE]\n\n"])
    assert summary(respond([body]))["tool_calls"] == calls
    got = respond([body], converter=VARIANTS[name]())
    assert summary(got)["tool_calls"] != calls
    assert "internal_error" not in [e.error_code for e in got.errors]


def test_the_reference_converter_passes_the_same_search() -> None:
    assert settings.default is not None
    budget = max(settings.default.max_examples, 400)
    with pytest.raises(Exception, match="No examples"):  # hypothesis.errors.NoSuchExample
        find(
            streams(),
            disagrees(AgentResponseConverter),
            settings=settings(max_examples=budget, database=None, derandomize=True, deadline=None),
        )
