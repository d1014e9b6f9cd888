"""The request rules of ``openai_chat`` (:mod:`raf.formats.request_rules`): each check named
by its rule's id in ``CHECKS``. Pure functions; never raise on a JSON object."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final

from raf.formats.format import RuleCheck

__all__ = ["CHECKS", "MISTRAL_MODELS"]

MISTRAL_MODELS: Final = re.compile(
    r"(?i)(?:^|[/:])(?:mistral|magistral|codestral|devstral|ministral|pixtral|voxtral|open-mistral)"
)
"""The model names of Mistral's models (a router's ``mistralai/...`` included)."""

_MISTRAL_ID: Final = re.compile(r"[a-zA-Z0-9]{9}")
_DEEPSEEK: Final = re.compile(r"(?i)deepseek")

Found = Iterator[tuple[str, str]]


def _messages(body: Mapping[str, Any]) -> list[Any]:
    messages = body.get("messages")
    return messages if isinstance(messages, list) else []


def _calls(message: Any) -> list[tuple[int, dict[str, Any]]]:
    """The tool calls of an assistant message, with their index in ``tool_calls``."""
    calls = message.get("tool_calls") if isinstance(message, dict) else None
    if not isinstance(calls, list):
        return []
    return [(k, c) for k, c in enumerate(calls) if isinstance(c, dict)]


def _call_ids(message: Any) -> list[str]:
    return [c["id"] for _, c in _calls(message) if isinstance(c.get("id"), str)]


def _is_tool(message: Any) -> bool:
    return isinstance(message, dict) and message.get("role") == "tool"


def _turns(prior: Sequence[Any]) -> Iterator[dict[str, Any]]:
    """The assistant messages of the earlier rounds."""
    for one in prior:
        for message in getattr(one, "turn", ()) or ():
            if isinstance(message, dict) and message.get("role") == "assistant":
                yield message


def tool_calls_answered(body: Mapping[str, Any], prior: Sequence[Any]) -> Found:
    """``chat.tool_calls_answered``: an assistant message with ``tool_calls`` is followed,
    before any other message, by one ``tool`` message per call id."""
    messages = _messages(body)
    for at, message in enumerate(messages):
        ids = _call_ids(message)
        if not ids:
            continue
        answered: list[str] = []
        after = at + 1
        while after < len(messages) and _is_tool(messages[after]):
            answered.append(str(messages[after].get("tool_call_id")))
            after += 1
        for call_id in ids:
            if call_id not in answered:
                yield (
                    f"messages[{at}].tool_calls",
                    f"call {call_id} has no tool message answering it before the next message",
                )


def tool_message_answers_call(body: Mapping[str, Any], prior: Sequence[Any]) -> Found:
    """``chat.tool_message_answers_call``: a ``tool`` message's ``tool_call_id`` is a call of
    the assistant message its run of tool messages follows."""
    messages = _messages(body)
    made: list[str] | None = None  # the calls the open run of tool messages answers
    owner = -1
    for at, message in enumerate(messages):
        if not _is_tool(message):
            made, owner = _call_ids(message), at
            continue
        answers = message.get("tool_call_id")
        if made is None or not made:
            yield (
                f"messages[{at}]",
                f"tool message answering {answers} follows no assistant message with tool_calls",
            )
        elif answers not in made:
            yield (
                f"messages[{at}].tool_call_id",
                f"tool message answers {answers}, which messages[{owner}] did not call "
                f"(its calls: {', '.join(made)})",
            )


def tool_call_answered_once(body: Mapping[str, Any], prior: Sequence[Any]) -> Found:
    """``chat.tool_call_answered_once``: no call id is answered by two ``tool`` messages."""
    seen: set[Any] = set()
    for at, message in enumerate(_messages(body)):
        if not _is_tool(message):
            seen = set()
            continue
        answers = message.get("tool_call_id")
        if isinstance(answers, str) and answers in seen:
            yield (
                f"messages[{at}].tool_call_id",
                f"call {answers} is answered a second time; answer each call once",
            )
        if isinstance(answers, str):
            seen.add(answers)


def arguments_json_string(body: Mapping[str, Any], prior: Sequence[Any]) -> Found:
    """``chat.arguments_json_string``: a call's ``function.arguments`` is JSON text (a
    string), not an object."""
    for at, message in enumerate(_messages(body)):
        for k, call in _calls(message):
            function = call.get("function")
            if not isinstance(function, dict) or "arguments" not in function:
                continue
            arguments = function["arguments"]
            where = f"messages[{at}].tool_calls[{k}].function.arguments"
            if not isinstance(arguments, str):
                yield (
                    where,
                    f"call {call.get('id')}: arguments are not a string; send them as JSON text",
                )
            elif arguments.strip():
                try:
                    json.loads(arguments)
                except ValueError:
                    yield where, f"call {call.get('id')}: arguments are not valid JSON text"


def reasoning_content_sent_back(body: Mapping[str, Any], prior: Sequence[Any]) -> Found:
    """``chat.reasoning_content_sent_back``: the ``reasoning_content`` streamed with a turn
    that called tools is sent back with that assistant message (DeepSeek's thinking mode: the
    rule applies to DeepSeek's models)."""
    model = body.get("model")
    if not isinstance(model, str) or _DEEPSEEK.search(model) is None:
        return
    reasoned: dict[str, Any] = {}
    for turn in _turns(prior):
        if isinstance(turn.get("reasoning_content"), str) and turn["reasoning_content"]:
            for call_id in _call_ids(turn):
                reasoned[call_id] = turn
    if not reasoned:
        return
    for at, message in enumerate(_messages(body)):
        ids = [i for i in _call_ids(message) if i in reasoned]
        if ids and not isinstance(message.get("reasoning_content"), str):
            yield (
                f"messages[{at}].reasoning_content",
                f"the turn that called {', '.join(ids)} streamed reasoning_content; send it "
                "back in this assistant message",
            )


def mistral_call_ids(body: Mapping[str, Any], prior: Sequence[Any]) -> Found:
    """``chat.mistral_call_ids``: for a Mistral model, every call id is 9 characters of
    ``[a-zA-Z0-9]``."""
    model = body.get("model")
    if not isinstance(model, str) or MISTRAL_MODELS.search(model) is None:
        return
    for at, message in enumerate(_messages(body)):
        for k, call in _calls(message):
            call_id = call.get("id")
            if isinstance(call_id, str) and _MISTRAL_ID.fullmatch(call_id) is None:
                yield (
                    f"messages[{at}].tool_calls[{k}].id",
                    f"call id {call_id} is not 9 characters of [a-zA-Z0-9], as Mistral requires",
                )
        answers = message.get("tool_call_id") if _is_tool(message) else None
        if isinstance(answers, str) and _MISTRAL_ID.fullmatch(answers) is None:
            yield (
                f"messages[{at}].tool_call_id",
                f"tool_call_id {answers} is not 9 characters of [a-zA-Z0-9], as Mistral requires",
            )


CHECKS: Final[Mapping[str, RuleCheck]] = {
    "chat.tool_calls_answered": tool_calls_answered,
    "chat.tool_message_answers_call": tool_message_answers_call,
    "chat.tool_call_answered_once": tool_call_answered_once,
    "chat.arguments_json_string": arguments_json_string,
    "chat.reasoning_content_sent_back": reasoning_content_sent_back,
    "chat.mistral_call_ids": mistral_call_ids,
}
"""The checks, by rule id."""
