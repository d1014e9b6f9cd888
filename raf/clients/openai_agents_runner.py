"""The OpenAI Agents SDK's own tool loop: ``Runner.run_streamed(agent, input)`` with
``async for event in result.stream_events()``, as its "Running agents" and "Streaming" docs
show, over ``OpenAIChatCompletionsModel`` (Chat Completions recordings) or
``OpenAIResponsesModel`` (Responses recordings), each given an ``AsyncOpenAI(base_url=...)``
(the "Using any model" docs), tracing off.

The tools are ``FunctionTool(name, description, params_json_schema, on_invoke_tool)`` (the
"Tools" docs' custom function tools) with the recording's JSON schema, not strict; each
``on_invoke_tool`` returns :meth:`~raf.clients.base.ToolLoopCase.tool_result`. A call of a tool
the agent does not have is answered as the SDK's documented
``RunConfig(tool_not_found_behavior="return_error_to_model")`` does (by default it raises
``ModelBehaviorError`` and the run ends), its text the recording's (``tool_error_formatter``).
The recording's options go in ``ModelSettings`` (``include_usage``, ``store``,
``reasoning``, ``response_include``).

The user reads ``result.final_output`` (the text), the reasoning items of the last model
response (``ReasoningItem``: its summary texts, and a Chat Completions model's
``reasoning_content``), the usage of the last model response (``raw_responses[-1].usage``,
the last round's, as the other columns report it) and, as the SDK reports no finish reason,
``stop`` for a run that ended with a final output.
"""

from __future__ import annotations

import asyncio
from typing import Any

from raf.clients.base import (
    TEST_API_KEY,
    ClientRaised,
    ToolLoopAdapter,
    ToolLoopCase,
    usage,
)
from raf.shared.client_response import ClientResponse

__all__ = ["TOOL_LOOP_ADAPTER"]


def _settings(case: ToolLoopCase) -> Any:
    from agents import ModelSettings  # noqa: PLC0415 - optional library

    request = case.spec.first_request
    settings: dict[str, Any] = {}
    if isinstance(request.get("stream_options"), dict):
        settings["include_usage"] = bool(request["stream_options"].get("include_usage"))
    if "store" in request:
        settings["store"] = request["store"]
    if "reasoning" in request:
        from openai.types.shared import Reasoning  # noqa: PLC0415

        settings["reasoning"] = Reasoning(**request["reasoning"])
    if "include" in request:
        settings["response_include"] = list(request["include"])
    if "max_tokens" in request:
        settings["max_tokens"] = request["max_tokens"]
    return ModelSettings(**settings)


def _tools(case: ToolLoopCase) -> list[Any]:
    from agents import FunctionTool  # noqa: PLC0415 - optional library

    def invoke(name: str) -> Any:
        async def on_invoke_tool(_context: Any, arguments: str) -> str:
            content, _ = case.tool_result(name, arguments)
            return content

        return on_invoke_tool

    return [
        FunctionTool(
            name=tool.name,
            description=tool.description,
            params_json_schema=dict(tool.parameters),
            on_invoke_tool=invoke(tool.name),
            strict_json_schema=False,
        )
        for tool in case.spec.tools
    ]


def _not_found(case: ToolLoopCase) -> Any:
    """The ``RunConfig.tool_error_formatter`` that answers a call of a tool the agent lacks
    with the recording's result for it (the SDK's default text otherwise)."""

    def formatter(args: Any) -> str | None:
        if args.kind != "tool_not_found":
            return None
        recorded = [r for r in case.spec.results if r.name == args.tool_name]
        return recorded[0].content if recorded else None

    return formatter


def _run_config(run_config: Any, case: ToolLoopCase) -> Any:
    """``RunConfig`` with tracing off and, where the release has them (0.14 and later), a
    call of an unknown tool answered by the recording's result."""
    import dataclasses  # noqa: PLC0415

    known = {f.name for f in dataclasses.fields(run_config)}
    wanted: dict[str, Any] = {
        "tracing_disabled": True,
        "tool_not_found_behavior": "return_error_to_model",
        "tool_error_formatter": _not_found(case),
    }
    return run_config(**{k: v for k, v in wanted.items() if k in known})


def _response(result: Any) -> ClientResponse:
    """The final answer as the user reads it (module docstring)."""
    from agents import ItemHelpers  # noqa: PLC0415 - optional library

    last = result.raw_responses[-1] if result.raw_responses else None
    reasoning: list[str] = []
    if last is not None:
        for item in last.output:
            if getattr(item, "type", None) == "reasoning":
                reasoning += [s.text for s in item.summary or []]
                reasoning += [c.text for c in getattr(item, "content", None) or []]
    text = result.final_output if isinstance(result.final_output, str) else None
    if text is None and result.new_items:
        text = ItemHelpers.text_message_outputs(result.new_items)
    raw = last.usage if last is not None else None
    return ClientResponse(
        text=text or "",
        reasoning_text="".join(reasoning) or None,
        finish_reason="stop" if result.final_output is not None else None,
        usage=usage(raw.input_tokens, raw.output_tokens, raw.total_tokens)
        if raw is not None
        else None,
    )


async def _main(case: ToolLoopCase) -> ClientResponse:
    from agents import (  # noqa: PLC0415 - optional library
        Agent,
        OpenAIChatCompletionsModel,
        OpenAIResponsesModel,
        RunConfig,
        Runner,
    )
    from openai import AsyncOpenAI  # noqa: PLC0415

    from raf.clients.openai_chat_loop import base_url  # noqa: PLC0415

    chat = case.dialect == "openai_chat"
    endpoint = "/chat/completions" if chat else "/responses"
    client = AsyncOpenAI(
        base_url=base_url(case, endpoint),
        api_key=TEST_API_KEY,
        max_retries=0,
        timeout=case.timeout,
    )
    model: Any = (
        OpenAIChatCompletionsModel(model=case.model, openai_client=client)
        if chat
        else OpenAIResponsesModel(model=case.model, openai_client=client)
    )
    instructions = "\n".join(m["content"] for m in case.spec.messages if m["role"] == "system")
    agent = Agent(
        name="raf",
        instructions=instructions or None,
        model=model,
        model_settings=_settings(case),
        tools=_tools(case),
    )
    question = "\n".join(m["content"] for m in case.spec.messages if m["role"] == "user")
    result: Any = None
    try:
        result = Runner.run_streamed(
            agent,
            question,
            max_turns=case.spec.max_rounds,
            run_config=_run_config(RunConfig, case),
        )
        async for _event in result.stream_events():
            pass
        failure = getattr(result, "run_loop_exception", None)
        if failure is not None:  # pragma: no cover - the stream raises it first
            raise failure
    except Exception as exc:  # what the library raised, after what the user had seen
        partial = ClientResponse() if result is None else _safe_response(result)
        raise ClientRaised(exc, partial) from exc
    finally:
        await client.close()
    return _response(result)


def _safe_response(result: Any) -> ClientResponse:
    try:
        return _response(result)
    except Exception:  # a run cut before it had anything
        return ClientResponse()


def _run(case: ToolLoopCase) -> ClientResponse:
    return asyncio.run(_main(case))


TOOL_LOOP_ADAPTER = ToolLoopAdapter(
    name="openai-agents",
    distribution="openai-agents",
    dialects=("openai_chat", "openai_responses"),
    capabilities=("tool_calls", "reasoning", "usage", "http_errors"),
    how=(
        "Runner.run_streamed(agent, question) and async for event in result.stream_events(), "
        "the Agent's model an OpenAIChatCompletionsModel (Chat Completions) or an "
        "OpenAIResponsesModel (Responses) over AsyncOpenAI(base_url=..., max_retries=0), "
        "tracing off, tools FunctionTool(params_json_schema=the recording's schema, "
        "strict_json_schema=False), the recording's options in ModelSettings, "
        'RunConfig(tool_not_found_behavior="return_error_to_model") for a call of a tool the '
        "agent lacks (its text, by tool_error_formatter, the recording's); the answer is "
        "result.final_output, the last model response's reasoning items and usage, and stop (the "
        "SDK reports no finish reason) when the run ended with "
        "a final output."
    ),
    run=_run,
    module="agents",
)
