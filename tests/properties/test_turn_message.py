"""For any generated stream of any format, the turn's message (``turn_transcript``) is its
response seen block by block: its Text blocks add up to the text, its Reasoning blocks to the
reasoning, every call and hosted call has its block, it keeps every signature, encrypted or
redacted reasoning, reasoning item id and call id the body carried, and it is the same
through ``respond`` and ``collect_agent_response(run(...))``."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from raf.testing.strategies.common import GeneratedStream

from raf.collect import collect_agent_response
from raf.model import blocks
from raf.model.canonical import to_canonical
from raf.model.messages import ChatMessage
from raf.pipeline import respond, run
from raf.testing.strategies import anthropic_messages, gemini, openai_chat, openai_responses
from tests.test_turn_transcript import message_values, missing, wire_values

FORMATS = {
    "openai_chat": openai_chat.streams,
    "anthropic_messages": anthropic_messages.streams,
    "openai_responses": openai_responses.streams,
    "gemini": gemini.streams,
}


@pytest.mark.parametrize("dialect", sorted(FORMATS))
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_turn_message_is_the_response_block_by_block(dialect: str, data: st.DataObject) -> None:
    stream: GeneratedStream = data.draw(FORMATS[dialect]())
    response = respond(list(stream.chunks), dialect)
    collected = collect_agent_response(run(list(stream.chunks), dialect))
    assert to_canonical(response.turn_transcript) == to_canonical(collected.turn_transcript)
    if not response.turn_transcript:
        assert (response.text, response.reasoning_text, response.tool_calls) == ("", None, ())
        empty = ChatMessage.assistant("")
        assert missing(wire_values(stream.body), message_values(empty)) == {}
        return
    (message,) = response.turn_transcript
    parts = message.blocks
    assert message.content == response.text
    assert "".join(b.text for b in parts if isinstance(b, blocks.Text)) == response.text
    reasoning = "".join(b.text for b in parts if isinstance(b, blocks.Reasoning))
    assert reasoning == (response.reasoning_text or "")
    calls = Counter((b.name, repr(b.arguments)) for b in parts if isinstance(b, blocks.ToolCall))
    assert Counter((c.name, repr(c.arguments)) for c in response.tool_calls) <= calls
    assert [b.id for b in parts if isinstance(b, blocks.HostedTool)] == [
        h.id for h in response.hosted_tool_calls
    ]
    assert missing(wire_values(stream.body), message_values(message)) == {}
