"""litellm: ``litellm.completion(..., stream=True)`` then ``litellm.stream_chunk_builder``, the
rebuild litellm's streaming docs give for "the complete streaming response".

The call is made as a litellm user makes one against an OpenAI-compatible server: the model
as ``openai/<model>`` (litellm's OpenAI provider, which sends the model name without the
prefix), ``api_base`` and ``api_key``, the recorded messages, tools, ``tool_choice``,
``parallel_tool_calls``, ``stream_options`` and ``n`` (the number of choices, which decides
the shape of the stream), ``num_retries=0`` (and ``max_retries=0`` for
the OpenAI SDK underneath) so a recorded 429 is what the user sees, and the timeout.

litellm reaches out to the network on its own unless told not to: the model cost map is
fetched at import unless ``LITELLM_LOCAL_MODEL_COST_MAP=True`` is in the environment, and a
Hugging Face tokenizer is downloaded to count tokens unless ``LITELLM_OFFLINE_MODE=true``;
importing this module sets both (when unset), before anything imports litellm, and the adapter
turns telemetry off.
"""

from __future__ import annotations

import os
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

__all__ = ["ADAPTER"]

# litellm reads these when it is imported (the cost map) and when it counts tokens, and the
# matrix imports a library (Adapter.missing) before it runs the adapter: set them here,
# when this module is imported, unless the user set them.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# Offline mode: the bundled tokenizers, never a Hugging Face download, when litellm counts
# tokens itself (a stream without usage); without it a llama model name makes litellm try
# huggingface.co five times with back-off.
os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")

HOW = (
    "A litellm user calls litellm.completion(model='openai/<model>', api_base=..., api_key=..., "
    "messages=..., tools=..., tool_choice=..., parallel_tool_calls=..., n=... (as recorded), "
    "stream=True, stream_options=..., num_retries=0, timeout=...), iterates the chunks (reading "
    "chunk.choices[0].delta as they come) and keeps them, then rebuilds the complete response "
    "with litellm.stream_chunk_builder(chunks, messages=messages), as litellm's streaming docs "
    "show. What is mapped is that ModelResponse: choices[0].message.content as the text, "
    "message.reasoning_content as the reasoning, message.tool_calls (id, function.name, "
    "function.arguments, parsed) as the tool calls, choices[0].finish_reason, and "
    "response.usage (prompt_tokens, completion_tokens, total_tokens, "
    "prompt_tokens_details.cached_tokens, completion_tokens_details.reasoning_tokens). When "
    "the iteration raises, what the loop had read from the chunks so far (the content and "
    "reasoning_content deltas joined, the last finish_reason, a chunk's usage) is what the "
    "user had."
)


def _litellm() -> Any:
    """litellm, with its own network access off (the environment above, and telemetry)."""
    import litellm  # noqa: PLC0415

    litellm.telemetry = False
    litellm.suppress_debug_info = True
    return litellm


def _get(obj: Any, name: str) -> Any:
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def _usage(found: Any) -> ClientUsage | None:
    if not found:
        return None
    return usage(
        _get(found, "prompt_tokens"),
        _get(found, "completion_tokens"),
        _get(found, "total_tokens"),
        prompt_cache_hit_tokens=_get(_get(found, "prompt_tokens_details"), "cached_tokens"),
        reasoning_tokens=_get(_get(found, "completion_tokens_details"), "reasoning_tokens"),
    )


def _response(built: Any) -> ClientResponse:
    """What the rebuilt ``ModelResponse`` tells its user."""
    choices = _get(built, "choices") or []
    if not choices:
        return ClientResponse(usage=_usage(_get(built, "usage")))
    choice = choices[0]
    message = _get(choice, "message")
    content = _get(message, "content")
    calls = [
        tool_call(
            _get(call, "id"),
            _get(_get(call, "function"), "name") or "",
            _get(_get(call, "function"), "arguments"),
        )
        for call in _get(message, "tool_calls") or []
    ]
    return ClientResponse(
        text=content if isinstance(content, str) else "",
        reasoning_text=_get(message, "reasoning_content") or None,
        tool_calls=calls,
        finish_reason=finish_reason("openai_chat", _get(choice, "finish_reason")),
        usage=_usage(_get(built, "usage")),
    )


def _run(case: ClientCase) -> ClientResponse:
    litellm = _litellm()
    request = case.request
    messages = list(request.get("messages") or [])
    kwargs: dict[str, Any] = {}
    for name in ("tools", "tool_choice", "parallel_tool_calls", "stream_options", "n"):
        if request.get(name) is not None:
            kwargs[name] = request[name]
    chunks: list[Any] = []
    try:
        stream = litellm.completion(
            model=f"openai/{case.model}",
            api_base=case.base_url + "/v1",
            api_key=TEST_API_KEY,
            messages=messages,
            stream=True,
            num_retries=0,
            max_retries=0,
            timeout=case.timeout,
            **kwargs,
        )
        for chunk in stream:
            chunks.append(chunk)  # noqa: PERF402 - a user's loop; kept if it raises
    except Exception as exc:
        raise ClientRaised(exc, _streamed(chunks)) from exc
    return _response(litellm.stream_chunk_builder(chunks, messages=messages))


def _streamed(chunks: list[Any]) -> ClientResponse:
    """What a user's loop over the chunks had when the iteration raised: the content and
    reasoning deltas joined, the last finish reason and the usage a chunk carried (the
    calls' fragments are not assembled: that is the rebuild's job, which the user never
    reached)."""
    text: list[str] = []
    reasoning: list[str] = []
    finished: Any = None
    found: Any = None
    for chunk in chunks:
        found = _get(chunk, "usage") or found
        for choice in (_get(chunk, "choices") or [])[:1]:
            delta = _get(choice, "delta")
            content = _get(delta, "content")
            if isinstance(content, str):
                text.append(content)
            thought = _get(delta, "reasoning_content")
            if isinstance(thought, str):
                reasoning.append(thought)
            finished = _get(choice, "finish_reason") or finished
    return ClientResponse(
        text="".join(text),
        reasoning_text="".join(reasoning) or None,
        finish_reason=finish_reason("openai_chat", finished),
        usage=_usage(found),
    )


ADAPTER = Adapter(
    name="litellm",
    distribution="litellm",
    dialects=("openai_chat",),
    capabilities=("tool_calls", "reasoning", "usage", "http_errors"),
    how=HOW,
    run=_run,
    module="litellm",
)
