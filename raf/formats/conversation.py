"""What the request halves of the formats share: the canonical message of a list of blocks,
the blocks of any message, and the small readers that never raise. Pure functions, no IO.

A message read from a request is *canonical* (:func:`message`): its ``blocks`` hold every part
in order and the RAF fields are views of them (``content`` the text, ``tool_calls`` the calls,
``tool_call_id`` the one call a tool message answers). A builder accepts any message
(:func:`blocks_of`): one with blocks is built from its blocks, a RAF message without blocks
(``ChatMessage.tool("...", "call_1")``) from its ``content``, ``tool_calls`` and
``tool_call_id``. docs/requests.md describes the rules.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final

import msgspec

from raf.limits import DEFAULT_MAX_JSON_DEPTH
from raf.model import blocks
from raf.model.blocks import Block
from raf.model.messages import ChatMessage, MessageRole
from raf.model.messages import ToolCall as CallView
from raf.model.request import RequestOptions, ToolSpec
from raf.safe_json import too_deep

__all__ = [
    "SKIP",
    "arguments_text",
    "arguments_value",
    "blocks_of",
    "is_synthetic_id",
    "message",
    "modeled_lists",
    "options_and_extra",
    "put_options",
    "raw_message",
    "read_function_tool",
    "spread_parts",
    "text_of",
    "user_assistant_messages",
    "whole_raw",
]


class _Skip:
    """What a builder's part function returns for a block the format cannot take."""

    def __repr__(self) -> str:
        return "SKIP"


SKIP: Final = _Skip()
"""A block the format cannot take (another provider's opaque reasoning): not sent. Never
``None``, which is a value a kept :class:`~raf.model.blocks.Raw` part may have."""

_SYNTHETIC: Final = re.compile(r"__tc_\d+")
"""The ids raf gives calls that came without one (raf.converter.synthetic_call_id)."""


def is_synthetic_id(call_id: str | None) -> bool:
    """Whether ``call_id`` is no provider's id: empty, or one raf made up for a call the
    provider sent without an id (Gemini): a builder does not send it."""
    return not call_id or _SYNTHETIC.fullmatch(call_id) is not None


def text_of(parts: Iterable[Block]) -> str:
    """The text view of blocks: the text of the text blocks, and of a tool message the text
    of its results (JSON results as compact JSON)."""
    out: list[str] = []
    for block in parts:
        if isinstance(block, blocks.Text):
            out.append(block.text)
        elif isinstance(block, blocks.ToolResult):
            content = block.content
            out.append(content if isinstance(content, str) else arguments_text(content))
    return "".join(out)


def message(role: MessageRole, parts: Iterable[Block], *, name: str | None = None) -> ChatMessage:
    """The canonical message of ``role`` holding ``parts``: ``content`` is their text,
    ``tool_calls`` their calls (``None`` without any), ``tool_call_id`` the call a tool
    message of exactly one result answers."""
    held = tuple(parts)
    calls = tuple(
        CallView(id=b.id, name=b.name, arguments=b.arguments)
        for b in held
        if isinstance(b, blocks.ToolCall)
    )
    results = [b for b in held if isinstance(b, blocks.ToolResult)]
    texts = [b for b in held if isinstance(b, blocks.Text | blocks.ToolResult)]
    return ChatMessage(
        role=role,
        content=text_of(
            texts if role is MessageRole.TOOL else [b for b in held if isinstance(b, blocks.Text)]
        ),
        name=name,
        tool_calls=calls or None,
        tool_call_id=results[0].call_id if role is MessageRole.TOOL and len(results) == 1 else None,
        blocks=held,
    )


def raw_message(value: Any, role: MessageRole = MessageRole.USER) -> ChatMessage:
    """A whole wire message raf does not model, kept as it came (:func:`whole_raw`)."""
    return ChatMessage(role=role, content="", blocks=(blocks.Raw(value=value),))


def whole_raw(held: tuple[Block, ...], keys: Iterable[str]) -> bool:
    """Whether a message holds a whole wire message (:func:`raw_message`): its only block is
    a :class:`~raf.model.blocks.Raw` whose value is not an object, or is an object with one
    of ``keys`` (members only a whole message has: ``role``...)."""
    if len(held) != 1 or not isinstance(held[0], blocks.Raw):
        return False
    value = held[0].value
    return not isinstance(value, dict) or any(key in value for key in keys)


def blocks_of(chat: ChatMessage) -> tuple[Block, ...]:
    """The blocks a builder sends for a message: its ``blocks``, or for a message without
    any, its text, calls and tool result."""
    if chat.blocks:
        return chat.blocks
    out: list[Block] = []
    if chat.role is MessageRole.TOOL:
        return (blocks.ToolResult(call_id=chat.tool_call_id or "", content=chat.content),)
    if chat.content:
        out.append(blocks.Text(text=chat.content))
    out.extend(
        blocks.ToolCall(id=call.id, name=call.name, arguments=call.arguments)
        for call in chat.tool_calls or ()
    )
    return tuple(out)


def arguments_text(arguments: Any) -> str:
    """Tool call arguments as the JSON text a wire sends: a string is sent as it is (raw
    arguments that were not JSON), anything else as compact JSON (``None``: ``{}``)."""
    if isinstance(arguments, str):
        return arguments
    if arguments is None:
        return "{}"
    try:
        return msgspec.json.encode(arguments).decode()
    except (TypeError, OverflowError, msgspec.EncodeError):  # pragma: no cover - JSON values
        return str(arguments)


def arguments_value(text: str) -> Any:
    """Arguments text read as the JSON value it holds, or the text itself when it holds
    none (a cut or invalid text, kept as it came); never raises."""
    if too_deep(text, DEFAULT_MAX_JSON_DEPTH):
        return text
    try:
        value = msgspec.json.decode(text)
    except (msgspec.DecodeError, RecursionError):
        return text
    # A string that is JSON of a string would come back as that string: keep the text.
    return text if isinstance(value, str) else value


def modeled_lists(body: Mapping[str, Any], *keys: str) -> list[str]:
    """Which of ``keys`` the body has as lists the request half reads (a tool list only when
    it is a non-empty list of objects: another stays in ``extra``, as the body had it)."""
    return [key for key in keys if isinstance(body.get(key), list) and _readable(key, body[key])]


def _readable(key: str, value: list[Any]) -> bool:
    # A tool that is not an object (``null`` above all) would be a ToolSpec whose ``raw``
    # says nothing: such a list stays in extra.
    return key != "tools" or (bool(value) and all(isinstance(tool, dict) for tool in value))


def options_and_extra(
    body: Mapping[str, Any],
    modeled: Iterable[str],
    *,
    model: str | None = "model",
    max_tokens: str | None = None,
    stream: str | None = "stream",
    default_stream: bool = False,
) -> tuple[RequestOptions, set[str]]:
    """The options of a request body: ``model``, ``stream`` and ``max_tokens`` from the
    members so named (when of the right type), every other member but ``modeled`` in
    ``extra``. Returns the options and the member names read (a member of a wrong type is
    not read: it stays in ``extra``)."""
    taken: set[str] = set()
    found_model = None
    if model is not None and isinstance(body.get(model), str):
        found_model = body[model]
        taken.add(model)
    found_stream = default_stream
    if stream is not None and body.get(stream) is True:
        found_stream = True  # an explicit false stays in extra: the body said it
        taken.add(stream)
    found_max = None
    if max_tokens is not None:
        value = body.get(max_tokens)
        if isinstance(value, int) and not isinstance(value, bool):
            found_max = value
            taken.add(max_tokens)
    skip = taken | set(modeled)
    extra = {key: value for key, value in body.items() if key not in skip}
    options = RequestOptions(
        model=found_model, stream=found_stream, max_tokens=found_max, extra=extra
    )
    return options, taken


def put_options(
    body: dict[str, Any],
    options: RequestOptions,
    *,
    model: str | None = "model",
    max_tokens: str | None = None,
    stream: str | None = "stream",
) -> dict[str, Any]:
    """``body`` with the options under the format's names (``stream`` only when true), then
    every member of ``extra`` (which wins: it is what the wire had)."""
    if model is not None and options.model is not None:
        body[model] = options.model
    if max_tokens is not None and options.max_tokens is not None:
        body[max_tokens] = options.max_tokens
    if stream is not None and options.stream:
        body[stream] = True
    body.update(options.extra)
    return body


def read_function_tool(wire: Any) -> ToolSpec:
    """A tool in the Chat Completions shape (``{"type": "function", "function": {name,
    description, parameters}}``, which Ollama and Cohere v2 share) as a :class:`ToolSpec`; any
    other shape kept whole as ``raw``, named by its ``type`` when it has one. Never raises."""
    function = wire.get("function") if isinstance(wire, dict) else None
    if (
        not isinstance(wire, dict)
        or wire.keys() != {"type", "function"}
        or wire["type"] != "function"
        or not isinstance(function, dict)
        or not isinstance(function.get("name"), str)
        or not isinstance(function.get("description"), str | None)
    ):
        kind = wire.get("type") if isinstance(wire, dict) else None
        return ToolSpec(name=kind if isinstance(kind, str) else "", raw=wire)
    extra = {k: v for k, v in function.items() if k not in ("name", "description", "parameters")}
    return ToolSpec(
        name=function["name"],
        description=function.get("description"),
        parameters=function.get("parameters"),
        extra=extra,
    )


def spread_parts(held: Iterable[Block], part: Callable[[Block], Any]) -> list[Any]:
    """The wire parts of ``held``, each made by ``part``: a hosted tool's list of parts spread
    in place, a :data:`SKIP` (nothing to send) left out."""
    out: list[Any] = []
    for block in held:
        made = part(block)
        if isinstance(block, blocks.HostedTool) and isinstance(made, list):
            out.extend(made)
        elif made is not SKIP:
            out.append(made)
    return out


def user_assistant_messages(
    messages: Iterable[ChatMessage],
    parts: Callable[[tuple[Block, ...]], Any],
    content: Callable[[tuple[Block, ...]], Any],
) -> list[Any]:
    """The ``messages`` of a format whose conversation alternates ``user`` and ``assistant``
    (Anthropic Messages, Bedrock Converse): system messages left out (the format sends them
    apart), a message kept whole as raw sent as it came, the results of one turn (consecutive
    tool messages, each made by ``parts``) in one user message, and every other message with
    its ``content``."""
    out: list[Any] = []
    results: list[Any] | None = None  # the open user message of tool results
    for chat in messages:
        if chat.role is MessageRole.SYSTEM:
            continue
        held = blocks_of(chat)
        if whole_raw(held, ("role",)):
            out.append(held[0].value)  # type: ignore[union-attr]
            results = None
            continue
        if chat.role is MessageRole.TOOL:
            made = parts(held)
            if results is not None:
                results.extend(made)  # one user message for all the results of a turn
            else:
                results = made
                out.append({"role": "user", "content": results})
            continue
        results = None
        role = "assistant" if chat.role is MessageRole.ASSISTANT else "user"
        out.append({"role": role, "content": content(held)})
    return out
