"""The OpenAI Python SDK's hand-written tool loop over the Responses API, streaming, as
OpenAI's function-calling guide shows it.

The guide's loop: ``response = client.responses.create(model, input, tools)``; then
``input += response.output`` (every output item, reasoning included, as the SDK returns it)
and one ``{"type": "function_call_output", "call_id", "output"}`` item per
``function_call`` item, in order; and the model is asked again with the grown ``input``, until
a response has no calls. Streamed (``stream=True``), the response is the one of the
``response.completed`` event (the streaming guide's final event). The recording's options
(``store``, ``include``, ``reasoning``) are passed as recorded.

The user reads the last response: ``output_text``, the reasoning summaries, the calls, its
status (``completed`` is a stop; ``incomplete`` with ``max_output_tokens`` a length) and
``usage``.
"""

from __future__ import annotations

from typing import Any

from raf.clients.base import ClientRaised, ToolLoopAdapter, ToolLoopCase, tool_call, usage
from raf.clients.openai_chat_loop import openai_client, options
from raf.shared.client_response import ClientResponse

__all__ = ["TOOL_LOOP_ADAPTER"]

DIALECT = "openai_responses"


def _response(response: Any) -> ClientResponse:
    if response is None:
        return ClientResponse()
    calls = [
        tool_call(item.call_id, item.name, item.arguments)
        for item in response.output
        if getattr(item, "type", None) == "function_call"
    ]
    reasoning = [
        part.text
        for item in response.output
        if getattr(item, "type", None) == "reasoning"
        for part in item.summary or []
    ]
    details = getattr(response, "incomplete_details", None)
    finish = "tool_calls" if calls else "stop"
    if response.status == "incomplete":
        finish = "length" if getattr(details, "reason", None) == "max_output_tokens" else "error"
    raw = response.usage
    return ClientResponse(
        text=response.output_text or "",
        reasoning_text="".join(reasoning) or None,
        tool_calls=calls,
        finish_reason=finish,
        usage=None
        if raw is None
        else usage(
            raw.input_tokens,
            raw.output_tokens,
            raw.total_tokens,
            reasoning_tokens=getattr(raw.output_tokens_details, "reasoning_tokens", None),
        ),
    )


def _run(case: ToolLoopCase) -> ClientResponse:
    client = openai_client(case, "/responses")
    spec = case.spec
    items: list[Any] = list(spec.first_request.get("input") or [])
    tools = list(spec.first_request.get("tools") or [])
    response: Any = None
    try:
        for _ in range(spec.max_rounds):
            response = None
            stream = client.responses.create(
                **options(case), model=spec.model, input=items, tools=tools, stream=True
            )
            for event in stream:
                if event.type == "response.completed":
                    response = event.response
            if response is None:
                break
            calls = [item for item in response.output if item.type == "function_call"]
            if not calls:
                break
            items += response.output
            for call in calls:
                content, _ = case.tool_result(call.name, call.arguments)
                items.append(
                    {"type": "function_call_output", "call_id": call.call_id, "output": content}
                )
    except Exception as exc:  # what the library raised, after what the user had seen
        raise ClientRaised(exc, _response(response)) from exc
    finally:
        client.close()
    return _response(response)


TOOL_LOOP_ADAPTER = ToolLoopAdapter(
    name="openai-responses-loop",
    distribution="openai",
    dialects=(DIALECT,),
    capabilities=("tool_calls", "reasoning", "usage", "http_errors"),
    how=(
        "the hand loop of OpenAI's function-calling guide over the Responses API, streamed: "
        "client.responses.create(model, input, tools, stream=True, the recording's options) "
        "with max_retries=0, the response of the response.completed event; then input += "
        "response.output and one function_call_output item (call_id, the function's result) "
        "per function_call, and ask again; the answer is the last response's output_text, "
        "reasoning summaries, status and usage."
    ),
    run=_run,
    module="openai",
)
