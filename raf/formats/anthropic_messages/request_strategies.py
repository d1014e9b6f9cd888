"""Conversations ``anthropic_messages`` requests express, for the request-half properties
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


def _thinking(draw: st.DrawFn) -> Block:
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return blocks.Reasoning(redacted=draw(SIGNATURES))
    if kind == 1:  # display "omitted": an empty signed block, sent back unchanged
        return blocks.Reasoning(text="", signature=draw(SIGNATURES))
    return blocks.Reasoning(text=draw(TEXTS), signature=draw(SIGNATURES))


def _assistant(draw: st.DrawFn, calls: list[Block]) -> list[Block]:
    held = [_thinking(draw) for _ in range(draw(st.integers(0, 2)))]
    if not calls or draw(st.booleans()):
        held.extend(text_parts(draw))
    if draw(st.integers(0, 7)) == 0:
        server = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}
        held.append(blocks.Raw(value=server))
    return held + calls


def _call(draw: st.DrawFn, ordinal: int) -> blocks.ToolCall:
    return blocks.ToolCall(
        id=f"toolu_{draw(IDS)}{ordinal}", name=draw(NAMES), arguments=draw(ARGUMENTS)
    )


def _result(draw: st.DrawFn, call: blocks.ToolCall) -> blocks.ToolResult:
    return blocks.ToolResult(call_id=call.id, content=draw(TEXTS), is_error=draw(st.booleans()))


def _user(draw: st.DrawFn) -> list[Block]:
    held = text_parts(draw)
    if draw(st.integers(0, 4)) == 0:
        image = draw(
            st.sampled_from(
                [
                    blocks.Image(url="https://example.com/a.png"),
                    blocks.Image(data="iVBORw0KGgo=", media_type="image/png"),
                ]
            )
        )
        held.insert(draw(st.integers(0, len(held))), image)
    if draw(st.integers(0, 6)) == 0:
        text = {"type": "text", "text": "cached", "cache_control": {"type": "ephemeral"}}
        held.append(blocks.Raw(value=text))
    return held


def _tools(draw: st.DrawFn) -> list[ToolSpec]:
    tools = function_tools(draw, st.sampled_from([{}, {"cache_control": {"type": "ephemeral"}}]))
    if draw(st.integers(0, 4)) == 0:
        builtin = {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}
        tools.append(ToolSpec(name="web_search", raw=builtin))
    return tools


_EXTRA: dict[str, Any] = {
    "temperature": 0.5,
    "tool_choice": {"type": "auto"},
    "thinking": {"type": "enabled", "budget_tokens": 1024},
    "metadata": {"user_id": "u1"},
}


def _options(draw: st.DrawFn) -> RequestOptions:
    keys = draw(st.lists(st.sampled_from(sorted(_EXTRA)), unique=True, max_size=3))
    return RequestOptions(
        model=draw(st.none() | st.just("claude-sonnet-4-5")),
        stream=draw(st.booleans()),
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
"""What a Messages API request expresses."""


def requests() -> st.SearchStrategy[Conversation]:
    """Conversations a Messages API request expresses."""
    return conversations(PROFILE)
