"""The request half of ``gemini_interactions``: a stateless ``/interactions`` body built from a
conversation, and read back. Pure functions, no IO; reading never raises on a JSON object
(docs/requests.md).

An Interactions request is ``{"model", "input", "system_instruction", "tools",
"generation_config", "store", "stream", ...}``. ``input`` is a string (one user text) or a
list of steps:

* ``{"type": "user_input", "content": [{"type": "text", "text"}, ...]}``;
* ``{"type": "thought", "signature", "summary": [{"type": "text", "text"}]}``: resent
  unchanged, its signature is also that of the call after it;
* ``{"type": "model_output", "content": [{"type": "text", "text", "annotations"?}, ...]}``;
* ``{"type": "function_call", "id", "name", "arguments": {...}, "signature"?}``;
* ``{"type": "function_result", "call_id", "name", "result", "is_error"?}``;
* a server tool's ``<tool>_call`` / ``<tool>_result`` steps.

Built: stateless (``store: false``, never ``previous_interaction_id``): the whole history as
steps, a leading system message as ``system_instruction``; a user message of one text as the
string ``input`` when it is the whole history; an assistant message's reasoning as a
``thought`` step (summary and signature), its text as a ``model_output`` step (the
annotations streamed with it on its last text item), its calls as ``function_call`` steps with
their arguments as an object; each result a ``function_result`` step naming the call's
function; ``max_tokens`` as ``generation_config.max_output_tokens``. Read: a step of another
shape is kept whole (``Raw``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from raf.formats.conversation import (
    blocks_of,
    message,
    modeled_lists,
    options_and_extra,
    put_options,
    raw_message,
    text_of,
)
from raf.model import blocks
from raf.model.blocks import Block
from raf.model.messages import ChatMessage, MessageRole
from raf.model.request import Conversation, RequestOptions, ToolSpec

__all__ = ["build_request", "read_request"]

_GENERATION: Final = "generation_config"
_MAX_TOKENS: Final = "max_output_tokens"
_STEPS: Final = frozenset(
    {"user_input", "thought", "model_output", "function_call", "function_result"}
)
_ASSISTANT_STEPS: Final = frozenset({"thought", "model_output", "function_call"})


def _is_step(value: Any) -> bool:
    """A step of ``input`` (not an annotation of a text)."""
    kind = value.get("type") if isinstance(value, dict) else None
    return isinstance(kind, str) and (kind in _STEPS or kind.endswith(("_call", "_result")))


# ---------------------------------------------------------------------------- building


def build_request(conversation: Conversation) -> dict[str, Any]:
    """The ``/interactions`` body a correct stateless client sends for ``conversation``."""
    messages = list(conversation.messages)
    body: dict[str, Any] = {}
    if messages and messages[0].role is MessageRole.SYSTEM and _plain(messages[0]):
        body["system_instruction"] = text_of(blocks_of(messages.pop(0)))
    names = {
        b.id: b.name for chat in messages for b in blocks_of(chat) if isinstance(b, blocks.ToolCall)
    }
    steps = [step for chat in messages for step in _steps(chat, names)]
    if len(messages) == 1 and messages[0].role is MessageRole.USER and _one_text(messages[0]):
        body["input"] = text_of(blocks_of(messages[0]))
    else:
        body["input"] = steps
    if conversation.tools:
        body["tools"] = [_tool(tool) for tool in conversation.tools]
    options = conversation.options
    body["store"] = False
    body = put_options(
        body, RequestOptions(model=options.model, stream=options.stream, extra=options.extra)
    )
    if options.max_tokens is not None:
        config = body.get(_GENERATION)
        body[_GENERATION] = {
            **(config if isinstance(config, dict) else {}),
            _MAX_TOKENS: options.max_tokens,
        }
    return body


def _plain(chat: ChatMessage) -> bool:
    held = blocks_of(chat)
    return bool(held) and all(isinstance(b, blocks.Text) for b in held)


def _one_text(chat: ChatMessage) -> bool:
    held = blocks_of(chat)
    return len(held) == 1 and isinstance(held[0], blocks.Text)


def _steps(chat: ChatMessage, names: Mapping[str, str]) -> list[Any]:
    held = blocks_of(chat)
    if (
        len(held) == 1
        and isinstance(held[0], blocks.Raw)
        and chat.role is not MessageRole.ASSISTANT
    ):
        return [held[0].value]  # a whole step, as it came
    results = [b for b in held if isinstance(b, blocks.ToolResult)]
    if chat.role is MessageRole.TOOL or results:
        return [_result(result, names) for result in results]
    if chat.role is MessageRole.ASSISTANT:
        return _assistant(held)
    return [{"type": "user_input", "content": _texts(held)}]


def _texts(held: tuple[Block, ...] | list[Block]) -> list[dict[str, Any]]:
    return [{"type": "text", "text": b.text} for b in held if isinstance(b, blocks.Text)]


def _assistant(held: tuple[Block, ...]) -> list[Any]:
    out: list[Any] = []
    output: dict[str, Any] | None = None  # the model_output step being filled
    for block in held:
        if isinstance(block, blocks.Text):
            if output is None:
                output = {"type": "model_output", "content": []}
                out.append(output)
            output["content"].append({"type": "text", "text": block.text})
            continue
        if isinstance(block, blocks.Raw) and output is not None and not _is_step(block.value):
            last = output["content"][-1]  # an annotation of the text just sent
            last.setdefault("annotations", []).append(block.value)
            continue
        output = None
        if isinstance(block, blocks.Reasoning):
            # Reasoning another provider sent in a form this API cannot take is left out.
            if block.redacted is None and block.encrypted_content is None:
                thought: dict[str, Any] = {"type": "thought"}
                if block.signature is not None:
                    thought["signature"] = block.signature
                if block.text:
                    thought["summary"] = [{"type": "text", "text": block.text}]
                out.append(thought)
        elif isinstance(block, blocks.ToolCall):
            call: dict[str, Any] = {
                "type": "function_call",
                "id": block.id,
                "name": block.name,
                "arguments": {} if block.arguments is None else block.arguments,
            }
            if block.signature is not None:
                call["signature"] = block.signature
            out.append(call)
        elif isinstance(block, blocks.HostedTool):
            out.append({"type": f"{block.name}_call", "id": block.id, "arguments": block.arguments})
            result: dict[str, Any] = {
                "type": f"{block.name}_result",
                "call_id": block.id,
                "result": block.output,
            }
            if block.error is not None:
                result["is_error"] = True
            out.append(result)
        elif isinstance(block, blocks.Raw):
            out.append(block.value)
    return out


def _result(result: blocks.ToolResult, names: Mapping[str, str]) -> dict[str, Any]:
    wire: dict[str, Any] = {"type": "function_result", "call_id": result.call_id}
    name = result.name or names.get(result.call_id)
    if name is not None:
        wire["name"] = name
    wire["result"] = result.content
    if result.is_error:
        wire["is_error"] = True
    return wire


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
    """The conversation, tools and options of an ``/interactions`` body. Never raises on a
    JSON object: what raf does not model is kept (a whole step as a
    :class:`~raf.model.blocks.Raw`, a tool as ``ToolSpec.raw``, other members in
    ``options.extra``); ``store: false`` is what every request raf builds says, so it is not
    an option."""
    modeled = modeled_lists(body, "input", "tools")
    text_input = isinstance(body.get("input"), str)
    system = body.get("system_instruction")
    taken = [*modeled, *(["input"] if text_input else [])]
    if isinstance(system, str):
        taken.append("system_instruction")
    options, _ = options_and_extra(body, taken)
    extra = dict(options.extra)
    if extra.get("store") is False:
        del extra["store"]
    max_tokens = None
    config = extra.get(_GENERATION)
    if isinstance(config, dict):
        value = config.get(_MAX_TOKENS)
        if isinstance(value, int) and not isinstance(value, bool):
            max_tokens = value
            rest = {k: v for k, v in config.items() if k != _MAX_TOKENS}
            if rest:
                extra[_GENERATION] = rest
            else:
                del extra[_GENERATION]
    options = RequestOptions(
        model=options.model, stream=options.stream, max_tokens=max_tokens, extra=extra
    )
    messages: list[ChatMessage] = []
    if isinstance(system, str):
        messages.append(message(MessageRole.SYSTEM, (blocks.Text(text=system),) if system else ()))
    if text_input:
        text = body["input"]
        messages.append(message(MessageRole.USER, (blocks.Text(text=text),) if text else ()))
    elif "input" in modeled:
        messages.extend(_read_steps(body["input"]))
    tools = [_read_tool(t) for t in body["tools"]] if "tools" in modeled else []
    return Conversation(messages=tuple(messages), tools=tuple(tools), options=options)


def _read_steps(steps: list[Any]) -> list[ChatMessage]:
    out: list[ChatMessage] = []
    turn: list[Block] = []  # the assistant message being read

    def flush() -> None:
        if turn:
            out.append(message(MessageRole.ASSISTANT, list(turn)))
            turn.clear()

    for step in steps:
        kind = step.get("type") if isinstance(step, dict) else None
        kind = kind if isinstance(kind, str) else None
        if kind in {"user_input", "function_result"} or not _is_step(step):
            flush()
            out.append(_read_other(step))
            continue
        held = _read_assistant_step(step)
        turn.extend(held if held is not None else [blocks.Raw(value=step)])
    flush()
    return out


def _read_other(step: Any) -> ChatMessage:
    kind = step.get("type") if isinstance(step, dict) else None
    if kind == "user_input" and set(step) == {"type", "content"}:
        texts = _read_texts(step["content"])
        if texts is not None and all(not b.get("annotations") for b in step["content"]):
            return message(MessageRole.USER, [blocks.Text(text=t["text"]) for t in texts])
    if kind == "function_result" and set(step) <= {"type", "call_id", "name", "result", "is_error"}:
        call_id, name, failed = step.get("call_id"), step.get("name"), step.get("is_error", False)
        if isinstance(call_id, str) and isinstance(name, str | None) and failed in (True, False):
            result = blocks.ToolResult(
                call_id=call_id, content=step.get("result", ""), is_error=failed, name=name
            )
            if "is_error" not in step or failed:
                return message(MessageRole.TOOL, (result,))
    role = MessageRole.TOOL if kind == "function_result" else MessageRole.USER
    return raw_message(step, role)


def _read_texts(content: Any) -> list[dict[str, Any]] | None:
    """Text items (``type`` and ``text``, perhaps ``annotations``); ``None``: another shape."""
    if not isinstance(content, list):
        return None
    for item in content:
        if not (
            isinstance(item, dict)
            and item.get("type") == "text"
            and isinstance(item.get("text"), str)
            and set(item) <= {"type", "text", "annotations"}
            and isinstance(item.get("annotations", []), list)
        ):
            return None
    return content


def _read_assistant_step(step: dict[str, Any]) -> list[Block] | None:
    """The blocks of a thought, answer or call step; ``None``: kept whole."""
    kind = step["type"]
    if kind == "thought" and set(step) <= {"type", "signature", "summary"}:
        signature = step.get("signature")
        summary = _read_texts(step.get("summary", []))
        if not isinstance(signature, str | None) or summary is None or len(summary) > 1:
            return None
        if summary and (summary[0].get("annotations") or not summary[0]["text"]):
            return None
        text = summary[0]["text"] if summary else ""
        if not text and signature is None:
            return None
        return [blocks.Reasoning(text=text, signature=signature)]
    if kind == "model_output" and set(step) == {"type", "content"}:
        texts = _read_texts(step["content"])
        if not texts or any(item.get("annotations") == [] for item in texts):
            return None
        out: list[Block] = []
        for item in texts:
            out.append(blocks.Text(text=item["text"]))
            out.extend(blocks.Raw(value=a) for a in item.get("annotations", []))
        if any(isinstance(b, blocks.Raw) and _is_step(b.value) for b in out):
            return None
        return out
    if kind == "function_call" and set(step) <= {"type", "id", "name", "arguments", "signature"}:
        call_id, name, signature = step.get("id"), step.get("name"), step.get("signature")
        arguments = step.get("arguments")
        if (
            isinstance(call_id, str)
            and isinstance(name, str)
            and isinstance(signature, str | None)
            and isinstance(arguments, dict)
        ):
            return [
                blocks.ToolCall(id=call_id, name=name, arguments=arguments, signature=signature)
            ]
    return None


def _read_tool(wire: Any) -> ToolSpec:
    if (
        not isinstance(wire, dict)
        or wire.get("type") != "function"
        or not isinstance(wire.get("name"), str)
        or not isinstance(wire.get("description"), str | None)
        or ("description" in wire and wire["description"] is None)
        or ("parameters" in wire and wire["parameters"] is None)
    ):
        kind = wire.get("type") if isinstance(wire, dict) else None
        return ToolSpec(name=kind if isinstance(kind, str) else "", raw=wire)
    extra = {
        k: v for k, v in wire.items() if k not in ("type", "name", "description", "parameters")
    }
    return ToolSpec(
        name=wire["name"],
        description=wire.get("description"),
        parameters=wire.get("parameters"),
        extra=extra,
    )
