"""The Anthropic Python SDK's stream helper, as its README shows: ``with
client.messages.stream(**request) as stream``, ``for text in stream.text_stream``, then
``stream.get_final_message()`` (``anthropic/lib/streaming/_messages.py``: ``MessageStream``,
``accumulate_event``).

The user reads the final ``Message``: its ``text`` blocks joined (the text the loop printed),
its ``thinking`` blocks joined as the reasoning (``redacted_thinking`` has no readable text),
its ``tool_use`` blocks as the calls (``id``, ``name``, ``input``; ``server_tool_use`` blocks
are run by the server and are not the user's to execute), ``stop_reason`` and ``usage``. raf
counts the whole prompt: ``input_tokens`` (which excludes the cache) plus
``cache_creation_input_tokens`` and ``cache_read_input_tokens``; the cache hits are
``cache_read_input_tokens``. An in-stream ``event: error`` is raised by the SDK as an API
status error; what the user had is the text printed so far, and the reasoning, stop reason
and usage of ``stream.current_message_snapshot``.
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
from raf.shared.client_response import ClientResponse, ClientUsage

__all__ = ["ADAPTER"]

DIALECT = "anthropic_messages"
_ENDPOINT = "/v1/messages"


def _count(obj: Any, name: str) -> int | None:
    value = getattr(obj, name, None)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _usage(raw: Any) -> ClientUsage | None:
    if raw is None:
        return None
    prompt = [
        _count(raw, name)
        for name in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    ]
    return usage(
        sum(n for n in prompt if n is not None),
        _count(raw, "output_tokens"),
        prompt_cache_hit_tokens=_count(raw, "cache_read_input_tokens"),
    )


def _response(message: Any) -> ClientResponse:
    """The final message, as the user reads it."""
    text: list[str] = []
    thinking: list[str] = []
    calls = []
    for block in message.content or []:
        kind = getattr(block, "type", None)
        if kind == "text":
            text.append(block.text or "")
        elif kind == "thinking":
            thinking.append(block.thinking or "")
        elif kind == "tool_use":
            calls.append(tool_call(block.id, block.name or "", block.input))
    return ClientResponse(
        text="".join(text),
        reasoning_text="".join(thinking) or None,
        tool_calls=calls,
        finish_reason=finish_reason(DIALECT, message.stop_reason),
        usage=_usage(message.usage),
    )


def _partial(stream: Any, printed: str) -> ClientResponse:
    """What the user had when the SDK raised: the text printed, and the reasoning, stop
    reason and usage of the helper's snapshot (its tool calls may be unfinished: left out)."""
    try:
        snapshot = stream.current_message_snapshot if stream is not None else None
    except AssertionError:  # no message_start read
        snapshot = None
    if snapshot is None:
        return ClientResponse(text=printed)
    seen = _response(snapshot)
    return ClientResponse(
        text=printed,
        reasoning_text=seen.reasoning_text,
        finish_reason=seen.finish_reason,
        usage=seen.usage,
    )


def _run(case: ClientCase) -> ClientResponse:
    import anthropic  # noqa: PLC0415 - optional library

    path = case.path.split("?", 1)[0]
    head = path.rsplit(_ENDPOINT, 1)[0] if _ENDPOINT in path else ""
    client = anthropic.Anthropic(
        base_url=case.base_url + head,
        api_key=TEST_API_KEY,
        max_retries=0,
        timeout=case.timeout,
    )
    request = {k: v for k, v in case.request.items() if k != "stream"}
    printed = ""
    stream: Any = None
    try:
        with client.messages.stream(**request) as stream:
            for text in stream.text_stream:
                printed += text
            message = stream.get_final_message()
    except Exception as exc:  # what the library raised, after what the user had seen
        raise ClientRaised(exc, _partial(stream, printed)) from exc
    finally:
        client.close()
    return _response(message)


ADAPTER = Adapter(
    name="anthropic",
    distribution="anthropic",
    dialects=(DIALECT,),
    capabilities=("tool_calls", "reasoning", "usage", "http_errors"),
    how=(
        "with client.messages.stream(**request) as stream (max_retries=0): for text in "
        "stream.text_stream the text is printed, then message = stream.get_final_message(); the "
        "user reads the message's text blocks joined, its thinking blocks joined as the "
        "reasoning, its tool_use blocks as the calls (id, name, input), stop_reason and usage "
        "(prompt = input_tokens + cache_creation_input_tokens + cache_read_input_tokens, "
        "completion = output_tokens, cache hits = cache_read_input_tokens). An exception (an "
        "in-stream error event is raised as an API status error) is the library raising, with "
        "the text printed so far and the usage, stop reason and reasoning of "
        "stream.current_message_snapshot."
    ),
    run=_run,
    module="anthropic",
)
