"""The request half of ``gemini``: a ``generateContent`` body built from a conversation, and
read back. Pure functions, no IO; reading never raises on a JSON object (docs/requests.md).

The model and whether the answer streams are in the URL (``models/<model>:streamGenerateContent``),
not in the body: a built body has neither, a read one has ``model`` ``None`` and ``stream``
true.

Built: system messages as ``systemInstruction``; messages as ``contents`` with role ``user``
or ``model``; a ``thoughtSignature`` on the exact part it came with (a text part, a thought
part, a ``functionCall`` part); each call as a ``functionCall`` part (its ``id`` only when the
provider gave one); the results of a turn as ``functionResponse`` parts answering by ``name``
(and ``id`` when the call had one), all in ONE user content (consecutive tool messages are
joined: Gemini requires as many response parts as call parts); tools as one
``functionDeclarations`` tool (schemas as ``parametersJsonSchema``); ``max_tokens`` as
``generationConfig.maxOutputTokens``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from raf.formats.conversation import (
    SKIP,
    blocks_of,
    is_synthetic_id,
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
from raf.model.request import Conversation, RequestOptions, ToolSpec

__all__ = ["build_request", "read_request"]

_SCHEMA_KEYS: Final = ("parametersJsonSchema", "parameters", "parameters_json_schema")
_DECLARATION: Final = ("name", "description", *_SCHEMA_KEYS)
_SIGNATURE: Final = "thoughtSignature"


# ---------------------------------------------------------------------------- building


def build_request(conversation: Conversation) -> dict[str, Any]:
    """The ``generateContent`` body a correct client sends for ``conversation``."""
    body: dict[str, Any] = {}
    names = _call_names(conversation.messages)
    system = [
        b for m in conversation.messages if m.role is MessageRole.SYSTEM for b in blocks_of(m)
    ]
    body["contents"] = _contents(conversation.messages, names)
    if system:
        body["systemInstruction"] = {"role": "user", "parts": _parts(system, names)}
    if conversation.tools:
        body["tools"] = _tools(conversation.tools)
    options = conversation.options
    extra = dict(options.extra)
    if options.max_tokens is not None:
        config = extra.get("generationConfig")
        config = dict(config) if isinstance(config, dict) else {}
        config["maxOutputTokens"] = options.max_tokens
        extra["generationConfig"] = config
    plain = RequestOptions(extra=extra, stream=False)
    return put_options(body, plain, model=None, stream=None)


def _call_names(messages: tuple[ChatMessage, ...]) -> dict[str, str]:
    return {b.id: b.name for m in messages for b in blocks_of(m) if isinstance(b, blocks.ToolCall)}


def _contents(messages: tuple[ChatMessage, ...], names: dict[str, str]) -> list[Any]:
    out: list[Any] = []
    results: list[Any] | None = None  # the open user content of function responses
    for chat in messages:
        if chat.role is MessageRole.SYSTEM:
            continue
        held = blocks_of(chat)
        if whole_raw(held, ("role", "parts")):
            out.append(held[0].value)  # type: ignore[union-attr]
            results = None
            continue
        parts = _parts(held, names)
        if chat.role is MessageRole.TOOL:
            if results is not None:
                results.extend(parts)  # one content for all the responses of a turn
            else:
                results = parts
                out.append({"role": "user", "parts": results})
            continue
        results = None
        out.append(
            {"role": "model" if chat.role is MessageRole.ASSISTANT else "user", "parts": parts}
        )
    return out


def _parts(held: tuple[Block, ...] | list[Block], names: dict[str, str]) -> list[Any]:
    out: list[Any] = []
    for block in held:
        part = _part(block, names)
        if isinstance(block, blocks.HostedTool) and isinstance(part, list):
            out.extend(part)
        elif part is not SKIP:
            out.append(part)
    return out


def _signed(part: dict[str, Any], signature: str | None) -> dict[str, Any]:
    if signature is not None:
        part[_SIGNATURE] = signature
    return part


def _part(block: Block, names: dict[str, str]) -> Any:
    if isinstance(block, blocks.Text):
        return _signed({"text": block.text}, block.signature)
    if isinstance(block, blocks.Reasoning):
        if block.redacted is not None or block.encrypted_content is not None:
            return SKIP  # another provider's opaque reasoning: Gemini cannot take it
        return _signed({"text": block.text, "thought": True}, block.signature)
    if isinstance(block, blocks.ToolCall):
        call: dict[str, Any] = {"name": block.name}
        if block.arguments is not None:
            call["args"] = block.arguments
        if not is_synthetic_id(block.id):
            call["id"] = block.id
        return _signed({"functionCall": call}, block.signature)
    if isinstance(block, blocks.ToolResult):
        content = block.content
        if not isinstance(content, dict):
            content = {"error" if block.is_error else "result": content}
        answer: dict[str, Any] = {"name": block.name or names.get(block.call_id, "")}
        answer["response"] = content
        if not is_synthetic_id(block.call_id):
            answer["id"] = block.call_id
        return {"functionResponse": answer}
    if isinstance(block, blocks.Image):
        if block.url is not None:
            return {"fileData": {"mimeType": block.media_type, "fileUri": block.url}}
        return {"inlineData": {"mimeType": block.media_type, "data": block.data}}
    if isinstance(block, blocks.HostedTool):
        return block.item
    return block.value


def _tools(tools: tuple[ToolSpec, ...]) -> list[Any]:
    out: list[Any] = []
    declarations: list[Any] = []
    for tool in tools:
        if tool.raw is not None:
            out.append(tool.raw)
            continue
        if not declarations:
            out.append({"functionDeclarations": declarations})
        declaration: dict[str, Any] = {"name": tool.name}
        if tool.description is not None:
            declaration["description"] = tool.description
        if tool.parameters is not None:
            declaration["parametersJsonSchema"] = tool.parameters
        declaration.update(tool.extra)
        declarations.append(declaration)
    return out


# ----------------------------------------------------------------------------- reading


def read_request(body: Mapping[str, Any]) -> Conversation:
    """The conversation, tools and options of a ``generateContent`` body. Never raises on a
    JSON object: what raf does not model is kept (:class:`~raf.model.blocks.Raw`,
    ``options.extra``), a member of a wrong type included."""
    system = _read_system(body.get("systemInstruction"))
    modeled = modeled_lists(body, "contents", "tools")
    if system is not None:
        modeled.append("systemInstruction")
    options, _ = options_and_extra(body, modeled, model=None, stream=None, default_stream=True)
    extra = dict(options.extra)
    max_tokens = None
    config = extra.get("generationConfig")
    if isinstance(config, dict):
        limit = config.get("maxOutputTokens")
        if isinstance(limit, int) and not isinstance(limit, bool):
            max_tokens = limit
            rest = {k: v for k, v in config.items() if k != "maxOutputTokens"}
            if rest:
                extra["generationConfig"] = rest
            else:
                del extra["generationConfig"]
    options = RequestOptions(stream=True, max_tokens=max_tokens, extra=extra)
    messages: list[ChatMessage] = [system] if system is not None else []
    if "contents" in modeled:
        messages.extend(_read_content(c) for c in body["contents"])
    tools: list[ToolSpec] = []
    if "tools" in modeled:
        for tool in body["tools"]:
            tools.extend(_read_tool(tool))
    return Conversation(messages=tuple(messages), tools=tuple(tools), options=options)


def _read_system(system: Any) -> ChatMessage | None:
    if (
        not isinstance(system, dict)
        or not {"parts"} <= system.keys() <= {"parts", "role"}
        or system.get("role", "user") != "user"
        or not isinstance(system["parts"], list)
    ):
        return None
    held = [_read_part(part) for part in system["parts"]]
    return message(MessageRole.SYSTEM, held)


def _read_content(wire: Any) -> ChatMessage:
    if not isinstance(wire, dict):
        return raw_message(wire)
    role_name = wire.get("role")
    role = {"user": MessageRole.USER, "model": MessageRole.ASSISTANT}.get(role_name)  # type: ignore[arg-type]
    if role is None or wire.keys() != {"role", "parts"} or not isinstance(wire["parts"], list):
        return raw_message(wire, role or MessageRole.USER)
    held = [_read_part(part) for part in wire["parts"]]
    if held and role is MessageRole.USER and all(isinstance(b, blocks.ToolResult) for b in held):
        role = MessageRole.TOOL
    return message(role, held)


_PROTO_NAMES: Final = {
    "function_call": "functionCall",
    "function_response": "functionResponse",
    "thought_signature": _SIGNATURE,
}
"""A part's members under their proto field names, which the API takes as well as the JSON
names (litellm writes them), read as the JSON names (rebuilt with those)."""


def _json_names(part: dict[str, Any]) -> dict[str, Any]:
    if not any(name in part for name in _PROTO_NAMES):
        return part
    renamed = {_PROTO_NAMES.get(key, key): value for key, value in part.items()}
    return renamed if len(renamed) == len(part) else part  # both spellings: left as it is


def _read_part(part: Any) -> Block:
    if not isinstance(part, dict):
        return blocks.Raw(value=part)
    part = _json_names(part)
    signature = part.get(_SIGNATURE)
    if _SIGNATURE in part and not isinstance(signature, str):
        return blocks.Raw(value=part)
    keys = part.keys() - {_SIGNATURE}
    if keys == {"text"} and isinstance(part["text"], str):
        return blocks.Text(text=part["text"], signature=signature)
    if keys == {"text", "thought"} and isinstance(part["text"], str) and part["thought"] is True:
        return blocks.Reasoning(text=part["text"], signature=signature)
    if keys == {"functionCall"}:
        call = part["functionCall"]
        if (
            isinstance(call, dict)
            and {"name"} <= call.keys() <= {"name", "args", "id"}
            and isinstance(call["name"], str)
            and isinstance(call.get("id", ""), str)
            and isinstance(call.get("args", {}), dict)
        ):
            return blocks.ToolCall(
                id=call.get("id", ""),
                name=call["name"],
                arguments=call.get("args"),
                signature=signature,
            )
    if keys == {"functionResponse"} and signature is None:
        answer = part["functionResponse"]
        if (
            isinstance(answer, dict)
            and {"name", "response"} <= answer.keys() <= {"name", "response", "id"}
            and isinstance(answer["name"], str)
            and isinstance(answer.get("id", ""), str)
            and isinstance(answer["response"], dict)
        ):
            return blocks.ToolResult(
                call_id=answer.get("id", ""),
                content=answer["response"],
                name=answer["name"],
                # What the builder writes for an error, and Gemini's documented form of one.
                is_error=answer["response"].keys() == {"error"},
            )
    image = _read_image(part) if signature is None else None
    return image if image is not None else blocks.Raw(value=part)


def _read_image(part: dict[str, Any]) -> Block | None:
    for key, member in (("inlineData", "data"), ("fileData", "fileUri")):
        data = part.get(key)
        if (
            part.keys() == {key}
            and isinstance(data, dict)
            and data.keys() == {"mimeType", member}
            and isinstance(data["mimeType"], str)
            and isinstance(data[member], str)
        ):
            if key == "inlineData":
                return blocks.Image(data=data[member], media_type=data["mimeType"])
            return blocks.Image(url=data[member], media_type=data["mimeType"])
    return None


def _read_tool(wire: Any) -> list[ToolSpec]:
    declarations = wire.get("functionDeclarations") if isinstance(wire, dict) else None
    if (
        not isinstance(wire, dict)
        or wire.keys() != {"functionDeclarations"}
        or not isinstance(declarations, list)
        or not declarations
        or not all(_is_declaration(d) for d in declarations)
    ):
        kind = next(iter(wire), "") if isinstance(wire, dict) and wire else ""
        return [ToolSpec(name=kind, raw=wire)]
    out = []
    for declaration in declarations:
        schema = next((declaration[k] for k in _SCHEMA_KEYS if k in declaration), None)
        extra = {k: v for k, v in declaration.items() if k not in _DECLARATION}
        out.append(
            ToolSpec(
                name=declaration["name"],
                description=declaration.get("description"),
                parameters=schema,
                extra=extra,
            )
        )
    return out


def _is_declaration(declaration: Any) -> bool:
    return (
        isinstance(declaration, dict)
        and isinstance(declaration.get("name"), str)
        and isinstance(declaration.get("description"), str | None)
        and sum(key in declaration for key in _SCHEMA_KEYS) <= 1
    )
