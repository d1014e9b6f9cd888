"""Pydantic AI: ``pydantic_ai.direct.model_request_stream`` on an ``OpenAIChatModel``, then the
final ``ModelResponse`` (``stream.get()``), as the direct API's docs show.

The direct API is the lowest-level documented streaming call: one model request, no agent
loop, so the recorded tools are sent (``ModelRequestParameters(function_tools=[...])``) but
never run, and the calls the model made are what the user gets. The model is
``OpenAIChatModel(model, provider=OpenAIProvider(openai_client=AsyncOpenAI(...,
max_retries=0)))``: the SDK client is built by hand, the documented way to set its options,
so a recorded 429 is what the user sees; the timeout is the ``timeout`` model setting. A
recorded ``n`` (several choices), which the model settings do not name, goes in the
``extra_body`` setting, Pydantic AI's way to send what its settings do not model.
"""

from __future__ import annotations

import asyncio
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

HOW = (
    "A Pydantic AI user of the direct API opens async with model_request_stream(model, "
    "[ModelRequest(parts=[SystemPromptPart(...), UserPromptPart(...)])], model_settings=..., "
    "model_request_parameters=ModelRequestParameters(function_tools=[ToolDefinition(name, "
    "parameters_json_schema, description)])) as stream, iterates the events, and reads the "
    "final ModelResponse with stream.get(). The model is OpenAIChatModel(model, "
    "provider=OpenAIProvider(openai_client=AsyncOpenAI(base_url=..., api_key=..., "
    "max_retries=0))), with parallel_tool_calls, tool_choice and timeout as model settings "
    "(and a recorded n as extra_body). "
    "What is mapped is that ModelResponse: its TextParts joined as the text, its ThinkingParts "
    "joined as the reasoning, its ToolCallParts (tool_call_id, tool_name, args_as_dict()) as "
    "the tool calls, response.finish_reason (Pydantic AI's normalised stop, length, "
    "tool_call, content_filter, error) and response.usage (input_tokens, output_tokens, "
    "cache_read_tokens, details['reasoning_tokens']; none when it has no values). When the "
    "stream raises, stream.get() at that point is what the user had."
)

_FINISH = {"tool_call": "tool_calls"}
"""Pydantic AI's normalised finish reasons that are not raf's own names."""


def _messages(recorded: Any, system: str) -> list[Any]:
    """The recorded OpenAI messages as Pydantic AI messages, as a user's message history
    holds them: system, user and tool-result messages in a ``ModelRequest``
    (``SystemPromptPart``, ``UserPromptPart``, ``ToolReturnPart``), an assistant message as a
    ``ModelResponse`` of its text and its calls (``ToolCallPart``)."""
    from pydantic_ai.messages import (  # noqa: PLC0415
        ModelRequest,
        ModelResponse,
        SystemPromptPart,
        TextPart,
        ThinkingPart,
        ToolCallPart,
        ToolReturnPart,
        UserPromptPart,
    )

    out: list[Any] = []
    parts: list[Any] = []
    names: dict[str, str] = {}  # call id -> tool name, for the tool results
    for message in recorded or []:
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(
                str(part.get("text") or "") for part in content if isinstance(part, dict)
            )
        text = str(content or "")
        role = message.get("role")
        if role in ("system", "developer"):
            parts.append(SystemPromptPart(content=text))
        elif role == "assistant":
            if parts:
                out.append(ModelRequest(parts=parts))
                parts = []
            answer: list[Any] = []
            for field in ("reasoning_content", "reasoning"):
                thought = message.get(field)
                if isinstance(thought, str) and thought:
                    answer.append(ThinkingPart(content=thought, id=field, provider_name=system))
            answer += [TextPart(content=text)] if text else []
            for call in message.get("tool_calls") or []:
                function = call.get("function") or {}
                names[str(call.get("id"))] = str(function.get("name") or "")
                answer.append(
                    ToolCallPart(
                        tool_name=str(function.get("name") or ""),
                        args=function.get("arguments") or None,
                        tool_call_id=str(call.get("id")),
                    )
                )
            out.append(ModelResponse(parts=answer))
        elif role == "tool":
            call_id = str(message.get("tool_call_id"))
            parts.append(
                ToolReturnPart(tool_name=names.get(call_id, ""), content=text, tool_call_id=call_id)
            )
        else:
            parts.append(UserPromptPart(content=text))
    if parts:
        out.append(ModelRequest(parts=parts))
    return out


def _tools(recorded: Any) -> list[Any]:
    from pydantic_ai.tools import ToolDefinition  # noqa: PLC0415

    tools: list[Any] = []
    for tool in recorded or []:
        function = tool.get("function") or {}
        tools.append(
            ToolDefinition(
                name=str(function.get("name") or ""),
                parameters_json_schema=function.get("parameters")
                or {"type": "object", "properties": {}},
                description=function.get("description"),
            )
        )
    return tools


def _usage(found: Any) -> ClientUsage | None:
    if found is None or not found.has_values():
        return None
    details = found.details or {}
    return usage(
        found.input_tokens,
        found.output_tokens,
        found.total_tokens,
        prompt_cache_hit_tokens=found.cache_read_tokens if found.cache_read_tokens else None,
        reasoning_tokens=details.get("reasoning_tokens"),
    )


def _response(response: Any) -> ClientResponse:
    """What the final ``ModelResponse`` tells its user."""
    from pydantic_ai.messages import TextPart, ThinkingPart, ToolCallPart  # noqa: PLC0415

    if response is None:
        return ClientResponse()
    text = "".join(p.content for p in response.parts if isinstance(p, TextPart))
    reasoning = "".join(p.content for p in response.parts if isinstance(p, ThinkingPart))
    calls = [
        tool_call(p.tool_call_id, p.tool_name, p.args_as_dict())
        for p in response.parts
        if isinstance(p, ToolCallPart)
    ]
    raw = response.finish_reason
    return ClientResponse(
        text=text,
        reasoning_text=reasoning or None,
        tool_calls=calls,
        finish_reason=finish_reason("openai_chat", _FINISH.get(raw, raw) if raw else None),
        usage=_usage(response.usage),
    )


async def _call(case: ClientCase) -> ClientResponse:
    from openai import AsyncOpenAI  # noqa: PLC0415
    from pydantic_ai.direct import model_request_stream  # noqa: PLC0415
    from pydantic_ai.models import ModelRequestParameters  # noqa: PLC0415
    from pydantic_ai.models.openai import OpenAIChatModel  # noqa: PLC0415
    from pydantic_ai.providers.openai import OpenAIProvider  # noqa: PLC0415

    request = case.request
    sdk = AsyncOpenAI(
        base_url=case.base_url + "/v1",
        api_key=TEST_API_KEY,
        max_retries=0,
        timeout=case.timeout,
    )
    model = OpenAIChatModel(case.model, provider=OpenAIProvider(openai_client=sdk))
    settings: dict[str, Any] = {"timeout": case.timeout}
    if request.get("tools"):
        if request.get("parallel_tool_calls") is not None:
            settings["parallel_tool_calls"] = request["parallel_tool_calls"]
        if isinstance(request.get("tool_choice"), str):
            settings["tool_choice"] = request["tool_choice"]
    if request.get("n") is not None:
        settings["extra_body"] = {"n": request["n"]}
    parameters = ModelRequestParameters(function_tools=_tools(request.get("tools")))
    stream: Any = None
    try:
        async with model_request_stream(
            model,
            _messages(request.get("messages"), model.system),
            model_settings=settings,
            model_request_parameters=parameters,
        ) as stream:
            async for _event in stream:
                pass
            return _response(stream.get())
    except Exception as exc:
        raise ClientRaised(
            exc, _response(stream.get()) if stream is not None else ClientResponse()
        ) from exc
    finally:
        await sdk.close()


def _run(case: ClientCase) -> ClientResponse:
    return asyncio.run(_call(case))


ADAPTER = Adapter(
    name="pydantic-ai",
    distribution="pydantic-ai-slim",
    dialects=("openai_chat",),
    capabilities=("tool_calls", "reasoning", "usage", "http_errors"),
    how=HOW,
    run=_run,
    module="pydantic_ai",
)
