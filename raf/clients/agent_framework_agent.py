"""Microsoft Agent Framework's own tool loop: an agent made with ``client.as_agent(tools=...)``,
run with ``agent.run(prompt, stream=True)`` and its final response
(``await stream.get_final_response()``), as the framework's agent docs show.

The chat client is the format's: ``OpenAIChatCompletionClient`` (Chat Completions) and
``OpenAIChatClient`` (Responses, with the recorded ``reasoning``, ``store`` and ``include``
as options) from ``agent-framework-openai``, over an ``AsyncOpenAI`` built by hand with
retries off, and ``GeminiChatClient`` from ``agent-framework-gemini`` over a
``genai.Client`` at the server (``include_thoughts`` when the recording asked for thoughts).
Agent Framework's Anthropic client (``agent-framework-anthropic``) needs ``anthropic<2`` and
cannot be installed beside the matrix's pinned ``anthropic``: the agent has no Anthropic
cells. Each tool is a ``FunctionTool`` whose ``input_model`` is the recording's JSON Schema
and whose function returns the recorded result's text (a function result has no error flag
of its own; a raised exception would replace the text by the framework's own).
"""

from __future__ import annotations

import asyncio
from typing import Any

from raf.clients import _tool_loop
from raf.clients.agent_framework_chat import _calls, _usage
from raf.clients.base import TEST_API_KEY, ToolLoopAdapter, ToolLoopCase, finish_reason
from raf.interop import maf
from raf.shared.client_response import ClientResponse

__all__ = ["TOOL_LOOP_ADAPTER"]

HOW = (
    "An Agent Framework user builds the format's chat client (OpenAIChatCompletionClient, "
    "OpenAIChatClient for Responses, GeminiChatClient) over an SDK client at the server with "
    "retries off, agent = client.as_agent(instructions=..., tools=[FunctionTool(name, "
    "description, func, input_model=<the JSON Schema>)], default_options=<the recorded "
    "reasoning/thinking options>), iterates stream = agent.run(prompt, stream=True) and "
    "awaits stream.get_final_response(). What is mapped is that AgentResponse: .text, the "
    "text_reasoning contents of its last message as the reasoning, the function calls of "
    "its last message, .finish_reason and .usage_details."
)


def _client(case: ToolLoopCase) -> tuple[Any, dict[str, Any], Any]:
    """The chat client, the agent's default options and the SDK client to close."""
    if case.dialect in ("openai_chat", "openai_responses"):
        from openai import AsyncOpenAI  # noqa: PLC0415

        sdk: Any = AsyncOpenAI(
            base_url=_tool_loop.base_url(case),
            api_key=TEST_API_KEY,
            max_retries=0,
            timeout=case.timeout,
        )
        if case.dialect == "openai_responses":
            from agent_framework.openai import OpenAIChatClient  # noqa: PLC0415

            options = _tool_loop.responses_options(case)
            return OpenAIChatClient(model=case.model, async_client=sdk), options, sdk
        from agent_framework.openai import OpenAIChatCompletionClient  # noqa: PLC0415

        return OpenAIChatCompletionClient(model=case.model, async_client=sdk), {}, sdk
    from agent_framework_gemini import GeminiChatClient  # noqa: PLC0415
    from google import genai  # noqa: PLC0415
    from google.genai import types  # noqa: PLC0415

    client = genai.Client(
        api_key=TEST_API_KEY,
        http_options=types.HttpOptions(
            base_url=case.base_url,
            api_version=_tool_loop.api_version(case),
            timeout=int(case.timeout * 1000),
        ),
    )
    thinking = _tool_loop.gemini_thinking(case) or {}
    options = (
        {"thinking_config": {"include_thoughts": True}} if thinking.get("includeThoughts") else {}
    )
    return GeminiChatClient(model=case.model, client=client), options, None


def _tools(case: ToolLoopCase) -> list[Any]:
    from agent_framework import FunctionTool  # noqa: PLC0415

    def make(name: str) -> Any:
        def run(**kwargs: Any) -> str:
            return case.tool_result(name, kwargs)[0]

        return run

    return [
        FunctionTool(
            name=tool.name,
            description=tool.description,
            func=make(tool.name),
            input_model=dict(tool.parameters),
        )
        for tool in case.spec.tools
    ]


def _response(case: ToolLoopCase, response: Any) -> ClientResponse:
    """What the final ``AgentResponse`` tells its user, read by raf
    (:func:`raf.interop.maf.from_chat_response`): the text of the whole run; the reasoning and
    the calls of its last message."""
    if response is None:
        return ClientResponse()
    whole = maf.from_chat_response(response)
    data = response.to_dict()
    last = maf.from_chat_response({**data, "messages": data.get("messages", [])[-1:]})
    return ClientResponse(
        text=whole.text,
        reasoning_text=last.reasoning_text,
        tool_calls=_calls(last),
        finish_reason=finish_reason("openai_chat", whole.finish_reason),
        usage=_usage(whole.usage),
    )


async def _loop(case: ToolLoopCase) -> ClientResponse:
    client, options, sdk = _client(case)
    system = [m["content"] for m in case.spec.messages if m.get("role") in ("system", "developer")]
    prompt = "\n\n".join(m["content"] for m in case.spec.messages if m.get("role") == "user")
    agent = client.as_agent(
        instructions="\n\n".join(system) or None,
        tools=_tools(case),
        default_options=options or None,
    )
    try:
        stream = agent.run(prompt, stream=True)
        async for _update in stream:
            pass
        return _response(case, await stream.get_final_response())
    finally:
        if sdk is not None:
            await sdk.close()


def _run(case: ToolLoopCase) -> ClientResponse:
    return asyncio.run(_loop(case))


TOOL_LOOP_ADAPTER = ToolLoopAdapter(
    name="agent-framework-agent",
    distribution="agent-framework-core",
    dialects=("openai_chat", "openai_responses", "gemini"),
    capabilities=("tool_calls", "reasoning", "usage"),
    how=HOW,
    run=_run,
    module="agent_framework",
)
