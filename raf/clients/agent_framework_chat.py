"""Microsoft Agent Framework: ``OpenAIChatCompletionClient.get_response(..., stream=True)``,
then ``get_final_response()``, as the framework's docs show.

The Chat Completions client lives in ``agent-framework-openai`` (``agent_framework.openai``
re-exports it lazily; ``agent-framework-core`` alone cannot run this adapter). It is given a
pre-configured ``AsyncOpenAI`` (``async_client=``, the documented way to set the SDK's
options) with ``max_retries=0`` so a recorded 429 is what the user sees, and the timeout.

The recorded tools are declared as declaration-only ``FunctionTool`` objects
(``func=None``, ``input_model=`` the recorded JSON schema): the framework sends them but
never runs them, its function-invocation loop pauses on such calls and hands them to the
caller (agent_framework/_tools.py, ``_try_execute_function_calls``), so there is one model
call and the calls the model made are what the user gets. A recorded ``n`` (several choices),
which ``OpenAIChatCompletionOptions`` does not name, is put in the options all the same: the
client hands every option it does not translate to ``chat.completions.create``
(``_prepare_options``).

The stock client reads no provider reasoning field (``reasoning_content``, ``reasoning``):
it stays "free of provider-specific branches" and asks for a ``response_parser`` to
surface them (agent_framework_openai/_chat_completion_client.py,
``OpenAIChatResponseContentsParser``), so this adapter does not declare ``reasoning``.
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
)
from raf.collect import collect_agent_response
from raf.interop import maf
from raf.model import blocks
from raf.model.response import AgentResponse
from raf.model.usage import Usage
from raf.shared.client_response import ClientResponse, ClientToolCall, ClientUsage

__all__ = ["ADAPTER"]

HOW = (
    "An Agent Framework user builds OpenAIChatCompletionClient(model=..., "
    "async_client=AsyncOpenAI(base_url=..., api_key=..., max_retries=0, timeout=...)), "
    "declares the tools as FunctionTool(name=..., description=..., func=None, "
    "input_model=<JSON schema>) in options['tools'] (with tool_choice and "
    "allow_multiple_tool_calls as recorded, and n when recorded), iterates "
    "stream = client.get_response(messages, stream=True, options=...) and then awaits "
    "stream.get_final_response(). What is mapped is that ChatResponse: response.text as the "
    "text, the function_call contents of its messages (call_id, name, arguments, parsed) as "
    "the tool calls, response.finish_reason, and response.usage_details (input_token_count, "
    "output_token_count, total_token_count, cache_read_input_token_count, "
    "reasoning_output_token_count) as the usage. The stock "
    "client reads no reasoning field, so reasoning is not reported. When the stream raises, "
    "the text of the updates received so far (update.text), and what they fold into with "
    "ChatResponse.from_updates, are what the user had."
)


def _messages(recorded: Any) -> list[Any]:
    """The recorded OpenAI messages as framework ``Message`` objects, as a user's history
    holds them: text contents, an assistant's calls as function-call contents
    (``Content.from_function_call``) and a tool message as a function-result content
    (``Content.from_function_result``) in a ``tool`` message."""
    from agent_framework import Content, Message  # noqa: PLC0415

    out: list[Any] = []
    for message in recorded or []:
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(
                str(part.get("text") or "") for part in content if isinstance(part, dict)
            )
        role = str(message.get("role") or "user")
        contents: list[Any] = [str(content)] if content else []
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            contents.append(
                Content.from_function_call(
                    str(call.get("id")),
                    str(function.get("name") or ""),
                    arguments=function.get("arguments") or None,
                )
            )
        if role == "tool":
            contents = [
                Content.from_function_result(
                    str(message.get("tool_call_id")), result=str(content or "")
                )
            ]
        out.append(Message(role, contents or [""]))
    return out


def _tools(recorded: Any) -> list[Any]:
    """The recorded tools as declaration-only ``FunctionTool`` objects."""
    from agent_framework import FunctionTool  # noqa: PLC0415

    tools: list[Any] = []
    for tool in recorded or []:
        function = tool.get("function") or {}
        tools.append(
            FunctionTool(
                name=str(function.get("name") or ""),
                description=str(function.get("description") or ""),
                func=None,
                input_model=function.get("parameters") or {"type": "object", "properties": {}},
            )
        )
    return tools


def _usage(usage: Usage | None) -> ClientUsage | None:
    if usage is None:
        return None
    return ClientUsage(
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        total_tokens=usage.total_tokens,
        prompt_cache_hit_tokens=usage.prompt_cache_hit_tokens,
        reasoning_tokens=usage.reasoning_tokens,
    )


def _calls(response: AgentResponse) -> list[ClientToolCall]:
    """Every call the user was handed, as raf read it (a call whose arguments are not JSON
    with the text that arrived)."""
    return [
        tool_call(block.id, block.name, block.arguments)
        for message in response.turn_transcript
        for block in message.blocks
        if isinstance(block, blocks.ToolCall)
    ]


def _mapped(response: AgentResponse) -> ClientResponse:
    """What raf reads of the framework's response (:func:`raf.interop.maf.from_chat_response`,
    or its decoder over the updates)."""
    return ClientResponse(
        text=response.text,
        tool_calls=_calls(response),
        finish_reason=finish_reason("openai_chat", response.finish_reason),
        usage=_usage(response.usage),
    )


def _response(response: Any) -> ClientResponse:
    """What the final ``ChatResponse`` tells its user."""
    if response is None:
        return ClientResponse()
    return _mapped(maf.from_chat_response(response))


def _partial(updates: list[Any]) -> ClientResponse:
    """What a user's loop had when the stream raised: the text of the updates so far (raf's
    decoder of Agent Framework's updates), and the calls, finish reason and usage they fold
    into (``ChatResponse.from_updates``) when they still fold; when the fold itself raises,
    the text alone."""
    from agent_framework import ChatResponse  # noqa: PLC0415

    decoder = maf.Decoder()
    results = [result for update in updates for result in decoder.feed(update.to_dict())]
    text = collect_agent_response([*results, *decoder.close()]).text
    try:
        folded = _response(ChatResponse.from_updates(updates)) if updates else ClientResponse()
    except Exception:  # the fold fails on these updates too: the user had the text
        return ClientResponse(text=text)
    folded.text = text
    return folded


async def _call(case: ClientCase) -> ClientResponse:
    from agent_framework.openai import OpenAIChatCompletionClient  # noqa: PLC0415
    from openai import AsyncOpenAI  # noqa: PLC0415

    request = case.request
    sdk = AsyncOpenAI(
        base_url=case.base_url + "/v1",
        api_key=TEST_API_KEY,
        max_retries=0,
        timeout=case.timeout,
    )
    client: Any = OpenAIChatCompletionClient(model=case.model, async_client=sdk)
    options: dict[str, Any] = {}
    if request.get("tools"):
        options["tools"] = _tools(request["tools"])
        if isinstance(request.get("tool_choice"), str):
            options["tool_choice"] = request["tool_choice"]
        if request.get("parallel_tool_calls") is not None:
            options["allow_multiple_tool_calls"] = request["parallel_tool_calls"]
    if request.get("n") is not None:
        options["n"] = request["n"]
    updates: list[Any] = []
    try:
        stream = client.get_response(
            _messages(request.get("messages")), stream=True, options=options
        )
        async for update in stream:
            updates.append(update)  # noqa: PERF401 - a user's loop; kept if it raises
        final = await stream.get_final_response()
    except Exception as exc:
        raise ClientRaised(exc, _partial(updates)) from exc
    finally:
        await sdk.close()
    return _response(final)


def _run(case: ClientCase) -> ClientResponse:
    return asyncio.run(_call(case))


ADAPTER = Adapter(
    name="agent-framework",
    distribution="agent-framework-core",
    dialects=("openai_chat",),
    capabilities=("tool_calls", "usage", "http_errors"),
    how=HOW,
    run=_run,
    module="agent_framework_openai",
)
