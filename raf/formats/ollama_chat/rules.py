"""The request rules of ``ollama_chat`` (:mod:`raf.formats.request_rules`): each check named
by its rule's id in ``CHECKS``. Pure functions; never raise on a JSON object."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final

from raf.formats.format import RuleCheck

__all__ = ["CHECKS"]


def arguments_object(body: Mapping[str, Any], prior: Sequence[Any]) -> Iterator[tuple[str, str]]:
    """``chat.ollama_arguments_object``: a call's ``function.arguments`` is a JSON object,
    not JSON text (Ollama's own form, unlike Chat Completions)."""
    messages = body.get("messages")
    for at, message in enumerate(messages if isinstance(messages, list) else []):
        calls = message.get("tool_calls") if isinstance(message, dict) else None
        for k, call in enumerate(calls if isinstance(calls, list) else []):
            function = call.get("function") if isinstance(call, dict) else None
            if not isinstance(function, dict) or "arguments" not in function:
                continue
            if not isinstance(function["arguments"], dict):
                yield (
                    f"messages[{at}].tool_calls[{k}].function.arguments",
                    f"call {function.get('name')}: arguments are not a JSON object; Ollama "
                    "takes them as an object, not as JSON text",
                )


CHECKS: Final[Mapping[str, RuleCheck]] = {
    "chat.ollama_arguments_object": arguments_object,
}
"""The checks, by rule id."""
