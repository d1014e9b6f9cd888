"""collect_agent_response: raf-spec 6, with raf's errors list and exception option."""

from __future__ import annotations

import asyncio
import sys
import tracemalloc
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime

import pytest

from raf.collect import ResponseCollector, acollect_agent_response, collect_agent_response
from raf.errors import AgentResponseError
from raf.model import AgentResponseResult, ResponseMetadata, ToolCall, Usage, blocks, contents

META = ResponseMetadata(agent_id="agent-1", timestamp=datetime(2026, 1, 1, tzinfo=UTC))
USAGE = Usage(prompt_tokens=10, completion_tokens=5, total_tokens=15)
ERR = contents.Error(error_code="provider_error", message="overloaded")


def result(*items: contents.Content, **fields: str | None) -> AgentResponseResult:
    return AgentResponseResult(contents=items, **fields)  # type: ignore[arg-type]


RESULTS = [
    result(contents.Reasoning(delta="think ")),
    result(contents.Text(delta="Hel")),
    result(contents.Reasoning(delta="more")),
    result(contents.Text(delta="lo")),
    result(contents.ToolCallStart(call_id="c1", name="f")),
    result(contents.Usage(usage=USAGE)),
    result(contents.Usage(usage=Usage())),  # an empty usage never erases a real one
    result(ERR),
    result(
        contents.ToolCallEnd(call_id="c1"),
        contents.ToolCalling(call_id="c1", name="f", arguments={"a": 1}, meta=META),
        id="r1",
        model="m1",
        finish_reason="tool_calls",
    ),
]


def test_aggregates_every_field() -> None:
    response = collect_agent_response(RESULTS)
    assert response.text == "Hello"
    assert response.reasoning_text == "think more"
    assert response.tool_calls == (ToolCall(id="c1", name="f", arguments={"a": 1}),)
    assert (response.id, response.model, response.finish_reason) == ("r1", "m1", "tool_calls")
    assert response.usage == USAGE
    assert response.source_agent_id == "agent-1"
    assert response.errors == (ERR,)
    assert response.tool_messages == ()
    (message,) = response.turn_transcript
    assert message.role == "assistant"
    assert message.content == "Hello"
    assert message.tool_calls == response.tool_calls
    assert message.blocks == (
        blocks.Reasoning(text="think "),
        blocks.Text(text="Hel"),
        blocks.Reasoning(text="more"),
        blocks.Text(text="lo"),
        blocks.ToolCall(id="c1", name="f", arguments={"a": 1}),
    )


def test_reasoning_is_none_when_empty_and_last_non_empty_id_wins() -> None:
    response = collect_agent_response(
        [
            result(contents.Text(delta="x"), id="a"),
            result(id="", model="m"),
            result(finish_reason=None),
        ]
    )
    assert response.reasoning_text is None
    assert (response.id, response.model, response.finish_reason) == ("a", "m", None)


def test_later_real_usage_replaces_earlier_usage() -> None:
    later = Usage(prompt_tokens=20, completion_tokens=1, total_tokens=21)
    assert (
        collect_agent_response(
            [result(contents.Usage(usage=USAGE)), result(contents.Usage(usage=later))]
        ).usage
        == later
    )


def test_raise_on_error_carries_the_whole_partial_response() -> None:
    with pytest.raises(AgentResponseError) as info:
        collect_agent_response(RESULTS, raise_on_error=True)
    assert info.value.response.text == "Hello"
    assert info.value.response.tool_calls[0].id == "c1"  # read to the end before raising
    assert "provider_error" in str(info.value)


def test_a_failing_stream_raises_with_what_arrived() -> None:
    def broken() -> Iterator[AgentResponseResult]:
        yield result(contents.Text(delta="partial"))
        raise ConnectionResetError("peer closed")

    with pytest.raises(AgentResponseError) as info:
        collect_agent_response(broken())
    assert info.value.response.text == "partial"
    assert isinstance(info.value.__cause__, ConnectionResetError)


def test_async_twin_gives_the_same_response() -> None:
    async def stream() -> AsyncIterator[AgentResponseResult]:
        for r in RESULTS:
            yield r

    assert asyncio.run(acollect_agent_response(stream())) == collect_agent_response(RESULTS)


def test_collector_response_at_any_point() -> None:
    collector = ResponseCollector()
    collector.add(RESULTS[1])
    assert collector.response().text == "Hel"
    collector.add(RESULTS[3])
    assert collector.response().text == "Hello"


def test_many_tiny_text_deltas_are_held_in_about_one_copy_of_the_text() -> None:
    """50,000 deltas of 2-3 characters: the collector holds the text in blocks, not one object
    per delta (each of which costs some 50 bytes more than its characters)."""
    source = "abcdefghij" * 13_000
    steps = [(i, i + 2 + i % 2) for i in range(0, len(source) - 3, 3)]
    tracemalloc.start()
    try:
        collector = ResponseCollector()
        for start, end in steps:
            collector.add_text(source[start:end])  # a new string each time, as a decoder gives
        reasoning = ResponseCollector()
        for start, end in steps:
            reasoning.add_reasoning_deltas([source[start:end], source[end : end + 1]])
        response = collector.response()
        thought = reasoning.response()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    text = "".join(source[start:end] for start, end in steps)
    assert response.text == text
    assert response.turn_transcript[0].blocks == (blocks.Text(text=text),)
    assert thought.reasoning_text == "".join(
        source[start:end] + source[end : end + 1] for start, end in steps
    )
    # Both texts and the blocks of both collectors at once; one object per delta was ~15x.
    held = sys.getsizeof(text) + sys.getsizeof(thought.reasoning_text)
    assert peak <= 3 * held
