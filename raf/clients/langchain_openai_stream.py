"""langchain-openai: ``ChatOpenAI.stream`` with the chunks added up, as LangChain's docs show.

The recorded request is given to ``ChatOpenAI`` the way a LangChain user writes it: the
model, ``base_url``, the recorded messages as LangChain messages, the recorded tools bound
with ``bind_tools`` (with the recorded ``tool_choice`` and ``parallel_tool_calls``), and
``stream_usage=True`` when the recorded request asks ``stream_options.include_usage``, and
``n`` when it asks for several choices (``ChatOpenAI(n=...)``; LangChain refuses ``n > 1``
only together with ``streaming=True``, not for ``.stream()``).
Retries are off (``max_retries=0``) so a recorded 429 is what the user sees. The Chat
Completions API is forced (``use_responses_api=False``): the recorded requests are Chat
Completions requests.

``ChatOpenAI`` documents that it reads the official OpenAI fields only: a provider's
``reasoning_content`` is not extracted (langchain_openai/chat_models/base.py, module
docstring and ``_convert_delta_to_message_chunk``), so this adapter does not declare
``reasoning``.

The added-up ``AIMessageChunk`` is read with raf's way back from LangChain
(:func:`raf.interop.langchain.from_ai_message`), the same reading ``raf.interop`` documents.
"""

from __future__ import annotations

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
from raf.interop.langchain import from_ai_message
from raf.model.codes import ErrorCode
from raf.model.usage import Usage
from raf.shared.client_response import ClientError, ClientResponse, ClientUsage

__all__ = ["ADAPTER"]

HOW = (
    "A LangChain user builds ChatOpenAI(model=..., base_url=..., api_key=..., "
    "max_retries=0, timeout=..., stream_usage=True when the request asks usage, n=... when "
    "it asks several choices), binds the "
    "tools with .bind_tools(tools, tool_choice=..., parallel_tool_calls=...), and adds the "
    "chunks of .stream(messages) up as the docs show (full = chunk if full is None else "
    "full + chunk). What is mapped is that AIMessageChunk: full.content (a string, or the "
    "text parts of a list) as the text, full.tool_calls (LangChain's parsed calls: id, name, "
    "args) as the tool calls, full.invalid_tool_calls (LangChain's report of calls whose "
    "arguments did not parse) as errors, "
    "full.response_metadata['finish_reason'] as the finish reason and full.usage_metadata "
    "(input_tokens, output_tokens, total_tokens; cache reads and reasoning tokens from "
    "input_token_details/output_token_details) as the usage. ChatOpenAI does not read a "
    "provider's reasoning_content, so reasoning is not reported. When .stream raises, the "
    "chunks added up so far are what the user had."
)


def _messages(recorded: Any) -> list[Any]:
    """The recorded OpenAI messages as LangChain messages."""
    from langchain_core.messages import convert_to_messages  # noqa: PLC0415

    messages: list[Any] = convert_to_messages(list(recorded or []))
    return messages


def _usage(found: Usage | None) -> ClientUsage | None:
    if found is None:
        return None
    return usage(
        found.prompt_tokens,
        found.completion_tokens,
        found.total_tokens,
        prompt_cache_hit_tokens=found.prompt_cache_hit_tokens,
        reasoning_tokens=found.reasoning_tokens,
    )


def _response(full: Any) -> ClientResponse:
    """What the added-up ``AIMessageChunk`` tells its user, read by raf's way back from
    LangChain (:func:`raf.interop.langchain.from_ai_message`)."""
    if full is None:
        return ClientResponse()
    response = from_ai_message(full)
    errors = [
        ClientError(message=f"{error.message}: {error.raw!r}"[:500])
        for error in response.errors
        if error.error_code == ErrorCode.INVALID_TOOL_ARGUMENTS  # its invalid_tool_calls
    ]
    return ClientResponse(
        text=response.text,
        tool_calls=[tool_call(c.id, c.name, c.arguments) for c in response.tool_calls],
        finish_reason=finish_reason("openai_chat", response.finish_reason),
        usage=_usage(response.usage),
        errors=errors,
    )


def _run(case: ClientCase) -> ClientResponse:
    from langchain_openai import ChatOpenAI  # noqa: PLC0415

    request = case.request
    options = request.get("stream_options") or {}
    llm: Any = ChatOpenAI(
        model=case.model,
        base_url=case.base_url + "/v1",
        api_key=TEST_API_KEY,
        max_retries=0,
        timeout=case.timeout,
        stream_usage=bool(options.get("include_usage")),
        use_responses_api=False,
        **({"n": request["n"]} if request.get("n") is not None else {}),
    )
    if request.get("tools"):
        bind: dict[str, Any] = {}
        if request.get("tool_choice") is not None:
            bind["tool_choice"] = request["tool_choice"]
        if request.get("parallel_tool_calls") is not None:
            bind["parallel_tool_calls"] = request["parallel_tool_calls"]
        llm = llm.bind_tools(request["tools"], **bind)
    full: Any = None
    try:
        for chunk in llm.stream(_messages(request.get("messages"))):
            full = chunk if full is None else full + chunk
    except Exception as exc:
        raise ClientRaised(exc, _response(full)) from exc
    return _response(full)


ADAPTER = Adapter(
    name="langchain-openai",
    distribution="langchain-openai",
    dialects=("openai_chat",),
    capabilities=("tool_calls", "usage", "http_errors"),
    how=HOW,
    run=_run,
    module="langchain_openai",
)
