"""The request rules of ``openai_chat`` (:mod:`raf.formats.request_rules`): each check named
by its rule's id in ``CHECKS``. Pure functions; never raise on a JSON object."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final

from raf.formats.format import RuleCheck

__all__ = ["CHECKS"]


def _messages(body: Mapping[str, Any]) -> list[Any]:
    messages = body.get("messages")
    return messages if isinstance(messages, list) else []


def _call_ids(message: Any) -> list[str]:
    calls = message.get("tool_calls") if isinstance(message, dict) else None
    if not isinstance(calls, list):
        return []
    return [c["id"] for c in calls if isinstance(c, dict) and isinstance(c.get("id"), str)]


def tool_calls_answered(body: Mapping[str, Any], prior: Sequence[Any]) -> Iterator[tuple[str, str]]:
    """``chat.tool_calls_answered``: an assistant message with ``tool_calls`` is followed,
    before any other message, by one ``tool`` message per call id."""
    messages = _messages(body)
    for at, message in enumerate(messages):
        ids = _call_ids(message)
        if not ids:
            continue
        answered: list[str] = []
        after = at + 1
        while after < len(messages):
            follower = messages[after]
            if not (isinstance(follower, dict) and follower.get("role") == "tool"):
                break
            answered.append(str(follower.get("tool_call_id")))
            after += 1
        for call_id in ids:
            if call_id not in answered:
                yield (
                    f"messages[{at}].tool_calls",
                    f"call {call_id} has no tool message answering it before the next message",
                )


CHECKS: Final[Mapping[str, RuleCheck]] = {
    "chat.tool_calls_answered": tool_calls_answered,
}
"""The checks, by rule id."""
