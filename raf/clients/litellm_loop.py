"""litellm's tool loop as its function-calling docs write it by hand: ``litellm.completion(
..., tools=..., stream=True)``, the chunks rebuilt with ``litellm.stream_chunk_builder``, the
assistant message appended to ``messages``, one ``{"role": "tool", "tool_call_id", "name",
"content"}`` message per call, and the next ``completion``, until a round makes no call.

litellm speaks OpenAI's message format to every provider and translates it: the model is
``openai/<model>`` for Chat Completions, ``anthropic/<model>`` and ``gemini/<model>`` for the
others, each with ``api_base`` at the server (the full Messages URL for Anthropic, the API
version's root for Gemini, whose model and method litellm appends), the recorded
``thinking`` and ``max_tokens`` for Anthropic, ``stream_options`` when the recording asks for
usage, and retries off. The loop answers every call, a known tool's or not, with the
recorded result (a hand loop decides what an unknown tool returns); OpenAI's tool message
has no error flag, so errors go as their text.
"""

from __future__ import annotations

from typing import Any

from raf.clients import _tool_loop
from raf.clients.base import TEST_API_KEY, ToolLoopAdapter, ToolLoopCase
from raf.clients.litellm_completion import _get, _litellm, _response
from raf.shared.client_response import ClientResponse

__all__ = ["TOOL_LOOP_ADAPTER"]

HOW = (
    "A litellm user writes the loop of litellm's function-calling docs: response = "
    "litellm.completion(model='openai/<model>' | 'anthropic/<model>' | 'gemini/<model>', "
    "api_base=..., api_key=..., messages=messages, tools=[{'type': 'function', 'function': "
    "{...}}], stream=True, num_retries=0, the recorded thinking/max_tokens/stream_options), "
    "keeps the chunks, message = litellm.stream_chunk_builder(chunks, messages=messages)"
    ".choices[0].message, appends it to messages and one tool message (tool_call_id, name, "
    "content) per call, and calls again until a round makes no call. What is mapped is the "
    "last rebuilt ModelResponse: message.content, message.reasoning_content, "
    "message.tool_calls, choices[0].finish_reason and usage."
)


def _target(case: ToolLoopCase) -> tuple[str, str, dict[str, Any]]:
    """The model name, ``api_base`` and options for the recording's format."""
    first = case.spec.first_request
    if case.dialect == "anthropic_messages":
        max_tokens, thinking = _tool_loop.anthropic_options(case)
        options: dict[str, Any] = {"max_tokens": max_tokens}
        if thinking:
            options["thinking"] = thinking
        url = _tool_loop.base_url(case) + "/v1/messages"
        return f"anthropic/{case.model}", url, options
    if case.dialect == "gemini":
        url = f"{case.base_url}/{_tool_loop.api_version(case)}"
        return f"gemini/{case.model}", url, {}
    options = {}
    if first.get("stream_options") is not None:
        options["stream_options"] = first["stream_options"]
    return f"openai/{case.model}", _tool_loop.base_url(case), options


def _run(case: ToolLoopCase) -> ClientResponse:
    litellm = _litellm()
    model, api_base, options = _target(case)
    messages: list[Any] = [dict(m) for m in case.spec.messages]
    tools = [{"type": "function", "function": tool.to_builtins()} for tool in case.spec.tools]
    built: Any = None
    for _round in range(case.spec.max_rounds):
        stream = litellm.completion(
            model=model,
            api_base=api_base,
            api_key=TEST_API_KEY,
            messages=messages,
            tools=tools,
            stream=True,
            num_retries=0,
            max_retries=0,
            timeout=case.timeout,
            **options,
        )
        chunks = list(stream)
        built = litellm.stream_chunk_builder(chunks, messages=messages)
        message = built.choices[0].message
        calls = _get(message, "tool_calls") or []
        if not calls:
            break
        messages.append(message)
        for call in calls:
            name = call.function.name or ""
            content, _is_error = case.tool_result(name, call.function.arguments or "{}")
            messages.append(
                {"role": "tool", "tool_call_id": call.id, "name": name, "content": content}
            )
    return _response(built)


TOOL_LOOP_ADAPTER = ToolLoopAdapter(
    name="litellm-loop",
    distribution="litellm",
    dialects=("openai_chat", "anthropic_messages", "gemini"),
    capabilities=("tool_calls", "reasoning", "usage"),
    how=HOW,
    run=_run,
    module="litellm",
)
