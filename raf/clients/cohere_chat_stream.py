"""The Cohere Python SDK, as its documentation shows: ``client = cohere.ClientV2(api_key=...)``,
``for event in client.chat_stream(model=..., messages=..., tools=...)`` and a branch on
``event.type`` (``cohere/v2/raw_client.py``: ``RawV2Client.chat_stream`` reads the SSE body,
parses each ``data`` by its ``type`` and stops at ``[DONE]``).

The user joins the ``content-delta`` events' ``delta.message.content.text`` (the text
printed) and their ``content.thinking`` (the reasoning), joins the ``tool-plan-delta`` events'
``delta.message.tool_plan`` (the plan, which raf reads as reasoning too), keeps each call of a
``tool-call-start`` by its ``index`` (``id``, ``function.name``, ``function.arguments``) and
appends each ``tool-call-delta``'s ``function.arguments`` to the call of the same ``index``,
and reads the ``message-end`` event's ``delta.finish_reason`` and ``delta.usage``: the
``tokens`` the model read and wrote (else the ``billed_units``), and ``cached_tokens`` as the
cache hits. A ``message-end`` whose ``finish_reason`` is ``ERROR`` is the error the user is
told (with the ``error`` text the SDK keeps as an extra field). The SDK is given retries off
(``request_options={"max_retries": 0}``). When it raises (an HTTP error status), what the user
had is what the loop collected so far.
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
from raf.shared.client_response import ClientError, ClientResponse, ClientUsage

__all__ = ["ADAPTER"]

DIALECT = "cohere_v2"
_ENDPOINT = "/v2/chat"
_ERROR = "ERROR"

_CALL_FIELDS = (
    "model",
    "messages",
    "tools",
    "strict_tools",
    "documents",
    "citation_options",
    "response_format",
    "safety_mode",
    "max_tokens",
    "stop_sequences",
    "temperature",
    "seed",
    "frequency_penalty",
    "presence_penalty",
    "k",
    "p",
    "logprobs",
    "tool_choice",
    "thinking",
    "priority",
)
"""The request fields ``chat_stream`` takes as keyword arguments (``stream`` it sets itself)."""


def _count(obj: Any, name: str) -> int | None:
    value = getattr(obj, name, None)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value)


def _usage(raw: Any) -> ClientUsage | None:
    """``message-end``'s usage as the user reads it: ``tokens``, else ``billed_units``."""
    if raw is None:
        return None
    counted = None
    for name in ("tokens", "billed_units"):
        part = getattr(raw, name, None)
        if part is not None and (
            _count(part, "input_tokens") is not None or _count(part, "output_tokens") is not None
        ):
            counted = part
            break
    if counted is None:
        return None
    return usage(
        _count(counted, "input_tokens"),
        _count(counted, "output_tokens"),
        prompt_cache_hit_tokens=_count(raw, "cached_tokens"),
    )


class _Loop:
    """What the user's loop over the events has collected."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}
        self.finish: str | None = None
        self.usage: ClientUsage | None = None
        self.errors: list[ClientError] = []

    def read(self, event: Any) -> None:
        kind = getattr(event, "type", None)
        delta = getattr(event, "delta", None)
        message = getattr(delta, "message", None)
        if kind == "content-delta":
            content = getattr(message, "content", None)
            self.text.append(getattr(content, "text", None) or "")
            self.reasoning.append(getattr(content, "thinking", None) or "")
        elif kind == "tool-plan-delta":
            self.reasoning.append(getattr(message, "tool_plan", None) or "")
        elif kind == "tool-call-start":
            call = getattr(message, "tool_calls", None)
            function = getattr(call, "function", None)
            self.calls[getattr(event, "index", None) or 0] = {
                "id": getattr(call, "id", None),
                "name": getattr(function, "name", None) or "",
                "arguments": getattr(function, "arguments", None) or "",
            }
        elif kind == "tool-call-delta":
            call = getattr(message, "tool_calls", None)
            fragment = getattr(getattr(call, "function", None), "arguments", None) or ""
            found = self.calls.get(getattr(event, "index", None) or 0)
            if found is not None:
                found["arguments"] += fragment
        elif kind == "message-end":
            reason = getattr(delta, "finish_reason", None)
            if reason == _ERROR:
                text = getattr(delta, "error", None)
                self.errors.append(ClientError(message=str(text or "finish_reason ERROR")))
            else:
                self.finish = reason
            self.usage = _usage(getattr(delta, "usage", None))

    def response(self) -> ClientResponse:
        return ClientResponse(
            text="".join(self.text),
            reasoning_text="".join(self.reasoning) or None,
            tool_calls=[
                tool_call(call["id"], call["name"], call["arguments"])
                for _, call in sorted(self.calls.items())
            ],
            finish_reason=finish_reason(DIALECT, self.finish),
            usage=self.usage,
            errors=list(self.errors),
        )


def _run(case: ClientCase) -> ClientResponse:
    import cohere  # noqa: PLC0415 - optional library

    path = case.path.split("?", 1)[0]
    head = path.rsplit(_ENDPOINT, 1)[0] if _ENDPOINT in path else ""
    client = cohere.ClientV2(
        api_key=TEST_API_KEY, base_url=case.base_url + head, timeout=case.timeout
    )
    request = {k: v for k, v in case.request.items() if k in _CALL_FIELDS}
    loop = _Loop()
    try:
        for event in client.chat_stream(**request, request_options={"max_retries": 0}):
            loop.read(event)
    except Exception as exc:  # what the library raised, after what the user had seen
        raise ClientRaised(exc, loop.response()) from exc
    return loop.response()


ADAPTER = Adapter(
    name="cohere",
    distribution="cohere",
    dialects=(DIALECT,),
    capabilities=("tool_calls", "reasoning", "usage", "http_errors"),
    how=(
        "for event in client.chat_stream(model=..., messages=..., tools=...) (ClientV2, "
        "retries off): the user joins the content-delta events' delta.message.content.text "
        "as the text and their content.thinking and the tool-plan-delta events' "
        "delta.message.tool_plan as the reasoning, keeps each tool-call-start's call (id, "
        "function.name, function.arguments) by its index and appends each tool-call-delta's "
        "function.arguments to the call of the same index, and reads message-end's "
        "delta.finish_reason and delta.usage (tokens, else billed_units; cached_tokens as "
        "the cache hits). A finish_reason ERROR is the error the user is told; an "
        "exception (an HTTP error status) is the library raising, with what the loop "
        "collected."
    ),
    run=_run,
    module="cohere",
)
