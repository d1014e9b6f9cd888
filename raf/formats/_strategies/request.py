"""Hypothesis strategies of conversations, for the request half of each format. No IO.

:func:`conversations` draws a :class:`~raf.model.request.Conversation` that a format can
express (a :class:`Profile` says what that is: where system instructions go, which blocks an
assistant message may hold and in what order, how tool results are grouped), as turns of a
tool loop: a user message, then rounds of an assistant message that calls tools and the
messages answering each call id, then perhaps an answer. Each format's
``request_strategies`` module holds its profile. Messages are canonical
(:func:`raf.formats.conversation.message`), as the format's ``read_request`` makes them, so
``read_request(build_request(c)) == c`` is the property (tests/test_requests.py).

:func:`features` names what a conversation exercises (tool calls, parallel calls, results,
reasoning, signatures...), for ``hypothesis.event`` and for the test that every feature is
reached.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from raf.formats.conversation import message
from raf.model import blocks
from raf.model.blocks import Block
from raf.model.messages import ChatMessage, MessageRole
from raf.model.request import Conversation, RequestOptions, ToolSpec

__all__ = ["FEATURES", "Profile", "conversations", "features"]

_WORDS = st.sampled_from(
    ["Paris", "weather", "São Paulo", "42", "ok", "Let me check.", "☃", "done", "a\nb", '"q"']
)
TEXTS = st.lists(_WORDS, min_size=1, max_size=3).map(" ".join)
"""Non-empty texts (an empty text block is no block on most wires)."""

NAMES = st.sampled_from(["get_weather", "lookup", "search_docs", "f"])
SIGNATURES = st.text("ABCDEFGHabcdefgh0123456789+/=", min_size=4, max_size=24)
IDS = st.text("abcdefghijklmnopqrstuvwxyz0123456789", min_size=4, max_size=12)
_SCALARS = st.none() | st.booleans() | st.integers(-1000, 1000) | TEXTS
ARGUMENTS = st.dictionaries(
    st.sampled_from(["city", "unit", "n", "q", "tags"]), _SCALARS, max_size=3
)
"""Tool call arguments: JSON objects, as every format's calls take."""
SCHEMAS = st.sampled_from(
    [
        {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        {"type": "object", "properties": {}},
        {"type": "object", "properties": {"n": {"type": "integer"}}, "additionalProperties": False},
    ]
)

FEATURES = (
    "system",
    "tool_call",
    "parallel_calls",
    "tool_result",
    "tool_error",
    "reasoning",
    "signature",
    "redacted",
    "encrypted",
    "item_id",
    "image",
    "raw_block",
    "tool",
    "raw_tool",
    "max_tokens",
    "extra",
)
"""Every feature :func:`features` names."""


@dataclass(frozen=True)
class Profile:
    """What a format can express, for :func:`conversations`.

    Attributes:
        assistant: draws the blocks of an assistant message around its ``calls`` (the
            format's order and kinds of blocks).
        call: draws a tool call (id, name, arguments and the format's extras).
        result: draws the result answering a call.
        results_per_message: ``"one"``: each result is its own tool message; ``"all"``: the
            results of a round are one tool message.
        user_parts: draws the blocks of a user message.
        system: ``"leading"``: at most one system message, first, of one text; ``"any"``:
            system messages anywhere.
        tools: draws the tools (function tools first, then built-in ones).
        options: draws the options.
        names: whether user, system and assistant messages may carry a ``name``.
        system_parts: draws the blocks of a system message after the first (one to three
            texts when ``None``).
    """

    assistant: Callable[[st.DrawFn, list[Block]], list[Block]]
    call: Callable[[st.DrawFn, int], blocks.ToolCall]
    result: Callable[[st.DrawFn, blocks.ToolCall], blocks.ToolResult]
    results_per_message: str
    user_parts: Callable[[st.DrawFn], list[Block]]
    system: str
    tools: Callable[[st.DrawFn], list[ToolSpec]]
    options: Callable[[st.DrawFn], RequestOptions]
    names: bool = False
    system_parts: Callable[[st.DrawFn], list[Block]] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def text_parts(draw: st.DrawFn) -> list[Block]:
    """One to three non-empty text blocks."""
    return [blocks.Text(text=t) for t in draw(st.lists(TEXTS, min_size=1, max_size=3))]


def function_tools(draw: st.DrawFn, extras: st.SearchStrategy[dict[str, Any]]) -> list[ToolSpec]:
    """Function tools of distinct names, each with a schema and perhaps a description."""
    names = draw(st.lists(NAMES, unique=True, max_size=3))
    return [
        ToolSpec(
            name=name,
            description=draw(st.none() | TEXTS),
            parameters=draw(SCHEMAS),
            extra=draw(extras),
        )
        for name in names
    ]


@st.composite
def conversations(draw: st.DrawFn, profile: Profile) -> Conversation:
    """A conversation the format of ``profile`` can express (module docstring)."""
    messages: list[ChatMessage] = []

    def named() -> str | None:
        return draw(st.none() | st.just("ann")) if profile.names else None

    if draw(st.booleans()):
        messages.append(message(MessageRole.SYSTEM, [blocks.Text(text=draw(TEXTS))], name=named()))
    ordinal = 0
    for _ in range(draw(st.integers(1, 2))):
        if profile.system == "any" and draw(st.integers(0, 5)) == 0:
            parts = (profile.system_parts or text_parts)(draw)
            messages.append(message(MessageRole.SYSTEM, parts, name=named()))
        messages.append(message(MessageRole.USER, profile.user_parts(draw), name=named()))
        for _ in range(draw(st.integers(0, 2))):
            calls = []
            for _ in range(draw(st.integers(1, 3))):
                calls.append(profile.call(draw, ordinal))
                ordinal += 1
            held = profile.assistant(draw, list(calls))
            messages.append(message(MessageRole.ASSISTANT, held, name=named()))
            results = [profile.result(draw, call) for call in calls]
            if profile.results_per_message == "all":
                messages.append(message(MessageRole.TOOL, results))
            else:
                messages.extend(message(MessageRole.TOOL, [r]) for r in results)
        if draw(st.booleans()):
            held = profile.assistant(draw, [])
            if held:
                messages.append(message(MessageRole.ASSISTANT, held, name=named()))
    tools = profile.tools(draw)
    return Conversation(messages=tuple(messages), tools=tuple(tools), options=profile.options(draw))


def features(conversation: Conversation) -> set[str]:
    """The :data:`FEATURES` a conversation exercises."""
    found: set[str] = set()
    for chat in conversation.messages:
        if chat.role is MessageRole.SYSTEM:
            found.add("system")
        calls = [b for b in chat.blocks if isinstance(b, blocks.ToolCall)]
        if calls:
            found.add("tool_call")
        if len(calls) > 1:
            found.add("parallel_calls")
        for block in chat.blocks:
            found |= _block_features(block)
    for tool in conversation.tools:
        found.add("raw_tool" if tool.raw is not None else "tool")
    if conversation.options.max_tokens is not None:
        found.add("max_tokens")
    if conversation.options.extra:
        found.add("extra")
    return found


def _block_features(block: Block) -> set[str]:
    found: set[str] = set()
    if isinstance(block, blocks.ToolResult):
        found.add("tool_result")
        if block.is_error:
            found.add("tool_error")
    elif isinstance(block, blocks.Reasoning):
        found.add("reasoning")
        if block.redacted is not None:
            found.add("redacted")
        if block.encrypted_content is not None:
            found.add("encrypted")
        if block.item_id is not None:
            found.add("item_id")
    elif isinstance(block, blocks.Image):
        found.add("image")
    elif isinstance(block, blocks.Raw):
        found.add("raw_block")
    if isinstance(block, blocks.ToolCall) and block.item_id is not None:
        found.add("item_id")
    signed = blocks.Text | blocks.Reasoning | blocks.ToolCall | blocks.HostedTool
    if isinstance(block, signed) and block.signature is not None:
        found.add("signature")
    return found
