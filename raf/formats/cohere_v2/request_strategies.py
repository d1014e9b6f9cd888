"""Conversations ``cohere_v2`` requests express, for the request-half properties
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
        "system",
        "tool",
        "tool_call",
        "tool_result",
    }
)
"""What these conversations exercise (:func:`raf.formats._strategies.request.features`)."""


def _text(draw: st.DrawFn) -> list[Block]:
    # A message's content is one string: one text block at most.
    return [blocks.Text(text=draw(TEXTS))]


_CITATION: dict[str, Any] = {
    "start": 0,
    "end": 5,
    "text": "Paris",
    "sources": [{"type": "document", "id": "doc:0", "document": {"id": "doc:0"}}],
    "type": "TEXT_CONTENT",
}


def _assistant(draw: st.DrawFn, calls: list[Block]) -> list[Block]:
    held = _assistant_parts(draw, calls)
    if draw(st.integers(0, 4)) == 0:  # a citation streamed with the answer, sent back
        held.append(blocks.Raw(value=_CITATION))
    return held


def _assistant_parts(draw: st.DrawFn, calls: list[Block]) -> list[Block]:
    # The reader's order. With calls: the tool plan (one reasoning block), the text, the
    # calls. Without: thinking items and text items in any order, or one text. Citations
    # come last.
    if calls:
        held: list[Block] = []
        if draw(st.booleans()):
            held.append(blocks.Reasoning(text=draw(TEXTS)))
        if draw(st.booleans()):
            held.extend(_text(draw))
        return held + calls
    if not draw(st.booleans()):
        return _text(draw)
    kinds = draw(st.lists(st.booleans(), min_size=1, max_size=3))
    if True not in kinds:
        kinds.append(True)  # at least one thinking item: else the content is one string
    return [
        blocks.Reasoning(text=draw(TEXTS)) if thinking else blocks.Text(text=draw(TEXTS))
        for thinking in kinds
    ]


def _call(draw: st.DrawFn, ordinal: int) -> blocks.ToolCall:
    name = draw(NAMES)
    call_id = draw(IDS.map(lambda s: f"{name}_{s}{ordinal}"))
    return blocks.ToolCall(id=call_id, name=name, arguments=draw(ARGUMENTS))


def _result(draw: st.DrawFn, call: blocks.ToolCall) -> blocks.ToolResult:
    return blocks.ToolResult(call_id=call.id, content=draw(TEXTS))


def _user(draw: st.DrawFn) -> list[Block]:
    if draw(st.integers(0, 7)) == 0:
        # A message of content items (an image, a document) is kept whole, as it came.
        parts = [
            {"type": "text", "text": draw(TEXTS)},
            {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}},
        ]
        return [blocks.Raw(value={"role": "user", "content": parts})]
    return _text(draw)


def _tools(draw: st.DrawFn) -> list[ToolSpec]:
    tools = function_tools(draw, st.just({}))
    if draw(st.integers(0, 5)) == 0:  # not a function tool: kept as it came
        tools.append(ToolSpec(name="web_search", raw={"type": "web_search"}))
    return tools


_EXTRA: dict[str, Any] = {
    "thinking": {"type": "enabled", "token_budget": 2048},
    "documents": [{"id": "doc:0", "data": {"text": "Paris is in France."}}],
    "temperature": 0.3,
    "p": 0.75,
    "stop_sequences": ["END"],
    "safety_mode": "CONTEXTUAL",
}


def _options(draw: st.DrawFn) -> RequestOptions:
    keys = draw(st.lists(st.sampled_from(sorted(_EXTRA)), unique=True, max_size=3))
    return RequestOptions(
        model=draw(st.none() | st.sampled_from(["command-a-03-2025", "command-r-plus"])),
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
    system_parts=_text,
)
"""What a ``/v2/chat`` request expresses."""


def requests() -> st.SearchStrategy[Conversation]:
    """Conversations a ``/v2/chat`` request expresses."""
    return conversations(PROFILE)
