"""The request half of ``ollama_chat``: an ``/api/chat`` body built from a conversation, and
read back. Pure functions, no IO; reading never raises on a JSON object (docs/requests.md).

An Ollama chat request is ``{"model", "messages", "tools", "stream", "think", "format",
"keep_alive", "options": {"num_predict", "temperature", ...}}``. Its messages:

* ``{"role": "system" | "user", "content", "images": [<base64>]}``;
* ``{"role": "assistant", "content", "thinking", "tool_calls": [{"function": {"name",
  "arguments": {...}}}]}``: the arguments are an object, not JSON text; a call has an ``id``
  only when the client kept the one a newer Ollama sent;
* ``{"role": "tool", "content", "tool_name"}``: a tool result names the tool it answers
  (``tool_call_id`` too when the call had an id).

Built: messages where they are in the conversation (system messages included), each with its
text as one ``content`` string; an assistant message's reasoning as ``thinking`` and its calls
whole (arguments as an object, the call's ``id`` only when it is the provider's); each result
its own ``tool`` message with ``tool_name`` (the result's name, or the name of the call it
answers) and ``tool_call_id`` when the call had a provider's id; base64 images as ``images``;
``stream`` always (Ollama streams when it is absent); ``max_tokens`` as
``options.num_predict``, beside the other model options kept in ``extra``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from raf.formats.conversation import (
    arguments_text,
    blocks_of,
    is_synthetic_id,
    message,
    modeled_lists,
    options_and_extra,
    put_options,
    raw_message,
    read_function_tool,
    text_of,
)
from raf.model import blocks
from raf.model.blocks import Block
from raf.model.messages import ChatMessage, MessageRole
from raf.model.request import Conversation, RequestOptions, ToolSpec

__all__ = ["build_request", "read_request"]

_MODELED: Final = ("messages", "tools")
_MODEL_OPTIONS: Final = "options"
_MAX_TOKENS: Final = "num_predict"
_ROLES: Final = {
    "system": MessageRole.SYSTEM,
    "user": MessageRole.USER,
    "assistant": MessageRole.ASSISTANT,
    "tool": MessageRole.TOOL,
}
_MEMBERS: Final = {
    "system": {"role", "content", "images"},
    "user": {"role", "content", "images"},
    "assistant": {"role", "content", "images", "thinking", "tool_calls"},
    "tool": {"role", "content", "tool_name", "tool_call_id"},
}


# ---------------------------------------------------------------------------- building


def build_request(conversation: Conversation) -> dict[str, Any]:
    """The ``/api/chat`` body a correct client sends for ``conversation``: the follow-up after
    tool calls carries the assistant message with its ``thinking`` and whole calls, then one
    ``tool`` message per result."""
    names = {
        b.id: b.name
        for m in conversation.messages
        for b in blocks_of(m)
        if isinstance(b, blocks.ToolCall) and b.id
    }
    body: dict[str, Any] = {"messages": _messages(conversation.messages, names)}
    if conversation.tools:
        body["tools"] = [_tool(tool) for tool in conversation.tools]
    options = conversation.options
    extra = dict(options.extra)
    if options.max_tokens is not None:
        kept = extra.get(_MODEL_OPTIONS)
        extra[_MODEL_OPTIONS] = {
            **(kept if isinstance(kept, dict) else {}),
            _MAX_TOKENS: options.max_tokens,
        }
    body["stream"] = options.stream  # absent, Ollama streams: false must be said
    plain = RequestOptions(model=options.model, extra=extra)
    return put_options(body, plain, stream=None)


def _messages(messages: tuple[ChatMessage, ...], names: dict[str, str]) -> list[Any]:
    out: list[Any] = []
    for chat in messages:
        held = blocks_of(chat)
        if len(held) == 1 and isinstance(held[0], blocks.Raw):
            # A message holds no parts but its text: a kept Raw is a whole message.
            out.append(held[0].value)
            continue
        results = [b for b in held if isinstance(b, blocks.ToolResult)]
        if chat.role is MessageRole.TOOL or results:
            # each result its own tool message; a user message's other parts after them
            out.extend(_tool_message(result, names) for result in results)
            rest = tuple(b for b in held if not isinstance(b, blocks.ToolResult))
            if rest:
                out.append(_message("user", rest))
            continue
        out.append(_message(chat.role.value, held))
    return out


def _message(role: str, held: tuple[Block, ...]) -> dict[str, Any]:
    wire: dict[str, Any] = {"role": role, "content": text_of(held)}
    reasoning = [
        b
        for b in held
        if isinstance(b, blocks.Reasoning) and b.redacted is None and b.encrypted_content is None
    ]
    if reasoning:
        wire["thinking"] = "".join(b.text for b in reasoning)
    images = [b.data for b in held if isinstance(b, blocks.Image) and b.data is not None]
    if images:
        wire["images"] = images  # Ollama takes base64 data, not URLs: those are left out
    calls = [_call(b) for b in held if isinstance(b, blocks.ToolCall)]
    if calls:
        wire["tool_calls"] = calls
    return wire


def _call(call: blocks.ToolCall) -> dict[str, Any]:
    wire: dict[str, Any] = {}
    if not is_synthetic_id(call.id):
        wire["id"] = call.id
    arguments = {} if call.arguments is None else call.arguments
    wire["function"] = {"name": call.name, "arguments": arguments}
    return wire


def _tool_message(result: blocks.ToolResult, names: dict[str, str]) -> dict[str, Any]:
    content = result.content
    wire: dict[str, Any] = {
        "role": "tool",
        "content": content if isinstance(content, str) else arguments_text(content),
    }
    name = result.name if result.name is not None else names.get(result.call_id)
    if name is not None:
        wire["tool_name"] = name
    if not is_synthetic_id(result.call_id):
        wire["tool_call_id"] = result.call_id
    return wire


def _tool(tool: ToolSpec) -> Any:
    if tool.raw is not None:
        return tool.raw
    function: dict[str, Any] = {"name": tool.name}
    if tool.description is not None:
        function["description"] = tool.description
    if tool.parameters is not None:
        function["parameters"] = tool.parameters
    function.update(tool.extra)
    return {"type": "function", "function": function}


# ----------------------------------------------------------------------------- reading


def read_request(body: Mapping[str, Any]) -> Conversation:
    """The conversation, tools and options of an ``/api/chat`` body. Never raises on a JSON
    object: what raf does not model is kept (a whole message as a
    :class:`~raf.model.blocks.Raw`, a tool as ``ToolSpec.raw``, other members in
    ``options.extra``), a member of a wrong type included."""
    modeled = modeled_lists(body, *_MODELED)
    stream = body.get("stream")
    if isinstance(stream, bool):
        modeled.append("stream")
    options, _ = options_and_extra(body, modeled, stream=None)
    extra = dict(options.extra)
    max_tokens = None
    model_options = extra.get(_MODEL_OPTIONS)
    if isinstance(model_options, dict):
        limit = model_options.get(_MAX_TOKENS)
        if isinstance(limit, int) and not isinstance(limit, bool):
            max_tokens = limit
            rest = {k: v for k, v in model_options.items() if k != _MAX_TOKENS}
            if rest:
                extra[_MODEL_OPTIONS] = rest
            else:
                del extra[_MODEL_OPTIONS]
    options = RequestOptions(
        model=options.model,
        stream=stream if isinstance(stream, bool) else True,
        max_tokens=max_tokens,
        extra=extra,
    )
    messages = [_read_message(m) for m in body["messages"]] if "messages" in modeled else []
    tools = [read_function_tool(t) for t in body["tools"]] if "tools" in modeled else []
    return Conversation(messages=tuple(messages), tools=tuple(tools), options=options)


def _read_message(wire: Any) -> ChatMessage:
    if not isinstance(wire, dict):
        return raw_message(wire)
    role_name = wire.get("role")
    role = _ROLES.get(role_name) if isinstance(role_name, str) else None
    if role is None or not set(wire) <= _MEMBERS[str(role_name)]:
        return raw_message(wire, role or MessageRole.USER)
    content = wire.get("content", "")
    if not isinstance(content, str):
        return raw_message(wire, role)
    if role is MessageRole.TOOL:
        name, call_id = wire.get("tool_name", ""), wire.get("tool_call_id", "")
        if not isinstance(name, str) or not isinstance(call_id, str):
            return raw_message(wire, role)
        name = wire.get("tool_name")
        return message(role, (blocks.ToolResult(call_id=call_id, content=content, name=name),))
    held: list[Block] = []
    if "thinking" in wire:
        thinking = wire["thinking"]
        if not isinstance(thinking, str):
            return raw_message(wire, role)
        held.append(blocks.Reasoning(text=thinking))
    if content:
        held.append(blocks.Text(text=content))
    images = wire.get("images", [])
    if not isinstance(images, list) or not all(isinstance(image, str) for image in images):
        return raw_message(wire, role)
    held.extend(blocks.Image(data=image) for image in images)
    calls = _read_calls(wire.get("tool_calls", []))
    if calls is None:
        return raw_message(wire, role)
    return message(role, [*held, *calls])


def _read_calls(calls: Any) -> list[Block] | None:
    if not isinstance(calls, list):
        return None
    out: list[Block] = []
    for call in calls:
        function = call.get("function") if isinstance(call, dict) else None
        if not (
            isinstance(call, dict)
            and {"function"} <= call.keys() <= {"id", "function"}
            and isinstance(call.get("id", ""), str)
            and isinstance(function, dict)
            and function.keys() == {"name", "arguments"}
            and isinstance(function["name"], str)
            and isinstance(function["arguments"], dict)
        ):
            return None
        out.append(
            blocks.ToolCall(
                id=call.get("id", ""), name=function["name"], arguments=function["arguments"]
            )
        )
    return out
