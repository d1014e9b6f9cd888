"""``cohere_v2``: Cohere v2 Chat streams (``POST /v2/chat`` with ``"stream": true``) -> updates.
Sans-IO.

The rules are in docs/dialects.md (section ``cohere_v2``); in short:

* Every event nests its data under ``delta.message``; its type is the payload's ``type``
  (else the SSE event name). ``message-start`` -> ``ResponseMetadata(id)`` (the stream never
  names the model).
* Content blocks are routed by their ``index`` (which counts content blocks only): a
  ``content-delta``'s ``text`` -> ``TextDelta``, its ``thinking`` -> ``ReasoningDelta``
  (decided by the key present, not by the block's start); ``tool-plan-delta`` ->
  ``ReasoningDelta``.
* Tool calls are routed by their own ``index`` (which counts calls only): ``tool-call-start``
  -> ``ToolCallStart(id, name)``, its fragments -> ``ToolCallArgs`` (non-empty only),
  ``tool-call-end`` -> ``ToolCallEnd``.
* ``citation-start`` -> ``RawItem(item=<the citation object as it came>)``: the citations an
  assistant message carries back; ``citation-end`` gives nothing.
* ``message-end`` -> ``Finish(finish_reason, usage)`` (usage from ``usage.tokens``, not the
  billed units), or, with ``finish_reason: ERROR``, ``provider_error`` with the error's text.
* An end, delta or repeated start for a block or call that does not fit -> ``protocol_violation``;
  what arrived is kept and reading goes on. ``[DONE]`` before ``message-end`` is a truncation.
"""

from __future__ import annotations

from typing import Any

import msgspec

from raf._mypyc import mypyc_attr
from raf.dialects.base import Frame, JSONEventDialect
from raf.dialects.tables import UsageTable, finish_reason
from raf.formats.cohere_v2._wire import _Usual
from raf.framing.sse import ServerSentEvent
from raf.limits import DEFAULT_MAX_JSON_DEPTH, DEFAULT_MAX_RAW_CHARS
from raf.model import updates
from raf.model.codes import ErrorCode
from raf.model.updates import AgentResponseUpdate

__all__ = ["FINISH_REASONS", "USAGE", "CohereV2Dialect"]

USAGE = UsageTable(
    prompt_tokens=(("tokens.input_tokens",), ("billed_units.input_tokens",)),
    completion_tokens=(("tokens.output_tokens",), ("billed_units.output_tokens",)),
    cache_hit=(("cached_tokens",),),
)
"""Cohere's usage: the tokens the model read and wrote (``tokens``, which include Cohere's own
prompt template and match the non-streamed response), else the billed units; ``cached_tokens``
are part of the input tokens."""

FINISH_REASONS: dict[str, str] = {
    "COMPLETE": "stop",
    "STOP_SEQUENCE": "stop",
    "MAX_TOKENS": "length",
    "TOOL_CALL": "tool_calls",
}
"""Cohere ``finish_reason`` -> raf; ``ERROR`` is a provider error (no finish reason);
``TIMEOUT`` and unknown values are kept verbatim."""

_ERROR = "ERROR"

# A content block's state.
_OPEN = 0
_ENDED = 1


def _message(payload: dict[str, Any], frame: Frame) -> dict[str, Any] | None:
    """``payload.delta.message`` (an object), or ``None``."""
    delta = frame.dict(payload, "delta")
    return None if delta is None else frame.dict(delta, "message", "delta.")


def _index(payload: dict[str, Any], frame: Frame) -> int | None:
    return frame.int(payload, "index")


def _violation(dialect: CohereV2Dialect, text: str, frame: Frame) -> None:
    frame.out.append(dialect.error(ErrorCode.PROTOCOL_VIOLATION, text, frame.data))


def _message_start(dialect: CohereV2Dialect, payload: dict[str, Any], frame: Frame) -> None:
    dialect.metadata(frame.str(payload, "id"), None, frame.out)


def _content_start(dialect: CohereV2Dialect, payload: dict[str, Any], frame: Frame) -> None:
    index = _index(payload, frame)
    if index is not None:
        if index in dialect.blocks:
            _violation(dialect, f"content block {index} started twice", frame)
        else:
            dialect.blocks[index] = _OPEN
    _content(payload, frame)


def _content(payload: dict[str, Any], frame: Frame) -> None:
    """The text or thinking of ``delta.message.content`` (a start's first text, or a delta)."""
    message = _message(payload, frame)
    if message is None:
        return
    content = frame.dict(message, "content", "delta.message.")
    if content is None:
        return
    thinking = frame.str(content, "thinking", "delta.message.content.")
    if thinking:
        frame.out.append(updates.ReasoningDelta(delta=thinking))
    text = frame.str(content, "text", "delta.message.content.")
    if text:
        frame.out.append(updates.TextDelta(delta=text))


def _content_delta(dialect: CohereV2Dialect, payload: dict[str, Any], frame: Frame) -> None:
    index = _index(payload, frame)
    if index is not None and dialect.blocks.get(index) == _ENDED:
        _violation(dialect, f"delta for content block {index} after its end", frame)
    _content(payload, frame)


def _content_end(dialect: CohereV2Dialect, payload: dict[str, Any], frame: Frame) -> None:
    index = _index(payload, frame)
    if index is None:
        return
    state = dialect.blocks.get(index)
    if state is None:
        _violation(dialect, f"end of content block {index}, which never started", frame)
    elif state == _ENDED:
        _violation(dialect, f"content block {index} ended twice", frame)
    dialect.blocks[index] = _ENDED


def _tool_plan_delta(dialect: CohereV2Dialect, payload: dict[str, Any], frame: Frame) -> None:
    message = _message(payload, frame)
    if message is not None:
        plan = frame.str(message, "tool_plan", "delta.message.")
        if plan:
            frame.out.append(updates.ReasoningDelta(delta=plan))


def _tool_call(payload: dict[str, Any], frame: Frame) -> dict[str, Any] | None:
    """``delta.message.tool_calls`` (one object, not a list)."""
    message = _message(payload, frame)
    return None if message is None else frame.dict(message, "tool_calls", "delta.message.")


def _arguments(call: dict[str, Any] | None, frame: Frame) -> str | None:
    if call is None:
        return None
    function = frame.dict(call, "function", "delta.message.tool_calls.")
    if function is None:
        return None
    return frame.str(function, "arguments", "delta.message.tool_calls.function.")


def _tool_call_start(dialect: CohereV2Dialect, payload: dict[str, Any], frame: Frame) -> None:
    index = _index(payload, frame)
    if index is None:
        index = 0
        while index in dialect.calls:
            index += 1
    if index in dialect.calls:
        _violation(dialect, f"tool call {index} started twice", frame)
        return
    call = _tool_call(payload, frame)
    where = "delta.message.tool_calls."
    call_id = None if call is None else frame.str(call, "id", where)
    function = None if call is None else frame.dict(call, "function", where)
    name = None if function is None else frame.str(function, "name", f"{where}function.")
    call_id = call_id or f"call_{index}"
    dialect.calls[index] = call_id
    frame.out.append(updates.ToolCallStart(id=call_id, name=name or ""))
    arguments = None if function is None else frame.str(function, "arguments", f"{where}function.")
    if arguments:
        frame.out.append(updates.ToolCallArgs(id=call_id, args_delta=arguments))


def _open_call(
    dialect: CohereV2Dialect, payload: dict[str, Any], frame: Frame, what: str
) -> str | None:
    """The id of the call the event's ``index`` names, when it is open; else a violation."""
    index = _index(payload, frame)
    if index is None:
        _violation(dialect, f"{what} without an index", frame)
        return None
    call_id = dialect.calls.get(index)
    if call_id is None:
        _violation(dialect, f"{what} for tool call {index}, which never started", frame)
        return None
    if index in dialect.ended_calls:
        _violation(dialect, f"{what} for tool call {index} after its end", frame)
        return None
    return call_id


def _tool_call_delta(dialect: CohereV2Dialect, payload: dict[str, Any], frame: Frame) -> None:
    call_id = _open_call(dialect, payload, frame, "arguments")
    if call_id is not None:
        arguments = _arguments(_tool_call(payload, frame), frame)
        if arguments:
            frame.out.append(updates.ToolCallArgs(id=call_id, args_delta=arguments))


def _tool_call_end(dialect: CohereV2Dialect, payload: dict[str, Any], frame: Frame) -> None:
    call_id = _open_call(dialect, payload, frame, "end")
    if call_id is not None:
        dialect.ended_calls.add(payload["index"])
        frame.out.append(updates.ToolCallEnd(id=call_id))


def _citation_start(dialect: CohereV2Dialect, payload: dict[str, Any], frame: Frame) -> None:
    message = _message(payload, frame)
    if message is None:
        return
    citation = frame.dict(message, "citations", "delta.message.")
    if citation is not None:
        frame.out.append(updates.RawItem(item=citation))


def _citation_end(dialect: CohereV2Dialect, payload: dict[str, Any], frame: Frame) -> None:
    """Nothing: the citation came whole at its start."""


def _message_end(dialect: CohereV2Dialect, payload: dict[str, Any], frame: Frame) -> None:
    dialect.metadata(frame.str(payload, "id"), None, frame.out)
    delta = frame.dict(payload, "delta") or {}
    reason = frame.str(delta, "finish_reason", "delta.") or ""
    if reason == _ERROR:
        error = frame.str(delta, "error", "delta.") or "the model reported an error"
        kind = frame.str(delta, "error_type", "delta.")
        detail = {"message": error, "type": kind} if kind else error
        frame.out.append(dialect.provider_error_update(detail, frame.data, "at message-end"))
        dialect.finished = True
        return
    dialect.finished = True
    usage = frame.dict(delta, "usage", "delta.")
    frame.out.append(
        updates.Finish(
            finish_reason=finish_reason(FINISH_REASONS, reason or "COMPLETE"),
            usage=USAGE.parse(usage) if usage is not None and USAGE.has_any(usage) else None,
        )
    )


_decode_usual = msgspec.json.Decoder(_Usual).decode


@mypyc_attr(allow_interpreted_subclasses=True)
class CohereV2Dialect(JSONEventDialect):
    """Sans-IO state of one Cohere v2 Chat stream. See the module docstring.

    Args:
        max_json_depth: deepest nesting accepted in a payload (``json_too_deep`` past it).
        max_raw_chars: longest ``raw`` excerpt an error keeps of an offending payload.
    """

    name = "cohere_v2"
    framing = "sse"
    end_markers = frozenset({"[DONE]"})
    payload_name = "Cohere v2 stream event"
    sniff = (
        rb'"type"\s*:\s*"(?:message-start|content-start|content-delta|content-end|'
        rb'message-end|tool-plan-delta|tool-call-start|tool-call-delta|citation-start)"',
        rb"event:\s*(?:message-start|content-delta)",
    )
    truncation_message = "stream ended before message-end"
    ignored = frozenset({"debug"})

    def __init__(
        self,
        *,
        max_json_depth: int = DEFAULT_MAX_JSON_DEPTH,
        max_raw_chars: int = DEFAULT_MAX_RAW_CHARS,
    ) -> None:
        super().__init__(max_json_depth=max_json_depth, max_raw_chars=max_raw_chars)
        self.blocks: dict[int, int] = {}
        """Content blocks by index: open or ended."""
        self.calls: dict[int, str] = {}
        """Tool calls by index -> the id they were started with."""
        self.ended_calls: set[int] = set()

    def end_marker_is_clean(self) -> bool:
        """``[DONE]`` ends the stream cleanly only after ``message-end``."""
        return self.finished or self.provider_error

    def usual(self, event: ServerSentEvent, out: list[AgentResponseUpdate]) -> bool:
        """The usual event, mapped as the shared path maps it: a ``content-delta`` of a block
        that has not ended, or a ``tool-call-delta`` of a call that is open, that decodes
        typed (:class:`_Usual`). Any other frame returns ``False`` having done nothing, and
        takes the shared path (which reports what does not fit)."""
        usual = self.typed_usual(event, _decode_usual)
        if usual is None:
            return False
        index, message = usual.index, usual.delta.message
        if usual.type == "content-delta":
            content = message.content
            if content is None or self.blocks.get(index) == _ENDED:
                return False
            self.fast_stats["typed"] += 1
            self.recognised = True
            if content.thinking:
                out.append(updates.ReasoningDelta(delta=content.thinking))
            if content.text:
                out.append(updates.TextDelta(delta=content.text))
            return True
        if usual.type == "tool-call-delta":
            call = message.tool_calls
            call_id = self.calls.get(index)
            if call is None or call_id is None or index in self.ended_calls:
                return False
            self.fast_stats["typed"] += 1
            self.recognised = True
            if call.function.arguments:
                out.append(updates.ToolCallArgs(id=call_id, args_delta=call.function.arguments))
            return True
        return False


CohereV2Dialect.handlers = {
    "message-start": _message_start,
    "content-start": _content_start,
    "content-delta": _content_delta,
    "content-end": _content_end,
    "tool-plan-delta": _tool_plan_delta,
    "tool-call-start": _tool_call_start,
    "tool-call-delta": _tool_call_delta,
    "tool-call-end": _tool_call_end,
    "citation-start": _citation_start,
    "citation-end": _citation_end,
    "message-end": _message_end,
}
