"""Fuzz your own stream parser against raf's strategies: ten lines."""

from hypothesis import given
from my_parser import parse

from raf.testing.strategies import streams


@given(streams(profile="openai"))
def test_my_parser_agrees_with_the_ground_truth(stream):
    result = parse(stream.chunks)
    assert result.text == stream.response.text
    expected = [
        {"id": c.id, "name": c.name, "arguments": c.arguments} for c in stream.response.tool_calls
    ]
    assert result.tool_calls == expected
