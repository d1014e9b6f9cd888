"""Memory stays about one copy of the input, however finely the input is cut."""

from __future__ import annotations

import tracemalloc
from collections.abc import Iterator

import pytest

from raf.args_parser import ArgsParsed, StreamingArgsParser
from raf.converter import AgentResponseConverter
from raf.model import contents, updates
from raf.sse import SSEDecoder


@pytest.fixture
def traced() -> Iterator[None]:
    tracemalloc.start()
    try:
        yield
    finally:
        tracemalloc.stop()


def test_a_long_line_fed_byte_by_byte_is_held_once(traced: None) -> None:
    size = 100_000
    decoder = SSEDecoder()
    decoder.feed(b"data: ")
    tracemalloc.reset_peak()
    for _ in range(size):
        decoder.feed(b"x")
    current, _ = tracemalloc.get_traced_memory()
    assert current < 2 * size  # a list of 1-byte objects would hold ~35x the line
    (event,) = decoder.feed(b"\n\n")
    assert len(event.data) == size


def test_converter_and_parser_hold_arguments_once_for_one_character_fragments(traced: None) -> None:
    size = 60_000
    converter = AgentResponseConverter()
    converter.results(
        [updates.ToolCallDelta(index=0, id="c1", name="write", arguments_delta='{"text":"')]
    )
    before, _ = tracemalloc.get_traced_memory()

    def fragments() -> Iterator[updates.ToolCallDelta]:
        for i in range(size):
            yield updates.ToolCallDelta(index=0, arguments_delta="abcdefghij"[i % 10])

    for update in fragments():
        converter.results([update])
    held, _ = tracemalloc.get_traced_memory()
    # the call's text and the parser's copy of the open value: ~2 bytes per character
    assert held - before < 4 * size
    converter.results([updates.ToolCallDelta(index=0, arguments_delta='"}')])
    final = converter.finalize("tool_calls").contents
    calling = [c for c in final if isinstance(c, contents.ToolCalling)]
    assert len(calling[0].arguments["text"]) == size


def test_parser_joins_long_values_correctly_across_many_fragments() -> None:
    parser = StreamingArgsParser()
    text = '{"s":"' + "é\\n" * 700 + '","o":{"k":[' + ",".join(["1"] * 700) + "]}}"
    events = [e for ch in text for e in parser.feed(ch)]
    parsed = {e.name: e.value for e in events if isinstance(e, ArgsParsed)}
    assert parsed == {"s": "é\n" * 700, "o": {"k": [1] * 700}}
