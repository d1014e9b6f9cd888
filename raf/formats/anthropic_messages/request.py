"""The request half of ``anthropic_messages``: a Messages API body built from a conversation,
and read back. Pure functions, no IO; reading never raises on a JSON object
(docs/requests.md).

Built: system messages as ``system`` (a string, or text blocks); an assistant message as its
content blocks in order — ``thinking`` with its ``signature`` (an empty signed block of
``display: "omitted"`` included), ``redacted_thinking`` with its ``data``, ``text``,
``tool_use`` — where reasoning without a signature (another provider's) is left out, since
the API refuses it; the tool results of a turn as ``tool_result`` blocks answering
``tool_use_id``, all in ONE user message (consecutive tool messages are joined); tools as
``{name, description, input_schema}``; ``max_tokens`` as ``max_tokens``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from raf.formats.conversation import (
    SKIP,
    arguments_text,
    blocks_of,
    message,
    modeled_lists,
    options_and_extra,
    put_options,
    raw_message,
    spread_parts,
    user_assistant_messages,
)
from raf.model import blocks
from raf.model.blocks import Block
from raf.model.messages import ChatMessage, MessageRole
from raf.model.request import Conversation, ToolSpec

__all__ = ["build_request", "read_request"]

_MODELED: Final = ("messages", "tools", "system")
_ROLES: Final = {"user": MessageRole.USER, "assistant": MessageRole.ASSISTANT}
_TOOL_MEMBERS: Final = ("name", "description", "input_schema")


# ---------------------------------------------------------------------------- building


def build_request(conversation: Conversation) -> dict[str, Any]:
    """The Messages API body a correct client sends for ``conversation``."""
    system = [
        b for m in conversation.messages if m.role is MessageRole.SYSTEM for b in blocks_of(m)
    ]
    body: dict[str, Any] = {}
    if system:
        body["system"] = _system(system)
    body["messages"] = _messages(conversation.messages)
    if conversation.tools:
        body["tools"] = [_tool(tool) for tool in conversation.tools]
    return put_options(body, conversation.options, max_tokens="max_tokens")


def _system(held: list[Block]) -> Any:
    if len(held) == 1 and isinstance(held[0], blocks.Text):
        return held[0].text
    return _parts(held)


def _parts(held: tuple[Block, ...] | list[Block]) -> list[Any]:
    return spread_parts(held, _block)


def _messages(messages: tuple[ChatMessage, ...]) -> list[Any]:
    return user_assistant_messages(messages, _parts, _content)


def _content(held: tuple[Block, ...]) -> Any:
    if not held:
        return ""
    if len(held) == 1 and isinstance(held[0], blocks.Text):
        return held[0].text
    return _parts(held)


def _block(block: Block) -> Any:
    if isinstance(block, blocks.Text):
        return {"type": "text", "text": block.text}
    if isinstance(block, blocks.Reasoning):
        if block.redacted is not None:
            return {"type": "redacted_thinking", "data": block.redacted}
        if block.signature is None:
            return SKIP  # unsigned (another provider's): the API refuses it
        return {"type": "thinking", "thinking": block.text, "signature": block.signature}
    if isinstance(block, blocks.ToolCall):
        arguments = block.arguments if isinstance(block.arguments, dict) else {}
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": arguments}
    if isinstance(block, blocks.ToolResult):
        wire: dict[str, Any] = {"type": "tool_result", "tool_use_id": block.call_id}
        content = block.content
        wire["content"] = content if isinstance(content, str | list) else arguments_text(content)
        if block.is_error:
            wire["is_error"] = True
        return wire
    if isinstance(block, blocks.Image):
        if block.url is not None:
            return {"type": "image", "source": {"type": "url", "url": block.url}}
        source = {"type": "base64", "media_type": block.media_type, "data": block.data}
        return {"type": "image", "source": source}
    if isinstance(block, blocks.HostedTool):
        return block.item  # the server tool's blocks, as they came
    return block.value


def _tool(tool: ToolSpec) -> Any:
    if tool.raw is not None:
        return tool.raw
    wire: dict[str, Any] = {"name": tool.name}
    if tool.description is not None:
        wire["description"] = tool.description
    wire["input_schema"] = tool.parameters if tool.parameters is not None else {"type": "object"}
    wire.update(tool.extra)
    return wire


# ----------------------------------------------------------------------------- reading


def read_request(body: Mapping[str, Any]) -> Conversation:
    """The conversation, tools and options of a Messages API body. Never raises on a JSON
    object: what raf does not model is kept (:class:`~raf.model.blocks.Raw`,
    ``options.extra``), a member of a wrong type included."""
    system = _read_system(body.get("system"))
    modeled = modeled_lists(body, "messages", "tools")
    if system is not None:
        modeled.append("system")
    options, _ = options_and_extra(body, modeled, max_tokens="max_tokens")
    messages: list[ChatMessage] = [system] if system is not None else []
    if "messages" in modeled:
        messages.extend(_read_message(m) for m in body["messages"])
    tools = [_read_tool(t) for t in body["tools"]] if "tools" in modeled else []
    return Conversation(messages=tuple(messages), tools=tuple(tools), options=options)


def _read_system(system: Any) -> ChatMessage | None:
    """The system message of ``system``; an empty one (``""``, ``[]``) is none, and stays in
    ``options.extra`` as it came (a conversation's empty system message builds no ``system``,
    so reading it as one would not build again)."""
    if isinstance(system, str) and system:
        return message(MessageRole.SYSTEM, [blocks.Text(text=system)])
    if isinstance(system, list) and system:
        return message(MessageRole.SYSTEM, [_read_block(part) for part in system])
    return None


def _read_message(wire: Any) -> ChatMessage:
    if not isinstance(wire, dict):
        return raw_message(wire)
    role_name = wire.get("role")
    role = _ROLES.get(role_name) if isinstance(role_name, str) else None
    if role is None or wire.keys() != {"role", "content"}:
        return raw_message(wire, role or MessageRole.USER)
    content = wire["content"]
    if isinstance(content, str):
        return message(role, [blocks.Text(text=content)] if content else [])
    if not isinstance(content, list):
        return raw_message(wire, role)
    held = [_read_block(part) for part in content]
    if held and role is MessageRole.USER and all(isinstance(b, blocks.ToolResult) for b in held):
        role = MessageRole.TOOL  # a user message of tool results only: the turn's results
    return message(role, held)


def _read_block(part: Any) -> Block:
    if not isinstance(part, dict):
        return blocks.Raw(value=part)
    kind = part.get("type")
    keys = part.keys()
    if kind == "text" and keys == {"type", "text"} and isinstance(part["text"], str):
        return blocks.Text(text=part["text"])
    if (
        kind == "thinking"
        and keys == {"type", "thinking", "signature"}
        and isinstance(part["thinking"], str)
        and isinstance(part["signature"], str)
    ):
        return blocks.Reasoning(text=part["thinking"], signature=part["signature"])
    if kind == "redacted_thinking" and keys == {"type", "data"} and isinstance(part["data"], str):
        return blocks.Reasoning(redacted=part["data"])
    if (
        kind == "tool_use"
        and keys == {"type", "id", "name", "input"}
        and isinstance(part["id"], str)
        and isinstance(part["name"], str)
        and isinstance(part["input"], dict)
    ):
        return blocks.ToolCall(id=part["id"], name=part["name"], arguments=part["input"])
    if (
        kind == "tool_result"
        and {"type", "tool_use_id", "content"}
        <= keys
        <= {"type", "tool_use_id", "content", "is_error"}
        and isinstance(part["tool_use_id"], str)
        and isinstance(part["content"], str | list)
        and isinstance(part.get("is_error", True), bool)
    ):
        # An explicit ``is_error: false`` is the default, and is rebuilt without the member.
        return blocks.ToolResult(
            call_id=part["tool_use_id"],
            content=part["content"],
            is_error=part.get("is_error", False) is True,
        )
    image = _read_image(part)
    return image if image is not None else blocks.Raw(value=part)


def _read_image(part: dict[str, Any]) -> Block | None:
    source = part.get("source")
    if part.keys() != {"type", "source"} or part["type"] != "image" or not isinstance(source, dict):
        return None
    if (
        source.keys() == {"type", "url"}
        and source["type"] == "url"
        and isinstance(source["url"], str)
    ):
        return blocks.Image(url=source["url"])
    if (
        source.keys() == {"type", "media_type", "data"}
        and source["type"] == "base64"
        and isinstance(source["media_type"], str)
        and isinstance(source["data"], str)
    ):
        return blocks.Image(data=source["data"], media_type=source["media_type"])
    return None


def _read_tool(wire: Any) -> ToolSpec:
    if (
        not isinstance(wire, dict)
        or wire.get("type", "custom") != "custom"
        or not isinstance(wire.get("name"), str)
        or not isinstance(wire.get("description"), str | None)
        or "input_schema" not in wire
    ):
        name = wire.get("name", wire.get("type")) if isinstance(wire, dict) else None
        return ToolSpec(name=name if isinstance(name, str) else "", raw=wire)
    extra = {k: v for k, v in wire.items() if k not in _TOOL_MEMBERS}
    return ToolSpec(
        name=wire["name"],
        description=wire.get("description"),
        parameters=wire["input_schema"],
        extra=extra,
    )
