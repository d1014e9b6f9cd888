"""Conversations ``openai_chat`` requests express, for the request-half properties
(:mod:`raf.formats._strategies.request`). No IO."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from raf.formats._strategies.request import (
    ARGUMENTS,
    IDS,
    NAMES,
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
        "system",
        "tool",
        "tool_call",
        "tool_result",
    }
)
"""What these conversations exercise (:func:`raf.formats._strategies.request.features`)."""


def _assistant(draw: st.DrawFn, calls: list[Block]) -> list[Block]:
    # The wire's order: reasoning_content, then the content's parts, then tool_calls.
    held: list[Block] = []
    if draw(st.booleans()):
        held.append(blocks.Reasoning(text=draw(st.just("") | TEXTS)))
    if not calls or draw(st.booleans()):
        held.extend(text_parts(draw))
    if draw(st.integers(0, 7)) == 0:
        held.append(blocks.Raw(value={"type": "refusal", "refusal": draw(TEXTS)}))
    return held + calls


def _call(draw: st.DrawFn, ordinal: int) -> blocks.ToolCall:
    return blocks.ToolCall(
        id=f"call_{draw(IDS)}{ordinal}", name=draw(NAMES), arguments=draw(ARGUMENTS)
    )


def _result(draw: st.DrawFn, call: blocks.ToolCall) -> blocks.ToolResult:
    return blocks.ToolResult(call_id=call.id, content=draw(TEXTS))


def _user(draw: st.DrawFn) -> list[Block]:
    held = text_parts(draw)
    if draw(st.integers(0, 4)) == 0:
        held.insert(draw(st.integers(0, len(held))), blocks.Image(url="https://example.com/a.png"))
    if draw(st.integers(0, 6)) == 0:
        audio = {"type": "input_audio", "input_audio": {"data": "UklGR", "format": "wav"}}
        held.append(blocks.Raw(value=audio))
    return held


def _tools(draw: st.DrawFn) -> list[ToolSpec]:
    tools = function_tools(draw, st.sampled_from([{}, {"strict": True}]))
    if draw(st.integers(0, 4)) == 0:
        builtin = {"type": "openrouter:web_search", "parameters": {"max_uses": 2}}
        tools.append(ToolSpec(name="openrouter:web_search", raw=builtin))
    return tools


_EXTRA: dict[str, Any] = {
    "temperature": 0.5,
    "tool_choice": "auto",
    "stream_options": {"include_usage": True},
    "parallel_tool_calls": False,
}


def _options(draw: st.DrawFn) -> RequestOptions:
    keys = draw(st.lists(st.sampled_from(sorted(_EXTRA)), unique=True, max_size=3))
    return RequestOptions(
        model=draw(st.none() | st.sampled_from(["gpt-4o", "deepseek-chat"])),
        stream=draw(st.booleans()),
        max_tokens=draw(st.none() | st.integers(1, 4096)),
        extra={key: _EXTRA[key] for key in keys},
    )


PROFILE = Profile(
    assistant=_assistant,
    call=_call,
    result=_result,
    results_per_message="one",
    user_parts=_user,
    system="any",
    tools=_tools,
    options=_options,
    names=True,
)
"""What a Chat Completions request expresses."""


def requests() -> st.SearchStrategy[Conversation]:
    """Conversations a Chat Completions request expresses."""
    return conversations(PROFILE)
