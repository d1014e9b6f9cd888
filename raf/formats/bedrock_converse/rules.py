"""The request rules of ``bedrock_converse`` (:mod:`raf.formats.request_rules`): each check
named by its rule's id in ``CHECKS``. Pure functions; never raise on a JSON object."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final

from raf.formats.format import RuleCheck

__all__ = ["CHECKS"]

Found = Iterator[tuple[str, str]]


def _messages(body: Mapping[str, Any]) -> list[Any]:
    messages = body.get("messages")
    return messages if isinstance(messages, list) else []


def _blocks(message: Any) -> list[Any]:
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, list) else []


def _role(message: Any) -> Any:
    return message.get("role") if isinstance(message, dict) else None


def _member(block: Any, name: str) -> Any:
    """``block[name]`` when ``block`` is an object holding an object there, else ``None``."""
    value = block.get(name) if isinstance(block, dict) else None
    return value if isinstance(value, dict) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _uses(message: Any) -> list[tuple[int, str]]:
    """The ``toolUse`` ids of an assistant message the client must answer, with their block
    index (a ``server_tool_use`` was run by Bedrock: its result is in the same message)."""
    if _role(message) != "assistant":
        return []
    out = []
    for k, block in enumerate(_blocks(message)):
        use = _member(block, "toolUse")
        if (
            use is not None
            and isinstance(use.get("toolUseId"), str)
            and use.get("type") != "server_tool_use"
        ):
            out.append((k, use["toolUseId"]))
    return out


def tool_use_answered(body: Mapping[str, Any], prior: Sequence[Any]) -> Found:
    """``bedrock.tool_use_answered``: every ``toolUse`` is answered by a ``toolResult`` in
    the next message."""
    messages = _messages(body)
    for at, message in enumerate(messages):
        uses = _uses(message)
        if not uses:
            continue
        following = messages[at + 1] if at + 1 < len(messages) else None
        answered = set()
        if _role(following) == "user":
            for block in _blocks(following):
                result = _member(block, "toolResult")
                if result is not None:
                    answered.add(_text(result.get("toolUseId")))
        for k, use_id in uses:
            if use_id not in answered:
                yield (
                    f"messages[{at}].content[{k}]",
                    f"toolUse {use_id} has no toolResult in the next message",
                )


def tool_input_object(body: Mapping[str, Any], prior: Sequence[Any]) -> Found:
    """``bedrock.tool_input_object``: a ``toolUse``'s ``input`` is a JSON object."""
    for at, message in enumerate(_messages(body)):
        for k, block in enumerate(_blocks(message)):
            use = _member(block, "toolUse")
            if use is None or "input" not in use or isinstance(use["input"], dict):
                continue
            name = _text(use.get("name")) or "the tool"
            yield (
                f"messages[{at}].content[{k}].toolUse.input",
                f"the input of the call of {name} is a JSON {type(use['input']).__name__}, not "
                "an object: send the parsed arguments (a call whose arguments were not JSON "
                "needs them wrapped in an object)",
            )


def tool_result_json_object(body: Mapping[str, Any], prior: Sequence[Any]) -> Found:
    """``bedrock.tool_result_json_object``: a ``toolResult`` content item's ``json`` is a
    JSON object."""
    for at, message in enumerate(_messages(body)):
        for k, block in enumerate(_blocks(message)):
            result = _member(block, "toolResult")
            items = result.get("content") if result is not None else None
            if not isinstance(items, list):
                continue
            for n, item in enumerate(items):
                if isinstance(item, dict) and "json" in item and not isinstance(item["json"], dict):
                    yield (
                        f"messages[{at}].content[{k}].toolResult.content[{n}].json",
                        f"a tool result's json is a JSON {type(item['json']).__name__}, not an "
                        "object: send another value as text",
                    )


def text_not_blank(body: Mapping[str, Any], prior: Sequence[Any]) -> Found:
    """``bedrock.text_not_blank``: a text block of a message holds more than whitespace."""
    for at, message in enumerate(_messages(body)):
        for k, block in enumerate(_blocks(message)):
            text = block.get("text") if isinstance(block, dict) else None
            if isinstance(text, str) and not text.strip():
                yield (
                    f"messages[{at}].content[{k}].text",
                    "a text block is empty or whitespace only: leave it out",
                )


CHECKS: Final[Mapping[str, RuleCheck]] = {
    "bedrock.tool_use_answered": tool_use_answered,
    "bedrock.tool_input_object": tool_input_object,
    "bedrock.tool_result_json_object": tool_result_json_object,
    "bedrock.text_not_blank": text_not_blank,
}
"""The checks, by rule id."""
