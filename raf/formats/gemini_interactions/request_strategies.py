"""Conversations ``gemini_interactions`` requests express, for the request-half properties
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
)
from raf.model import blocks
from raf.model.blocks import Block
from raf.model.request import Conversation, RequestOptions, ToolSpec

__all__ = ["FEATURES", "PROFILE", "requests"]

FEATURES = frozenset(
    {
        "extra",
        "max_tokens",
        "parallel_calls",
        "raw_block",
        "raw_tool",
        "reasoning",
        "signature",
        "system",
        "tool",
        "tool_call",
        "tool_error",
        "tool_result",
    }
)
"""What these conversations exercise (:func:`raf.formats._strategies.request.features`)."""

_CITATION: dict[str, Any] = {
    "type": "url_citation",
    "url": "https://example.com/paris",
    "title": "example.com",
    "start_index": 0,
    "end_index": 5,
}


def _texts(draw: st.DrawFn) -> list[Block]:
    return [blocks.Text(text=t) for t in draw(st.lists(TEXTS, min_size=1, max_size=2))]


def _thought(draw: st.DrawFn) -> blocks.Reasoning:
    # A thought is sent back with its signature (the one that also signs the call after it),
    # its summary or both.
    text = draw(st.just("") | TEXTS)
    signature = draw(SIGNATURES) if not text or draw(st.booleans()) else None
    return blocks.Reasoning(text=text, signature=signature)


def _assistant(draw: st.DrawFn, calls: list[Block]) -> list[Block]:
    held: list[Block] = []
    if draw(st.booleans()):
        held.append(_thought(draw))
    if not calls or draw(st.booleans()):
        held.extend(_texts(draw))
        if draw(st.integers(0, 4)) == 0:  # a citation streamed with the text, sent back
            held.append(blocks.Raw(value=_CITATION))
    return held + calls


def _call(draw: st.DrawFn, ordinal: int) -> blocks.ToolCall:
    signature = draw(st.none() | st.just(""))
    return blocks.ToolCall(
        id=draw(IDS.map(lambda s: f"{s}{ordinal}")),
        name=draw(NAMES),
        arguments=draw(ARGUMENTS),
        signature=signature,
    )


def _result(draw: st.DrawFn, call: blocks.ToolCall) -> blocks.ToolResult:
    content = draw(TEXTS | ARGUMENTS)
    return blocks.ToolResult(
        call_id=call.id, content=content, is_error=draw(st.booleans()), name=call.name
    )


def _user(draw: st.DrawFn) -> list[Block]:
    if draw(st.integers(0, 7)) == 0:
        # A step of content items other than text (an image) is kept whole, as it came.
        step = {
            "type": "user_input",
            "content": [
                {"type": "text", "text": draw(TEXTS)},
                {"type": "image", "uri": "https://example.com/cat.png", "mime_type": "image/png"},
            ],
        }
        return [blocks.Raw(value=step)]
    return _texts(draw)


def _tools(draw: st.DrawFn) -> list[ToolSpec]:
    tools = function_tools(draw, st.just({}))
    if draw(st.integers(0, 4)) == 0:  # a server tool: kept as it came
        tools.append(ToolSpec(name="google_search", raw={"type": "google_search"}))
    return tools


_EXTRA: dict[str, Any] = {
    "generation_config": {"temperature": 0.3, "thinking_level": "low"},
    "response_format": {"type": "text", "mime_type": "application/json"},
    "service_tier": "standard",
    "safety_settings": [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}],
}


def _options(draw: st.DrawFn) -> RequestOptions:
    keys = draw(st.lists(st.sampled_from(sorted(_EXTRA)), unique=True, max_size=3))
    return RequestOptions(
        model=draw(st.none() | st.sampled_from(["gemini-2.5-flash", "gemini-3-flash-preview"])),
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
"""What a stateless ``/interactions`` request expresses."""


def requests() -> st.SearchStrategy[Conversation]:
    """Conversations a stateless ``/interactions`` request expresses."""
    return conversations(PROFILE)
