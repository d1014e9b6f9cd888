"""Conversations ``openai_responses`` requests express, for the request-half properties
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
        "encrypted",
        "extra",
        "item_id",
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


def _reasoning(draw: st.DrawFn) -> blocks.Reasoning:
    parts = tuple(draw(st.lists(TEXTS, max_size=3)))
    return blocks.Reasoning(
        text="".join(parts),
        summary=parts,
        item_id=draw(st.none() | IDS.map(lambda s: f"rs_{s}")),
        encrypted_content=draw(st.none() | SIGNATURES),
    )


def _assistant(draw: st.DrawFn, calls: list[Block]) -> list[Block]:
    held: list[Block] = []
    if not calls or draw(st.booleans()):
        held.extend(text_parts(draw))
    if draw(st.integers(0, 7)) == 0:
        search = {"type": "web_search_call", "id": "ws_1", "status": "completed"}
        held.append(blocks.Raw(value=search))
    if draw(st.booleans()):
        held.append(_reasoning(draw))  # immediately before the calls it belongs to
    return held + calls


def _call(draw: st.DrawFn, ordinal: int) -> blocks.ToolCall:
    return blocks.ToolCall(
        id=f"call_{draw(IDS)}{ordinal}",
        name=draw(NAMES),
        arguments=draw(ARGUMENTS),
        item_id=draw(st.none() | IDS.map(lambda s: f"fc_{s}")),
    )


def _result(draw: st.DrawFn, call: blocks.ToolCall) -> blocks.ToolResult:
    return blocks.ToolResult(call_id=call.id, content=draw(TEXTS))


def _user(draw: st.DrawFn) -> list[Block]:
    held = text_parts(draw)
    if draw(st.integers(0, 6)) == 0:
        held.append(blocks.Raw(value={"type": "input_file", "file_id": "file-1"}))
    return held


def _tools(draw: st.DrawFn) -> list[ToolSpec]:
    tools = function_tools(draw, st.sampled_from([{}, {"strict": True}]))
    if draw(st.integers(0, 4)) == 0:
        tools.append(ToolSpec(name="web_search", raw={"type": "web_search"}))
    return tools


_EXTRA: dict[str, Any] = {
    "store": False,
    "include": ["reasoning.encrypted_content"],
    "reasoning": {"effort": "low", "summary": "auto"},
    "tool_choice": "auto",
}


def _options(draw: st.DrawFn) -> RequestOptions:
    keys = draw(st.lists(st.sampled_from(sorted(_EXTRA)), unique=True, max_size=3))
    return RequestOptions(
        model=draw(st.none() | st.just("gpt-5")),
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
    system="leading",
    tools=_tools,
    options=_options,
)
"""What a Responses API request expresses."""


def requests() -> st.SearchStrategy[Conversation]:
    """Conversations a Responses API request expresses."""
    return conversations(PROFILE)
