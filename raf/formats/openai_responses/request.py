"""The request half of ``openai_responses``: a Responses API body built from a conversation,
and read back. Pure functions, no IO; reading never raises on a JSON object
(docs/requests.md).

Built: a first system message as ``instructions``, later ones as ``system`` message items;
user and assistant text as message items; an assistant message's other blocks as items in
their order, so that a reasoning item (its ``id``, ``summary`` parts and, under
``store: false``, its ``encrypted_content``) comes immediately before the ``function_call``
items it belongs to; each call as a ``function_call`` item (``call_id``, ``name``,
``arguments`` as a JSON string, and its ``fc_...`` ``id`` when it had one); each result as a
``function_call_output`` item answering ``call_id``; tools as ``{"type": "function", name,
description, parameters}``; ``max_tokens`` as ``max_output_tokens``.

Read: the items of ``input`` in order; a run of assistant items (message, reasoning,
function call, and items raf does not model, kept whole as
:class:`~raf.model.blocks.Raw`) is one assistant message; each ``function_call_output`` is a
tool message.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from raf.formats.conversation import (
    SKIP,
    arguments_text,
    arguments_value,
    blocks_of,
    message,
    modeled_lists,
    options_and_extra,
    put_options,
    raw_message,
    whole_raw,
)
from raf.model import blocks
from raf.model.blocks import Block
from raf.model.messages import ChatMessage, MessageRole
from raf.model.request import Conversation, ToolSpec

__all__ = ["build_request", "read_request"]

MAX_TOKENS: Final = "max_output_tokens"
_ROLES: Final = {
    "system": MessageRole.SYSTEM,
    "developer": MessageRole.SYSTEM,
    "user": MessageRole.USER,
    "assistant": MessageRole.ASSISTANT,
}
_TEXT_PART: Final = {"assistant": "output_text"}
_TOOL_MEMBERS: Final = ("type", "name", "description", "parameters")


# ---------------------------------------------------------------------------- building


def build_request(conversation: Conversation) -> dict[str, Any]:
    """The Responses API body a correct client sends for ``conversation``."""
    messages = conversation.messages
    body: dict[str, Any] = {}
    if messages and messages[0].role is MessageRole.SYSTEM:
        held = blocks_of(messages[0])
        body["instructions"] = "".join(b.text for b in held if isinstance(b, blocks.Text))
        messages = messages[1:]
    items: list[Any] = []
    for chat in messages:
        items.extend(_items(chat))
    body["input"] = items
    if conversation.tools:
        body["tools"] = [_tool(tool) for tool in conversation.tools]
    return put_options(body, conversation.options, max_tokens=MAX_TOKENS)


def _items(chat: ChatMessage) -> list[Any]:
    held = blocks_of(chat)
    if whole_raw(held, ("role",)) and chat.role is not MessageRole.ASSISTANT:
        return [held[0].value]  # type: ignore[union-attr]
    plain = not any(isinstance(b, blocks.ToolResult) for b in held)
    if chat.role in (MessageRole.SYSTEM, MessageRole.USER) and plain:
        return [{"role": chat.role.value, "content": _content(chat.role.value, held)}]
    out: list[Any] = []
    texts: list[Block] = []
    for block in held:
        if isinstance(block, blocks.Text | blocks.Image):
            texts.append(block)
            continue
        if texts:
            out.append({"role": "assistant", "content": _content("assistant", texts)})
            texts = []
        item = _item(block)
        if isinstance(block, blocks.HostedTool) and isinstance(item, list):
            out.extend(item)
        elif item is not SKIP:
            out.append(item)
    if texts:
        role = "assistant" if chat.role is MessageRole.ASSISTANT else "user"
        out.append({"role": role, "content": _content(role, texts)})
    return out


def _content(role: str, held: tuple[Block, ...] | list[Block]) -> Any:
    if len(held) == 1 and isinstance(held[0], blocks.Text):
        return held[0].text
    parts: list[Any] = []
    for block in held:
        if isinstance(block, blocks.Text):
            parts.append({"type": _TEXT_PART.get(role, "input_text"), "text": block.text})
        elif isinstance(block, blocks.Image):
            url = block.url or f"data:{block.media_type or 'image/png'};base64,{block.data or ''}"
            parts.append({"type": "input_image", "image_url": url})
        elif isinstance(block, blocks.Raw):
            parts.append(block.value)
    return parts if parts else ""


def _item(block: Block) -> Any:
    if isinstance(block, blocks.Reasoning):
        if block.redacted is not None or (block.signature is not None and block.item_id is None):
            return SKIP  # another provider's reasoning: the API cannot take it
        item: dict[str, Any] = {"type": "reasoning"}
        if block.item_id is not None:
            item["id"] = block.item_id
        parts = block.summary or ((block.text,) if block.text else ())
        item["summary"] = [{"type": "summary_text", "text": text} for text in parts]
        if block.encrypted_content is not None:
            item["encrypted_content"] = block.encrypted_content
        return item
    if isinstance(block, blocks.ToolCall):
        call: dict[str, Any] = {
            "type": "function_call",
            "call_id": block.id,
            "name": block.name,
            "arguments": arguments_text(block.arguments),
        }
        if block.item_id is not None:
            call["id"] = block.item_id
        return call
    if isinstance(block, blocks.ToolResult):
        output = block.content
        if not isinstance(output, str | list):
            output = arguments_text(output)
        return {"type": "function_call_output", "call_id": block.call_id, "output": output}
    if isinstance(block, blocks.HostedTool):
        return block.item
    return block.value if isinstance(block, blocks.Raw) else SKIP


def _tool(tool: ToolSpec) -> Any:
    if tool.raw is not None:
        return tool.raw
    wire: dict[str, Any] = {"type": "function", "name": tool.name}
    if tool.description is not None:
        wire["description"] = tool.description
    if tool.parameters is not None:
        wire["parameters"] = tool.parameters
    wire.update(tool.extra)
    return wire


# ----------------------------------------------------------------------------- reading


def read_request(body: Mapping[str, Any]) -> Conversation:
    """The conversation, tools and options of a Responses API body. Never raises on a JSON
    object: what raf does not model is kept (:class:`~raf.model.blocks.Raw`,
    ``options.extra``), a member of a wrong type included."""
    modeled = modeled_lists(body, "input", "tools")
    if isinstance(body.get("input"), str):
        modeled.append("input")
    instructions = body.get("instructions")
    if isinstance(instructions, str):
        modeled.append("instructions")
    options, _ = options_and_extra(body, modeled, max_tokens=MAX_TOKENS)
    messages: list[ChatMessage] = []
    if isinstance(instructions, str):
        held = [blocks.Text(text=instructions)] if instructions else []
        messages.append(message(MessageRole.SYSTEM, held))
    if "input" in modeled:
        given = body["input"]
        if isinstance(given, str):
            given = [{"role": "user", "content": given}]
        messages.extend(_read_items(given))
    tools = [_read_tool(t) for t in body["tools"]] if "tools" in modeled else []
    return Conversation(messages=tuple(messages), tools=tuple(tools), options=options)


def _read_items(items: list[Any]) -> list[ChatMessage]:
    out: list[ChatMessage] = []
    run: list[Block] = []  # the assistant items of the current run

    def close() -> None:
        if run:
            out.append(message(MessageRole.ASSISTANT, list(run)))
            run.clear()

    for item in items:
        chat = _read_message_item(item)
        if chat is not None and chat.role is not MessageRole.ASSISTANT:
            close()
            out.append(chat)
        elif chat is not None:
            run.extend(chat.blocks)
        elif isinstance(item, dict) and item.get("role") in ("user", "system", "developer"):
            close()  # a message item raf does not model: kept whole, in its place
            out.append(raw_message(item, _ROLES[item["role"]]))
        elif isinstance(item, dict) and _is_output(item):
            close()
            result = blocks.ToolResult(call_id=item["call_id"], content=item["output"])
            out.append(message(MessageRole.TOOL, [result]))
        else:
            run.append(_read_assistant_item(item))
    close()
    return out


def _read_message_item(item: Any) -> ChatMessage | None:
    if not isinstance(item, dict):
        return None
    keys = item.keys() - ({"type"} if item.get("type") == "message" else set())
    role_name = item.get("role")
    role = _ROLES.get(role_name) if isinstance(role_name, str) else None
    if role is None or keys != {"role", "content"}:
        return None
    content = item["content"]
    if isinstance(content, str):
        return message(role, [blocks.Text(text=content)] if content else [])
    if not isinstance(content, list):
        return None
    held: list[Block] = []
    for part in content:
        if (
            isinstance(part, dict)
            and part.keys() == {"type", "text"}
            and part["type"] == _TEXT_PART.get(role_name, "input_text")  # type: ignore[arg-type]
            and isinstance(part["text"], str)
        ):
            held.append(blocks.Text(text=part["text"]))
        elif role is MessageRole.ASSISTANT:
            return None  # an output message raf does not model: kept whole
        else:
            held.append(blocks.Raw(value=part))
    return message(role, held)


def _is_output(item: dict[str, Any]) -> bool:
    return (
        item.keys() == {"type", "call_id", "output"}
        and item["type"] == "function_call_output"
        and isinstance(item["call_id"], str)
        and isinstance(item["output"], str | list)
    )


def _read_assistant_item(item: Any) -> Block:
    if not isinstance(item, dict):
        return blocks.Raw(value=item)
    kind = item.get("type")
    keys = item.keys()
    if (
        kind == "function_call"
        and {"type", "call_id", "name", "arguments"}
        <= keys
        <= {"type", "call_id", "name", "arguments", "id"}
        and isinstance(item["call_id"], str)
        and isinstance(item["name"], str)
        and isinstance(item["arguments"], str)
        and isinstance(item.get("id", ""), str)
    ):
        return blocks.ToolCall(
            id=item["call_id"],
            name=item["name"],
            arguments=arguments_value(item["arguments"]),
            item_id=item.get("id"),
        )
    if (
        kind == "reasoning"
        and {"type", "summary"} <= keys <= {"type", "summary", "id", "encrypted_content"}
        and isinstance(item.get("id", ""), str)
        and isinstance(item.get("encrypted_content", ""), str)
        and isinstance(item["summary"], list)
        and all(
            isinstance(p, dict)
            and p.keys() == {"type", "text"}
            and p["type"] == "summary_text"
            and isinstance(p["text"], str)
            for p in item["summary"]
        )
    ):
        parts = tuple(p["text"] for p in item["summary"])
        return blocks.Reasoning(
            text="".join(parts),
            summary=parts,
            item_id=item.get("id"),
            encrypted_content=item.get("encrypted_content"),
        )
    return blocks.Raw(value=item)


def _read_tool(wire: Any) -> ToolSpec:
    if (
        not isinstance(wire, dict)
        or wire.get("type") != "function"
        or not isinstance(wire.get("name"), str)
        or not isinstance(wire.get("description"), str | None)
    ):
        name = wire.get("name", wire.get("type")) if isinstance(wire, dict) else None
        return ToolSpec(name=name if isinstance(name, str) else "", raw=wire)
    extra = {k: v for k, v in wire.items() if k not in _TOOL_MEMBERS}
    return ToolSpec(
        name=wire["name"],
        description=wire.get("description"),
        parameters=wire.get("parameters"),
        extra=extra,
    )
