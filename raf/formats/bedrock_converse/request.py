"""The request half of ``bedrock_converse``: a Converse (``ConverseStream``) body built from a
conversation, and read back. Pure functions, no IO; reading never raises on a JSON object
(docs/requests.md).

The model is in the URL (``/model/{modelId}/converse-stream``) and the endpoint streams: a
built body has neither, a read one has ``model`` ``None`` and ``stream`` true.

Built: system messages as ``system`` (a list of ``{"text"}`` blocks); messages as
``messages`` with role ``user`` or ``assistant``, each content a list of blocks: ``{"text"}``,
reasoning as ``{"reasoningContent": {"reasoningText": {"text", "signature"}}}`` (nested, not
the stream's flat deltas; the signature only when there is one) or ``{"reasoningContent":
{"redactedContent"}}``, each call as ``{"toolUse": {"toolUseId", "name", "input"}}`` with
``input`` a JSON value (not text); the results of a turn as ``{"toolResult": {"toolUseId",
"content": [{"json": <an object>}] or [{"text"}] (any other value as JSON text), "status":
"success" | "error"}}`` blocks, all in ONE user
message (consecutive tool messages are joined); tools as ``toolConfig.tools[].toolSpec``
(``name``, ``description``, ``inputSchema.json``), the rest of ``toolConfig``
(``toolChoice``) kept; ``max_tokens`` as ``inferenceConfig.maxTokens``. A hosted tool (a
``server_tool_use`` call and its result) goes back as it streamed, a ``toolUse`` and a
``toolResult`` block in the assistant message.
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
from raf.model.request import Conversation, RequestOptions, ToolSpec

__all__ = ["build_request", "read_request"]

_ROLES: Final = {"user": MessageRole.USER, "assistant": MessageRole.ASSISTANT}
_SPEC: Final = ("name", "description", "inputSchema")
_STATUS: Final = {"success": False, "error": True}


# ---------------------------------------------------------------------------- building


def build_request(conversation: Conversation) -> dict[str, Any]:
    """The Converse body a correct client sends for ``conversation``."""
    body: dict[str, Any] = {}
    body["messages"] = _messages(conversation.messages)
    system = [
        b for m in conversation.messages if m.role is MessageRole.SYSTEM for b in blocks_of(m)
    ]
    if system:
        body["system"] = _parts(system)
    options = conversation.options
    extra = dict(options.extra)
    if options.max_tokens is not None:
        config = extra.get("inferenceConfig")
        config = dict(config) if isinstance(config, dict) else {}
        config["maxTokens"] = options.max_tokens
        extra["inferenceConfig"] = config
    if conversation.tools:
        config = extra.get("toolConfig")
        config = dict(config) if isinstance(config, dict) else {}
        config["tools"] = [_tool(tool) for tool in conversation.tools]
        extra["toolConfig"] = config
    return put_options(body, RequestOptions(extra=extra, stream=False), model=None, stream=None)


def _parts(held: tuple[Block, ...] | list[Block]) -> list[Any]:
    return spread_parts(held, _block)


def _messages(messages: tuple[ChatMessage, ...]) -> list[Any]:
    return user_assistant_messages(messages, _parts, _parts)


def _block(block: Block) -> Any:
    if isinstance(block, blocks.Text):
        # Converse refuses a blank text block ("The text field in the ContentBlock object at
        # messages.N.content.M is blank"): a model's whitespace-only text is not sent back.
        return {"text": block.text} if block.text.strip() else SKIP
    if isinstance(block, blocks.Reasoning):
        if block.redacted is not None:
            return {"reasoningContent": {"redactedContent": block.redacted}}
        if not block.text and block.signature is None:
            return SKIP  # nothing Converse can carry (an encrypted Responses item, say)
        text: dict[str, Any] = {"text": block.text}
        if block.signature is not None:
            text["signature"] = block.signature
        return {"reasoningContent": {"reasoningText": text}}
    if isinstance(block, blocks.ToolCall):
        arguments = {} if block.arguments is None else block.arguments
        return {"toolUse": {"toolUseId": block.id, "name": block.name, "input": arguments}}
    if isinstance(block, blocks.ToolResult):
        # Converse takes a JSON object as json, and nothing else: another value goes as text.
        content = block.content
        item = {"json": content} if isinstance(content, dict) else {"text": arguments_text(content)}
        status = "error" if block.is_error else "success"
        return {"toolResult": {"toolUseId": block.call_id, "content": [item], "status": status}}
    if isinstance(block, blocks.Image):
        if block.data is None or not (block.media_type or "").startswith("image/"):
            return SKIP  # Converse takes image bytes (or an S3 location), not a URL
        kind = (block.media_type or "").removeprefix("image/")
        return {"image": {"format": kind, "source": {"bytes": block.data}}}
    if isinstance(block, blocks.HostedTool):
        return _hosted(block)
    return block.value


def _hosted(block: blocks.HostedTool) -> Any:
    """A tool Bedrock ran (Nova's code interpreter), sent back as it streamed: its
    ``toolUse`` (with ``type: server_tool_use`` and its input) and its ``toolResult`` (with
    its ``type``, ``status`` and content), from the items the stream gave."""
    items = block.item if isinstance(block.item, list) else []
    out: list[Any] = []
    for item in items:
        if isinstance(item, dict) and "input" in item:
            out.append({"toolUse": item})
        elif isinstance(item, dict) and "content" in item:
            out.append({"toolResult": item})
    return out or SKIP


def _tool(tool: ToolSpec) -> Any:
    if tool.raw is not None:
        return tool.raw
    spec: dict[str, Any] = {"name": tool.name}
    if tool.description is not None:
        spec["description"] = tool.description
    schema = tool.parameters if tool.parameters is not None else {"type": "object"}
    spec["inputSchema"] = {"json": schema}
    spec.update(tool.extra)
    return {"toolSpec": spec}


# ----------------------------------------------------------------------------- reading


def read_request(body: Mapping[str, Any]) -> Conversation:
    """The conversation, tools and options of a Converse body. Never raises on a JSON
    object: what raf does not model is kept (:class:`~raf.model.blocks.Raw`,
    ``options.extra``), a member of a wrong type included."""
    modeled = modeled_lists(body, "messages")
    system = body.get("system")
    if isinstance(system, list) and system:
        modeled.append("system")
    options, _ = options_and_extra(body, modeled, model=None, stream=None, default_stream=True)
    extra = dict(options.extra)
    max_tokens = _take(extra, "inferenceConfig", "maxTokens")
    tools: list[ToolSpec] = []
    config = extra.get("toolConfig")
    if (
        isinstance(config, dict)
        and isinstance(config.get("tools"), list)
        and config["tools"]
        and all(isinstance(tool, dict) for tool in config["tools"])
    ):
        tools = [_read_tool(tool) for tool in config["tools"]]
        rest = {k: v for k, v in config.items() if k != "tools"}
        if rest:
            extra["toolConfig"] = rest
        else:
            del extra["toolConfig"]
    messages: list[ChatMessage] = []
    if "system" in modeled:
        parts = [_read_block(part) for part in body["system"]]
        messages.append(message(MessageRole.SYSTEM, parts))
    if "messages" in modeled:
        messages.extend(_read_message(m) for m in body["messages"])
    return Conversation(
        messages=tuple(messages),
        tools=tuple(tools),
        options=RequestOptions(stream=True, max_tokens=max_tokens, extra=extra),
    )


def _take(extra: dict[str, Any], member: str, key: str) -> int | None:
    """An integer ``extra[member][key]``, removed from ``extra`` (and ``member`` with it
    when nothing else is left); ``None`` when there is none."""
    config = extra.get(member)
    if not isinstance(config, dict):
        return None
    value = config.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        return None
    rest = {k: v for k, v in config.items() if k != key}
    if rest:
        extra[member] = rest
    else:
        del extra[member]
    return value


def _read_message(wire: Any) -> ChatMessage:
    if not isinstance(wire, dict):
        return raw_message(wire)
    role_name = wire.get("role")
    role = _ROLES.get(role_name) if isinstance(role_name, str) else None
    content = wire.get("content")
    if role is None or wire.keys() != {"role", "content"} or not isinstance(content, list):
        return raw_message(wire, role or MessageRole.USER)
    held = [_read_block(part) for part in content]
    if held and role is MessageRole.USER and all(isinstance(b, blocks.ToolResult) for b in held):
        role = MessageRole.TOOL  # a user message of tool results only: the turn's results
    return message(role, held)


def _read_block(part: Any) -> Block:
    if not isinstance(part, dict) or len(part) != 1:
        return blocks.Raw(value=part)
    ((kind, value),) = part.items()
    found: Block | None = None
    if kind == "text" and isinstance(value, str) and value.strip():
        found = blocks.Text(text=value)  # a blank one is kept as it came
    elif kind == "reasoningContent" and isinstance(value, dict):
        found = _read_reasoning(value)
    elif kind == "toolUse" and isinstance(value, dict):
        found = _read_call(value)
    elif kind == "toolResult" and isinstance(value, dict):
        found = _read_result(value)
    elif kind == "image" and isinstance(value, dict):
        found = _read_image(value)
    return found if found is not None else blocks.Raw(value=part)


def _read_reasoning(value: dict[str, Any]) -> Block | None:
    if value.keys() == {"redactedContent"} and isinstance(value["redactedContent"], str):
        return blocks.Reasoning(redacted=value["redactedContent"])
    text = value.get("reasoningText")
    if value.keys() != {"reasoningText"} or not isinstance(text, dict):
        return None
    if not {"text"} <= text.keys() <= {"text", "signature"} or not isinstance(text["text"], str):
        return None
    signature = text.get("signature")
    if "signature" in text and not isinstance(signature, str):
        return None
    if not text["text"] and signature is None:
        return None  # nothing raf would send again: kept as it came
    return blocks.Reasoning(text=text["text"], signature=signature)


def _read_call(value: dict[str, Any]) -> Block | None:
    if (
        value.keys() != {"toolUseId", "name", "input"}
        or not isinstance(value["toolUseId"], str)
        or not isinstance(value["name"], str)
        or value["input"] is None
    ):
        return None
    return blocks.ToolCall(id=value["toolUseId"], name=value["name"], arguments=value["input"])


def _read_result(value: dict[str, Any]) -> Block | None:
    content = value.get("content")
    status = value.get("status")
    if (
        value.keys() != {"toolUseId", "content", "status"}
        or not isinstance(value["toolUseId"], str)
        or status not in _STATUS
        or not isinstance(content, list)
        or len(content) != 1
        or not isinstance(content[0], dict)
        or len(content[0]) != 1
    ):
        return None
    ((kind, item),) = content[0].items()
    if kind == "text" and isinstance(item, str):
        result: Any = item
    elif kind == "json" and isinstance(item, dict):
        result = item
    else:
        return None
    return blocks.ToolResult(call_id=value["toolUseId"], content=result, is_error=_STATUS[status])


def _read_image(value: dict[str, Any]) -> Block | None:
    source = value.get("source")
    if (
        value.keys() != {"format", "source"}
        or not isinstance(value["format"], str)
        or not value["format"]
        or not isinstance(source, dict)
        or source.keys() != {"bytes"}
        or not isinstance(source["bytes"], str)
    ):
        return None
    return blocks.Image(data=source["bytes"], media_type=f"image/{value['format']}")


def _read_tool(wire: dict[str, Any]) -> ToolSpec:
    spec = wire.get("toolSpec")
    schema = spec.get("inputSchema") if isinstance(spec, dict) else None
    if (
        wire.keys() != {"toolSpec"}
        or not isinstance(spec, dict)
        or not isinstance(spec.get("name"), str)
        or not isinstance(spec.get("description"), str | None)
        or not isinstance(schema, dict)
        or schema.keys() != {"json"}
        or schema["json"] is None
    ):
        name = next(iter(wire), "") if wire else ""
        if isinstance(spec, dict) and isinstance(spec.get("name"), str):
            name = spec["name"]
        return ToolSpec(name=name, raw=wire)
    extra = {k: v for k, v in spec.items() if k not in _SPEC}
    return ToolSpec(
        name=spec["name"],
        description=spec.get("description"),
        parameters=schema["json"],
        extra=extra,
    )
