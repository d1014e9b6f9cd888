"""What the tool-loop adapters share: where each library's base URL points for a recording,
the options a user sets to ask what the recording's first request asks (thinking, reasoning,
token limit), and the final answer's text and reasoning as most libraries hand them.

A tool-loop adapter (:class:`~raf.clients.base.ToolLoopAdapter`) gives its library the
run's base URL, ``server + /s/<format>/<scenario>/c/<chunking>/r/<run>``, followed by the part
of the recorded provider path that the library does not append itself: ``/v1`` for an
OpenAI SDK whose recording asked ``/v1/chat/completions``, nothing when it asked
``/chat/completions`` (DeepSeek's path).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from raf.clients.base import ToolLoopCase

__all__ = [
    "SUFFIXES",
    "anthropic_options",
    "api_version",
    "base_url",
    "gemini_thinking",
    "responses_options",
]

SUFFIXES: dict[str, str] = {
    "openai_chat": "/chat/completions",
    "openai_responses": "/responses",
    "anthropic_messages": "/v1/messages",
}
"""What each format's SDK appends to its base URL."""


def base_url(case: ToolLoopCase) -> str:
    """The base URL to give the library's SDK: the run's prefix, then the recorded provider
    path less what the SDK appends (:data:`SUFFIXES`). Gemini's SDKs take the server and
    prefix alone, with the API version apart (:func:`api_version`)."""
    path = case.spec.provider_path.split("?", 1)[0]
    suffix = SUFFIXES.get(case.dialect)
    if suffix is not None and path.endswith(suffix):
        return case.base_url + path[: -len(suffix)]
    return case.base_url


def api_version(case: ToolLoopCase) -> str:
    """Gemini's API version, the recorded path's first segment (``v1beta``)."""
    return case.spec.provider_path.lstrip("/").split("/", 1)[0] or "v1beta"


def _first(case: ToolLoopCase) -> Mapping[str, Any]:
    return case.spec.first_request


def anthropic_options(case: ToolLoopCase) -> tuple[int, dict[str, Any] | None]:
    """The recorded ``max_tokens`` (4,096 when none) and ``thinking`` object."""
    first = _first(case)
    thinking = first.get("thinking")
    return int(first.get("max_tokens") or 4096), dict(thinking) if isinstance(
        thinking, Mapping
    ) else None


def gemini_thinking(case: ToolLoopCase) -> dict[str, Any] | None:
    """The recorded ``generationConfig.thinkingConfig`` (``includeThoughts``...)."""
    config = _first(case).get("generationConfig") or {}
    thinking = config.get("thinkingConfig") if isinstance(config, Mapping) else None
    return dict(thinking) if isinstance(thinking, Mapping) else None


def responses_options(case: ToolLoopCase) -> dict[str, Any]:
    """The recorded Responses options a user sets: ``reasoning``, ``store``, ``include``."""
    first = _first(case)
    return {k: first[k] for k in ("reasoning", "store", "include") if k in first}
