"""``anthropic_messages``: Anthropic Messages streams (``/v1/messages``; Claude on Vertex AI and
Bedrock, and the proxies that speak the format) -> updates. Sans-IO.

The rules are in docs/dialects.md (section ``anthropic_messages``); in short:

* ``message_start`` -> ``ResponseMetadata`` and ``Usage``; the usage state (four counts) is
  merged with each ``message_delta`` (``output_tokens`` is cumulative and replaces).
* Blocks are routed by their ``index`` (which counts every block). Text, thinking and
  signature deltas -> ``TextDelta``, ``ReasoningDelta``, ``ReasoningSignature``; a
  ``redacted_thinking`` block's ``data`` -> ``RedactedReasoning``; a client
  ``tool_use`` block -> ``ToolCallStart``, ``ToolCallArgs`` (non-empty ``partial_json`` only;
  the start's ``input`` is used only when no delta came), ``ToolCallEnd`` at its stop. One
  call is never described twice (RAF's quirk of explicit starts plus legacy deltas).
* Server-run tools (``server_tool_use``, ``mcp_tool_use``) are not client calls: each gives
  one ``HostedToolCall`` at its stop (its input from the ``input_json_delta``s), and each
  result block (``*_tool_result``) one ``HostedToolResult`` at its start, where it arrives
  whole; ``citations_delta`` and unknown kinds are ignored.
* ``message_delta`` with a ``stop_reason`` -> ``Finish`` with the merged usage; it and
  ``message_stop`` are clean ends. ``error`` events -> ``provider_error``.
* A ``message_start`` repeated with the id of the message being read is a repeat (gateways
  send two): ``protocol_notice``, and it changes nothing (its usage fills only counts not yet
  known). A ``message_start`` with another id starts a new message in the same stream.
* That new message, a delta or stop for a block never started, a block started twice ->
  ``protocol_violation``; what arrived is kept and reading goes on.
* Payloads of a type the dialect does not read are counted (``unrecognised_chunks``, or
  ``unrecognised_format`` when none was recognised).
"""

from __future__ import annotations

from typing import Any

import msgspec

from raf import safe_json
from raf._mypyc import mypyc_attr
from raf.dialects.base import Frame, JSONEventDialect
from raf.dialects.tables import UsageTable, finish_reason
from raf.dialects.templates import Templates
from raf.formats.anthropic_messages._wire import _Delta
from raf.framing.sse import DataRun, ServerSentEvent
from raf.limits import DEFAULT_MAX_JSON_DEPTH, DEFAULT_MAX_RAW_CHARS
from raf.model import updates
from raf.model.codes import ErrorCode
from raf.model.updates import AgentResponseUpdate, DeltaBatch
from raf.model.usage import Usage

__all__ = ["COUNTS", "FINISH_REASONS", "HOSTED_BLOCKS", "USAGE", "AnthropicMessagesDialect"]

USAGE = UsageTable(
    prompt_tokens=(("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"),),
    completion_tokens=(("output_tokens",),),
    cache_hit=(("cache_read_input_tokens",),),
)
"""Anthropic's usage counts (``input_tokens`` excludes the cached prompt), docs/dialects.md."""

COUNTS = (
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
)
"""The counts of the usage state; ``message_delta`` replaces those it carries."""

FINISH_REASONS: dict[str, str] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
}
"""Anthropic ``stop_reason`` -> raf; ``pause_turn`` and unknown values are kept verbatim."""

# Block kinds.
_TEXT = 0
_THINKING = 1
_TOOL = 2  # a client tool call with an id and a name: explicit updates
_LEGACY_TOOL = 3  # a client tool call without id or name: ToolCallDelta by block index
_OTHER = 4  # compaction, unknown kinds, and results (reported at their start): ignored
_HOSTED = 5  # a tool the server runs (server_tool_use, mcp_tool_use): HostedToolCall at stop

HOSTED_BLOCKS = frozenset({"server_tool_use", "mcp_tool_use"})
"""Blocks of tools Anthropic runs itself; every block type ending in ``_tool_result`` (other
than a client's ``tool_result``) is the result of one of them, naming it by ``tool_use_id``."""

_BLOCK_KINDS = {"text": _TEXT, "thinking": _THINKING, "redacted_thinking": _THINKING}

_encode = msgspec.json.encode


_decode_delta = msgspec.json.Decoder(_Delta).decode
_DECODE_ERRORS = (msgspec.ValidationError, msgspec.DecodeError)

_TEMPLATES = 8
"""How many templates (raf.dialects.templates) a stream keeps: one per block and kind of
delta streaming at once (they are dropped whenever a block starts or stops)."""
_HOLD = 512
"""The most deltas a batch left open across runs gathers before it is handed on (as the Chat
Completions dialect)."""

# What a template's payload gives (its tag): (_AS_TEXT, 0) a TextDelta, (_AS_REASONING, 0) a
# ReasoningDelta, (_AS_ARGS, key) a ToolCallArgs of the call with id ``key`` (a str) or a
# ToolCallDelta of the block with index ``key`` (an int: a tool block without id or name).
_AS_TEXT = 0
_AS_REASONING = 1
_AS_ARGS = 2
_Tag = tuple[int, int | str]
_TEXT_TAG: _Tag = (_AS_TEXT, 0)
_REASONING_TAG: _Tag = (_AS_REASONING, 0)
_TextDelta = updates.TextDelta
_ReasoningDelta = updates.ReasoningDelta
_ToolCallArgs = updates.ToolCallArgs
_ToolCallDelta = updates.ToolCallDelta


def _hosted_result(kind: str, data: dict[str, Any]) -> updates.HostedToolResult:
    """The ``HostedToolResult`` of a ``*_tool_result`` block: its ``content`` is the output;
    an error content (``{"type": "…_error", "error_code": …}``) or ``is_error: true`` gives
    the error text (the error code, else the content as compact JSON); ``item`` is the rest of
    the block."""
    content = data.get("content")
    error: str | None = None
    if isinstance(content, dict) and str(content.get("type", "")).endswith("_error"):
        code = content.get("error_code")
        error = code if isinstance(code, str) and code else _encode(content).decode()
    elif data.get("is_error") is True:
        error = content if isinstance(content, str) else _encode(content).decode()
    call_id = data.get("tool_use_id")
    return updates.HostedToolResult(
        call_id=call_id if isinstance(call_id, str) else "",
        name=kind,
        output=content,
        error=error,
        item={k: v for k, v in data.items() if k != "content"},
    )


_DELTA_FIELDS = {
    "text_delta": "text",
    "thinking_delta": "thinking",
    "signature_delta": "signature",
    "input_json_delta": "partial_json",
}
"""The field that carries each kind of delta's value."""


class _Block:
    __slots__ = (
        "data",
        "got_args",
        "got_signature",
        "id",
        "index",
        "kind",
        "pending",
        "pieces",
        "stopped",
        "warned",
    )

    def __init__(self, kind: int, index: int, call_id: str | None = None) -> None:
        self.kind = kind
        self.index = index
        self.id = call_id
        self.pending: str | None = None  # start input (tools) or start signature (thinking)
        self.data: dict[str, Any] | None = None  # a hosted block's start, whole
        self.pieces: list[str] = []  # a hosted block's input_json_delta text, or a thinking
        # block's signature_delta pieces (one ReasoningSignature, their concatenation, at stop)
        self.got_args = False
        self.got_signature = False
        self.stopped = False
        self.warned = False  # a protocol violation was reported for this block


@mypyc_attr(allow_interpreted_subclasses=True)
class AnthropicMessagesDialect(JSONEventDialect):
    """Sans-IO state of one Anthropic Messages stream. See the module docstring.

    Args:
        max_json_depth: deepest nesting accepted in a payload (``json_too_deep`` past it).
        max_raw_chars: longest ``raw`` excerpt an error keeps of an offending payload.
    """

    name = "anthropic_messages"
    framing = "sse"
    end_markers = frozenset({"[DONE]"})
    payload_name = "Anthropic stream event"
    sniff = (
        rb'"type"\s*:\s*"message_start"',
        rb"event:\s*message_start",
        rb'"type"\s*:\s*"content_block_(start|delta)"',
    )
    truncation_message = "stream ended before message_stop"

    def __init__(
        self,
        *,
        max_json_depth: int = DEFAULT_MAX_JSON_DEPTH,
        max_raw_chars: int = DEFAULT_MAX_RAW_CHARS,
    ) -> None:
        # (Named, not **limits: the compiled build passes **limits on wrongly.)
        super().__init__(max_json_depth=max_json_depth, max_raw_chars=max_raw_chars)
        self._blocks: dict[int, _Block] = {}
        self._last: _Block | None = None
        self._usage: dict[str, int] = {}
        self._started = False
        self._message_id: str | None = None  # the id of the message being read
        # Templates of content_block_delta payloads read in runs (feed_run), each tagged with
        # what its payload gives; emptied whenever a block starts or stops or a message
        # starts, so a template always stands for a block that is open and unchanged.
        self._templates: Templates[_Tag] = Templates(_TEMPLATES)
        # The batch of the last runs, left open for the next one (batch mode only).
        self._held: DeltaBatch | None = None

    # -- helpers ---------------------------------------------------------------------------

    def _violation(self, message: str, frame: Frame) -> None:
        frame.out.append(self.error(ErrorCode.PROTOCOL_VIOLATION, message, frame.data))

    def _notice(self, message: str, frame: Frame) -> None:
        frame.out.append(self.error(ErrorCode.PROTOCOL_NOTICE, message, frame.data))

    def _merged_usage(self) -> Usage | None:
        return USAGE.parse(self._usage) if self._usage else None

    def _merge(self, usage: dict[str, Any], frame: Frame, where: str) -> None:
        """Each count present as a non-negative integer replaces the state's; ``null`` never
        erases; another value is a problem."""
        for key in COUNTS:
            value = usage.get(key)
            if type(value) is int and value >= 0:
                self._usage[key] = value
            elif value is not None:
                what = "negative" if type(value) is int else f"{type(value).__name__}"
                frame.problem(f"{where}{key} is {what}")

    def _index(self, payload: dict[str, Any], frame: Frame) -> int | None:
        index = frame.int(payload, "index")
        if index is None and "index" not in payload:
            frame.problem("index missing")
        return index

    def _flush(self, block: _Block, out: list[AgentResponseUpdate]) -> None:
        """Emit what a block held back: its start's input (tools) or signature (thinking),
        then the signature its deltas brought; a hosted block's call, with the input that
        arrived."""
        if block.kind == _HOSTED:
            self._hosted_call(block, out)
            return
        pending = block.pending
        block.pending = None
        if pending is not None:
            if block.kind == _TOOL and not block.got_args and block.id is not None:
                out.append(updates.ToolCallArgs(id=block.id, args_delta=pending))
            elif block.kind == _LEGACY_TOOL and not block.got_args:
                out.append(updates.ToolCallDelta(index=block.index, arguments_delta=pending))
            elif block.kind == _THINKING and not block.got_signature:
                out.append(updates.ReasoningSignature(signature=pending))
        if block.pieces:  # the signature_delta pieces, concatenated
            out.append(updates.ReasoningSignature(signature="".join(block.pieces)))
            block.pieces = []

    def _hosted_call(self, block: _Block, out: list[AgentResponseUpdate]) -> None:
        """The ``HostedToolCall`` of a server tool block (once): its input is the
        ``input_json_delta`` text decoded as JSON (the text itself when it is not JSON), else
        the start's ``input``; ``item`` is the start block without its input."""
        data = block.data
        if data is None:
            return
        block.data = None
        arguments: Any = data.get("input")
        if block.pieces:
            text = "".join(block.pieces)
            block.pieces = []
            try:
                arguments = safe_json.decode_strict(text, max_depth=self.max_json_depth)
            except safe_json.UnusableJSON:
                arguments = text
        name = data.get("name")
        out.append(
            updates.HostedToolCall(
                call_id=block.id or "",
                name=name if isinstance(name, str) else str(data.get("type")),
                arguments=arguments,
                item={k: v for k, v in data.items() if k != "input"},
            )
        )

    def usual(self, event: ServerSentEvent, out: list[AgentResponseUpdate]) -> bool:
        """The usual event, mapped as :meth:`_content_block_delta` maps it: a text, thinking
        or argument fragment (:class:`_Delta`) for a block that was started and has not
        stopped. Any other frame returns ``False`` having done nothing, and takes the shared
        path."""
        payload = self.typed_usual(event, _decode_delta)
        if payload is None or payload.type != "content_block_delta":
            return False
        block = self._blocks.get(payload.index)
        if block is None or block.stopped:
            return False
        delta = payload.delta
        kind = delta.type
        if kind == "text_delta":
            value = delta.text
        elif kind == "thinking_delta":
            value = delta.thinking
        elif kind == "input_json_delta":
            value = delta.partial_json
        else:
            return False  # a signature, citations or an unknown kind: the shared path
        self.fast_stats["typed"] += 1
        self._apply(block, kind, value, out)
        return True

    def _apply(
        self, block: _Block, kind: object, value: str | None, out: list[AgentResponseUpdate]
    ) -> None:
        """The updates of a delta of ``kind`` carrying ``value`` (its text, thinking,
        signature or partial JSON) for ``block``."""
        if block.kind == _OTHER or not value:
            return
        if block.kind == _HOSTED:
            if kind == "input_json_delta" and block.data is not None:
                block.pieces.append(value)
            return
        if kind == "text_delta":
            out.append(updates.TextDelta(delta=value))
        elif kind == "thinking_delta":
            out.append(updates.ReasoningDelta(delta=value))
        elif kind == "signature_delta":
            block.got_signature = True
            block.pieces.append(value)  # the block's signature: given whole at its stop
        elif kind == "input_json_delta":
            if block.kind == _TOOL and block.id is not None:
                block.got_args = True
                out.append(updates.ToolCallArgs(id=block.id, args_delta=value))
            elif block.kind == _LEGACY_TOOL:
                block.got_args = True
                out.append(updates.ToolCallDelta(index=block.index, arguments_delta=value))

    # -- runs ----------------------------------------------------------------------------------

    def feed_run(self, run: DataRun, frame: Frame, batch: bool) -> bool:
        """A run's events are read straight from bytes. A ``content_block_delta`` (by its
        event name, or in a run of ``data:`` lines) that is byte for byte an earlier one of
        the same block with another string in the place of its ``text``, ``thinking`` or
        ``partial_json`` is read through a template (:mod:`raf.dialects.templates`): only that
        string is decoded. Another usual delta (:meth:`usual`) is decoded strictly typed and
        leaves a template; every other event takes the shared path, in its place. With
        ``batch``, the text, reasoning and argument fragments of consecutive usual deltas are
        gathered into one :class:`DeltaBatch` (the fragments by call id, or by block index
        for a tool block without id), left open across runs (up to 512 deltas) until an
        event of another kind, reasoning after text, an event outside a run, the end of the
        stream or :meth:`flush`. With :attr:`usual` switched off (``None``), every event
        takes the shared path."""
        if batch and self._usual_path() is not None:
            return self._batch(run, frame)
        frame.out.extend(self.flush())
        if self._usual_path() is None:
            return self.feed_payloads(run.payloads, run.id, frame, run.names)
        return self._stream(run, frame)

    def _typed(self, payload: bytes) -> tuple[_Block, str, str | None, _Tag] | None:
        """``payload`` read as :meth:`usual` reads it: its block, the kind of its delta, its
        value and the tag of a template of it (what it gives); ``None`` when the shared path
        must read it (not a usual delta: not a JSON object, long enough to nest too deep,
        another shape, a block never started or already stopped, a signature or another kind
        of delta, a kind of block that gives no update of it)."""
        if payload[:1] != b"{" or len(payload) > 2 * self.max_json_depth + 1:
            return None
        try:
            event = _decode_delta(payload)
        except _DECODE_ERRORS:
            return None
        if event.type != "content_block_delta":
            return None
        block = self._blocks.get(event.index)
        if block is None or block.stopped:
            return None
        delta = event.delta
        kind = delta.type
        block_kind = block.kind  # past _LEGACY_TOOL: _OTHER and _HOSTED, which give nothing
        if kind == "text_delta":
            if block_kind > _LEGACY_TOOL:
                return None
            return block, kind, delta.text, _TEXT_TAG
        if kind == "thinking_delta":
            if block_kind > _LEGACY_TOOL:
                return None
            return block, kind, delta.thinking, _REASONING_TAG
        if kind == "input_json_delta":
            if block_kind == _TOOL and block.id is not None:
                return block, kind, delta.partial_json, (_AS_ARGS, block.id)
            if block_kind == _LEGACY_TOOL:
                return block, kind, delta.partial_json, (_AS_ARGS, block.index)
        return None

    def _one(self, payload: bytes, name: str, event_id: str, frame: Frame) -> bool:
        """The shared path for one payload of a run, as :meth:`feed_payloads` maps it."""
        event = ServerSentEvent(event=name, data=payload.decode("utf-8", "replace"), id=event_id)
        if self.usual(event, frame.out):
            return False
        return self.feed_event(event, frame)

    def _stream(self, run: DataRun, frame: Frame) -> bool:
        """:meth:`feed_run` without ``batch``: each usual delta gives the update its event
        gives, through a template where one matches."""
        out = frame.out
        names = run.names
        event_id = run.id
        templates = self._templates
        match = templates.match
        typed = self._typed
        stats = self.fast_stats
        for position, payload in enumerate(run.payloads):
            try:
                name = "message" if names is None else names[position]
                if name == "content_block_delta" or names is None:
                    matched = match(payload)
                    if matched is not None:
                        # (A template's payload nests two deep: never too deep, since it was
                        # made from a payload short enough to skip the depth count.)
                        value, (code, key) = matched
                        if value:
                            if code == _AS_TEXT:
                                out.append(_TextDelta(delta=value))
                            elif code == _AS_REASONING:
                                out.append(_ReasoningDelta(delta=value))
                            elif isinstance(key, str):
                                out.append(_ToolCallArgs(id=key, args_delta=value))
                            else:
                                out.append(_ToolCallDelta(index=key, arguments_delta=value))
                        continue
                    found = typed(payload)
                    if found is not None:
                        stats["typed"] += 1
                        block, kind, fragment, tag = found
                        self._apply(block, kind, fragment, out)
                        if fragment:
                            templates.add(payload, _DELTA_FIELDS[kind], fragment, tag)
                        continue
                if self._one(payload, name, event_id, frame):
                    return True
            except Exception as exc:  # a bug in raf: report it, skip the event, go on
                out.append(self.internal_error(exc, payload.decode("utf-8", "replace")))
        return False

    def _batch(self, run: DataRun, frame: Frame) -> bool:
        """:meth:`feed_run` with ``batch``: the usual deltas' values are gathered, through a
        template where one matches; any other event hands on the batch so far first."""
        out: list[Any] = frame.out  # updates, and the DeltaBatch values
        held = self._held
        if held is None:
            reasoning: list[str] = []
            text: list[str] = []
            arguments: dict[int | str, list[str]] = {}
            order: list[int | str] = []
        else:  # the batch the last runs left open: this run goes on with it
            self._held = None
            reasoning, text, arguments, order = (
                held.reasoning,
                held.text,
                held.arguments,
                held.order,
            )
        names = run.names
        event_id = run.id
        templates = self._templates
        match = templates.match
        typed = self._typed
        stats = self.fast_stats
        for position, payload in enumerate(run.payloads):
            try:
                name = "message" if names is None else names[position]
                if name == "content_block_delta" or names is None:
                    matched = match(payload)
                    value: str | None = None
                    tag: _Tag | None = None
                    if matched is not None:
                        value, tag = matched
                    else:
                        found = typed(payload)
                        if found is not None:
                            stats["typed"] += 1
                            block, kind, value, tag = found
                            if value:
                                if tag[0] == _AS_ARGS:
                                    block.got_args = True  # as _apply does
                                templates.add(payload, _DELTA_FIELDS[kind], value, tag)
                    if tag is not None:
                        if value:
                            code, key = tag
                            if code == _AS_TEXT:
                                text.append(value)
                            elif code == _AS_REASONING:
                                if text:
                                    # Reasoning after text: the batch so far first (a batch
                                    # gives its reasoning before its text).
                                    out.append(
                                        self._handed(
                                            DeltaBatch(
                                                reasoning=reasoning,
                                                text=text,
                                                arguments=arguments,
                                                order=order,
                                            )
                                        )
                                    )
                                    reasoning, text, arguments, order = [], [], {}, []
                                reasoning.append(value)
                            else:
                                pieces = arguments.get(key)
                                if pieces is None:
                                    arguments[key] = [value]
                                else:
                                    pieces.append(value)
                                order.append(key)
                        continue
                # Not a usual delta: the batch so far, then the event as usual.
                if reasoning or text or order:
                    batch = DeltaBatch(
                        reasoning=reasoning, text=text, arguments=arguments, order=order
                    )
                    out.append(self._handed(batch))
                    reasoning, text, arguments, order = [], [], {}, []
                if self._one(payload, name, event_id, frame):
                    return True
            except Exception as exc:  # a bug in raf: report it, skip the event, go on
                out.append(self.internal_error(exc, payload.decode("utf-8", "replace")))
        if reasoning or text or order:
            batch = DeltaBatch(reasoning=reasoning, text=text, arguments=arguments, order=order)
            if len(order) + len(text) + len(reasoning) < _HOLD:
                self._held = batch  # left open for the next run (flush() hands it on)
            else:
                out.append(self._handed(batch))
        return False

    def _handed(self, batch: DeltaBatch) -> DeltaBatch:
        """``batch``, counted as it is handed on (``fast_stats["batched"]``: its deltas)."""
        self.fast_stats["batched"] += len(batch.reasoning) + len(batch.text) + len(batch.order)
        return batch

    def flush(self) -> list[Any]:
        """The batch left open by the last runs, if any (see :meth:`feed_run`)."""
        held, self._held = self._held, None
        return [] if held is None else [self._handed(held)]

    def fast_path_counts(self) -> dict[str, int]:
        """See :meth:`JSONEventDialect.fast_path_counts`; with the payloads read through a
        template."""
        counts = super().fast_path_counts()
        counts["template"] = self._templates.hits
        return counts

    # -- handlers ----------------------------------------------------------------------------

    def _message_start(self, payload: dict[str, Any], frame: Frame) -> None:
        self._templates.clear()  # the blocks may be replaced
        out = frame.out
        message = frame.dict(payload, "message")
        message_id = None if message is None else frame.str(message, "id", "message.") or None
        if self._started and message_id is not None and message_id == self._message_id:
            self._repeat(message, frame)
            return
        if self._started:
            self._violation("second message_start: a new message starts in the same stream", frame)
        self._started = True
        self._message_id = message_id
        for block in self._blocks.values():
            if not block.stopped:
                self._flush(block, out)
        self._blocks = {}
        self._last = None
        self._usage = {}
        self.finished = False
        if message is None:
            return
        self.metadata(
            frame.str(message, "id", "message."), frame.str(message, "model", "message."), out
        )
        usage = frame.dict(message, "usage", "message.")
        if usage is not None:
            self._merge(usage, frame, "message.usage.")
            if self._usage:
                out.append(updates.Usage(usage=USAGE.parse(self._usage)))

    def _repeat(self, message: Any, frame: Frame) -> None:
        """A ``message_start`` repeating the id of the message being read: a notice; its
        usage fills only the counts not known yet (a count already merged, e.g. from a
        ``message_delta``, is newer)."""
        self._notice(
            f"message_start repeated with the same id {self._message_id!r}: read as a repeat, "
            "not as a new message",
            frame,
        )
        usage = frame.dict(message, "usage", "message.")
        if usage is None:
            return
        before = dict(self._usage)
        self._merge(usage, frame, "message.usage.")
        self._usage = {**self._usage, **before}
        if self._usage != before:
            frame.out.append(updates.Usage(usage=USAGE.parse(self._usage)))

    def _content_block_start(self, payload: dict[str, Any], frame: Frame) -> None:
        self._templates.clear()  # a block may be replaced
        out = frame.out
        index = self._index(payload, frame)
        block_data = frame.dict(payload, "content_block")
        if index is None:
            return
        old = self._blocks.get(index)
        if old is not None:
            self._violation(
                f"content_block_start for index {index}, which was already started", frame
            )
        if block_data is None:
            if "content_block" not in payload:
                frame.problem("content_block missing")
            block = _Block(_OTHER, index)
            self._blocks[index] = self._last = block
            return
        kind = block_data.get("type")
        where = "content_block."
        if kind == "text":
            block = _Block(_TEXT, index)
            text = frame.str(block_data, "text", where)
            if text:
                out.append(updates.TextDelta(delta=text))
        elif kind == "thinking":
            block = _Block(_THINKING, index)
            thinking = frame.str(block_data, "thinking", where)
            if thinking:
                out.append(updates.ReasoningDelta(delta=thinking))
            signature = frame.str(block_data, "signature", where)
            if signature:
                block.pending = signature
        elif kind == "redacted_thinking":
            block = _Block(_THINKING, index)
            data = frame.str(block_data, "data", where)
            if data:
                out.append(updates.RedactedReasoning(data=data))
        elif kind == "tool_use":
            call_id = frame.str(block_data, "id", where) or None
            name = frame.str(block_data, "name", where) or None
            if call_id is not None and name is not None:
                block = _Block(_TOOL, index, call_id)
                out.append(updates.ToolCallStart(id=call_id, name=name))
            else:
                if call_id is None:
                    frame.problem("content_block.id missing")
                if name is None:
                    frame.problem("content_block.name missing")
                block = _Block(_LEGACY_TOOL, index, call_id)
                out.append(
                    updates.ToolCallDelta(index=index, id=call_id, name=name, arguments_delta="")
                )
            start_input = block_data.get("input")
            if isinstance(start_input, dict) and start_input:
                block.pending = _encode(start_input).decode()
        elif kind in HOSTED_BLOCKS:
            block = _Block(_HOSTED, index, frame.str(block_data, "id", where) or "")
            block.data = block_data
        else:
            block = _Block(_OTHER, index)
            if isinstance(kind, str) and kind.endswith("_tool_result"):
                out.append(_hosted_result(kind, block_data))
        self._blocks[index] = self._last = block

    def _content_block_delta(self, payload: dict[str, Any], frame: Frame) -> None:
        out = frame.out
        index = self._index(payload, frame)
        delta = frame.dict(payload, "delta")
        if delta is None:
            if "delta" not in payload:
                frame.problem("delta missing")
            return
        kind = delta.get("type")
        where = "delta."
        block = self._last if index is None else self._blocks.get(index)
        if block is None:
            if index is None:
                index = -1
            if kind in ("text_delta", "citations_delta"):
                block_kind = _TEXT
            elif kind in ("thinking_delta", "signature_delta"):
                block_kind = _THINKING
            elif kind == "input_json_delta":
                block_kind = _LEGACY_TOOL
            else:
                block_kind = _OTHER
            self._violation(
                f"content_block_delta for index {index}, which was never started", frame
            )
            block = _Block(block_kind, index)
            block.warned = True
            self._blocks[index] = self._last = block
        elif block.stopped and not block.warned:
            block.warned = True
            self._violation(f"content_block_delta for index {block.index} after its stop", frame)
        if block.kind == _OTHER:
            return  # ignored, its fields unread (a wrong one is no problem of ours)
        if block.kind == _HOSTED:
            if kind == "input_json_delta":
                self._apply(block, kind, frame.str(delta, "partial_json", where), out)
            return
        field = _DELTA_FIELDS.get(kind) if isinstance(kind, str) else None
        if field is not None:
            self._apply(block, kind, frame.str(delta, field, where), out)

    def _content_block_stop(self, payload: dict[str, Any], frame: Frame) -> None:
        self._templates.clear()  # a block may stop
        index = self._index(payload, frame)
        block = self._last if index is None else self._blocks.get(index)
        if block is None:
            self._violation(f"content_block_stop for index {index}, which was never started", frame)
            return
        if block.stopped:
            self._violation(
                f"content_block_stop for index {block.index}, which was already stopped", frame
            )
            return
        block.stopped = True
        self._flush(block, frame.out)
        if block.kind == _TOOL and block.id is not None:
            frame.out.append(updates.ToolCallEnd(id=block.id))

    def _message_delta(self, payload: dict[str, Any], frame: Frame) -> None:
        usage = frame.dict(payload, "usage")
        if usage is not None:
            self._merge(usage, frame, "usage.")
        delta = frame.dict(payload, "delta")
        reason = None if delta is None else frame.str(delta, "stop_reason", "delta.")
        if reason:
            self.finished = True
            frame.out.append(
                updates.Finish(
                    finish_reason=finish_reason(FINISH_REASONS, reason),
                    usage=self._merged_usage(),
                )
            )
        elif usage is not None and self._usage:
            frame.out.append(updates.Usage(usage=USAGE.parse(self._usage)))

    def _message_stop(self, payload: dict[str, Any], frame: Frame) -> None:
        self.finished = True

    def _ping(self, payload: dict[str, Any], frame: Frame) -> None:
        """Keep-alive: nothing."""

    def _error(self, payload: dict[str, Any], frame: Frame) -> None:
        frame.out.append(self.provider_error_update(payload.get("error", payload), frame.data))

    def at_close(self, out: list[AgentResponseUpdate]) -> None:
        for block in self._blocks.values():
            if not block.stopped:
                self._flush(block, out)


# Set after the class: a compiled class body cannot name its own methods (docs/compiled.md).
AnthropicMessagesDialect.handlers = {
    "message_start": AnthropicMessagesDialect._message_start,
    "content_block_start": AnthropicMessagesDialect._content_block_start,
    "content_block_delta": AnthropicMessagesDialect._content_block_delta,
    "content_block_stop": AnthropicMessagesDialect._content_block_stop,
    "message_delta": AnthropicMessagesDialect._message_delta,
    "message_stop": AnthropicMessagesDialect._message_stop,
    "ping": AnthropicMessagesDialect._ping,
    "error": AnthropicMessagesDialect._error,
}
