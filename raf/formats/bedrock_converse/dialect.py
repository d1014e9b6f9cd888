"""``bedrock_converse``: Amazon Bedrock ConverseStream (``POST /model/{modelId}/converse-stream``)
-> updates. Sans-IO.

The frames come from the ``aws_eventstream`` framing (:mod:`raf.framing.aws_eventstream`):
one :class:`raf.framing.aws_eventstream.EventStreamMessage` per message, named by its
``:event-type``, its payload the event's JSON. The rules are in docs/dialects.md (section
``bedrock_converse``); in short:

* Content blocks are routed by ``contentBlockIndex``. Real streams send ``contentBlockStart``
  only for ``toolUse`` and ``toolResult`` blocks: a text or reasoning block starts with its
  first delta. A start with an empty or unknown ``start`` opens a block whose first delta
  decides its kind.
* ``delta.text`` -> ``TextDelta`` (empty: nothing); ``delta.reasoningContent.text`` ->
  ``ReasoningDelta``; ``delta.reasoningContent.signature`` -> ``ReasoningSignature`` at once;
  ``delta.reasoningContent.redactedContent`` -> ``RedactedReasoning`` (the base64 text as
  sent).
* ``start.toolUse`` -> ``ToolCallStart(toolUseId, name)``, each ``delta.toolUse.input``
  fragment -> ``ToolCallArgs``, ``contentBlockStop`` -> ``ToolCallEnd``. A ``toolUse`` with
  ``type: server_tool_use`` is a tool the provider runs: its input is gathered and given as
  one ``HostedToolCall`` at its stop; a ``toolResult`` block (its ``delta.toolResult`` items
  gathered) is one ``HostedToolResult`` at its stop.
* ``messageStop`` -> ``Finish(finish_reason)``; ``metadata.usage`` -> ``Usage`` (counts merge:
  a count absent or ``null`` never erases one already read; a ``metadata`` without ``usage``
  changes nothing). Either order is accepted.
* An ``exception`` message (``:exception-type``, payload ``{"message": ...}``) or an ``error``
  message (``:error-code``, ``:error-message``) -> ``provider_error``; what came before is kept.
* The end of the body before ``messageStop`` -> ``stream_truncated``.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

from raf._mypyc import mypyc_attr
from raf.dialects.base import Frame, JSONEventDialect
from raf.dialects.tables import UsageTable, finish_reason
from raf.framing.aws_eventstream import EventStreamMessage
from raf.framing.sse import ServerSentEvent
from raf.limits import DEFAULT_MAX_JSON_DEPTH, DEFAULT_MAX_RAW_CHARS
from raf.model import updates
from raf.model.codes import ErrorCode
from raf.model.updates import AgentResponseUpdate

__all__ = ["COUNTS", "EXCEPTIONS", "FINISH_REASONS", "USAGE", "BedrockConverseDialect"]

USAGE = UsageTable(
    prompt_tokens=(("inputTokens", "cacheReadInputTokens", "cacheWriteInputTokens"),),
    completion_tokens=(("outputTokens",),),
    cache_hit=(("cacheReadInputTokens",),),
)
"""Bedrock's usage counts: ``inputTokens`` excludes the prompt read from or written to the
cache, so the prompt is the sum of the three; ``totalTokens`` is not read (raf's total is
prompt + completion) but compared with that sum (a ``protocol_notice`` when they differ)."""

COUNTS: Final = (
    "inputTokens",
    "outputTokens",
    "totalTokens",
    "cacheReadInputTokens",
    "cacheWriteInputTokens",
)
"""The counts of the usage state; each ``metadata.usage`` replaces those it carries."""

FINISH_REASONS: dict[str, str] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "guardrail_intervened": "content_filter",
    "content_filtered": "content_filter",
}
"""Bedrock ``stopReason`` -> raf; ``malformed_model_output``, ``malformed_tool_use`` and
unknown values are kept verbatim."""

EXCEPTIONS: dict[str, int] = {
    "internalServerException": 500,
    "modelStreamErrorException": 424,
    "validationException": 400,
    "throttlingException": 429,
    "serviceUnavailableException": 503,
}
"""The exceptions ConverseStream sends inside the stream, with the HTTP status the service
model gives each (quoted in the error message); any other ``:exception-type`` is reported the
same way."""

# Block kinds.
_UNKNOWN: Final = 0  # opened by a start with an empty or unknown ``start``: its delta decides
_TEXT: Final = 1
_REASONING: Final = 2
_TOOL: Final = 3
_HOSTED_CALL: Final = 4
_HOSTED_RESULT: Final = 5
_IMAGE: Final = 6

_KIND_NAMES: Final = {
    _UNKNOWN: "empty",
    _TEXT: "text",
    _REASONING: "reasoning",
    _TOOL: "toolUse",
    _HOSTED_CALL: "server toolUse",
    _HOSTED_RESULT: "toolResult",
    _IMAGE: "image",
}

_SERVER_TOOL_USE: Final = "server_tool_use"

# Delta members raf leaves aside (docs/dialects.md: fields.py lists them).
_SKIPPED_DELTAS: Final = frozenset({"citation", "image"})

_decode = msgspec.json.decode


class _Block:
    """One content block's state."""

    __slots__ = ("call_id", "ended", "input", "item", "kind", "name", "output")

    def __init__(self, kind: int) -> None:
        self.kind = kind
        self.ended = False
        self.call_id = ""
        self.name = ""
        self.input: list[str] = []
        self.output: list[Any] = []
        self.item: dict[str, Any] | None = None


def _violation(dialect: BedrockConverseDialect, text: str, frame: Frame) -> None:
    frame.out.append(dialect.error(ErrorCode.PROTOCOL_VIOLATION, text, frame.data))


def _notice(dialect: BedrockConverseDialect, text: str, frame: Frame) -> None:
    frame.out.append(dialect.error(ErrorCode.PROTOCOL_NOTICE, text, frame.data))


def _index(payload: dict[str, Any], frame: Frame) -> int | None:
    index = frame.int(payload, "contentBlockIndex")
    if index is None and "contentBlockIndex" not in payload:
        frame.problem("contentBlockIndex missing")
    return index


def _message_start(dialect: BedrockConverseDialect, payload: dict[str, Any], frame: Frame) -> None:
    role = frame.str(payload, "role")
    if dialect.started:
        _notice(dialect, "a second messageStart", frame)
    elif role is not None and role != "assistant":
        _notice(dialect, f"messageStart with role {role!r}", frame)
    dialect.started = True


def _content_block_start(
    dialect: BedrockConverseDialect, payload: dict[str, Any], frame: Frame
) -> None:
    index = _index(payload, frame)
    if index is None:
        return
    if index in dialect.blocks:
        _violation(dialect, f"content block {index} started twice", frame)
        return
    start = frame.dict(payload, "start") or {}
    tool = frame.dict(start, "toolUse", "start.")
    result = frame.dict(start, "toolResult", "start.")
    if tool is not None:
        block = _Block(_TOOL)
        call_id = frame.str(tool, "toolUseId", "start.toolUse.")
        name = frame.str(tool, "name", "start.toolUse.")
        if not call_id:
            frame.problem("start.toolUse.toolUseId missing")
        block.call_id = call_id or f"tooluse_{index}"
        block.name = name or ""
        if frame.str(tool, "type", "start.toolUse.") == _SERVER_TOOL_USE:
            block.kind = _HOSTED_CALL
            block.item = tool
        else:
            frame.out.append(updates.ToolCallStart(id=block.call_id, name=block.name))
    elif result is not None:
        block = _Block(_HOSTED_RESULT)
        call_id = frame.str(result, "toolUseId", "start.toolResult.")
        if not call_id:
            frame.problem("start.toolResult.toolUseId missing")
        block.call_id = call_id or f"tooluse_{index}"
        block.name = frame.str(result, "type", "start.toolResult.") or "toolResult"
        block.item = result
    elif "image" in start:
        block = _Block(_IMAGE)
    else:
        block = _Block(_UNKNOWN)
    dialect.blocks[index] = block


def _block_for_delta(dialect: BedrockConverseDialect, index: int, kind: int, frame: Frame) -> None:
    """Open block ``index`` for a text or reasoning delta when it is new (real streams start
    those blocks with their first delta); a delta for a block that stopped, or that started as
    another kind (``toolUse``, ``toolResult``, ``image``), is a violation, read all the same."""
    block = dialect.blocks.get(index)
    if block is None:
        dialect.blocks[index] = _Block(kind)
        return
    if block.ended:
        _violation(dialect, f"delta for content block {index} after its stop", frame)
    if block.kind == _UNKNOWN:
        block.kind = kind
    elif block.kind not in (_TEXT, _REASONING):
        _violation(
            dialect,
            f"{_KIND_NAMES[kind]} delta in {_KIND_NAMES[block.kind]} content block {index}",
            frame,
        )


def _content_block_delta(
    dialect: BedrockConverseDialect, payload: dict[str, Any], frame: Frame
) -> None:
    index = _index(payload, frame)
    delta = frame.dict(payload, "delta")
    if index is None or delta is None:
        if delta is None and "delta" not in payload:
            frame.problem("delta missing")
        return
    out = frame.out
    for member, value in delta.items():
        if member == "text":
            if not isinstance(value, str):
                frame.problem(f"delta.text is {type(value).__name__}")
            else:
                _block_for_delta(dialect, index, _TEXT, frame)
                if value:
                    out.append(updates.TextDelta(delta=value))
        elif member == "reasoningContent":
            if not isinstance(value, dict):
                frame.problem(f"delta.reasoningContent is {type(value).__name__}")
            else:
                _block_for_delta(dialect, index, _REASONING, frame)
                _reasoning(value, frame)
        elif member == "toolUse":
            _tool_input(dialect, index, value, frame)
        elif member == "toolResult":
            _tool_result(dialect, index, value, frame)
        elif member not in _SKIPPED_DELTAS:
            _notice(dialect, f"delta of an unknown kind ({member!r}) skipped", frame)


def _reasoning(value: dict[str, Any], frame: Frame) -> None:
    where = "delta.reasoningContent."
    text = frame.str(value, "text", where)
    if text:
        frame.out.append(updates.ReasoningDelta(delta=text))
    signature = frame.str(value, "signature", where)
    if signature:
        frame.out.append(updates.ReasoningSignature(signature=signature))
    redacted = frame.str(value, "redactedContent", where)
    if redacted:
        frame.out.append(updates.RedactedReasoning(data=redacted))


def _tool_input(dialect: BedrockConverseDialect, index: int, value: Any, frame: Frame) -> None:
    if not isinstance(value, dict):
        frame.problem(f"delta.toolUse is {type(value).__name__}")
        return
    fragment = frame.str(value, "input", "delta.toolUse.")
    block = dialect.blocks.get(index)
    if block is None or block.kind not in (_TOOL, _HOSTED_CALL):
        what = "which never started" if block is None else f"a {_KIND_NAMES[block.kind]} block"
        _violation(dialect, f"toolUse input for content block {index}, {what}; dropped", frame)
        return
    if block.ended:
        _violation(dialect, f"toolUse input for content block {index} after its stop", frame)
        return
    if not fragment:
        return
    if block.kind == _TOOL:
        frame.out.append(updates.ToolCallArgs(id=block.call_id, args_delta=fragment))
    else:
        block.input.append(fragment)


def _tool_result(dialect: BedrockConverseDialect, index: int, value: Any, frame: Frame) -> None:
    if not isinstance(value, list):
        frame.problem(f"delta.toolResult is {type(value).__name__}")
        return
    block = dialect.blocks.get(index)
    if block is None or block.kind != _HOSTED_RESULT or block.ended:
        _violation(
            dialect, f"toolResult delta for content block {index}, not an open toolResult", frame
        )
        return
    block.output.extend(value)


def _hosted_call(block: _Block, frame: Frame) -> updates.HostedToolCall:
    text = "".join(block.input)
    arguments: Any = None
    if text:
        try:
            arguments = _decode(text)
        except (msgspec.DecodeError, RecursionError):
            frame.problem("the server toolUse input is not JSON (kept as text)")
            arguments = text
    item = dict(block.item or {})
    item["input"] = arguments if arguments is not None else {}
    return updates.HostedToolCall(
        call_id=block.call_id, name=block.name, arguments=arguments, item=item
    )


def _hosted_result(block: _Block) -> updates.HostedToolResult:
    item = dict(block.item or {})
    item["content"] = block.output
    error = None
    if item.get("status") == "error":
        texts = [part["text"] for part in block.output if isinstance(part, dict) and "text" in part]
        error = " ".join(t for t in texts if isinstance(t, str)) or "the tool reported an error"
    return updates.HostedToolResult(
        call_id=block.call_id, name=block.name, output=block.output, error=error, item=item
    )


def _close_block(block: _Block, frame: Frame) -> None:
    block.ended = True
    if block.kind == _TOOL:
        frame.out.append(updates.ToolCallEnd(id=block.call_id))
    elif block.kind == _HOSTED_CALL:
        frame.out.append(_hosted_call(block, frame))
    elif block.kind == _HOSTED_RESULT:
        frame.out.append(_hosted_result(block))


def _content_block_stop(
    dialect: BedrockConverseDialect, payload: dict[str, Any], frame: Frame
) -> None:
    index = _index(payload, frame)
    if index is None:
        return
    block = dialect.blocks.get(index)
    if block is None:
        # A block that sent nothing: nothing to close, nothing lost.
        dialect.blocks[index] = block = _Block(_UNKNOWN)
        block.ended = True
        return
    if block.ended:
        _violation(dialect, f"content block {index} stopped twice", frame)
        return
    _close_block(block, frame)


def _open_blocks(dialect: BedrockConverseDialect, frame: Frame, where: str) -> None:
    """Close the tool blocks still open (their calls must not be lost), naming them."""
    open_calls = [
        i for i, b in dialect.blocks.items() if not b.ended and b.kind in (_TOOL, _HOSTED_CALL)
    ]
    open_calls += [i for i, b in dialect.blocks.items() if not b.ended and b.kind == _HOSTED_RESULT]
    if not open_calls:
        return
    shown = ", ".join(str(i) for i in sorted(open_calls))
    _violation(dialect, f"{where} while content block(s) {shown} had not stopped", frame)
    for index in sorted(open_calls):
        _close_block(dialect.blocks[index], frame)


def _message_stop(dialect: BedrockConverseDialect, payload: dict[str, Any], frame: Frame) -> None:
    if dialect.finished:
        _violation(dialect, "a second messageStop", frame)
        return
    _open_blocks(dialect, frame, "messageStop")
    reason = frame.str(payload, "stopReason")
    if reason is None and "stopReason" not in payload:
        frame.problem("stopReason missing")
    dialect.finished = True
    frame.out.append(
        updates.Finish(
            finish_reason=finish_reason(FINISH_REASONS, reason or "end_turn"),
            usage=USAGE.parse(dialect.usage) if dialect.usage else None,
        )
    )


def _metadata(dialect: BedrockConverseDialect, payload: dict[str, Any], frame: Frame) -> None:
    usage = frame.dict(payload, "usage")
    if usage is None:
        return  # metrics only: the usage already read stands
    state = dialect.usage
    for key in COUNTS:
        value = usage.get(key)
        if type(value) is int and value >= 0:
            state[key] = value
        elif value is not None:
            what = "negative" if type(value) is int else type(value).__name__
            frame.problem(f"usage.{key} is {what}")
    if not any(key in state for key in COUNTS if key != "totalTokens"):
        return
    total = state.get("totalTokens")
    parts = sum(state.get(key, 0) for key in COUNTS if key != "totalTokens")
    if total is not None and total != parts:
        _notice(
            dialect,
            f"usage.totalTokens is {total}, but input, output and cache counts add up to {parts}",
            frame,
        )
    frame.out.append(updates.Usage(usage=USAGE.parse(state)))


def _header_text(event: EventStreamMessage, name: str) -> str:
    value = event.headers.get(name)
    return value if isinstance(value, str) else ""


@mypyc_attr(allow_interpreted_subclasses=True)
class BedrockConverseDialect(JSONEventDialect):
    """Sans-IO state of one Bedrock ConverseStream. See the module docstring.

    Args:
        max_json_depth: deepest nesting accepted in a payload (``json_too_deep`` past it).
        max_raw_chars: longest ``raw`` excerpt an error keeps of an offending payload.
    """

    name = "bedrock_converse"
    framing = "aws_eventstream"
    payload_name = "ConverseStream event"
    sniff = (
        rb":event-type\x07\x00[\x00-\xff](?:messageStart|contentBlockStart|contentBlockDelta|"
        rb"contentBlockStop|messageStop|metadata)",
        rb":exception-type\x07\x00[\x00-\xff](?:internalServer|modelStreamError|validation|"
        rb"throttling|serviceUnavailable)Exception",
    )
    truncation_message = "stream ended before messageStop"

    def __init__(
        self,
        *,
        max_json_depth: int = DEFAULT_MAX_JSON_DEPTH,
        max_raw_chars: int = DEFAULT_MAX_RAW_CHARS,
    ) -> None:
        super().__init__(max_json_depth=max_json_depth, max_raw_chars=max_raw_chars)
        self.started = False
        """``messageStart`` arrived."""
        self.blocks: dict[int, _Block] = {}
        """Content blocks by ``contentBlockIndex``."""
        self.usage: dict[str, int] = {}
        """The usage counts read so far (``metadata.usage``), merged."""
        self._untyped_noted = False

    def kind_of(self, event: ServerSentEvent, payload: dict[str, Any]) -> str:
        """The event's type is the message's name (``:event-type``): payloads carry no type."""
        return event.event

    def feed_event(self, event: ServerSentEvent, frame: Frame) -> bool:
        """One message: an ``exception`` or ``error`` message is a provider error, a message
        of an unknown type a notice; an ``event`` message is read by its ``:event-type``."""
        if isinstance(event, EventStreamMessage):
            message_type = event.message_type
            if message_type in {"exception", "error"}:
                try:
                    frame.out.append(self._provider_error(event))
                except Exception as exc:  # a bug in raf: report it, go on
                    frame.out.append(self.internal_error(exc, event.data))
                return False
            if message_type is None and not self._untyped_noted:
                self._untyped_noted = True
                frame.out.append(
                    self.error(
                        ErrorCode.PROTOCOL_NOTICE,
                        "message without :message-type read as an event",
                        event.data,
                    )
                )
            elif message_type is not None and message_type != "event":
                frame.out.append(
                    self.error(
                        ErrorCode.PROTOCOL_NOTICE,
                        f"message of unknown :message-type {message_type!r} skipped",
                        event.data,
                    )
                )
                return False
        return super().feed_event(event, frame)

    def _provider_error(self, event: EventStreamMessage) -> AgentResponseUpdate:
        """``provider_error`` for an ``exception`` or ``error`` message."""
        data = event.data
        if event.message_type == "error":
            code = _header_text(event, ":error-code") or event.event or "error"
            message = _header_text(event, ":error-message") or data or "(no message)"
            return self.provider_error_update(f"{code}: {message}", data)
        name = event.event or "exception"
        try:
            body = _decode(data) if data else None
        except (msgspec.DecodeError, RecursionError):
            body = None
        text = data or "(no message)"
        if isinstance(body, dict):
            said = body.get("message")
            text = said if isinstance(said, str) and said else text
            status = body.get("originalStatusCode")
            original = body.get("originalMessage")
            if status is not None or original is not None:
                text += f" (model said {status}: {original})"
        status_text = f" [{EXCEPTIONS[name]}]" if name in EXCEPTIONS else ""
        return self.provider_error_update(f"{name}{status_text}: {text}", data)


BedrockConverseDialect.handlers = {
    "messageStart": _message_start,
    "contentBlockStart": _content_block_start,
    "contentBlockDelta": _content_block_delta,
    "contentBlockStop": _content_block_stop,
    "messageStop": _message_stop,
    "metadata": _metadata,
}
