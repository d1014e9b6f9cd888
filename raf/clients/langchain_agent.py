"""LangChain's own tool loop: ``langchain.agents.create_agent`` over a chat model at the
server's base URL, with the recording's tools, driven with ``agent.stream(...)`` as
LangChain's agent docs show.

The model is the integration package's chat model for the recording's format, built as its
docs show and with retries off: ``ChatOpenAI`` (Chat Completions), ``ChatOpenAI(
use_responses_api=True)`` (Responses, with the recorded ``reasoning``, ``store`` and
``include``), ``ChatAnthropic`` (with the recorded ``max_tokens`` and ``thinking``) and
``ChatGoogleGenerativeAI`` (``base_url`` and ``api_version`` of the recording,
``include_thoughts`` when it asked for thoughts), each with ``streaming=True`` so that every
round is a streamed request, as the recordings are. Each tool is a ``StructuredTool`` whose
``args_schema`` is the recording's JSON Schema (LangChain validates nothing against a dict
schema: the arguments reach the function as the model sent them) and whose function returns
the recorded result, raising ``ToolException`` for a recorded error with
``handle_tool_error=True``, LangChain's documented way to hand the model an error
(``ToolMessage(status="error")``).

The final ``AIMessage`` is read with raf's way back from LangChain
(:func:`raf.interop.langchain.from_ai_message`), the same reading ``raf.interop`` documents.
"""

from __future__ import annotations

from typing import Any

from raf.clients import _tool_loop
from raf.clients.base import TEST_API_KEY, ToolLoopAdapter, ToolLoopCase, finish_reason, usage
from raf.clients.base import tool_call as _call
from raf.interop.langchain import from_ai_message
from raf.model.usage import Usage
from raf.shared.client_response import ClientResponse, ClientUsage

__all__ = ["TOOL_LOOP_ADAPTER"]

HOW = (
    "A LangChain user builds agent = create_agent(model, tools=[StructuredTool(name, "
    "description, args_schema=<the JSON Schema>, func=..., handle_tool_error=True)]) with "
    "the format's chat model (ChatOpenAI, ChatOpenAI(use_responses_api=True), ChatAnthropic, "
    "ChatGoogleGenerativeAI; base_url at the server, max_retries=0, streaming=True, the "
    "recorded thinking/reasoning options), runs for chunk in agent.stream({'messages': "
    "[...]}, stream_mode='values') and reads the final state's last message. What is mapped "
    "is that AIMessage: .text as the text, its reasoning content blocks as the reasoning, "
    ".tool_calls, response_metadata's finish_reason (stop_reason for Anthropic, status for "
    "Responses) and .usage_metadata (input, output, total tokens; cache reads and reasoning "
    "tokens from the token details)."
)


def _model(case: ToolLoopCase) -> Any:
    """The format's chat model, as its integration's docs build it."""
    common: dict[str, Any] = {"model": case.model, "max_retries": 0, "streaming": True}
    if case.dialect in ("openai_chat", "openai_responses"):
        from langchain_openai import ChatOpenAI  # noqa: PLC0415

        url = _tool_loop.base_url(case)
        if case.dialect == "openai_responses":
            return ChatOpenAI(
                **common,
                base_url=url,
                api_key=TEST_API_KEY,
                timeout=case.timeout,
                use_responses_api=True,
                **_tool_loop.responses_options(case),
            )
        return ChatOpenAI(
            **common,
            base_url=url,
            api_key=TEST_API_KEY,
            timeout=case.timeout,
            stream_usage=True,
            use_responses_api=False,
        )
    if case.dialect == "anthropic_messages":
        from langchain_anthropic import ChatAnthropic  # noqa: PLC0415

        max_tokens, thinking = _tool_loop.anthropic_options(case)
        return ChatAnthropic(
            **common,
            base_url=_tool_loop.base_url(case),
            api_key=TEST_API_KEY,
            default_request_timeout=case.timeout,
            max_tokens=max_tokens,
            **({"thinking": thinking} if thinking else {}),
        )
    from langchain_google_genai import ChatGoogleGenerativeAI  # noqa: PLC0415

    thinking = _tool_loop.gemini_thinking(case) or {}
    return ChatGoogleGenerativeAI(
        **common,
        google_api_key=TEST_API_KEY,
        base_url=case.base_url,
        api_version=_tool_loop.api_version(case),
        timeout=case.timeout,
        **({"include_thoughts": True} if thinking.get("includeThoughts") else {}),
    )


def _tools(case: ToolLoopCase) -> list[Any]:
    from langchain_core.tools import StructuredTool, ToolException  # noqa: PLC0415

    def make(name: str) -> Any:
        def run(**kwargs: Any) -> str:
            content, is_error = case.tool_result(name, kwargs)
            if is_error:
                raise ToolException(content)
            return content

        return run

    return [
        StructuredTool(
            name=tool.name,
            description=tool.description,
            args_schema=dict(tool.parameters),
            func=make(tool.name),
            handle_tool_error=True,
        )
        for tool in case.spec.tools
    ]


def _usage(found: Usage | None) -> ClientUsage | None:
    if found is None:
        return None
    return usage(
        found.prompt_tokens,
        found.completion_tokens,
        found.total_tokens,
        prompt_cache_hit_tokens=found.prompt_cache_hit_tokens or None,
        reasoning_tokens=found.reasoning_tokens or None,
    )


def _response(case: ToolLoopCase, message: Any) -> ClientResponse:
    """What the final ``AIMessage`` tells its user, read by raf's way back from LangChain
    (:func:`raf.interop.langchain.from_ai_message`)."""
    if message is None:
        return ClientResponse()
    response = from_ai_message(message)
    return ClientResponse(
        text=response.text,
        reasoning_text=response.reasoning_text,
        tool_calls=[_call(c.id, c.name, c.arguments) for c in response.tool_calls],
        finish_reason=finish_reason(case.dialect, response.finish_reason),
        usage=_usage(response.usage),
    )


def _run(case: ToolLoopCase) -> ClientResponse:
    from langchain.agents import create_agent  # noqa: PLC0415

    agent: Any = create_agent(_model(case), tools=_tools(case))
    messages = [dict(m) for m in case.spec.messages]
    last: Any = None
    for state in agent.stream(
        {"messages": messages},
        {"recursion_limit": 2 * case.spec.max_rounds + 2},
        stream_mode="values",
    ):
        found = state.get("messages") or []
        last = found[-1] if found else last
    return _response(case, last)


TOOL_LOOP_ADAPTER = ToolLoopAdapter(
    name="langchain-agent",
    distribution="langchain",
    dialects=("openai_chat", "openai_responses", "anthropic_messages", "gemini"),
    capabilities=("tool_calls", "reasoning", "usage"),
    how=HOW,
    run=_run,
    module="langchain.agents",
)
