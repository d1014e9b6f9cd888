"""Pydantic AI's own tool loop: an ``Agent`` with the recording's tools
(``Tool.from_schema``), run with ``agent.iter(...)``, streaming every model request as the
docs' "streaming all events" example does (``node.stream(run.ctx)`` on each model-request
node).

The model is the format's Pydantic AI model over an SDK client built by hand with retries off
and the base URL at the server (``OpenAIChatModel``, ``OpenAIResponsesModel``,
``AnthropicModel``, ``GoogleModel`` with ``GoogleProvider(client=genai.Client(
http_options=HttpOptions(base_url, api_version)))``), and the recorded options as model
settings (``openai_reasoning_effort``/``openai_reasoning_summary``/``openai_store``,
``anthropic_thinking`` and ``max_tokens``, ``google_thinking_config``). A tool's function
returns the recorded result; a recorded error is raised as ``ToolFailed`` (Pydantic AI's
documented terminal tool failure, a failed ``ToolReturnPart`` the model sees), or returned as
text by a release that has no ``ToolFailed``. On Gemini the recorded result is the
``functionResponse.response`` object, so the function returns that object (a dict), which
``GoogleModel`` sends as it is; a string would go wrapped as ``{"return_value": ...}``.

Written against Pydantic AI 2.x; it also drives the older releases the client history replays
(``conformance/client_history.yaml``, back to 0.3): the imports it needs exist there, a
missing ``ToolFailed`` is tolerated as said, usage named ``request_tokens`` and
``response_tokens`` (0.x) is read as well, and a run result without ``response`` gives its
last message.
"""

from __future__ import annotations

import asyncio
from typing import Any

from raf.clients import _tool_loop
from raf.clients.base import (
    TEST_API_KEY,
    ToolLoopAdapter,
    ToolLoopCase,
    arguments,
    finish_reason,
    usage,
)
from raf.clients.base import tool_call as _call
from raf.shared.client_response import ClientResponse, ClientUsage

__all__ = ["TOOL_LOOP_ADAPTER"]

HOW = (
    "A Pydantic AI user builds Agent(model, tools=[Tool.from_schema(function, name, "
    "description, json_schema)], system_prompt=..., retries=...) with the format's model "
    "(OpenAIChatModel, OpenAIResponsesModel, AnthropicModel, GoogleModel) over an SDK client "
    "at the server with max_retries=0, the recorded thinking/reasoning options as model "
    "settings, and runs async with agent.iter(prompt) as run, streaming each model request "
    "node (async with node.stream(run.ctx)); a tool's recorded error is raised as ToolFailed. "
    "What is mapped is the run's final ModelResponse (run.result.response): its TextParts as "
    "the text, ThinkingParts as the reasoning, ToolCallParts as the calls, finish_reason "
    "(stop, length, tool_call...) and usage (input, output tokens; cache reads, "
    "details['reasoning_tokens'])."
)

_FINISH = {"tool_call": "tool_calls"}


def _model(case: ToolLoopCase) -> tuple[Any, dict[str, Any], Any]:
    """The model, its settings, and the SDK client to close."""
    settings: dict[str, Any] = {"timeout": case.timeout}
    if case.dialect in ("openai_chat", "openai_responses"):
        from openai import AsyncOpenAI  # noqa: PLC0415
        from pydantic_ai.providers.openai import OpenAIProvider  # noqa: PLC0415

        sdk: Any = AsyncOpenAI(
            base_url=_tool_loop.base_url(case),
            api_key=TEST_API_KEY,
            max_retries=0,
            timeout=case.timeout,
        )
        provider = OpenAIProvider(openai_client=sdk)
        if case.dialect == "openai_responses":
            from pydantic_ai.models.openai import OpenAIResponsesModel  # noqa: PLC0415

            options = _tool_loop.responses_options(case)
            reasoning = options.get("reasoning") or {}
            if reasoning.get("effort"):
                settings["openai_reasoning_effort"] = reasoning["effort"]
            if reasoning.get("summary"):
                settings["openai_reasoning_summary"] = reasoning["summary"]
            if "store" in options:
                settings["openai_store"] = options["store"]
            return OpenAIResponsesModel(case.model, provider=provider), settings, sdk
        from pydantic_ai.models.openai import OpenAIChatModel  # noqa: PLC0415

        return OpenAIChatModel(case.model, provider=provider), settings, sdk
    if case.dialect == "anthropic_messages":
        from anthropic import AsyncAnthropic  # noqa: PLC0415
        from pydantic_ai.models.anthropic import AnthropicModel  # noqa: PLC0415
        from pydantic_ai.providers.anthropic import AnthropicProvider  # noqa: PLC0415

        sdk = AsyncAnthropic(
            base_url=_tool_loop.base_url(case),
            api_key=TEST_API_KEY,
            max_retries=0,
            timeout=case.timeout,
        )
        max_tokens, thinking = _tool_loop.anthropic_options(case)
        settings["max_tokens"] = max_tokens
        if thinking:
            settings["anthropic_thinking"] = thinking
        model = AnthropicModel(case.model, provider=AnthropicProvider(anthropic_client=sdk))
        return model, settings, sdk
    from google import genai  # noqa: PLC0415
    from google.genai import types  # noqa: PLC0415
    from pydantic_ai.models.google import GoogleModel  # noqa: PLC0415
    from pydantic_ai.providers.google import GoogleProvider  # noqa: PLC0415

    client = genai.Client(
        api_key=TEST_API_KEY,
        http_options=types.HttpOptions(
            base_url=case.base_url,
            api_version=_tool_loop.api_version(case),
            timeout=int(case.timeout * 1000),
        ),
    )
    thinking = _tool_loop.gemini_thinking(case) or {}
    if thinking.get("includeThoughts"):
        settings["google_thinking_config"] = {"include_thoughts": True}
    return GoogleModel(case.model, provider=GoogleProvider(client=client)), settings, None


def _tools(case: ToolLoopCase) -> list[Any]:
    from pydantic_ai import Tool  # noqa: PLC0415

    try:
        from pydantic_ai.exceptions import ToolFailed  # noqa: PLC0415
    except ImportError:  # an older release: no terminal tool failure, the error goes as text
        ToolFailed = None

    def make(name: str) -> Any:
        def run(**kwargs: Any) -> Any:
            content, is_error = case.tool_result(name, kwargs)
            if is_error and case.dialect == "gemini":
                # the recorded response object is {"error": ...}: GoogleModel wraps the
                # failure's text in {"error": ...} itself
                found = arguments(content)
                if isinstance(found, dict) and isinstance(found.get("error"), str):
                    content = found["error"]
            if is_error and ToolFailed is not None:
                raise ToolFailed(content)
            if case.dialect == "gemini":  # the recorded functionResponse.response object
                found = arguments(content)
                return found if isinstance(found, dict) else content
            return content

        return run

    return [
        Tool.from_schema(make(tool.name), tool.name, tool.description, dict(tool.parameters))
        for tool in case.spec.tools
    ]


def _usage(found: Any) -> ClientUsage | None:
    if found is None or not found.has_values():
        return None
    details = getattr(found, "details", None) or {}
    cache = getattr(found, "cache_read_tokens", None)
    # 0.x releases name the counts request_tokens and response_tokens
    prompt = getattr(found, "input_tokens", None)
    completion = getattr(found, "output_tokens", None)
    return usage(
        prompt if prompt is not None else getattr(found, "request_tokens", None),
        completion if completion is not None else getattr(found, "response_tokens", None),
        found.total_tokens,
        prompt_cache_hit_tokens=cache or None,
        reasoning_tokens=details.get("reasoning_tokens") or None,
    )


def _response(case: ToolLoopCase, response: Any) -> ClientResponse:
    from pydantic_ai.messages import TextPart, ThinkingPart, ToolCallPart  # noqa: PLC0415

    if response is None:
        return ClientResponse()
    text = "".join(p.content for p in response.parts if isinstance(p, TextPart))
    reasoning = "".join(p.content for p in response.parts if isinstance(p, ThinkingPart))
    calls = [
        _call(p.tool_call_id, p.tool_name, p.args_as_dict())
        for p in response.parts
        if isinstance(p, ToolCallPart)
    ]
    raw = getattr(response, "finish_reason", None)
    return ClientResponse(
        text=text,
        reasoning_text=reasoning or None,
        tool_calls=calls,
        finish_reason=finish_reason("openai_chat", _FINISH.get(raw, raw) if raw else None),
        usage=_usage(response.usage),
    )


async def _loop(case: ToolLoopCase) -> ClientResponse:
    from pydantic_ai import Agent  # noqa: PLC0415

    model, settings, sdk = _model(case)
    system = [m["content"] for m in case.spec.messages if m.get("role") in ("system", "developer")]
    prompt = "\n\n".join(m["content"] for m in case.spec.messages if m.get("role") == "user")
    agent: Any = Agent(
        model,
        tools=_tools(case),
        system_prompt=system,
        model_settings=settings,
        retries=case.spec.max_rounds,
    )
    try:
        async with agent.iter(prompt) as run:
            async for node in run:
                if Agent.is_model_request_node(node):
                    async with node.stream(run.ctx) as request_stream:
                        async for _event in request_stream:
                            pass
            result = run.result
        response = getattr(result, "response", None)
        if response is None and result is not None:
            response = result.all_messages()[-1]
        return _response(case, response)
    finally:
        if sdk is not None:
            await sdk.close()


def _run(case: ToolLoopCase) -> ClientResponse:
    return asyncio.run(_loop(case))


TOOL_LOOP_ADAPTER = ToolLoopAdapter(
    name="pydantic-ai-agent",
    distribution="pydantic-ai-slim",
    dialects=("openai_chat", "openai_responses", "anthropic_messages", "gemini"),
    capabilities=("tool_calls", "reasoning", "usage"),
    how=HOW,
    run=_run,
    module="pydantic_ai",
)
