"""The Anthropic Python SDK's own tool loop: ``client.beta.messages.tool_runner(...,
stream=True)``, as the SDK's tool helpers docs show it: ``for message_stream in runner``,
each round's events read, then ``message_stream.get_final_message()``; the runner runs the
tools of every round and sends their results itself, until a round ends without calls.

The tools are ``BetaFunctionTool(func, name=, description=, input_schema=)`` with the
recording's JSON schema (the docs' tool defined with an explicit schema); each function
returns :meth:`~raf.clients.base.ToolLoopCase.tool_result`, raising the SDK's ``ToolError``
for a result that is an error (the runner sends it with ``is_error: true``). The recording's
options (``max_tokens``, ``thinking``...) are passed as the runner's arguments, and
``thread=False``: by default the runner of this release uses the message-threads beta
(``thread: {"type": "create"}``, then ``{"type": "continue", "previous_message_id"}`` with
only the new tool results), a conversation kept by the server, which a recording of the
Messages API without it does not have.

The user reads the last round's final ``Message`` as the stream adapter does
(:mod:`raf.clients.anthropic_stream`): text blocks joined, thinking joined, tool_use blocks,
``stop_reason`` and ``usage``.
"""

from __future__ import annotations

from typing import Any

from raf.clients.anthropic_stream import _response
from raf.clients.base import TEST_API_KEY, ClientRaised, ToolLoopAdapter, ToolLoopCase
from raf.shared.client_response import ClientResponse

__all__ = ["TOOL_LOOP_ADAPTER"]

DIALECT = "anthropic_messages"
_ENDPOINT = "/v1/messages"
_CONVERSATION = ("model", "messages", "tools", "stream")


def _tools(case: ToolLoopCase) -> list[Any]:
    from anthropic.lib.tools import BetaFunctionTool, ToolError  # noqa: PLC0415

    def body(name: str) -> Any:
        def run(**arguments: Any) -> str:
            content, is_error = case.tool_result(name, arguments)
            if is_error:
                raise ToolError(content)
            return content

        return run

    return [
        BetaFunctionTool(
            body(tool.name),
            name=tool.name,
            description=tool.description,
            input_schema=dict(tool.parameters),
        )
        for tool in case.spec.tools
    ]


def _run(case: ToolLoopCase) -> ClientResponse:
    import anthropic  # noqa: PLC0415 - optional library

    path = case.spec.provider_path.split("?", 1)[0]
    head = path.rsplit(_ENDPOINT, 1)[0] if _ENDPOINT in path else ""
    client = anthropic.Anthropic(
        base_url=case.base_url + head,
        api_key=TEST_API_KEY,
        max_retries=0,
        timeout=case.timeout,
    )
    options = {k: v for k, v in case.spec.first_request.items() if k not in _CONVERSATION}
    messages = [dict(m) for m in case.spec.first_request.get("messages", [])]
    last: Any = None
    try:
        runner = client.beta.messages.tool_runner(
            model=case.model,
            messages=messages,
            tools=_tools(case),
            stream=True,
            thread=False,
            max_iterations=case.spec.max_rounds,
            **options,
        )
        for message_stream in runner:
            for _event in message_stream:
                pass
            last = message_stream.get_final_message()
    except Exception as exc:  # what the library raised, after what the user had seen
        raise ClientRaised(exc, ClientResponse() if last is None else _response(last)) from exc
    finally:
        client.close()
    return _response(last) if last is not None else ClientResponse()


TOOL_LOOP_ADAPTER = ToolLoopAdapter(
    name="anthropic-tool-runner",
    distribution="anthropic",
    dialects=(DIALECT,),
    capabilities=("tool_calls", "reasoning", "usage", "http_errors"),
    how=(
        "runner = client.beta.messages.tool_runner(model, messages, tools, stream=True, "
        "thread=False (not the message-threads beta, the runner's default, whose follow-ups "
        "carry only the new results), max_iterations, the recording's options) with "
        "max_retries=0; for message_stream in runner: its events read, then "
        "message_stream.get_final_message(); the tools are "
        "BetaFunctionTool(func, name, description, input_schema=the recording's schema), a "
        "result that is an error raised as ToolError; the answer is the last round's message "
        "(text, thinking, tool_use blocks, stop_reason, usage, as the anthropic column reads "
        "it)."
    ),
    run=_run,
    module="anthropic",
)
