"""``openai_chat``: Chat Completions streams (OpenAI, Azure, DeepSeek, OpenRouter, Groq, vLLM,
Ollama, Mistral and the many compatible servers) -> updates. Sans-IO.

Follows raf-spec 2.3 and does the intended thing where RAF has a quirk (docs/deviations.md):

* ``data: [DONE]`` ends the stream; nothing after it is read. The data value must be
  ``[DONE]`` itself, optionally surrounded by the whitespace JSON allows around a value
  (space, tab, CR, LF: ``data: [DONE] `` is a common server slip and means the same); any
  other text around it (``[DONE]x``, ``"[DONE]"``) is not the marker.
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
* Errors never lose what arrived and never raise: a payload that is not JSON
  (``sse_parse_error``), one nested deeper than ``max_json_depth`` (``json_too_deep``), JSON
  that is not a chunk or has fields of the wrong type (``invalid_chunk``: only those fields are
  dropped; a number out of range is read as ``null`` and a lone surrogate escape as U+FFFD, and
  named there), an ``{"error": ...}`` chunk or an ``event: error`` frame (``provider_error``),
  and a stream that ends without ``[DONE]`` and without a finish reason (unless a provider error
  explained why) or inside an unfinished event (``stream_truncated``) each yield an
  ``updates.Error``, whose ``raw`` keeps at most ``max_raw_chars`` of the payload. An
  unexpected failure inside raf on one event is reported as ``internal_error`` and that event
  is skipped.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from raf import safe_json
from raf.errors import excerpt, internal_error_message, raw_excerpt
from raf.limits import DEFAULT_MAX_JSON_DEPTH, DEFAULT_MAX_RAW_CHARS, check_json_depth
from raf.model import updates
from raf.model.codes import ErrorCode
from raf.model.updates import AgentResponseUpdate
from raf.model.usage import FinishReason, Usage
from raf.sse import ServerSentEvent

__all__ = ["DONE", "OpenAIChatDialect", "parse_usage"]

DONE = "[DONE]"
"""The data value that ends an OpenAI Chat Completions stream."""

_JSON_WHITESPACE = " \t\r\n"


# The chunk shape raf reads, strictly typed: the decoder checks the types in C and skips the
# keys raf does not read, which is faster than a generic decode. A chunk that does not fit
# (a field of an unexpected type) is decoded generically and salvaged field by field
# (``_salvage``), so one odd field costs an error report, not the whole chunk.
class _Function(msgspec.Struct, gc=False):
    name: str | None = None
    arguments: str | None = None


class _ToolCall(msgspec.Struct, gc=False):
    index: int | None = None
    id: str | None = None
    function: _Function | None = None


class _Delta(msgspec.Struct, gc=False):
    content: str | list[Any] | None = None
    reasoning_content: str | None = None
    reasoning: str | None = None
    tool_calls: list[_ToolCall] | None = None


class _Choice(msgspec.Struct, gc=False):
    index: int | None = None
    delta: _Delta | None = None
    finish_reason: str | None = None


class _Groq(msgspec.Struct, gc=False):
    usage: dict[str, Any] | None = None


class _Chunk(msgspec.Struct, gc=False):
    id: str | None = None
    model: str | None = None
    choices: list[_Choice] | None = None
    usage: dict[str, Any] | None = None
    error: Any = None
    x_groq: _Groq | None = None


_decode_chunk = msgspec.json.Decoder(_Chunk).decode
_TextDelta = updates.TextDelta
_ReasoningDelta = updates.ReasoningDelta
_ToolCallDelta = updates.ToolCallDelta
_encode = msgspec.json.encode


class _Salvage:
    """Builds a :class:`_Chunk` from a generically decoded chunk, dropping (and naming) every
    field whose type is wrong. Used only for chunks the strict decoder rejected."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def pick(self, obj: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
        value = obj.get(key)
        if value is None or (isinstance(value, kind) and not isinstance(value, bool)):
            return value
        self.problems.append(f"{where}{key} is {type(value).__name__}")
        return None

    def chunk(self, raw: dict[str, Any]) -> _Chunk:
        choices = self.pick(raw, "choices", list, "")
        groq = self.pick(raw, "x_groq", dict, "")
        return _Chunk(
            id=self.pick(raw, "id", str, ""),
            model=self.pick(raw, "model", str, ""),
            choices=None
            if choices is None
            else [
                c for i, item in enumerate(choices) if (c := self.choice(item, f"choices[{i}]."))
            ],
            usage=self.pick(raw, "usage", dict, ""),
            error=raw.get("error"),
            x_groq=None if groq is None else _Groq(usage=self.pick(groq, "usage", dict, "x_groq.")),
        )

    def choice(self, raw: Any, where: str) -> _Choice | None:
        if not isinstance(raw, dict):
            self.problems.append(f"{where[:-1]} is {type(raw).__name__}")
            return None
        index = raw.get("index")
        if type(index) is int and index != 0:
            return None  # another choice of an n > 1 request: ignored, so not checked either
        delta = self.pick(raw, "delta", dict, where)
        return _Choice(
            index=self.pick(raw, "index", int, where),
            delta=None if delta is None else self.delta(delta, f"{where}delta."),
            finish_reason=self.pick(raw, "finish_reason", str, where),
        )

    def delta(self, raw: dict[str, Any], where: str) -> _Delta:
        calls = self.pick(raw, "tool_calls", list, where) or []
        return _Delta(
            content=self.pick(raw, "content", (str, list), where),
            reasoning_content=self.pick(raw, "reasoning_content", str, where),
            reasoning=self.pick(raw, "reasoning", str, where),
            tool_calls=[
                c
                for i, item in enumerate(calls)
                if (c := self.call(item, f"{where}tool_calls[{i}]."))
            ]
            or None,
        )

    def call(self, raw: Any, where: str) -> _ToolCall | None:
        if not isinstance(raw, dict):
            self.problems.append(f"{where[:-1]} is {type(raw).__name__}")
            return None
        function = self.pick(raw, "function", dict, where)
        if function is not None:
            arguments = function.get("arguments")
            if arguments is not None and not isinstance(arguments, str):
                # Some servers send the arguments as an object: keep them, as JSON text.
                arguments = _encode(arguments).decode()
            function = _Function(
                name=self.pick(function, "name", str, f"{where}function."), arguments=arguments
            )
        return _ToolCall(
            index=self.pick(raw, "index", int, where),
            id=self.pick(raw, "id", str, where),
            function=function,
        )


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
    """Sans-IO state of one Chat Completions stream. See the module docstring for the rules.

    Args:
        max_json_depth: deepest nesting accepted in a payload (``json_too_deep`` past it).
        max_raw_chars: longest ``raw`` excerpt an error keeps of an offending payload.
    """

    name = "openai_chat"

    def __init__(
        self,
        *,
        max_json_depth: int = DEFAULT_MAX_JSON_DEPTH,
        max_raw_chars: int = DEFAULT_MAX_RAW_CHARS,
    ) -> None:
        if max_raw_chars < 1:
            raise ValueError("max_raw_chars must be positive")
        self.max_json_depth = check_json_depth(max_json_depth)
        self.max_raw_chars = max_raw_chars
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
        return self.feed_events((event,))

    def feed_events(self, events: Iterable[ServerSentEvent]) -> list[AgentResponseUpdate]:
        """Map SSE events to updates, in order; events after ``[DONE]`` are ignored.

        Never raises: whatever an event holds, the updates of the events before it are
        returned with the error it caused.
        """
        out: list[AgentResponseUpdate] = []
        decode = _decode_chunk
        max_depth = self.max_json_depth
        min_deep = 2 * max_depth + 1  # the shortest complete document deeper than max_depth
        too_deep = safe_json.too_deep
        for event in events:
            if self._done:
                break
            data = event.data
            try:
                if event.event == "error":
                    self._provider_error = True
                    out.append(self._provider_error_frame(data))
                    continue
                if data == DONE:
                    self._done = True
                    break
                if not data.strip(_JSON_WHITESPACE):
                    continue  # empty (or JSON whitespace only) data is a keep-alive
                # The depth limit, checked before decoding (inline: this is the hot path). A
                # document deeper than max_depth needs more than 2 * max_depth characters
                # (every bracket closed), so shorter payloads skip the count; a shorter one
                # that is deep but unclosed is malformed, and reported so by the decoder.
                if (
                    len(data) > min_deep
                    and data.count("{") + data.count("[") > max_depth
                    and too_deep(data, max_depth)
                ):
                    out.append(self._error(ErrorCode.JSON_TOO_DEEP, data, max_depth=max_depth))
                    continue
                try:
                    chunk = decode(data)
                except (msgspec.ValidationError, msgspec.DecodeError) as exc:
                    # Off the hot path: "[DONE]" with whitespace around it fails to decode.
                    if data.strip(_JSON_WHITESPACE) == DONE:
                        self._done = True
                        break
                    # A field of the wrong type, a number out of range, or a lone surrogate
                    # escape: salvage what can be kept. Anything else is not JSON.
                    if isinstance(exc, msgspec.ValidationError) or "\\u" in data:
                        self._salvage(data, out)
                    else:
                        out.append(self._error(ErrorCode.SSE_PARSE_ERROR, data, detail=exc))
                    continue
                self._map(chunk, data, [], out)
            except RecursionError:
                out.append(self._error(ErrorCode.JSON_TOO_DEEP, data))
            except Exception as exc:  # a bug in raf: report it, skip the event, go on
                out.append(
                    updates.Error(
                        error_code=ErrorCode.INTERNAL_ERROR,
                        message=internal_error_message(exc, "an event"),
                        raw=raw_excerpt(data, self.max_raw_chars),
                    )
                )
        return out

    def _error(
        self,
        code: ErrorCode,
        data: str,
        *,
        detail: Exception | str | None = None,
        max_depth: int | None = None,
    ) -> updates.Error:
        if code == ErrorCode.SSE_PARSE_ERROR:
            what = f"is not JSON ({detail})" if isinstance(detail, Exception) else str(detail)
        elif max_depth is not None:
            what = safe_json.depth_detail(max_depth)
        else:
            what = str(detail or "nests deeper than the interpreter's stack allows")
        return updates.Error(
            error_code=code,
            message=f"data {what}: {excerpt(data)}",
            raw=raw_excerpt(data, self.max_raw_chars),
        )

    def _salvage(self, data: str, out: list[AgentResponseUpdate]) -> None:
        """A chunk the strict decoder rejected: repair what can be repaired, then keep every
        field whose type fits."""
        try:
            decoded = safe_json.decode(data, max_depth=self.max_json_depth)
        except safe_json.UnusableJSON as exc:
            out.append(self._error(exc.code, data, detail=exc.detail))
            return
        raw = decoded.value
        if not isinstance(raw, dict):
            out.append(
                updates.Error(
                    error_code=ErrorCode.INVALID_CHUNK,
                    message=f"not a chat completion chunk (a JSON {type(raw).__name__}, "
                    f"expected an object): {excerpt(data)}",
                    raw=raw_excerpt(data, self.max_raw_chars),
                )
            )
            return
        salvage = _Salvage()
        salvage.problems.extend(decoded.repairs)
        self._map(salvage.chunk(raw), data, salvage.problems, out)

    def close(self, *, truncated: bool = False) -> list[AgentResponseUpdate]:
        """Report a stream that ended without ``[DONE]`` and finish, or inside an event."""
        if self._done:
            return []
        if truncated:
            return [
                updates.Error(
                    error_code=ErrorCode.STREAM_TRUNCATED,
                    message="stream ended inside an unfinished SSE event; its data was discarded",
                )
            ]
        if not self._finished and not self._provider_error:
            # After a provider error the provider ended the stream on purpose; that error
            # already says why no finish_reason came.
            return [
                updates.Error(
                    error_code=ErrorCode.STREAM_TRUNCATED,
                    message="stream ended without [DONE] and without a finish_reason",
                )
            ]
        return []

    # -- mapping -------------------------------------------------------------------------

    def _map(
        self, chunk: _Chunk, data: str, problems: list[str], out: list[AgentResponseUpdate]
    ) -> None:
        # Azure's filter chunks carry "id": "" and "model": "": empty means absent.
        chunk_id = chunk.id or None
        model = chunk.model or None
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
                    error_code=ErrorCode.PROVIDER_ERROR,
                    message=f"provider error in stream: {_error_message(chunk.error)}",
                    raw=raw_excerpt(data, self.max_raw_chars),
                )
            )

        raw_usage = chunk.usage
        if raw_usage is None and chunk.x_groq is not None:
            raw_usage = chunk.x_groq.usage
        usage = None if raw_usage is None else parse_usage(raw_usage)

        finish: updates.Finish | None = None
        for choice in chunk.choices or ():
            if choice.index:
                continue  # n > 1: only the first choice (index 0 or none) is the response
            delta = choice.delta
            if delta is not None:
                reasoning = delta.reasoning_content or delta.reasoning
                if reasoning:
                    out.append(_ReasoningDelta(delta=reasoning))
                content = delta.content
                if content:
                    if type(content) is str:
                        out.append(_TextDelta(delta=content))
                    else:
                        _map_content_parts(content, out, problems)  # type: ignore[arg-type]
                tool_calls = delta.tool_calls
                if tool_calls:
                    for call in tool_calls:
                        function = call.function
                        out.append(
                            _ToolCallDelta(
                                index=call.index,
                                id=call.id or None,
                                name=None if function is None else function.name or None,
                                arguments_delta=""
                                if function is None
                                else function.arguments or "",
                            )
                        )
            reason = choice.finish_reason
            if reason:
                finish = updates.Finish(finish_reason=FinishReason.parse(reason), usage=usage)
                self._finished = True
                out.append(finish)

        if usage is not None and finish is None:
            out.append(updates.Usage(usage=usage))
        if problems:
            out.append(
                updates.Error(
                    error_code=ErrorCode.INVALID_CHUNK,
                    message=f"chunk fields ignored: {'; '.join(problems)}: {excerpt(data)}",
                    raw=raw_excerpt(data, self.max_raw_chars),
                )
            )

    def _provider_error_frame(self, data: str) -> AgentResponseUpdate:
        try:
            body = safe_json.decode(data, max_depth=self.max_json_depth).value if data else None
        except safe_json.UnusableJSON:
            body = None
        if isinstance(body, dict):
            detail = _error_message(body.get("error", body))
        else:
            detail = excerpt(data) if data else "(no data)"
        return updates.Error(
            error_code=ErrorCode.PROVIDER_ERROR,
            message=f"provider sent an error event: {detail}",
            raw=raw_excerpt(data, self.max_raw_chars),
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
