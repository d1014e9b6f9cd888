"""Conversations ``ollama_chat`` requests express, for the request-half properties
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

_IMAGES = st.sampled_from(["iVBORw0KGgo=", "R0lGODlhAQABAAAAACw=", "aGk="])
"""Base64 image data, as Ollama takes it (no media type, no URL)."""


def _text(draw: st.DrawFn) -> list[Block]:
    # A message's content is one string: one text block at most.
    return [blocks.Text(text=draw(TEXTS))]


def _assistant(draw: st.DrawFn, calls: list[Block]) -> list[Block]:
    # The reader's order: thinking, content, tool_calls.
    held: list[Block] = []
    if draw(st.booleans()):
        held.append(blocks.Reasoning(text=draw(st.just("") | TEXTS)))
    if not calls or draw(st.booleans()):
        held.extend(_text(draw))
    return held + calls


def _call(draw: st.DrawFn, ordinal: int) -> blocks.ToolCall:
    # An older Ollama sends calls without an id; a newer one gives each an id to send back.
    call_id = draw(st.just("") | IDS.map(lambda s: f"call_{s}{ordinal}"))
    return blocks.ToolCall(id=call_id, name=draw(NAMES), arguments=draw(ARGUMENTS))


def _result(draw: st.DrawFn, call: blocks.ToolCall) -> blocks.ToolResult:
    return blocks.ToolResult(call_id=call.id, content=draw(TEXTS), name=call.name)


def _user(draw: st.DrawFn) -> list[Block]:
    if draw(st.integers(0, 7)) == 0:
        # A message in another format's shape (content parts) is kept whole, as it came.
        parts = [{"type": "text", "text": draw(TEXTS)}]
        return [blocks.Raw(value={"role": "user", "content": parts})]
    held = _text(draw) if draw(st.integers(0, 5)) else []
    if not held or draw(st.integers(0, 3)) == 0:  # images after the text, as the reader has them
        images = draw(st.lists(_IMAGES, min_size=1, max_size=2))
        held.extend(blocks.Image(data=image) for image in images)
    return held


def _tools(draw: st.DrawFn) -> list[ToolSpec]:
    tools = function_tools(draw, st.just({}))
    if draw(st.integers(0, 5)) == 0:  # not a function tool: kept as it came
        tools.append(ToolSpec(name="web_search", raw={"type": "web_search"}))
    return tools


_EXTRA: dict[str, Any] = {
    "think": True,
    "format": {"type": "object", "properties": {"answer": {"type": "string"}}},
    "keep_alive": "5m",
    "options": {"temperature": 0.2, "num_ctx": 8192},
}


def _options(draw: st.DrawFn) -> RequestOptions:
    keys = draw(st.lists(st.sampled_from(sorted(_EXTRA)), unique=True, max_size=3))
    return RequestOptions(
        model=draw(st.none() | st.sampled_from(["qwen3:8b", "llama3.2:3b"])),
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
"""What an ``/api/chat`` request expresses."""


def requests() -> st.SearchStrategy[Conversation]:
    """Conversations an ``/api/chat`` request expresses."""
    return conversations(PROFILE)
