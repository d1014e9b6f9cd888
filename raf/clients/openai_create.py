"""The OpenAI Python SDK, Chat Completions, the plain loop its README shows:
``client.chat.completions.create(..., stream=True)`` and ``for chunk in stream``.

The user's loop is the one of the README and of the "function calling / streaming" guide:
text is ``chunk.choices[0].delta.content`` joined; tool calls are accumulated by
``tool_call.index`` (the first delta of an index gives the id and name, every delta's
``function.arguments`` is appended); the finish reason is the last non-empty
``choices[0].finish_reason``; the usage is the ``usage`` of the chunk that carries one
(``stream_options`` is passed as recorded). The SDK's delta has no typed reasoning field; as
DeepSeek's and OpenRouter's docs tell their users, reasoning is read from the delta's extra
attribute ``reasoning_content`` (DeepSeek), else ``reasoning`` (OpenRouter).

The helpers here (the client, the split of a recorded body into the SDK's keyword arguments)
are shared by :mod:`raf.clients.openai_stream_helper` and :mod:`raf.clients.openai_responses`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from raf.clients.base import (
    TEST_API_KEY,
    Adapter,
    ClientCase,
    ClientRaised,
    finish_reason,
    tool_call,
    usage,
)
from raf.shared.client_response import ClientResponse, ClientUsage

__all__ = ["ADAPTER", "client_for", "openai_usage", "sdk_arguments"]

DIALECT = "openai_chat"


def client_for(case: ClientCase, endpoint: str) -> Any:
    """An ``openai.OpenAI`` client whose base URL is the case's prefix plus the recorded
    provider path up to ``endpoint`` (``/chat/completions``, ``/responses``): ``/v1`` for
    OpenAI, nothing for DeepSeek, ``/api/v1`` for OpenRouter... No retries, the case's
    timeout, the test key."""
    import openai  # noqa: PLC0415 - optional library

    path = case.path.split("?", 1)[0]
    head = path.rsplit(endpoint, 1)[0] if endpoint in path else "/v1"
    return openai.OpenAI(
        base_url=case.base_url + head,
        api_key=TEST_API_KEY,
        max_retries=0,
        timeout=case.timeout,
    )


def sdk_arguments(
    method: Callable[..., Any], request: dict[str, Any], *, drop: tuple[str, ...] = ("stream",)
) -> dict[str, Any]:
    """The recorded request body as keyword arguments of the SDK's ``method``: the members
    it names as parameters are passed as such, the others (a provider's extensions such as
    OpenRouter's ``provider``) in ``extra_body``, as a user of such a provider does."""
    names = set(inspect.signature(method).parameters)
    kwargs: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, value in request.items():
        if key in drop:
            continue
        if key in names and key not in ("extra_body", "extra_headers", "extra_query", "timeout"):
            kwargs[key] = value
        else:
            extra[key] = value
    if extra:
        kwargs["extra_body"] = extra
    return kwargs


def _count(obj: Any, *path: str) -> int | None:
    for name in path:
        if obj is None:
            return None
        obj = obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)
    return obj if isinstance(obj, int) and not isinstance(obj, bool) else None


def openai_usage(raw: Any) -> ClientUsage | None:
    """A ``CompletionUsage`` as the SDK hands it: the three counts, the cached prompt tokens
    (``prompt_tokens_details.cached_tokens``) and the reasoning tokens
    (``completion_tokens_details.reasoning_tokens``) when the SDK has them."""
    if raw is None:
        return None
    return usage(
        _count(raw, "prompt_tokens"),
        _count(raw, "completion_tokens"),
        _count(raw, "total_tokens"),
        prompt_cache_hit_tokens=_count(raw, "prompt_tokens_details", "cached_tokens"),
        reasoning_tokens=_count(raw, "completion_tokens_details", "reasoning_tokens"),
    )


@dataclass
class _Call:
    id: str | None
    name: str
    arguments: str = ""


@dataclass
class _Seen:
    """What the user's loop has accumulated."""

    text: str = ""
    reasoning: str = ""
    calls: dict[int, _Call] = field(default_factory=dict)
    finish: str | None = None
    usage: Any = None

    def response(self) -> ClientResponse:
        return ClientResponse(
            text=self.text,
            reasoning_text=self.reasoning or None,
            tool_calls=[
                tool_call(call.id, call.name, call.arguments) for call in self.calls.values()
            ],
            finish_reason=finish_reason(DIALECT, self.finish),
            usage=openai_usage(self.usage),
        )


def _read(chunk: Any, seen: _Seen) -> None:
    """One chunk, as the README's and the function-calling guide's loop reads it."""
    if chunk.usage is not None:
        seen.usage = chunk.usage
    if not chunk.choices:  # the usage-only chunk (stream_options.include_usage)
        return
    choice = chunk.choices[0]
    delta = choice.delta
    if delta is not None:
        if delta.content:
            seen.text += delta.content  # a content that is not a string raises, as it would
        reasoning = getattr(delta, "reasoning_content", None) or getattr(delta, "reasoning", None)
        if reasoning:
            seen.reasoning += reasoning
        for call in delta.tool_calls or []:
            function = call.function
            if call.index not in seen.calls:
                seen.calls[call.index] = _Call(
                    call.id, (function.name if function is not None else None) or ""
                )
            if function is not None and function.arguments:
                seen.calls[call.index].arguments += function.arguments
    if choice.finish_reason:
        seen.finish = choice.finish_reason


def _run(case: ClientCase) -> ClientResponse:
    client = client_for(case, "/chat/completions")
    seen = _Seen()
    try:
        create = client.chat.completions.create
        stream = create(**sdk_arguments(create, case.request), stream=True)
        for chunk in stream:
            _read(chunk, seen)
    except Exception as exc:  # what the library raised, after what the user had seen
        raise ClientRaised(exc, seen.response()) from exc
    finally:
        client.close()
    return seen.response()


ADAPTER = Adapter(
    name="openai",
    distribution="openai",
    dialects=(DIALECT,),
    capabilities=("tool_calls", "reasoning", "usage", "http_errors"),
    how=(
        "client.chat.completions.create(**request, stream=True) with max_retries=0, then the "
        "README's loop: for chunk in stream, text is choices[0].delta.content joined; tool "
        "calls are accumulated by tool_calls[].index as the function-calling streaming guide "
        "shows (the first delta of an index gives id and name, every delta's "
        "function.arguments is appended, then parsed as JSON); the finish reason is the last "
        "non-empty choices[0].finish_reason; usage is the chunk.usage of the chunk that carries "
        "one (prompt/completion/total tokens, prompt_tokens_details.cached_tokens, "
        "completion_tokens_details.reasoning_tokens); reasoning, which the SDK does not type, is "
        "the delta's extra attribute reasoning_content (DeepSeek) else reasoning (OpenRouter). "
        "An exception from create() or from the iteration is the library raising, with what "
        "the loop had accumulated."
    ),
    run=_run,
    module="openai",
)
