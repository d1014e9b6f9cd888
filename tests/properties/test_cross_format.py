"""One logical response, five wire formats, one aggregate.

The same response (text, reasoning, tool calls with their arguments, a finish reason, usage)
is put on the wire as Chat Completions, Anthropic Messages, OpenAI Responses, Gemini and
Ollama streams, each the way its servers send it, framed and cut into network reads by each
format's strategies. Every one must aggregate to the same ``AgentResponse``, modulo what a
format cannot express, which each strategies module documents and applies to its ground
truth: call ids (Gemini and most Ollama versions send none, so raf names them
``__tc_<n>``), and the finish reason of a turn with calls (Gemini, Ollama and Responses say
"stop"/"completed"; raf reads ``tool_calls``). Legacy Completions carries no reasoning and no
calls, so it is not one of them. So the comparison is of the text, the reasoning, the calls' names and
arguments in order, the finish reason, and the usage totals.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from raf.formats._strategies.common import tool_calls, usages
from raf.formats.bedrock_converse import strategies as bedrock_converse
from raf.formats.gemini_interactions import strategies as gemini_interactions
from raf.formats.ollama_chat import strategies as ollama_chat
from raf.model import AgentResponse
from raf.pipeline import respond
from raf.testing.strategies import anthropic_messages, gemini, openai_chat, openai_responses

# Each format with a profile of a real server that streams reasoning.
FORMATS: dict[str, tuple[Any, str]] = {
    "openai_chat": (openai_chat, "deepseek"),
    "anthropic_messages": (anthropic_messages, "anthropic"),
    "openai_responses": (openai_responses, "openai"),
    "gemini": (gemini, "gemini_sse"),
    "ollama_chat": (ollama_chat, "ollama"),
    "bedrock_converse": (bedrock_converse, "claude"),
    "gemini_interactions": (gemini_interactions, "gemini_api"),
}


@st.composite
def logical_responses(draw: st.DrawFn) -> AgentResponse:
    """A response every format can express: text, reasoning, calls with provider ids, a finish
    reason consistent with the calls (or ``length``), usage or none."""
    calls = draw(tool_calls(3))
    finish = draw(st.sampled_from(["natural", "length"]))
    usage = draw(usages())
    return AgentResponse(
        text=draw(st.text(max_size=40)),
        reasoning_text=draw(st.text(min_size=1, max_size=30)) if draw(st.booleans()) else None,
        tool_calls=calls,
        finish_reason=("tool_calls" if calls else "stop") if finish == "natural" else "length",
        usage=usage,
    )


def logical(response: AgentResponse) -> tuple[Any, ...]:
    """What every format must agree on (see the module docstring)."""
    usage = response.usage
    return (
        response.text,
        response.reasoning_text,
        tuple((c.name, json.dumps(c.arguments, sort_keys=True)) for c in response.tool_calls),
        response.finish_reason,
        None
        if usage is None
        else (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens),
        tuple(e.error_code for e in response.errors),
    )


@given(logical_responses(), st.data())
def test_the_same_response_in_every_format_aggregates_to_the_same_response(
    truth: AgentResponse, data: st.DataObject
) -> None:
    seen: dict[str, tuple[Any, ...]] = {}
    for dialect, (module, profile) in FORMATS.items():
        stream = data.draw(module.render(truth, profile), label=dialect)
        got = respond(stream.chunks, dialect)
        # Each format carries what its strategies say it carries...
        assert logical(got) == logical(stream.response), dialect
        seen[dialect] = logical(got)
    # ... and that is the same response in all of them.
    assert len(set(seen.values())) == 1, seen
    assert seen["openai_chat"] == logical(truth)
