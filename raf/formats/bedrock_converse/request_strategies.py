"""Conversations ``bedrock_converse`` requests express, for the request-half properties
(:mod:`raf.formats._strategies.request`). No IO."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from raf.formats._strategies.request import (
    ARGUMENTS,
    IDS,
    NAMES,
    SIGNATURES,
    TEXTS,
    Profile,
    conversations,
    function_tools,
    text_parts,
)
from raf.model import blocks
from raf.model.blocks import Block
from raf.model.request import Conversation, RequestOptions, ToolSpec

__all__ = ["FEATURES", "PROFILE", "requests"]

FEATURES = frozenset(
    {
        "extra",
        "image",
        "max_tokens",
        "parallel_calls",
        "raw_block",
        "raw_tool",
        "reasoning",
        "redacted",
        "signature",
        "system",
        "tool",
        "tool_call",
        "tool_error",
        "tool_result",
    }
)
"""What these conversations exercise (:func:`raf.formats._strategies.request.features`)."""


def _reasoning(draw: st.DrawFn) -> Block:
    choice = draw(st.integers(0, 3))
    if choice == 0:
        return blocks.Reasoning(redacted=draw(SIGNATURES))
    if choice == 1:  # a model that signs nothing (gpt-oss, DeepSeek)
        return blocks.Reasoning(text=draw(TEXTS))
    return blocks.Reasoning(text=draw(TEXTS), signature=draw(SIGNATURES))


def _assistant(draw: st.DrawFn, calls: list[Block]) -> list[Block]:
    # Reasoning first (Claude's order: the signed block before the text and calls), then
    # texts, then the calls.
    held: list[Block] = [_reasoning(draw) for _ in range(draw(st.integers(0, 2)))]
    held += [blocks.Text(text=draw(TEXTS)) for _ in range(draw(st.integers(0, 2)))]
    if not calls and not held:
        held.append(blocks.Text(text=draw(TEXTS)))
    return held + calls


def _call(draw: st.DrawFn, ordinal: int) -> blocks.ToolCall:
    call_id = draw(IDS.map(lambda s: f"tooluse_{s}{ordinal}"))
    return blocks.ToolCall(id=call_id, name=draw(NAMES), arguments=draw(ARGUMENTS))


def _result(draw: st.DrawFn, call: blocks.ToolCall) -> blocks.ToolResult:
    content: Any = draw(TEXTS) if draw(st.booleans()) else draw(ARGUMENTS)
    return blocks.ToolResult(call_id=call.id, content=content, is_error=draw(st.booleans()))


def _user(draw: st.DrawFn) -> list[Block]:
    held = text_parts(draw)
    if draw(st.integers(0, 5)) == 0:
        held.append(blocks.Image(data="iVBORw0KGgo=", media_type="image/png"))
    if draw(st.integers(0, 5)) == 0:  # a block raf does not model: kept as it came
        held.append(blocks.Raw(value={"cachePoint": {"type": "default"}}))
    return held


def _tools(draw: st.DrawFn) -> list[ToolSpec]:
    tools = function_tools(draw, st.just({}))
    if draw(st.integers(0, 5)) == 0:  # not a function tool: kept as it came
        tools.append(ToolSpec(name="cachePoint", raw={"cachePoint": {"type": "default"}}))
    return tools


_EXTRA: dict[str, Any] = {
    "inferenceConfig": {"temperature": 0.2, "topP": 0.9, "stopSequences": ["END"]},
    "additionalModelRequestFields": {"thinking": {"type": "enabled", "budget_tokens": 1024}},
    "guardrailConfig": {"guardrailIdentifier": "gr-1", "guardrailVersion": "1"},
    "performanceConfig": {"latency": "optimized"},
}


def _options(draw: st.DrawFn) -> RequestOptions:
    keys = draw(st.lists(st.sampled_from(sorted(_EXTRA)), unique=True, max_size=3))
    # The model and streaming are in the URL: a body read has none and streams.
    return RequestOptions(
        model=None,
        stream=True,
        max_tokens=draw(st.none() | st.integers(1, 4096)),
        extra={key: _EXTRA[key] for key in keys},
    )


PROFILE = Profile(
    assistant=_assistant,
    call=_call,
    result=_result,
    results_per_message="all",
    user_parts=_user,
    system="leading",
    tools=_tools,
    options=_options,
)
"""What a Converse request expresses."""


def requests() -> st.SearchStrategy[Conversation]:
    """Conversations a Converse request expresses."""
    return conversations(PROFILE)
