"""Conversations ``gemini`` requests express, for the request-half properties
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
        "signature",
        "system",
        "tool",
        "tool_call",
        "tool_result",
    }
)
"""What these conversations exercise (:func:`raf.formats._strategies.request.features`)."""

_SIGNED = st.none() | SIGNATURES


def _assistant(draw: st.DrawFn, calls: list[Block]) -> list[Block]:
    held: list[Block] = []
    if draw(st.booleans()):
        held.append(blocks.Reasoning(text=draw(TEXTS), signature=draw(_SIGNED)))
    if not calls or draw(st.booleans()):
        texts = draw(st.lists(TEXTS, min_size=1, max_size=3))
        held.extend(blocks.Text(text=t, signature=draw(_SIGNED)) for t in texts)
    if draw(st.integers(0, 7)) == 0:
        code = {"executableCode": {"language": "PYTHON", "code": "print(1)"}}
        held.append(blocks.Raw(value=code))
    held += calls
    if draw(st.integers(0, 5)) == 0:  # a last empty part that only carries a signature
        held.append(blocks.Text(text="", signature=draw(SIGNATURES)))
    return held


def _call(draw: st.DrawFn, ordinal: int) -> blocks.ToolCall:
    call_id = draw(st.just("") | IDS.map(lambda s: f"call_{s}{ordinal}"))
    return blocks.ToolCall(
        id=call_id, name=draw(NAMES), arguments=draw(ARGUMENTS), signature=draw(_SIGNED)
    )


def _result(draw: st.DrawFn, call: blocks.ToolCall) -> blocks.ToolResult:
    content = {"result": draw(TEXTS)} if draw(st.booleans()) else draw(ARGUMENTS)
    return blocks.ToolResult(call_id=call.id, content=content, name=call.name)


def _user(draw: st.DrawFn) -> list[Block]:
    held = text_parts(draw)
    if draw(st.integers(0, 4)) == 0:
        image = draw(
            st.sampled_from(
                [
                    blocks.Image(url="gs://bucket/a.png", media_type="image/png"),
                    blocks.Image(data="iVBORw0KGgo=", media_type="image/png"),
                ]
            )
        )
        held.insert(draw(st.integers(0, len(held))), image)
    if draw(st.integers(0, 6)) == 0:
        held.append(blocks.Raw(value={"videoMetadata": {"startOffset": "1s"}}))
    return held


def _tools(draw: st.DrawFn) -> list[ToolSpec]:
    # The function tools first: the builder sends them as one functionDeclarations tool.
    tools = function_tools(draw, st.just({}))
    for raw in draw(st.lists(st.sampled_from(["googleSearch", "codeExecution"]), unique=True)):
        tools.append(ToolSpec(name=raw, raw={raw: {}}))
    return tools


_EXTRA: dict[str, Any] = {
    "generationConfig": {"temperature": 0.2, "thinkingConfig": {"includeThoughts": True}},
    "toolConfig": {"functionCallingConfig": {"mode": "AUTO"}},
    "safetySettings": [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}],
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
"""What a generateContent request expresses."""


def requests() -> st.SearchStrategy[Conversation]:
    """Conversations a generateContent request expresses."""
    return conversations(PROFILE)
