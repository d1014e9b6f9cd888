"""The request half of ``cohere_v2``: a ``/v2/chat`` body built from a conversation, and read
back. Pure functions, no IO; reading never raises on a JSON object (docs/requests.md).

A Cohere v2 chat request is ``{"model", "messages", "tools", "stream", "max_tokens",
"documents", "thinking", "temperature", "p", "k", "stop_sequences", ...}``. Its messages:

* ``{"role": "system" | "user", "content"}``, the content a string or a list of content
  items (text, image_url, document);
* ``{"role": "assistant", "content", "tool_plan", "tool_calls": [{"id", "type":
  "function", "function": {"name", "arguments": "<JSON text>"}}], "citations"}``: the
  content a string or a list of ``{"type": "text", "text"}`` and ``{"type": "thinking",
  "thinking"}`` items;
* ``{"role": "tool", "tool_call_id", "content"}``: one result answering one call.

Built: messages where they are in the conversation (system messages included), a message's
text as one ``content`` string; an assistant message's reasoning as its ``tool_plan`` when it
calls tools (the plan Cohere streamed before the calls) and as ``thinking`` content items
before its text otherwise (then the content is a list); its calls whole with their arguments
as JSON text; each result its own ``tool`` message; ``max_tokens`` as ``max_tokens``;
``stream: true`` when the options stream. The citations an answer streamed (``RawItem``s, raw blocks
of the turn) go back as the assistant message's ``citations``, as they came. Read: a message
of another shape (content items other than text and thinking, a member of a wrong type) is
kept whole.
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
    text_of,
    whole_raw,
)
from raf.model import blocks
from raf.model.blocks import Block
from raf.model.messages import ChatMessage, MessageRole
from raf.model.request import Conversation, ToolSpec

__all__ = ["build_request", "read_request"]

_MODELED: Final = ("messages", "tools")
_MAX_TOKENS: Final = "max_tokens"
_ROLES: Final = {
    "system": MessageRole.SYSTEM,
    "user": MessageRole.USER,
    "assistant": MessageRole.ASSISTANT,
    "tool": MessageRole.TOOL,
}
_MEMBERS: Final = {
    "system": {"role", "content"},
    "user": {"role", "content"},
    "assistant": {"role", "content", "tool_plan", "tool_calls", "citations"},
    "tool": {"role", "content", "tool_call_id"},
}


# ---------------------------------------------------------------------------- building


def build_request(conversation: Conversation) -> dict[str, Any]:
    """The ``/v2/chat`` body a correct client sends for ``conversation``: the follow-up after
    tool calls carries the assistant message with its ``tool_plan`` and whole calls, then one
    ``tool`` message per result."""
    body: dict[str, Any] = {"messages": _messages(conversation.messages)}
    if conversation.tools:
        body["tools"] = [_tool(tool) for tool in conversation.tools]
    return put_options(body, conversation.options, max_tokens=_MAX_TOKENS)


def _messages(messages: tuple[ChatMessage, ...]) -> list[Any]:
    out: list[Any] = []
    for chat in messages:
        held = blocks_of(chat)
        lone = len(held) == 1 and isinstance(held[0], blocks.Raw)
        # A lone raw block is a whole message, but in an assistant message without a role
        # (a citation the turn streamed, and nothing else).
        if lone and (chat.role is not MessageRole.ASSISTANT or whole_raw(held, ("role",))):
            out.append(held[0].value)  # type: ignore[union-attr]
            continue
        results = [b for b in held if isinstance(b, blocks.ToolResult)]
        if chat.role is MessageRole.TOOL or results:
            out.extend(_tool_message(result) for result in results)
            rest = tuple(b for b in held if not isinstance(b, blocks.ToolResult))
            if rest:
                out.append({"role": "user", "content": text_of(rest)})
            continue
        if chat.role is MessageRole.ASSISTANT:
            out.append(_assistant(held))
        else:
            out.append({"role": chat.role.value, "content": text_of(held)})
    return out


def _assistant(held: tuple[Block, ...]) -> dict[str, Any]:
    # Reasoning that went to another provider in a form Cohere cannot take (a redacted or
    # encrypted block) is left out.
    reasoning = [
        b
        for b in held
        if isinstance(b, blocks.Reasoning) and b.redacted is None and b.encrypted_content is None
    ]
    calls = [b for b in held if isinstance(b, blocks.ToolCall)]
    # The citations Cohere streamed (raw items) go back as the message's citations.
    citations = [b.value for b in held if isinstance(b, blocks.Raw) and isinstance(b.value, dict)]
    text = text_of(held)
    wire: dict[str, Any] = {"role": "assistant"}
    if calls:
        if text:
            wire["content"] = text
        plan = "".join(b.text for b in reasoning)
        if plan:
            wire["tool_plan"] = plan
        wire["tool_calls"] = [_call(call) for call in calls]
        if citations:
            wire["citations"] = citations
        return wire
    items = [
        {"type": "thinking", "thinking": b.text}
        if isinstance(b, blocks.Reasoning)
        else {"type": "text", "text": b.text}
        for b in held
        if (isinstance(b, blocks.Reasoning) and b in reasoning) or isinstance(b, blocks.Text)
    ]
    wire["content"] = items if reasoning else text
    if citations:
        wire["citations"] = citations
    return wire


def _call(call: blocks.ToolCall) -> dict[str, Any]:
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": arguments_text(call.arguments)},
    }


def _tool_message(result: blocks.ToolResult) -> dict[str, Any]:
    content = result.content
    return {
        "role": "tool",
        "tool_call_id": result.call_id,
        "content": content if isinstance(content, str) else arguments_text(content),
    }


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
    """The conversation, tools and options of a ``/v2/chat`` body. Never raises on a JSON
    object: what raf does not model is kept (a whole message as a
    :class:`~raf.model.blocks.Raw`, a tool as ``ToolSpec.raw``, other members in
    ``options.extra``), a member of a wrong type included."""
    modeled = modeled_lists(body, *_MODELED)
    options, _ = options_and_extra(body, modeled, max_tokens=_MAX_TOKENS)
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
    if role is MessageRole.TOOL:
        call_id = wire.get("tool_call_id")
        if not isinstance(content, str) or not isinstance(call_id, str):
            return raw_message(wire, role)
        return message(role, (blocks.ToolResult(call_id=call_id, content=content),))
    if role is not MessageRole.ASSISTANT:
        if not isinstance(content, str):
            return raw_message(wire, role)  # content items: kept as they came
        return message(role, (blocks.Text(text=content),) if content else ())
    held: list[Block] = []
    plan = wire.get("tool_plan", "")
    if not isinstance(plan, str):
        return raw_message(wire, role)
    if plan:
        held.append(blocks.Reasoning(text=plan))
    items = _read_items(content)
    if items is None:
        return raw_message(wire, role)
    held.extend(items)
    calls = _read_calls(wire.get("tool_calls", []))
    citations = wire.get("citations", [])
    if (
        calls is None
        or not isinstance(citations, list)
        or not all(isinstance(citation, dict) for citation in citations)
    ):
        return raw_message(wire, role)
    return message(role, [*held, *calls, *(blocks.Raw(value=c) for c in citations)])


def _read_items(content: Any) -> list[Block] | None:
    """An assistant's content: a string, or text and thinking items; ``None``: another
    shape."""
    if isinstance(content, str):
        return [blocks.Text(text=content)] if content else []
    if not isinstance(content, list):
        return None
    out: list[Block] = []
    for item in content:
        if isinstance(item, dict) and item.keys() == {"type", "text"} and item["type"] == "text":
            if not isinstance(item["text"], str):
                return None
            out.append(blocks.Text(text=item["text"]))
        elif (
            isinstance(item, dict)
            and item.keys() == {"type", "thinking"}
            and item["type"] == "thinking"
            and isinstance(item["thinking"], str)
        ):
            out.append(blocks.Reasoning(text=item["thinking"]))
        else:
            return None
    return out


def _read_calls(calls: Any) -> list[Block] | None:
    if not isinstance(calls, list):
        return None
    out: list[Block] = []
    for call in calls:
        function = call.get("function") if isinstance(call, dict) else None
        if not (
            isinstance(call, dict)
            and call.keys() == {"id", "type", "function"}
            and call["type"] == "function"
            and isinstance(call["id"], str)
            and isinstance(function, dict)
            and function.keys() == {"name", "arguments"}
            and isinstance(function["name"], str)
            and isinstance(function["arguments"], str)
        ):
            return None
        arguments = arguments_value(function["arguments"])
        out.append(blocks.ToolCall(id=call["id"], name=function["name"], arguments=arguments))
    return out
