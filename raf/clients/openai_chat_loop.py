"""The OpenAI Python SDK's hand-written tool loop over Chat Completions, streaming, as OpenAI's
function-calling guide shows it.

The guide's loop: ``client.chat.completions.create(model, messages, tools, stream=True)``;
the deltas are accumulated (text joined, ``tool_calls`` by ``index``: the first delta of an
index gives the id and name, every delta's ``function.arguments`` is appended); when the
stream ends with calls, the assistant message is appended to ``messages`` (``role``,
``content``, ``tool_calls`` with ``id``, ``type: function``, ``name`` and the ``arguments``
string), then one ``{"role": "tool", "tool_call_id", "content"}`` message per call, in call
order, each the result of the user's function; and the model is asked again, until a round
ends without calls. The user's answer is that last round: its text, reasoning (the delta's
``reasoning_content`` extra, which the SDK does not type, as DeepSeek's docs read it),
finish reason and usage.

The tools and options are the recording's first request's (``stream_options``...); each
tool's body is :meth:`~raf.clients.base.ToolLoopCase.tool_result`.
"""

from __future__ import annotations

from typing import Any

from raf.clients.base import TEST_API_KEY, ClientRaised, ToolLoopAdapter, ToolLoopCase
from raf.clients.openai_create import _read, _Seen, sdk_arguments
from raf.shared.client_response import ClientResponse

__all__ = ["TOOL_LOOP_ADAPTER", "openai_client"]

DIALECT = "openai_chat"
_CONVERSATION = ("model", "messages", "tools", "stream", "input")


def openai_client(case: ToolLoopCase, endpoint: str) -> Any:
    """An ``openai.OpenAI`` client (or ``AsyncOpenAI`` when asked) for the run: the base URL is
    the run's prefix plus the recorded provider path up to ``endpoint`` (``/v1`` for OpenAI,
    nothing for DeepSeek), no retries, the run's timeout, the test key."""
    import openai  # noqa: PLC0415 - optional library

    return openai.OpenAI(
        base_url=base_url(case, endpoint),
        api_key=TEST_API_KEY,
        max_retries=0,
        timeout=case.timeout,
    )


def base_url(case: ToolLoopCase, endpoint: str) -> str:
    """The run's base URL for an SDK that appends ``endpoint`` to it."""
    path = case.spec.provider_path.split("?", 1)[0]
    head = path.rsplit(endpoint, 1)[0] if endpoint in path else "/v1"
    return case.base_url + head


def options(case: ToolLoopCase) -> dict[str, Any]:
    """The recording's first request without the conversation: the options the user passes
    (``stream_options``, ``reasoning``, ``store``...)."""
    return {k: v for k, v in case.spec.first_request.items() if k not in _CONVERSATION}


def _assistant(seen: _Seen) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": seen.text or None,
        "tool_calls": [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            }
            for call in seen.calls.values()
        ],
    }


def _run(case: ToolLoopCase) -> ClientResponse:
    client = openai_client(case, "/chat/completions")
    spec = case.spec
    messages: list[dict[str, Any]] = [dict(m) for m in spec.first_request.get("messages", [])]
    tools = list(spec.first_request.get("tools", []))
    seen = _Seen()
    try:
        create = client.chat.completions.create
        request = {**options(case), "model": spec.model, "messages": messages, "tools": tools}
        for _ in range(spec.max_rounds):
            seen = _Seen()
            for chunk in create(**sdk_arguments(create, request), stream=True):
                _read(chunk, seen)
            if not seen.calls:
                break
            messages.append(_assistant(seen))
            for call in seen.calls.values():
                content, _ = case.tool_result(call.name, call.arguments)
                messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
            request = {**request, "messages": list(messages)}
    except Exception as exc:  # what the library raised, after what the user had seen
        raise ClientRaised(exc, seen.response()) from exc
    finally:
        client.close()
    return seen.response()


TOOL_LOOP_ADAPTER = ToolLoopAdapter(
    name="openai-loop",
    distribution="openai",
    dialects=(DIALECT,),
    capabilities=("tool_calls", "reasoning", "usage", "http_errors"),
    how=(
        "the hand loop of OpenAI's function-calling guide, streaming: "
        "client.chat.completions.create(model, messages, tools, stream=True) with the "
        "recording's options and max_retries=0; deltas accumulated (text joined, tool_calls "
        "by index, arguments appended); a round with calls appends the assistant message "
        "(content, tool_calls with id, type, name, arguments) and one role tool message per "
        "call (tool_call_id, the function's result), then asks again; the answer is the last "
        "round's text, reasoning_content, finish reason and usage."
    ),
    run=_run,
    module="openai",
)
