"""The OpenAI Python SDK's Chat Completions stream helper: ``with
client.chat.completions.stream(...) as stream``, the stream iterated, then
``stream.get_final_completion()``, the ``ParsedChatCompletion`` the SDK accumulated
(``openai/lib/streaming/chat/_completions.py``: ``ChatCompletionStreamState``).

The user reads the final completion: ``choices[0].message.content``, ``message.tool_calls``
(id, ``function.name``, ``function.arguments``), ``choices[0].finish_reason`` and
``completion.usage``. Reasoning, which the SDK does not type, is the message's extra
attribute ``reasoning_content`` (else ``reasoning``), which the helper accumulates like any
other string member of the delta. When the helper raises (while iterating, or in
``get_final_completion``, which raises ``LengthFinishReasonError`` and
``ContentFilterFinishReasonError``), what the user had is the helper's
``current_completion_snapshot``.
"""

from __future__ import annotations

from typing import Any

from raf.clients.base import Adapter, ClientCase, ClientRaised, finish_reason, tool_call
from raf.clients.openai_create import client_for, openai_usage, sdk_arguments
from raf.shared.client_response import ClientResponse

__all__ = ["ADAPTER"]

DIALECT = "openai_chat"


def _response(completion: Any) -> ClientResponse:
    """A (final or snapshot) completion, as the user reads it."""
    if completion is None:
        return ClientResponse()
    choices = completion.choices or []
    if not choices:
        return ClientResponse(usage=openai_usage(completion.usage))
    choice = choices[0]
    message = choice.message
    reasoning = getattr(message, "reasoning_content", None) or getattr(message, "reasoning", None)
    calls = []
    for call in message.tool_calls or []:
        function = getattr(call, "function", None)
        if function is None:
            continue
        calls.append(tool_call(call.id, function.name or "", function.arguments))
    content = message.content
    return ClientResponse(
        text=content if isinstance(content, str) else "",
        reasoning_text=reasoning if isinstance(reasoning, str) and reasoning else None,
        tool_calls=calls,
        finish_reason=finish_reason(DIALECT, choice.finish_reason or None),
        usage=openai_usage(completion.usage),
    )


def _snapshot(stream: Any) -> ClientResponse:
    """What the helper had accumulated when it raised."""
    if stream is None:
        return ClientResponse()
    try:
        return _response(stream.current_completion_snapshot)
    except AssertionError:  # no chunk read yet
        return ClientResponse()


def _run(case: ClientCase) -> ClientResponse:
    client = client_for(case, "/chat/completions")
    helper = client.chat.completions.stream
    stream: Any = None
    try:
        with helper(**sdk_arguments(helper, case.request)) as stream:
            for _event in stream:
                pass  # content.delta, tool_calls.function.arguments.delta...: shown live
            completion = stream.get_final_completion()
    except Exception as exc:  # what the library raised, after what the user had seen
        raise ClientRaised(exc, _snapshot(stream)) from exc
    finally:
        client.close()
    return _response(completion)


ADAPTER = Adapter(
    name="openai-stream-helper",
    distribution="openai",
    dialects=(DIALECT,),
    capabilities=("tool_calls", "reasoning", "usage", "http_errors"),
    how=(
        "with client.chat.completions.stream(**request) as stream (max_retries=0): the events "
        "are iterated, then completion = stream.get_final_completion(); the user reads "
        "completion.choices[0].message.content, message.tool_calls (id, function.name, "
        "function.arguments parsed as JSON), choices[0].finish_reason and completion.usage "
        "(prompt/completion/total tokens, cached and reasoning token details); reasoning is the "
        "message's untyped extra attribute reasoning_content (else reasoning), accumulated by the "
        "helper. When the helper raises (while streaming, or LengthFinishReasonError / "
        "ContentFilterFinishReasonError from get_final_completion), the user has "
        "stream.current_completion_snapshot."
    ),
    run=_run,
    module="openai",
)
