"""The OpenAI Python SDK, Responses API, through its stream helper: ``with
client.responses.stream(...) as stream``, the typed events iterated as the README and the
streaming guide show, then ``stream.get_final_response()``
(``openai/lib/streaming/responses/_responses.py``: ``ResponseStreamState``).

What the user reads: the text of the ``response.output_text.delta`` (and
``response.refusal.delta``) events; the reasoning of the
``response.reasoning_summary_text.delta`` and ``response.reasoning_text.delta`` events, parts
joined with a blank line (the user's choice, as raf joins them); the client calls of the
``response.output_item.done`` events, in output order (``function_call``: ``call_id``,
``name``, ``arguments``; ``custom_tool_call``: ``input`` given as ``{"input": ...}``, raf's
canonical shape; client-executed ``tool_search_call``); the
``status``, ``incomplete_details.reason`` and ``usage`` of the final response (``completed`` is
``stop``, or ``tool_calls`` when a client call was streamed, as raf reads it). The final
response's ``output`` is not read: many servers (and the bundled cassettes) send the terminal
event with an empty ``output``, and the streamed events are what a streaming user shows.
``get_final_response()`` exists only after ``response.completed``: on ``response.incomplete``
the user takes that event's response, on ``response.failed`` and a top-level ``error`` event
the user reports the error it carries.

A recorded ``GET /responses/<id>?stream=true&starting_after=N`` (resuming a background
response) is made with ``client.responses.retrieve(id, stream=True, starting_after=N)``, the
SDK's raw resume call (the helper's ``stream(response_id=..., starting_after=N)`` does not send
``starting_after`` and needs the stream's ``response.created``), read by the same loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from raf.clients.base import Adapter, ClientCase, ClientRaised, finish_reason, tool_call, usage
from raf.clients.openai_create import client_for, sdk_arguments
from raf.shared.client_response import ClientError, ClientResponse, ClientToolCall, ClientUsage

__all__ = ["ADAPTER"]

DIALECT = "openai_responses"
_SEPARATOR = "\n\n"


def _count(obj: Any, *path: str) -> int | None:
    for name in path:
        if obj is None:
            return None
        obj = getattr(obj, name, None)
    return obj if isinstance(obj, int) and not isinstance(obj, bool) else None


def _usage(raw: Any) -> ClientUsage | None:
    if raw is None:
        return None
    return usage(
        _count(raw, "input_tokens"),
        _count(raw, "output_tokens"),
        _count(raw, "total_tokens"),
        prompt_cache_hit_tokens=_count(raw, "input_tokens_details", "cached_tokens"),
        reasoning_tokens=_count(raw, "output_tokens_details", "reasoning_tokens"),
    )


def _call(item: Any) -> ClientToolCall | None:
    """A client call among the output items, as the user executes it; ``None`` for others."""
    kind = getattr(item, "type", None)
    if kind == "function_call":
        return tool_call(item.call_id, item.name or "", item.arguments)
    if kind == "custom_tool_call":
        return tool_call(item.call_id, item.name or "", {"input": item.input})
    if kind == "tool_search_call" and getattr(item, "execution", None) == "client":
        return tool_call(getattr(item, "call_id", None), "tool_search", item.arguments)
    return None


def _finish(response: Any, calls: bool) -> str | None:
    """``status`` and ``incomplete_details.reason`` in raf's terms (``completed``: ``stop``,
    or ``tool_calls`` when the response has a client call)."""
    status = getattr(response, "status", None)
    if status == "incomplete":
        details = getattr(response, "incomplete_details", None)
        return finish_reason(DIALECT, getattr(details, "reason", None) or "incomplete")
    if status == "completed":
        return finish_reason(DIALECT, "tool_calls" if calls else "stop")
    return None


@dataclass
class _Seen:
    """What the user's loop has read of the events."""

    text: str = ""
    reasoning: list[str] = field(default_factory=list)
    reasoning_key: tuple[Any, ...] | None = None
    calls: dict[int, ClientToolCall] = field(default_factory=dict)  # by output_index
    terminal: Any = None  # the response of response.completed / .incomplete / .failed
    errors: list[ClientError] = field(default_factory=list)

    def read(self, event: Any) -> None:
        kind = event.type
        if kind in ("response.output_text.delta", "response.refusal.delta"):
            self.text += event.delta
        elif kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            key = (
                kind,
                event.item_id,
                getattr(event, "summary_index", None),
                getattr(event, "content_index", None),
            )
            if self.reasoning and key != self.reasoning_key:
                self.reasoning.append(_SEPARATOR)
            self.reasoning_key = key
            self.reasoning.append(event.delta)
        elif kind == "response.output_item.done":
            call = _call(event.item)
            if call is not None:
                self.calls[event.output_index if event.output_index is not None else -1] = call
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            self.terminal = event.response
            error = getattr(event.response, "error", None)
            if kind == "response.failed":
                message = getattr(error, "message", None) or "response.failed"
                self.errors.append(ClientError(message=str(message)))
        elif kind == "error":
            self.errors.append(ClientError(message=str(getattr(event, "message", "") or "")))

    def response(self, final: Any = None) -> ClientResponse:
        """What the user has: the events read, and the status and usage of the final (or
        terminal) response."""
        terminal = final if final is not None else self.terminal
        return ClientResponse(
            text=self.text,
            reasoning_text="".join(self.reasoning) or None,
            tool_calls=[self.calls[n] for n in sorted(self.calls)],
            finish_reason=_finish(terminal, bool(self.calls)) if terminal is not None else None,
            usage=_usage(getattr(terminal, "usage", None)),
            errors=list(self.errors),
        )


def _resumed(case: ClientCase) -> ClientResponse:
    """``GET /responses/<id>?stream=true&starting_after=N``: the SDK's raw resume call."""
    parts = urlsplit(case.path)
    response_id = parts.path.rstrip("/").rsplit("/", 1)[-1]
    query = parse_qs(parts.query)
    kwargs: dict[str, Any] = {}
    if query.get("starting_after"):
        kwargs["starting_after"] = int(query["starting_after"][0])
    client = client_for(case, f"/responses/{response_id}")
    seen = _Seen()
    try:
        for event in client.responses.retrieve(response_id, stream=True, **kwargs):
            seen.read(event)
    except Exception as exc:  # what the library raised, after what the user had seen
        raise ClientRaised(exc, seen.response()) from exc
    finally:
        client.close()
    return seen.response()


def _run(case: ClientCase) -> ClientResponse:
    if not case.request and "/responses/" in case.path.split("?", 1)[0]:
        return _resumed(case)
    client = client_for(case, "/responses")
    helper = client.responses.stream
    seen = _Seen()
    try:
        with helper(**sdk_arguments(helper, case.request)) as stream:
            for event in stream:
                seen.read(event)
            terminal = seen.terminal
            if terminal is not None and getattr(terminal, "status", None) != "completed":
                return seen.response()  # response.incomplete / .failed: no final response
            if terminal is None and seen.errors:
                return seen.response()  # a top-level error event ended the stream
            final = stream.get_final_response()
    except Exception as exc:  # what the library raised, after what the user had seen
        raise ClientRaised(exc, seen.response()) from exc
    finally:
        client.close()
    return seen.response(final)


ADAPTER = Adapter(
    name="openai-responses",
    distribution="openai",
    dialects=(DIALECT,),
    capabilities=("tool_calls", "reasoning", "usage", "http_errors"),
    how=(
        "with client.responses.stream(**request) as stream (max_retries=0), the events are "
        "iterated and stream.get_final_response() is called after response.completed. Text is "
        "the response.output_text.delta (and refusal.delta) deltas; reasoning the "
        "reasoning_summary_text / reasoning_text deltas, parts joined with a blank line; calls "
        "the function_call items of response.output_item.done (call_id, name, arguments parsed "
        "as JSON; custom_tool_call input as {'input': ...}; client tool_search_call arguments); "
        "the finish reason the final response's status / incomplete_details.reason (completed: "
        "stop, or tool_calls when a call was streamed) and usage its usage (input/output/total "
        "tokens, cached and reasoning token details). On response.incomplete the user takes "
        "that event's response, on response.failed or a top-level error event the error it "
        "carries. A recorded GET resume is client.responses.retrieve(id, stream=True, "
        "starting_after=N), read by the same loop. An exception is the library raising, with "
        "what the loop had read."
    ),
    run=_run,
    module="openai",
)
