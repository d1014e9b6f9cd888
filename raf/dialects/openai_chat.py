"""``openai_chat``: Chat Completions streams (OpenAI, Azure, DeepSeek, OpenRouter, Groq, vLLM,
Ollama, Mistral and the many compatible servers) -> updates. Sans-IO.

Follows raf-spec 2.3 and does the intended thing where RAF has a quirk (docs/deviations.md):

* ``data: [DONE]`` ends the stream only as the exact data value; nothing after it is read.
* Only choice 0 (or a choice without an index) is the response; other choices of ``n > 1``
  requests are ignored.
* ``delta.content`` -> ``TextDelta`` (also the ``[{"type": "text", ...}]`` part lists of
  Mistral, whose ``thinking`` parts become reasoning); ``delta.reasoning_content`` or, when
  absent, ``delta.reasoning`` -> ``ReasoningDelta`` (servers that send both repeat the same
  text). Reasoning is emitted before text when one delta has both.
* ``delta.tool_calls[*]`` -> ``ToolCallDelta``; a missing or null ``index`` is passed on as
  ``None``; an empty ``id`` or ``name`` is no id or name; non-string ``arguments`` (an object,
  as some servers send) become their compact JSON text.
* ``choices`` missing, ``[]`` or ``null``; ``delta`` missing or ``null``; content-filter
  annotations and unknown provider extras never fail a chunk.
* Usage: beside a non-empty finish reason it rides on ``Finish``; otherwise it is a ``Usage``
  update; ``usage: null`` is ignored. Groq's ``x_groq.usage`` is read too. Cache and
  reasoning counts follow raf-spec 1.9 (OpenAI format, which also covers DeepSeek).
* ``ResponseMetadata`` is emitted when the chunk's id or model differ from the last ones
  emitted (RAF repeats it for every chunk); an empty id or model counts as absent.
* Errors never lose what arrived: a payload that is not JSON (``sse_parse_error``), JSON that
  is not a chunk (``invalid_chunk``), an ``{"error": ...}`` chunk or an ``event: error`` frame
  (``provider_error``), and a stream that ends without ``[DONE]`` and without a finish reason
  (unless a provider error explained why) or inside an unfinished event
  (``stream_truncated``) each yield an ``updates.Error``.
"""

from __future__ import annotations

from typing import Any

import msgspec

from raf.errors import excerpt
from raf.model import updates
from raf.model.codes import ErrorCode
from raf.model.updates import AgentResponseUpdate
from raf.model.usage import FinishReason, Usage
from raf.sse import ServerSentEvent

__all__ = ["DONE", "OpenAIChatDialect", "parse_usage"]

DONE = "[DONE]"
"""The data value that ends an OpenAI Chat Completions stream."""


# The chunk shape raf reads. Unknown keys are skipped by the decoder (which is also why a typed
# decode is faster than a generic one); leaves whose type differs between servers are ``Any``
# and checked below, so that one odd field costs an error report, not the whole chunk.
class _Function(msgspec.Struct):
    name: Any = None
    arguments: Any = None


class _ToolCall(msgspec.Struct):
    index: Any = None
    id: Any = None
    function: _Function | None = None


class _Delta(msgspec.Struct):
    content: Any = None
    reasoning_content: Any = None
    reasoning: Any = None
    tool_calls: list[_ToolCall] | None = None


class _Choice(msgspec.Struct):
    index: Any = None
    delta: _Delta | None = None
    finish_reason: Any = None


class _Groq(msgspec.Struct):
    usage: Any = None


class _Chunk(msgspec.Struct):
    id: Any = None
    model: Any = None
    choices: list[_Choice] | None = None
    usage: Any = None
    error: Any = None
    x_groq: _Groq | None = None


_decode_chunk = msgspec.json.Decoder(_Chunk).decode
_decode_any = msgspec.json.Decoder().decode


def _int(value: Any) -> int | None:
    return value if type(value) is int and value >= 0 else None


def parse_usage(raw: dict[str, Any]) -> Usage:
    """Build :class:`Usage` from an OpenAI-format usage object (DeepSeek's included).

    Missing or malformed counts are 0 (totals) or ``None`` (optional counts); a missing total
    is prompt + completion. Cache hits come from DeepSeek's top-level
    ``prompt_cache_hit_tokens``, else from ``prompt_tokens_details.cached_tokens``; misses from
    ``prompt_cache_miss_tokens``, else prompt - hit when the hit count is known.
    """
    prompt = _int(raw.get("prompt_tokens")) or 0
    completion = _int(raw.get("completion_tokens")) or 0
    total = _int(raw.get("total_tokens"))
    prompt_details = raw.get("prompt_tokens_details")
    completion_details = raw.get("completion_tokens_details")
    hit = _int(raw.get("prompt_cache_hit_tokens"))
    if hit is None and isinstance(prompt_details, dict):
        hit = _int(prompt_details.get("cached_tokens"))
    miss = _int(raw.get("prompt_cache_miss_tokens"))
    if miss is None and hit is not None:
        miss = max(prompt - hit, 0)
    reasoning = None
    if isinstance(completion_details, dict):
        reasoning = _int(completion_details.get("reasoning_tokens"))
    return Usage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=total if total is not None else prompt + completion,
        prompt_cache_hit_tokens=hit,
        prompt_cache_miss_tokens=miss,
        reasoning_tokens=reasoning,
    )


def _error_message(error: Any) -> str:
    if isinstance(error, dict):
        message = error.get("message")
        code = error.get("code") or error.get("type")
        if isinstance(message, str) and message:
            return f"{message} (code {code})" if code is not None else message
    return excerpt(msgspec.json.encode(error))


class OpenAIChatDialect:
    """Sans-IO state of one Chat Completions stream. See the module docstring for the rules."""

    name = "openai_chat"

    def __init__(self) -> None:
        self._done = False
        self._finished = False
        self._provider_error = False
        self._last_id: str | None = None
        self._last_model: str | None = None

    @property
    def done(self) -> bool:
        """``[DONE]`` was received."""
        return self._done

    def feed(self, event: ServerSentEvent) -> list[AgentResponseUpdate]:
        """Map one SSE event to updates. Never raises on bad input."""
        if self._done:
            return []
        data = event.data
        if event.event == "error":
            self._provider_error = True
            return [self._provider_error_frame(data)]
        if data == DONE:
            self._done = True
            return []
        if not data or data.isspace():
            return []  # an empty data line is a keep-alive
        try:
            chunk = _decode_chunk(data)
        except msgspec.ValidationError as exc:
            return [self._invalid_chunk(data, exc)]
        except msgspec.DecodeError as exc:
            return [
                updates.Error(
                    code=ErrorCode.SSE_PARSE_ERROR,
                    message=f"data is not JSON ({exc}): {excerpt(data)}",
                    raw=data,
                )
            ]
        return self._map(chunk, data)

    def close(self, *, truncated: bool = False) -> list[AgentResponseUpdate]:
        """Report a stream that ended without ``[DONE]`` and finish, or inside an event."""
        if self._done:
            return []
        if truncated:
            return [
                updates.Error(
                    code=ErrorCode.STREAM_TRUNCATED,
                    message="stream ended inside an unfinished SSE event; its data was discarded",
                )
            ]
        if not self._finished and not self._provider_error:
            # After a provider error the provider ended the stream on purpose; that error
            # already says why no finish_reason came.
            return [
                updates.Error(
                    code=ErrorCode.STREAM_TRUNCATED,
                    message="stream ended without [DONE] and without a finish_reason",
                )
            ]
        return []

    # -- mapping -------------------------------------------------------------------------

    def _map(self, chunk: _Chunk, data: str) -> list[AgentResponseUpdate]:
        out: list[AgentResponseUpdate] = []
        problems: list[str] = []
        # Azure's filter chunks carry "id": "" and "model": "": empty means absent.
        chunk_id = chunk.id if isinstance(chunk.id, str) and chunk.id else None
        model = chunk.model if isinstance(chunk.model, str) and chunk.model else None
        if (chunk_id is not None and chunk_id != self._last_id) or (
            model is not None and model != self._last_model
        ):
            if chunk_id is not None:
                self._last_id = chunk_id
            if model is not None:
                self._last_model = model
            out.append(updates.ResponseMetadata(id=chunk_id, model=model))

        if chunk.error is not None:
            self._provider_error = True
            out.append(
                updates.Error(
                    code=ErrorCode.PROVIDER_ERROR,
                    message=f"provider error in stream: {_error_message(chunk.error)}",
                    raw=data,
                )
            )

        raw_usage = chunk.usage
        if raw_usage is None and chunk.x_groq is not None:
            raw_usage = chunk.x_groq.usage
        usage: Usage | None = None
        if isinstance(raw_usage, dict):
            usage = parse_usage(raw_usage)
        elif raw_usage is not None:
            problems.append(f"usage is {type(raw_usage).__name__}, expected an object")

        finish: updates.Finish | None = None
        for choice in chunk.choices or ():
            if choice.index not in (0, None):
                continue  # n > 1: only the first choice is the response
            delta = choice.delta
            if delta is not None:
                self._map_delta(delta, out, problems)
            reason = choice.finish_reason
            if isinstance(reason, str) and reason:
                finish = updates.Finish(finish_reason=FinishReason.parse(reason), usage=usage)
                self._finished = True
                out.append(finish)
            elif reason is not None and not isinstance(reason, str):
                problems.append(f"finish_reason is {type(reason).__name__}, expected a string")

        if usage is not None and finish is None:
            out.append(updates.Usage(usage=usage))
        if problems:
            out.append(
                updates.Error(
                    code=ErrorCode.INVALID_CHUNK,
                    message=f"chunk fields ignored: {'; '.join(problems)}: {excerpt(data)}",
                    raw=data,
                )
            )
        return out

    def _map_delta(
        self, delta: _Delta, out: list[AgentResponseUpdate], problems: list[str]
    ) -> None:
        reasoning = delta.reasoning_content
        if reasoning is None or reasoning == "":
            reasoning = delta.reasoning
        if isinstance(reasoning, str):
            if reasoning:
                out.append(updates.ReasoningDelta(delta=reasoning))
        elif reasoning is not None:
            problems.append(f"reasoning is {type(reasoning).__name__}, expected a string")

        content = delta.content
        if isinstance(content, str):
            if content:
                out.append(updates.TextDelta(delta=content))
        elif isinstance(content, list):
            _map_content_parts(content, out, problems)
        elif content is not None:
            problems.append(f"content is {type(content).__name__}, expected a string")

        for call in delta.tool_calls or ():
            index = call.index
            if index is not None and type(index) is not int:
                problems.append(f"tool_calls index {index!r} is not an integer")
                index = None
            function = call.function
            name = function.name if function is not None else None
            arguments = function.arguments if function is not None else None
            if not isinstance(arguments, str):
                arguments = "" if arguments is None else msgspec.json.encode(arguments).decode()
            out.append(
                updates.ToolCallDelta(
                    index=index,
                    id=call.id if isinstance(call.id, str) and call.id else None,
                    name=name if isinstance(name, str) and name else None,
                    arguments_delta=arguments,
                )
            )

    def _invalid_chunk(self, data: str, exc: msgspec.ValidationError) -> AgentResponseUpdate:
        try:
            shape = _decode_any(data)
        except msgspec.DecodeError:  # pragma: no cover - the typed decoder already parsed it
            shape = None
        if isinstance(shape, dict) and shape.get("error") is not None:
            # An error object whose other fields are malformed is still a provider error.
            self._provider_error = True
            return updates.Error(
                code=ErrorCode.PROVIDER_ERROR,
                message=f"provider error in stream: {_error_message(shape['error'])}",
                raw=data,
            )
        return updates.Error(
            code=ErrorCode.INVALID_CHUNK,
            message=f"not a chat completion chunk ({exc}): {excerpt(data)}",
            raw=data,
        )

    def _provider_error_frame(self, data: str) -> AgentResponseUpdate:
        try:
            body = _decode_any(data) if data else None
        except msgspec.DecodeError:
            body = None
        if isinstance(body, dict):
            detail = _error_message(body.get("error", body))
        else:
            detail = excerpt(data) if data else "(no data)"
        return updates.Error(
            code=ErrorCode.PROVIDER_ERROR,
            message=f"provider sent an error event: {detail}",
            raw=data,
        )


def _map_content_parts(
    parts: list[Any], out: list[AgentResponseUpdate], problems: list[str]
) -> None:
    """Content given as a list of parts (Mistral): text parts and nested thinking parts."""
    for part in parts:
        if isinstance(part, str):
            if part:
                out.append(updates.TextDelta(delta=part))
            continue
        if not isinstance(part, dict):
            problems.append(f"content part is {type(part).__name__}")
            continue
        kind = part.get("type")
        if kind == "text" and isinstance(part.get("text"), str):
            if part["text"]:
                out.append(updates.TextDelta(delta=part["text"]))
        elif kind == "thinking":
            thinking = part.get("thinking")
            pieces = thinking if isinstance(thinking, list) else [thinking]
            for piece in pieces:
                text = piece.get("text") if isinstance(piece, dict) else piece
                if isinstance(text, str) and text:
                    out.append(updates.ReasoningDelta(delta=text))
        else:
            problems.append(f"content part of type {kind!r} not understood")
