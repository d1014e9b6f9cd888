"""The request half of ``ollama_chat``: an ``/api/chat`` body from a conversation, and back.
Pure functions, no IO.

An Ollama chat request is ``{"model", "messages", "tools", "stream", "think", "format",
"keep_alive", "options": {"num_predict", "temperature", ...}}``. Its messages:

* ``{"role": "system" | "user", "content", "images": [<base64>]}``;
* ``{"role": "assistant", "content", "thinking", "tool_calls": [{"function": {"name",
  "arguments": {...}}}]}``: the arguments are an object, not JSON text; a call has an ``id``
  only when the client kept the one a newer Ollama sent;
* ``{"role": "tool", "content", "tool_name"}``: a tool result names the tool it answers
  (``tool_call_id`` too when the call had an id).

:func:`read_request` keeps what raf does not model: a message's other members as
:class:`~raf.model.blocks.Raw` blocks (``{member: value}``), a message that is not an object
as a ``Raw`` block of its own, every other top-level member in ``options.extra`` (``options``
without its ``num_predict``, which is ``max_tokens``). It never raises on a JSON object.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from raf.model import blocks
from raf.model.messages import ChatMessage, MessageRole, ToolCall
from raf.model.request import Conversation, RequestOptions, ToolSpec

__all__ = ["build_request", "read_request"]

_ROLES = {role.value: role for role in MessageRole}
_READ = frozenset(
    {"role", "content", "thinking", "tool_calls", "images", "tool_name", "tool_call_id"}
)


# -- building -------------------------------------------------------------------------------


def build_request(conversation: Conversation) -> dict[str, Any]:
    """The ``/api/chat`` body a correct client sends for ``conversation``: the follow-up after
    tool calls carries the assistant message with its ``thinking`` and whole calls (arguments
    as objects, the call ids Ollama gave), then one ``tool`` message per result."""
    options = conversation.options
    body: dict[str, Any] = {}
    if options.model is not None:
        body["model"] = options.model
    body["messages"] = [_message(message) for message in conversation.messages]
    if conversation.tools:
        body["tools"] = [_tool(tool) for tool in conversation.tools]
    body["stream"] = options.stream
    body.update(options.extra)  # think, format, keep_alive, options...: as read
    if options.max_tokens is not None:
        kept = body.get("options")
        body["options"] = {
            **(kept if isinstance(kept, dict) else {}),
            "num_predict": options.max_tokens,
        }
    return body


def _tool(tool: ToolSpec) -> dict[str, Any]:
    function: dict[str, Any] = {"name": tool.name}
    if tool.description is not None:
        function["description"] = tool.description
    if tool.parameters is not None:
        function["parameters"] = tool.parameters
    return {"type": "function", "function": function}


def _message(message: ChatMessage) -> Any:
    if len(message.blocks) == 1:
        only = message.blocks[0]
        if isinstance(only, blocks.Raw) and not isinstance(only.value, dict):
            return only.value  # a message that was not an object, as it came
    out: dict[str, Any] = {"role": message.role.value, "content": message.content}
    thinking = "".join(b.text for b in message.blocks if isinstance(b, blocks.Reasoning))
    if thinking:
        out["thinking"] = thinking
    calls = [_call(b) for b in message.blocks if isinstance(b, blocks.ToolCall)]
    if not calls and message.tool_calls:
        calls = [_call(c) for c in message.tool_calls]
    if calls:
        out["tool_calls"] = calls
    images = [b.data for b in message.blocks if isinstance(b, blocks.Image) and b.data]
    if images:
        out["images"] = images
    result = next((b for b in message.blocks if isinstance(b, blocks.ToolResult)), None)
    name = result.name if result is not None and result.name else message.name
    call_id = result.call_id if result is not None and result.call_id else message.tool_call_id
    if message.role is MessageRole.TOOL:
        if name:
            out["tool_name"] = name
        if call_id:
            out["tool_call_id"] = call_id
    for block in message.blocks:
        if isinstance(block, blocks.Raw) and isinstance(block.value, dict):
            out.update(block.value)
    return out


def _call(call: blocks.ToolCall | ToolCall) -> dict[str, Any]:
    arguments = call.arguments if call.arguments is not None else {}
    out: dict[str, Any] = {}
    if call.id:
        out["id"] = call.id
    out["function"] = {"name": call.name, "arguments": arguments}
    return out


# -- reading --------------------------------------------------------------------------------


def read_request(body: Mapping[str, Any]) -> Conversation:
    """The conversation, tools and options of an ``/api/chat`` body. Never raises."""
    if not isinstance(body, Mapping):
        return Conversation()
    raw_messages = body.get("messages")
    messages = tuple(
        _read_message(m) for m in (raw_messages if isinstance(raw_messages, list) else ())
    )
    raw_tools = body.get("tools")
    tools = tuple(
        _read_tool(t) for t in (raw_tools if isinstance(raw_tools, list) else ()) if t is not None
    )
    model = body.get("model")
    stream = body.get("stream")
    extra = {
        key: value
        for key, value in body.items()
        if key not in {"model", "messages", "tools", "stream", "options"}
        or (key == "messages" and not isinstance(value, list))
        or (key == "tools" and not isinstance(value, list))
        or (key == "model" and not isinstance(value, str))
        or (key == "stream" and not isinstance(value, bool))
    }
    max_tokens: int | None = None
    model_options = body.get("options")
    if isinstance(model_options, dict):
        predict = model_options.get("num_predict")
        if type(predict) is int:
            max_tokens = predict
            model_options = {k: v for k, v in model_options.items() if k != "num_predict"}
        if model_options:
            extra["options"] = model_options
    elif "options" in body:
        extra["options"] = model_options
    return Conversation(
        messages=messages,
        tools=tools,
        options=RequestOptions(
            model=model if isinstance(model, str) else None,
            stream=stream if isinstance(stream, bool) else True,
            max_tokens=max_tokens,
            extra=extra,
        ),
    )


def _read_tool(tool: Any) -> ToolSpec:
    function = tool.get("function") if isinstance(tool, dict) else None
    if not isinstance(function, dict):
        return ToolSpec(name="", parameters=tool)
    name = function.get("name")
    description = function.get("description")
    return ToolSpec(
        name=name if isinstance(name, str) else "",
        description=description if isinstance(description, str) else None,
        parameters=function.get("parameters"),
    )


def _read_message(message: Any) -> ChatMessage:
    if not isinstance(message, dict):
        return ChatMessage(role=MessageRole.USER, content="", blocks=(blocks.Raw(value=message),))
    role_name = message.get("role")
    role = _ROLES.get(role_name) if isinstance(role_name, str) else None
    content = message.get("content")
    text = content if isinstance(content, str) else ""
    parts: list[blocks.Block] = []
    thinking = message.get("thinking")
    if isinstance(thinking, str) and thinking:
        parts.append(blocks.Reasoning(text=thinking))
    if text:
        parts.append(blocks.Text(text=text))
    calls = _read_calls(message.get("tool_calls"))
    parts += [blocks.ToolCall(id=c.id, name=c.name, arguments=c.arguments) for c in calls]
    images = message.get("images")
    if isinstance(images, list) and all(isinstance(i, str) for i in images):
        parts += [blocks.Image(data=image) for image in images]
    name = message.get("tool_name")
    call_id = message.get("tool_call_id")
    name = name if isinstance(name, str) and name else None
    call_id = call_id if isinstance(call_id, str) and call_id else None
    if role is MessageRole.TOOL:
        parts = [p for p in parts if not isinstance(p, blocks.Text)]
        parts.insert(0, blocks.ToolResult(call_id=call_id or "", content=text, name=name))
    parts += [
        blocks.Raw(value={key: value})
        for key, value in message.items()
        if key not in _READ
        or (key == "role" and role is None)
        or (key == "content" and not isinstance(content, str))
        or (key == "thinking" and not isinstance(thinking, str))
        or (key == "tool_calls" and not calls and message.get("tool_calls") not in (None, []))
        or (key == "images" and not any(isinstance(p, blocks.Image) for p in parts))
        or (key == "tool_name" and (name is None or role is not MessageRole.TOOL))
        or (key == "tool_call_id" and (call_id is None or role is not MessageRole.TOOL))
    ]
    return ChatMessage(
        role=role or MessageRole.USER,
        content=text,
        name=name if role is MessageRole.TOOL else None,
        tool_calls=tuple(calls) or None,
        tool_call_id=call_id if role is MessageRole.TOOL else None,
        blocks=tuple(parts),
    )


def _read_calls(value: Any) -> list[ToolCall]:
    if not isinstance(value, list):
        return []
    calls: list[ToolCall] = []
    for entry in value:
        if not isinstance(entry, dict):
            return []  # not Ollama's calls: the member is kept whole
        function = entry.get("function")
        function = function if isinstance(function, dict) else {}
        call_id, name = entry.get("id"), function.get("name")
        calls.append(
            ToolCall(
                id=call_id if isinstance(call_id, str) else "",
                name=name if isinstance(name, str) else "",
                arguments=function.get("arguments"),
            )
        )
    return calls
