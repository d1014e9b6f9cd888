"""The request half of ``openai_chat``: a Chat Completions body built from a conversation, and
read back. Pure functions, no IO; reading never raises on a JSON object (docs/requests.md).

Built: system messages as ``system`` messages; an assistant message with its text as
``content`` (``null`` when it only calls tools), its calls as ``tool_calls`` (ids kept,
``arguments`` as a JSON string) and its reasoning as ``reasoning_content`` (DeepSeek's field:
its thinking mode requires the reasoning of a turn that called tools back with the calls;
other providers ignore it); each tool result as its own ``tool`` message answering
``tool_call_id``; tools as ``{"type": "function", "function": {...}}``; ``max_tokens`` as
``max_completion_tokens``. ``stream_options`` is an option like any other (``extra``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from raf.formats.conversation import (
    arguments_text,
    arguments_value,
    blocks_of,
    message,
    modeled_lists,
    options_and_extra,
    put_options,
    raw_message,
    read_function_tool,
    whole_raw,
)
from raf.model import blocks
from raf.model.blocks import Block
from raf.model.messages import ChatMessage, MessageRole
from raf.model.request import Conversation, ToolSpec

__all__ = ["build_request", "read_request"]

MAX_TOKENS: Final = "max_completion_tokens"
_MODELED: Final = ("messages", "tools")
_ROLES: Final = {
    "system": MessageRole.SYSTEM,
    "developer": MessageRole.SYSTEM,
    "user": MessageRole.USER,
    "assistant": MessageRole.ASSISTANT,
    "tool": MessageRole.TOOL,
}
_MEMBERS: Final = {
    "system": {"role", "content", "name"},
    "developer": {"role", "content", "name"},
    "user": {"role", "content", "name"},
    "assistant": {"role", "content", "name", "tool_calls", "reasoning_content"},
    "tool": {"role", "content", "tool_call_id", "name"},
}


# ---------------------------------------------------------------------------- building


def build_request(conversation: Conversation) -> dict[str, Any]:
    """The Chat Completions body a correct client sends for ``conversation``."""
    body: dict[str, Any] = {"messages": _messages(conversation.messages)}
    if conversation.tools:
        body["tools"] = [_tool(tool) for tool in conversation.tools]
    return put_options(body, conversation.options, max_tokens=MAX_TOKENS)


def _messages(messages: tuple[ChatMessage, ...]) -> list[Any]:
    out: list[Any] = []
    for chat in messages:
        held = blocks_of(chat)
        if whole_raw(held, ("role",)):
            out.append(held[0].value)  # type: ignore[union-attr]
        elif chat.role is MessageRole.TOOL or (
            chat.role is MessageRole.USER and any(isinstance(b, blocks.ToolResult) for b in held)
        ):
            # each result its own tool message; a user message's other parts after them
            out.extend(
                _tool_message(b, chat.name) for b in held if isinstance(b, blocks.ToolResult)
            )
            rest = tuple(b for b in held if not isinstance(b, blocks.ToolResult))
            if rest:
                out.append({"role": "user", "content": _content(rest)})
        elif chat.role is MessageRole.ASSISTANT:
            out.append(_assistant(chat, held))
        else:
            wire: dict[str, Any] = {"role": chat.role.value, "content": _content(held)}
            if chat.name is not None:
                wire["name"] = chat.name
            out.append(wire)
    return out


def _content(held: tuple[Block, ...]) -> Any:
    parts = [b for b in held if isinstance(b, blocks.Text | blocks.Image | blocks.Raw)]
    if not parts:
        return ""
    if len(parts) == 1 and isinstance(parts[0], blocks.Text):
        return parts[0].text
    return [_part(part) for part in parts]


def _part(part: Block) -> Any:
    if isinstance(part, blocks.Text):
        return {"type": "text", "text": part.text}
    if isinstance(part, blocks.Image):
        url = part.url
        if url is None:
            url = f"data:{part.media_type or 'image/png'};base64,{part.data or ''}"
        return {"type": "image_url", "image_url": {"url": url}}
    return part.value if isinstance(part, blocks.Raw) else None


def _assistant(chat: ChatMessage, held: tuple[Block, ...]) -> dict[str, Any]:
    wire: dict[str, Any] = {"role": "assistant"}
    content = _content(held)
    calls = [b for b in held if isinstance(b, blocks.ToolCall)]
    wire["content"] = None if content == "" and calls else content
    if chat.name is not None:
        wire["name"] = chat.name
    reasoning = [b for b in held if isinstance(b, blocks.Reasoning) and b.redacted is None]
    if reasoning:
        wire["reasoning_content"] = "".join(b.text for b in reasoning)
    if calls:
        wire["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": arguments_text(call.arguments)},
            }
            for call in calls
        ]
    return wire


def _tool_message(result: blocks.ToolResult, name: str | None = None) -> dict[str, Any]:
    content = result.content
    if not isinstance(content, str | list):
        content = arguments_text(content)
    wire = {"role": "tool", "tool_call_id": result.call_id, "content": content}
    if name is not None:  # the tool's name, which some clients send (litellm) and the API takes
        wire["name"] = name
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
    """The conversation, tools and options of a Chat Completions body. Never raises on a
    JSON object: what raf does not model is kept (:class:`~raf.model.blocks.Raw`,
    ``options.extra``), a member of a wrong type included."""
    modeled = modeled_lists(body, *_MODELED)
    options, _ = options_and_extra(body, modeled, max_tokens=MAX_TOKENS)
    messages = (
        [_read_message(m) for m in body.get("messages") or ()] if "messages" in modeled else []
    )
    tools = [read_function_tool(t) for t in body.get("tools") or ()] if "tools" in modeled else []
    return Conversation(messages=tuple(messages), tools=tuple(tools), options=options)


def _present(value: Mapping[str, Any]) -> dict[str, Any]:
    return {key: item for key, item in value.items() if item is not None}


def _read_message(wire: Any) -> ChatMessage:
    if not isinstance(wire, dict):
        return raw_message(wire)
    role_name = wire.get("role")
    role = _ROLES.get(role_name) if isinstance(role_name, str) else None
    present = _present(wire)
    if role is None or not set(present) <= _MEMBERS[str(role_name)]:
        return raw_message(wire, role or MessageRole.USER)
    name = present.get("name")
    if name is not None and not isinstance(name, str):
        return raw_message(wire, role)
    content = present.get("content", "")
    if role is MessageRole.TOOL:
        call_id = present.get("tool_call_id")
        if not isinstance(call_id, str) or not isinstance(content, str | list):
            return raw_message(wire, role)
        return message(role, (blocks.ToolResult(call_id=call_id, content=content),), name=name)
    held = _read_content(content)
    if held is None:
        return raw_message(wire, role)
    if role is MessageRole.ASSISTANT:
        reasoning = present.get("reasoning_content")
        calls = _read_calls(present.get("tool_calls", []))
        if calls is None or not isinstance(reasoning, str | None):
            return raw_message(wire, role)
        first = [blocks.Reasoning(text=reasoning)] if reasoning is not None else []
        held = [*first, *held, *calls]
    return message(role, held, name=name)


def _read_content(content: Any) -> list[Block] | None:
    if isinstance(content, str):
        return [blocks.Text(text=content)] if content else []
    if not isinstance(content, list):
        return None
    out: list[Block] = []
    for part in content:
        if isinstance(part, dict) and part.keys() == {"type", "text"} and part["type"] == "text":
            text = part["text"]
            out.append(blocks.Text(text=text) if isinstance(text, str) else blocks.Raw(value=part))
        elif (
            isinstance(part, dict)
            and part.keys() == {"type", "image_url"}
            and part["type"] == "image_url"
            and isinstance(part["image_url"], dict)
            and part["image_url"].keys() == {"url"}
            and isinstance(part["image_url"]["url"], str)
            and not part["image_url"]["url"].startswith("data:")
        ):
            out.append(blocks.Image(url=part["image_url"]["url"]))
        else:
            out.append(blocks.Raw(value=part))
    return out


def _read_calls(calls: Any) -> list[Block] | None:
    if not isinstance(calls, list):
        return None
    out: list[Block] = []
    for call in calls:
        if not (
            isinstance(call, dict)
            and _present(call).keys() == {"id", "type", "function"}
            and call["type"] == "function"
            and isinstance(call["id"], str)
            and isinstance(call["function"], dict)
            and call["function"].keys() == {"name", "arguments"}
            and isinstance(call["function"]["name"], str)
            and isinstance(call["function"]["arguments"], str)
        ):
            return None
        function = call["function"]
        arguments = arguments_value(function["arguments"])
        out.append(blocks.ToolCall(id=call["id"], name=function["name"], arguments=arguments))
    return out
