"""The official Ollama Python library, as its README shows: ``client.chat(model, messages,
tools=..., stream=True)`` and ``for part in stream``, each part a ``ChatResponse``
(``ollama/_client.py``: ``Client._request`` reads the lines and raises ``ResponseError`` on an
``{"error": ...}`` line).

The user joins each part's ``message.content`` (the text printed) and ``message.thinking``
(the reasoning), collects each part's ``message.tool_calls`` (whole calls: ``function.name``,
``function.arguments`` as a mapping, no id in most versions), and reads the last part's
``done_reason`` (``stop`` with calls is ``tool_calls``, as raf reads it) and its counts
(``prompt_eval_count``, ``eval_count``). When the library raises (an error line, an HTTP
error, a line it cannot parse), what the user had is what the loop collected so far.
"""

from __future__ import annotations

from typing import Any

from raf.clients.base import Adapter, ClientCase, ClientRaised, finish_reason, tool_call, usage
from raf.shared.client_response import ClientResponse, ClientToolCall, ClientUsage

__all__ = ["ADAPTER"]

DIALECT = "ollama_chat"
_ENDPOINT = "/api/chat"


class _Loop:
    """What the user's loop over the parts has collected."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.thinking: list[str] = []
        self.calls: list[ClientToolCall] = []
        self.done_reason: str | None = None
        self.usage: ClientUsage | None = None

    def read(self, part: Any) -> None:
        message = part.message
        if message is not None:
            self.text.append(message.content or "")
            self.thinking.append(message.thinking or "")
            for call in message.tool_calls or ():
                function = call.function
                call_id = getattr(call, "id", None)  # newer versions give one
                self.calls.append(tool_call(call_id, function.name or "", function.arguments))
        if part.done:
            self.done_reason = part.done_reason or "stop"
            if part.prompt_eval_count is not None or part.eval_count is not None:
                self.usage = usage(part.prompt_eval_count, part.eval_count)

    def response(self) -> ClientResponse:
        raw = self.done_reason
        if raw == "stop" and self.calls:
            raw = "tool_calls"
        return ClientResponse(
            text="".join(self.text),
            reasoning_text="".join(self.thinking) or None,
            tool_calls=list(self.calls),
            finish_reason=finish_reason(DIALECT, raw),
            usage=self.usage,
        )


def _run(case: ClientCase) -> ClientResponse:
    import ollama  # noqa: PLC0415 - optional library

    path = case.path.split("?", 1)[0]
    head = path.rsplit(_ENDPOINT, 1)[0] if _ENDPOINT in path else ""
    client = ollama.Client(host=case.base_url + head, timeout=case.timeout)
    request = {k: v for k, v in case.request.items() if k != "stream"}
    loop = _Loop()
    try:
        for part in client.chat(**request, stream=True):
            loop.read(part)
    except Exception as exc:  # what the library raised, after what the user had seen
        raise ClientRaised(exc, loop.response()) from exc
    return loop.response()


ADAPTER = Adapter(
    name="ollama",
    distribution="ollama",
    dialects=(DIALECT,),
    capabilities=("tool_calls", "reasoning", "usage", "http_errors"),
    how=(
        "for part in client.chat(**request, stream=True): the user joins each part's "
        "message.content as the text and message.thinking as the reasoning, collects each "
        "part's message.tool_calls (function.name, function.arguments; the id newer versions "
        "send), and reads the last part's done_reason (stop with calls is tool_calls) and its "
        "prompt_eval_count and eval_count as the usage. An exception (ResponseError for an "
        "error line or an HTTP error) is the library raising, with what the loop collected."
    ),
    run=_run,
    module="ollama",
)
