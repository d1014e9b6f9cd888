"""An independent reader of recorded ``anthropic_messages`` responses.

``read_updates(status, reason, body)`` derives the canonical JSON of the
``AgentResponseUpdate`` values of one recorded HTTP response, as the goldens hold them
(``conformance/goldens/anthropic_messages/<scenario>.json``, key ``updates``). It is written
from the documentation only, so that the updates level of those goldens is checked against
something other than the code that wrote it:

- ``docs/dialects.md (section ``anthropic_messages``)``: the dialect's spec (what each event
  becomes, the block rules, usage, finish reasons, the end of the stream);
- ``docs/dialects.md``: the generic rules shared by the JSON dialects ("Writing a dialect"
  and the ``openai_chat`` section the spec refers to for repairs and raw values);
- ``docs/sse.md``: the event-stream rules (read by the shared helper ``read_events``);
- ``docs/conformance.md``: a non-2xx status is not read as a stream but gives one
  ``http_error`` update;
- ``docs/model.md`` and ``conformance/schema/update.schema.json``: the canonical JSON of an
  update (``"type"`` first, then every field in the order of the schema);
- ``docs/limits.md``: ``max_json_depth`` (256) and ``max_raw_chars`` (4,096).

``aggregate(body)`` is a second, deliberately simpler reading of a real recorded stream (the
shared corpus): the text, reasoning, client tool calls, finish reason and usage triple.

It imports nothing from raf: only the standard library and the format-neutral helpers of
``tests.conformance.independent_reader`` (canonical JSON of updates, SSE event reading, depth
check, JSON decoding with its repairs, raw shortening). It reads the whole body at once and is
written to be checked line by line against those documents, not to be fast.

Three kinds of comment mark the places where the documents alone did not decide:

- ``OPEN:`` the documents leave the question open, and no bundled cassette depends on the
  answer; the comment says what was chosen and why.
- ``DOCS GAP:`` the documents leave the question open and the goldens depend on the answer,
  but a reading of the documents decides it; the comment gives that reading.
- ``SETTLED BY GOLDEN:`` a question the documents leave open and a bundled cassette depends
  on; it was settled by looking at the named golden file, and the comment says why the
  documents did not settle it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from tests.conformance.independent_reader import (
    MAX_JSON_DEPTH,
    Event,
    compact_json,
    decode_json,
    error,
    finish,
    is_done_marker,
    is_integer,
    is_keep_alive,
    nested_deeper_than,
    read_events,
    reasoning_delta,
    response_metadata,
    shortened,
    text_delta,
    tool_call_delta,
    usage_record,
    usage_update,
)

# =============================================================================================
# Canonical JSON of the updates the openai_chat helpers do not have (schema field order).
# =============================================================================================


def reasoning_signature(signature: str) -> dict[str, Any]:
    """``ReasoningSignature(signature)``."""
    return {"type": "reasoning_signature", "signature": signature}


def redacted_reasoning(data: str) -> dict[str, Any]:
    """``RedactedReasoning(data)``."""
    return {"type": "redacted_reasoning", "data": data}


def tool_call_start(call_id: str, name: str) -> dict[str, Any]:
    """``ToolCallStart(id, name)``."""
    return {"type": "tool_call_start", "id": call_id, "name": name}


def tool_call_args(call_id: str, args_delta: str) -> dict[str, Any]:
    """``ToolCallArgs(id, args_delta)``."""
    return {"type": "tool_call_args", "id": call_id, "args_delta": args_delta}


def hosted_tool_call(call_id: str, name: str, arguments: Any, item: Any) -> dict[str, Any]:
    """``HostedToolCall(call_id, name, arguments, item)``."""
    return {
        "type": "hosted_tool_call",
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
        "item": item,
    }


def hosted_tool_result(
    call_id: str, name: str, output: Any, error_text: str | None, item: Any
) -> dict[str, Any]:
    """``HostedToolResult(call_id, name, output, error, item)``."""
    return {
        "type": "hosted_tool_result",
        "call_id": call_id,
        "name": name,
        "output": output,
        "error": error_text,
        "item": item,
    }


def hosted_result_of(block_type: str, block: dict[str, Any]) -> dict[str, Any]:
    """The spec's row for a block whose type ends in `_tool_result`."""
    content = block.get("content")
    # "`error` is the content's `error_code` when the content is an error object
    # (`{"type": "…_error", "error_code": …}`; without a code, the content as compact JSON), or
    # the content (a string, else compact JSON) when `is_error` is true; else `None`".
    error_text: str | None = None
    is_error_object = isinstance(content, dict) and str(content.get("type")).endswith("_error")
    if is_error_object:
        assert isinstance(content, dict)
        code = content.get("error_code")
        error_text = code if isinstance(code, str) and code else compact_json(content)
    elif block.get("is_error") is True:
        error_text = content if isinstance(content, str) else compact_json(content)
    # OPEN: a missing or non-string `tool_use_id` is read as the empty call id. No cassette
    # has one.
    call_id = block.get("tool_use_id")
    rest = {k: v for k, v in block.items() if k != "content"}
    return hosted_tool_result(
        call_id if isinstance(call_id, str) else "", block_type, content, error_text, rest
    )


def tool_call_end(call_id: str) -> dict[str, Any]:
    """``ToolCallEnd(id)``."""
    return {"type": "tool_call_end", "id": call_id}


# =============================================================================================
# Finish reasons (spec, "Finish reasons").
# =============================================================================================

FINISH_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
    "pause_turn": "pause_turn",
}


def finish_reason_of(stop_reason: str) -> str:
    """raf's finish reason for a ``stop_reason``: the table, "anything else: kept verbatim"."""
    return FINISH_REASONS.get(stop_reason, stop_reason)


# =============================================================================================
# Usage (spec, "Usage").
# =============================================================================================

USAGE_COUNTS = (
    "input_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
    "output_tokens",
)


def is_count(value: Any) -> bool:
    """A count the dialect takes: "present as a non-negative integer"."""
    return is_integer(value) and value >= 0


def usage_of_state(state: dict[str, int | None]) -> dict[str, Any]:
    """The usage record of the four counts of the state, by the usage table."""
    input_tokens = state["input_tokens"]
    creation = state["cache_creation_input_tokens"]
    read = state["cache_read_input_tokens"]
    output = state["output_tokens"]
    # "`input_tokens` + `cache_creation_input_tokens` + `cache_read_input_tokens` ...; 0 when
    # none is known": the known ones are added (a missing one counts as 0).
    prompt = sum(count for count in (input_tokens, creation, read) if count is not None)
    # "`output_tokens` (cumulative; thinking included)".
    # OPEN: the table does not say what completion_tokens is when output_tokens was never
    # reported; the schema says "The three totals default to 0", so 0. Every bundled stream
    # reports output_tokens in message_start.
    completion = output if output is not None else 0
    # "`cache_read_input_tokens`, `None` when never reported".
    hit = read
    # "prompt − hit (`input_tokens` + `cache_creation_input_tokens`) when the hit count is
    # known".
    miss = prompt - hit if hit is not None else None
    return usage_record(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=prompt + completion,
        prompt_cache_hit_tokens=hit,
        prompt_cache_miss_tokens=miss,
        # "`None`: Anthropic does not report it apart".
        reasoning_tokens=None,
    )


def empty_usage_state() -> dict[str, int | None]:
    return dict.fromkeys(USAGE_COUNTS)


# =============================================================================================
# Blocks.
# =============================================================================================

# The kinds of block the dialect tells apart.
TEXT = "text"
THINKING = "thinking"
REDACTED = "redacted_thinking"
TOOL = "tool"  # a client `tool_use` block with an id and a name
LEGACY_TOOL = "legacy_tool"  # a client `tool_use` block without an id or a name
HOSTED = "hosted"  # server_tool_use, mcp_tool_use: a tool Anthropic runs itself
SERVER = "server"  # *_tool_result (reported at its start), compaction, any other kind
UNKNOWN = "unknown"  # a block implied by a delta that implies no kind (see content_block_delta)


# The index a delta or stop without a usable index counts for when no block was started.
NO_BLOCK = -1


@dataclass
class Block:
    """One content block of the current message, by its `index`."""

    kind: str
    index: int
    call_id: str | None = None
    name: str | None = None
    # The `input` of a tool block's start, when it is a non-empty object.
    start_input: dict[str, Any] | None = None
    # A non-empty `input_json_delta` came in the block.
    got_input_delta: bool = False
    # The non-empty `signature` of a thinking block's start.
    start_signature: str | None = None
    # A `signature_delta` came in the block.
    got_signature_delta: bool = False
    # The non-empty `signature_delta` pieces, given concatenated at the block's stop.
    signature_pieces: list[str] = field(default_factory=list)
    stopped: bool = False
    # A delta after the stop was already reported ("once for that block").
    reported_delta_after_stop: bool = False
    # A hosted block's start, whole, until its HostedToolCall is given; its deltas' text.
    hosted_start: dict[str, Any] | None = None
    hosted_input: str = ""
    got_hosted_delta: bool = False


# =============================================================================================
# The dialect.
# =============================================================================================


class Fields:
    """Typed reads of the fields of one event; a field of the wrong type reads as absent and
    its path is collected for the event's one ``Error(invalid_chunk)`` (spec: "A field of the
    wrong type ... reads as absent and is named in one `Error(invalid_chunk)` after the
    event's other updates; the rest of the event still counts"). JSON ``null`` is absent."""

    def __init__(self) -> None:
        self.wrong: list[str] = []
        self.missing: list[str] = []

    def string(self, obj: dict[str, Any], key: str, path: str) -> str | None:
        value = obj.get(key)
        if value is None or isinstance(value, str):
            return value
        self.wrong.append(path)
        return None

    def integer(self, obj: dict[str, Any], key: str, path: str) -> int | None:
        value = obj.get(key)
        if value is None or is_integer(value):
            return value
        self.wrong.append(path)
        return None

    def object(self, obj: dict[str, Any], key: str, path: str) -> dict[str, Any] | None:
        value = obj.get(key)
        if value is None or isinstance(value, dict):
            return value
        self.wrong.append(path)
        return None


class MessagesStreamReader:
    """Reads the events of one Anthropic Messages stream, in order, into updates."""

    def __init__(self) -> None:
        # The id and model of the last ResponseMetadata emitted.
        self.last_id: str | None = None
        self.last_model: str | None = None
        # `[DONE]` was seen: "the stream is over and nothing after it is read".
        self.done = False
        # Per message: its blocks by index, the most recently started one, the usage state.
        self.message_seen = False
        self.message_id: str | None = None  # the id of the message being read
        self.blocks: dict[int, Block] = {}
        self.last_started: int | None = None
        self.usage_state = empty_usage_state()
        # "the stream counts as finished" (message_stop, or message_delta with a stop reason),
        # reset by a new message_start ("the stream is no longer finished").
        self.finished = False
        # An `error` event or `event: error` came ("no provider error ... explained why").
        self.provider_error_seen = False

    # -- one event -----------------------------------------------------------------------------

    def read_event(self, event: Event) -> list[dict[str, Any]]:
        """The updates of one SSE event (the generic table of the spec, then by type)."""
        data = event.data

        # "an SSE event named `error` (whatever its data): `Error(provider_error)` with the
        # provider's message".
        if event.type == "error":
            self.provider_error_seen = True
            # SETTLED BY GOLDEN: the `raw` of this error. The spec gives its code and message
            # only; conformance/goldens/anthropic_messages/overloaded_before_any_content.json
            # and overloaded_error_after_200.json have the event's whole data (as the
            # openai_chat golden event_error_frame.json does), shortened like every raw.
            return [error("provider_error", provider_message_of_data(data), shortened(data))]

        # "`[DONE]` ...: none; the stream is over and nothing after it is read".
        if is_done_marker(data):
            self.done = True
            return []

        # "empty, or only JSON whitespace: none (a keep-alive)".
        if is_keep_alive(data):
            return []

        # "nested deeper than `max_json_depth` (256): `Error(json_too_deep)`; the event is
        # skipped".
        if nested_deeper_than(data, MAX_JSON_DEPTH):
            # OPEN: the raw of json_too_deep is not given; it is the payload, as for every
            # error of the generic table ("`raw` keeps the offending payload itself").
            return [
                error(
                    "json_too_deep",
                    f"the payload nests deeper than {MAX_JSON_DEPTH} levels",
                    shortened(data),
                )
            ]

        # "not JSON: `Error(sse_parse_error)` with the data in `raw`".
        try:
            payload, repairs = decode_json(data)
        except ValueError as exc:
            return [error("sse_parse_error", f"the data is not JSON ({exc})", shortened(data))]

        # "JSON that is not an object: `Error(invalid_chunk)`".
        # OPEN: its raw is not given; it is the payload, as in openai_chat ("data in `raw`").
        # No bundled cassette has one.
        if not isinstance(payload, dict):
            return [error("invalid_chunk", "$: the payload is not a JSON object", shortened(data))]

        # "The payload's type is its JSON `"type"` field when that is a string, else the SSE
        # event name".
        # OPEN: a `"type"` of another type (a number) is not named as a wrong-typed field:
        # the spec says the event name is used instead and names no error. No bundled
        # cassette has one.
        kind = payload.get("type")
        if not isinstance(kind, str):
            kind = event.type

        fields = Fields()
        updates = self.read_payload(kind, payload, data, fields)

        # The event's one invalid_chunk for the fields of a wrong type (and the missing ones
        # the spec names: `index missing`, `content_block.id missing`).
        # OPEN: the spec says wrong-typed fields are named "in one `Error(invalid_chunk)`",
        # and names `index missing` and `content_block.id missing` "in `Error(invalid_chunk)`"
        # too without saying whether it is the same one. They are read as the same one here:
        # one error per event listing every field that was skipped. Its raw is the payload,
        # as for the invalid_chunk row of the generic table. No bundled cassette has either.
        named = fields.wrong + fields.missing
        if named:
            updates.append(
                error(
                    "invalid_chunk",
                    "fields of a wrong type or missing, skipped: " + ", ".join(named),
                    shortened(data),
                )
            )

        # "Repairs of numbers out of range and lone surrogate escapes are as in `openai_chat`":
        # named in an `Error(invalid_chunk)` after the event's updates.
        # OPEN: as in the openai_chat reader, the repairs are their own error, after the one
        # above. No bundled cassette needs a repair.
        if repairs:
            updates.append(
                error("invalid_chunk", "repaired: " + "; ".join(repairs), shortened(data))
            )
        return updates

    def read_payload(
        self, kind: str, payload: dict[str, Any], data: str, fields: Fields
    ) -> list[dict[str, Any]]:
        """The updates of an object, by its type (the "Events" table)."""
        if kind == "message_start":
            return self.message_start(payload, data, fields)
        if kind == "content_block_start":
            return self.content_block_start(payload, data, fields)
        if kind == "content_block_delta":
            return self.content_block_delta(payload, data, fields)
        if kind == "content_block_stop":
            return self.content_block_stop(payload, data, fields)
        if kind == "message_delta":
            return self.message_delta(payload, fields)
        if kind == "message_stop":
            # "none; the stream counts as finished (Bedrock's
            # `amazon-bedrock-invocationMetrics` is not read)".
            self.finished = True
            return []
        if kind == "error":
            # "`Error(provider_error)` with `error.message (code error.type)`; the stream may
            # then end without `message_stop`".
            self.provider_error_seen = True
            # OPEN: the raw of this error is not given; it is the event's whole data, as for
            # `event: error` (settled there by the golden). No bundled cassette sends an
            # `error` object without the SSE event name.
            return [error("provider_error", provider_message_of_data(data), shortened(data))]
        # `ping`: none; "any other type: none (Anthropic adds event types)".
        return []

    # -- message_start ---------------------------------------------------------------------------

    def message_start(
        self, payload: dict[str, Any], data: str, fields: Fields
    ) -> list[dict[str, Any]]:
        updates: list[dict[str, Any]] = []
        # "A `message_start` repeated with the id of the message being read is a repeat:
        # `Error(protocol_notice)`, and it changes nothing (its usage fills only counts not
        # yet known)".
        repeat = fields.object(payload, "message", "message") or {}
        repeat_id = fields.string(repeat, "id", "message.id") or None
        if self.message_seen and repeat_id is not None and repeat_id == self.message_id:
            # SETTLED BY GOLDEN: its raw is the event's data, shortened, as a violation's.
            updates.append(error("protocol_notice", "message_start repeated", shortened(data)))
            usage = fields.object(repeat, "usage", "message.usage")
            if usage is not None:
                before = dict(self.usage_state)
                self.take_counts(usage, "message.usage", fields)
                self.usage_state = {
                    name: before[name] if before[name] is not None else value
                    for name, value in self.usage_state.items()
                }
                if self.usage_state != before:
                    updates.append(usage_update(usage_of_state(self.usage_state)))
            return updates
        self.message_id = repeat_id
        # "if a `message_start` was already seen: `Error(protocol_violation)` ("second
        # message_start"), then the new message starts afresh (its blocks, its usage; block
        # indexes start again at 0; the stream is no longer finished)".
        if self.message_seen:
            # SETTLED BY GOLDEN: the raw of protocol_violation. The spec gives only the code
            # and a message; conformance/goldens/anthropic_messages/
            # duplicate_message_start_same_id.json has the event's whole data, "the offending
            # input itself" of the schema, shortened like every raw.
            updates.append(error("protocol_violation", "second message_start", shortened(data)))
            # "then the blocks of the earlier message that are still open are handed on as at
            # close (a `tool_use` block's start `input`, a thinking block's start signature, a
            # server tool's call)". The bundled spliced stream's open block had deltas, so it
            # has nothing to flush.
            for block in self.blocks.values():
                if not block.stopped:
                    updates.extend(self.flush(block))
            self.blocks = {}
            self.last_started = None
            self.usage_state = empty_usage_state()
            self.finished = False
        self.message_seen = True

        message = fields.object(payload, "message", "message") or {}

        # "`ResponseMetadata(message.id, message.model)` when they differ from the last ones
        # emitted".
        message_id = fields.string(message, "id", "message.id")
        model = fields.string(message, "model", "message.model")
        # OPEN: the spec does not say whether an absent (or empty) id or model "differs"; as
        # in openai_chat ("an absent value is not a change", "Empty strings count as
        # absent"), it does not, and the emitted metadata carries the event's own values.
        # Every bundled message_start sends both.
        message_id = message_id or None
        model = model or None
        id_changed = message_id is not None and message_id != self.last_id
        model_changed = model is not None and model != self.last_model
        if id_changed or model_changed:
            updates.append(response_metadata(message_id, model))
            if message_id is not None:
                self.last_id = message_id
            if model is not None:
                self.last_model = model

        # "then the usage state is set to the four counts of `message.usage`, and
        # `Usage(usage)` is emitted when any of them is present".
        usage = fields.object(message, "usage", "message.usage")
        self.usage_state = empty_usage_state()
        if usage is not None:
            any_present = self.take_counts(usage, "message.usage", fields)
            if any_present:
                updates.append(usage_update(usage_of_state(self.usage_state)))
        # "`message.content` is not read".
        return updates

    def take_counts(self, usage: dict[str, Any], path: str, fields: Fields) -> bool:
        """Put the counts of a usage object that are non-negative integers into the state;
        whether any was present. ``null`` is absent ("`null` never erases")."""
        # OPEN: a count that is not an integer (`"12"`, 1.5, true) is a field of the wrong type
        # and is named in the event's invalid_chunk (the general rule of the spec); a negative
        # integer is of the right type and is only left out ("present as a non-negative
        # integer"). message_start's "set to the four counts" is read with the same rule as
        # message_delta's. Every bundled count is a non-negative integer.
        any_present = False
        for name in USAGE_COUNTS:
            value = usage.get(name)
            if value is None:
                continue
            if not is_integer(value):
                fields.wrong.append(f"{path}.{name}")
                continue
            if value >= 0:
                self.usage_state[name] = value
                any_present = True
        return any_present

    # -- blocks ----------------------------------------------------------------------------------

    def block_index(self, payload: dict[str, Any], fields: Fields) -> int | None:
        """The event's `index`. "A missing `index` on a block event names `index missing` in
        `Error(invalid_chunk)` (a non-integer one names its type)": a wrong-typed index is a
        field of the wrong type like any other, and reads as absent."""
        index = fields.integer(payload, "index", "index")
        if index is None and "index" not in fields.wrong:
            fields.missing.append("index missing")
        return index

    def routed_index(self) -> int:
        """Where a delta or stop without a usable index goes: "the event then goes to the most
        recently started block of the message, or, when there is none, counts as a delta or
        stop for the never-started index `-1`"."""
        # OPEN: a block implied by a delta for a never-started index counts as "started"
        # here (the spec says it "is treated as started"), so it can be the most recently
        # started block. No bundled cassette has a block event without an index.
        return NO_BLOCK if self.last_started is None else self.last_started

    def content_block_start(
        self, payload: dict[str, Any], data: str, fields: Fields
    ) -> list[dict[str, Any]]:
        updates: list[dict[str, Any]] = []
        index = self.block_index(payload, fields)
        # "A `content_block_start` without a usable index is skipped."
        if index is None:
            return updates
        # OPEN: a start without a `content_block` object is read as a block of no known kind
        # (a server block: none), so that its deltas are ignored. No bundled cassette has one.
        block = fields.object(payload, "content_block", "content_block") or {}

        # "if the index is already open or stopped in this message: `Error(protocol_violation)`,
        # and the new block replaces the old one".
        if index in self.blocks:
            # The raw is the event's data, as settled for the other protocol_violations.
            updates.append(
                error(
                    "protocol_violation",
                    f"content_block_start for index {index}, which was already started",
                    shortened(data),
                )
            )
        self.last_started = index

        block_type = fields.string(block, "type", "content_block.type")
        if block_type == "text":
            self.blocks[index] = Block(TEXT, index)
            # "`TextDelta(text)` when `text` is non-empty".
            text = fields.string(block, "text", "content_block.text")
            if text:
                updates.append(text_delta(text))
        elif block_type == "thinking":
            new = Block(THINKING, index)
            self.blocks[index] = new
            # "`ReasoningDelta(thinking)` when non-empty; a non-empty `signature` is
            # remembered".
            thinking = fields.string(block, "thinking", "content_block.thinking")
            if thinking:
                updates.append(reasoning_delta(thinking))
            signature = fields.string(block, "signature", "content_block.signature")
            if signature:
                new.start_signature = signature
        elif block_type == "redacted_thinking":
            self.blocks[index] = Block(REDACTED, index)
            # "`RedactedReasoning(data)` when `data` is non-empty".
            redacted = fields.string(block, "data", "content_block.data")
            if redacted:
                updates.append(redacted_reasoning(redacted))
        elif block_type == "tool_use":
            call_id = fields.string(block, "id", "content_block.id") or None
            name = fields.string(block, "name", "content_block.name") or None
            # "The start's `input` ... is remembered: ... when ... `input` is a non-empty
            # object".
            start_input = fields.object(block, "input", "content_block.input") or None
            if call_id is not None and name is not None:
                self.blocks[index] = Block(
                    TOOL, index, call_id=call_id, name=name, start_input=start_input
                )
                updates.append(tool_call_start(call_id, name))
            else:
                # "the legacy form, routed by the block index: `ToolCallDelta(index=<block
                # index>, id=<id or None>, name=<name or None>, arguments_delta="")` ...; the
                # missing field is named in `Error(invalid_chunk)` (`content_block.id
                # missing`)".
                self.blocks[index] = Block(
                    LEGACY_TOOL, index, call_id=call_id, name=name, start_input=start_input
                )
                updates.append(tool_call_delta(index, call_id, name, ""))
                if call_id is None:
                    fields.missing.append("content_block.id missing")
                if name is None:
                    fields.missing.append("content_block.name missing")
        elif block_type in ("server_tool_use", "mcp_tool_use"):
            # "none yet: ... Its `input_json_delta`s are kept, and at the block's stop it gives
            # `HostedToolCall(call_id=id, name, arguments, item)`".
            # OPEN: a missing id is the empty call id. No cassette has one.
            self.blocks[index] = Block(
                HOSTED,
                index,
                call_id=fields.string(block, "id", "content_block.id") or "",
                hosted_start=block,
            )
        else:
            # "any type ending in `_tool_result` ...: `HostedToolResult(...)`, at the start,
            # where the result arrives whole"; "`compaction`, any other kind: none; its deltas
            # are ignored too".
            self.blocks[index] = Block(SERVER, index)
            if isinstance(block_type, str) and block_type.endswith("_tool_result"):
                updates.append(hosted_result_of(block_type, block))
        return updates

    def content_block_delta(
        self, payload: dict[str, Any], data: str, fields: Fields
    ) -> list[dict[str, Any]]:
        updates: list[dict[str, Any]] = []
        index = self.block_index(payload, fields)
        if index is None:
            index = self.routed_index()

        # OPEN: a delta without a `delta` object (or with one of the wrong type, which is
        # named) carries nothing; it still counts as the block's delta for the checks below.
        delta = fields.object(payload, "delta", "delta") or {}
        delta_type = fields.string(delta, "type", "delta.type")

        block = self.blocks.get(index)
        if block is None:
            # "if the index was never started in this message: `Error(protocol_violation)`
            # once for that index, then the block is treated as started with the kind the
            # delta implies (text, thinking, or an id-less tool call in the legacy form
            # above)".
            updates.append(
                error(
                    "protocol_violation",
                    f"content_block_delta for index {index}, which was never started",
                    shortened(data),
                )
            )
            # OPEN: which kind `signature_delta`, `citations_delta` and unknown deltas imply
            # is not said: a signature signs reasoning (thinking), a citation belongs to text
            # (text); any other delta implies no kind of its own (a block on which text and
            # reasoning still count, but no call). An implied legacy tool block emits no
            # opening `ToolCallDelta(index, None, None, "")` and no `content_block.id
            # missing`: the spec says only that the content is still emitted. No bundled
            # cassette has a delta for a block never started.
            implied = {
                "text_delta": TEXT,
                "citations_delta": TEXT,
                "thinking_delta": THINKING,
                "signature_delta": THINKING,
                "input_json_delta": LEGACY_TOOL,
            }.get(delta_type or "", UNKNOWN)
            block = Block(implied, index)
            self.blocks[index] = block
            # OPEN: whether an implied block becomes "the most recently started block" is not
            # said; it does, as it is "treated as started".
            self.last_started = index
        elif block.stopped and not block.reported_delta_after_stop:
            # "if it was stopped: `Error(protocol_violation)` once for that block".
            block.reported_delta_after_stop = True
            updates.append(
                error(
                    "protocol_violation",
                    f"content_block_delta for index {index}, which was stopped",
                    shortened(data),
                )
            )

        # "In both cases the content is still emitted. Then by `delta.type`:"
        if block.kind == HOSTED:
            # "Its `input_json_delta`s are kept"; its other deltas are not content.
            # OPEN: text or thinking deltas on a server tool block are ignored, as on every
            # server block. No cassette has one.
            if delta_type == "input_json_delta":
                partial = fields.string(delta, "partial_json", "delta.partial_json")
                if partial:
                    block.hosted_input += partial
                    block.got_hosted_delta = True
            return updates
        if block.kind == SERVER:
            # "their deltas are ignored too" (and text_delta: "except a server block, where
            # it is ignored").
            # OPEN: the fields of a delta on a server block are not read at all, so a
            # wrong-typed field there is not named.
            return updates
        if delta_type == "text_delta":
            text = fields.string(delta, "text", "delta.text")
            if text:
                updates.append(text_delta(text))
        elif delta_type == "thinking_delta":
            # OPEN: the spec does not restrict thinking_delta to thinking blocks (unlike
            # input_json_delta); it is emitted on any non-server block.
            thinking = fields.string(delta, "thinking", "delta.thinking")
            if thinking:
                updates.append(reasoning_delta(thinking))
        elif delta_type == "signature_delta":
            signature = fields.string(delta, "signature", "delta.signature")
            # "unless a `signature_delta` came in the block": any signature_delta, even an
            # empty one, cancels the start signature.
            # OPEN: the spec says "unless a `signature_delta` came"; an empty one counts.
            block.got_signature_delta = True
            # "a non-empty signature is kept, and at the block's stop ... `ReasoningSignature(
            # <the pieces concatenated, in order>)`".
            if signature:
                block.signature_pieces.append(signature)
        elif delta_type == "input_json_delta":
            partial = fields.string(delta, "partial_json", "delta.partial_json")
            if block.kind == TOOL and block.call_id is not None:
                if partial:
                    block.got_input_delta = True
                    updates.append(tool_call_args(block.call_id, partial))
            elif block.kind == LEGACY_TOOL and partial:
                block.got_input_delta = True
                updates.append(tool_call_delta(index, None, None, partial))
            # "on any other block: none".
        # `citations_delta` and "any other delta type": none.
        return updates

    def content_block_stop(
        self, payload: dict[str, Any], data: str, fields: Fields
    ) -> list[dict[str, Any]]:
        updates: list[dict[str, Any]] = []
        index = self.block_index(payload, fields)
        if index is None:
            index = self.routed_index()

        block = self.blocks.get(index)
        if block is None:
            # "Index never started: `Error(protocol_violation)`".
            # SETTLED BY GOLDEN: the raw is the event's data. The spec gives no raw for any
            # protocol_violation; conformance/goldens/anthropic_messages/
            # refusal_stop_without_block_start.json has the event's whole data.
            # OPEN: the never-started index is not recorded as a stopped block, so a later
            # start at that index is no violation (the spec says nothing about the state
            # after this error). No bundled cassette starts a block after such a stop.
            updates.append(
                error(
                    "protocol_violation",
                    f"content_block_stop for index {index}, which was never started",
                    shortened(data),
                )
            )
            return updates
        if block.stopped:
            # "stopped twice: `Error(protocol_violation)`".
            # OPEN: the second stop emits nothing else (the call already ended).
            updates.append(
                error(
                    "protocol_violation",
                    f"content_block_stop for index {index}, which was already stopped",
                    shortened(data),
                )
            )
            return updates

        block.stopped = True
        # "for a client `tool_use` block: the remembered start input as `ToolCallArgs`, then
        # `ToolCallEnd(id)` (legacy blocks: the input as `ToolCallDelta`, no end); for a
        # thinking block: its remembered start signature".
        updates.extend(self.flush(block))
        if block.kind == TOOL and block.call_id is not None:
            updates.append(tool_call_end(block.call_id))
        return updates

    def flush(self, block: Block) -> list[dict[str, Any]]:
        """What a block remembered from its start: the input of a tool block that got no
        non-empty `input_json_delta`, the start signature of a thinking block that got no
        `signature_delta`; a server tool block's call, once."""
        if block.kind == HOSTED:
            start = block.hosted_start
            if start is None:
                return []
            block.hosted_start = None
            # "`arguments` is the deltas' text decoded as JSON (the text itself when it is not
            # JSON, e.g. cut), else the start's `input`; `item` is the start block without its
            # `input`".
            arguments: Any = start.get("input")
            if block.got_hosted_delta:
                try:
                    arguments = json.loads(block.hosted_input)
                except ValueError:
                    arguments = block.hosted_input
            name = start.get("name")
            # OPEN: a block without a string name is named after its type. No cassette has one.
            if not isinstance(name, str):
                name = str(start.get("type"))
            rest = {k: v for k, v in start.items() if k != "input"}
            return [hosted_tool_call(block.call_id or "", name, arguments, rest)]
        out: list[dict[str, Any]] = []
        if block.kind in (TOOL, LEGACY_TOOL):
            if not block.got_input_delta and block.start_input:
                arguments = compact_json(block.start_input)
                if block.kind == TOOL and block.call_id is not None:
                    out.append(tool_call_args(block.call_id, arguments))
                else:
                    out.append(tool_call_delta(block.index, None, None, arguments))
        elif block.kind == THINKING and block.start_signature and not block.got_signature_delta:
            out.append(reasoning_signature(block.start_signature))
        if block.signature_pieces:
            out.append(reasoning_signature("".join(block.signature_pieces)))
            block.signature_pieces = []
        return out

    # -- message_delta ---------------------------------------------------------------------------

    def message_delta(self, payload: dict[str, Any], fields: Fields) -> list[dict[str, Any]]:
        updates: list[dict[str, Any]] = []
        # "`usage`: each of the four counts present as a non-negative integer replaces the one
        # in the state (`output_tokens` is cumulative, so it replaces; `null` never erases)".
        usage = fields.object(payload, "usage", "usage")
        if usage is not None:
            self.take_counts(usage, "usage", fields)
        # "Then, when `delta.stop_reason` is a non-empty string: `Finish(finish_reason, usage)`
        # with the merged usage (`None` when no count was ever seen), and the stream counts as
        # finished; else, when the event had a usage object: `Usage(usage)`".
        delta = fields.object(payload, "delta", "delta") or {}
        stop_reason = fields.string(delta, "stop_reason", "delta.stop_reason")
        counts_seen = any(count is not None for count in self.usage_state.values())
        if stop_reason:
            merged = usage_of_state(self.usage_state) if counts_seen else None
            updates.append(finish(finish_reason_of(stop_reason), merged))
            self.finished = True
        elif usage is not None:
            # OPEN: when no count was ever seen, the Usage update still carries the (all
            # zero) merged usage: the spec gives `None` only for the Finish, and a Usage
            # update's usage cannot be null. No bundled cassette has a message_delta without
            # a stop reason.
            updates.append(usage_update(usage_of_state(self.usage_state)))
        return updates

    # -- the end of the stream -----------------------------------------------------------------

    def close(self, sse_truncated: bool) -> list[dict[str, Any]]:
        """The updates at the end of the stream (spec, "End of the stream and deviations")."""
        updates: list[dict[str, Any]] = []
        # "At `close`, for blocks still open: a tool block's remembered start input is emitted
        # as its arguments (what arrived; no `ToolCallEnd`), a thinking block's remembered
        # start signature as `ReasoningSignature`. Then: ..."
        # OPEN: the open blocks are flushed in the order they were first recorded at their
        # index, and also after `[DONE]` (the list below comes after the flush: "Then").
        # The one bundled stream cut with an open block (stream_cut_mid_tool_arguments) has
        # nothing to flush.
        for block in self.blocks.values():
            if not block.stopped:
                updates.extend(self.flush(block))

        # "after `[DONE]`: nothing more".
        if self.done:
            return updates
        # "when the SSE decoder discarded an unfinished event: `Error(stream_truncated)`";
        # "when neither `message_stop` nor a `message_delta` with a stop reason came in the
        # current message, and no provider error ... explained why: `Error(stream_truncated)`
        # ("stream ended before message_stop")".
        # SETTLED BY GOLDEN: the raw of stream_truncated is null
        # (conformance/goldens/anthropic_messages/stream_cut_mid_tool_arguments.json), as in
        # openai_chat; the spec gives no raw.
        # OPEN: a stream to which both bullets apply gets one error, not two, as the
        # openai_chat goldens show for that dialect. No bundled anthropic_messages stream is
        # cut inside an unfinished event.
        # OPEN: a provider error anywhere in the stream explains the end (the spec says "no
        # provider error", not "none in the current message").
        if sse_truncated:
            updates.append(
                error("stream_truncated", "the stream ended inside an unfinished event", None)
            )
        elif not self.finished and not self.provider_error_seen:
            updates.append(error("stream_truncated", "stream ended before message_stop", None))
        return updates


def provider_message(value: Any, data: str) -> str:
    """A person's message for a provider's error payload (never compared):
    `error.message (code error.type)`."""
    if isinstance(value, dict) and isinstance(value.get("error"), dict):
        inner = value["error"]
        message = inner.get("message")
        code = inner.get("type")
        if isinstance(message, str):
            return f"provider error: {message} (code {code})"
    return f"provider error: {shortened(data)}"


def provider_message_of_data(data: str) -> str:
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):
        return f"provider error: {shortened(data)}"
    return provider_message(value, data)


# =============================================================================================
# The whole response.
# =============================================================================================


def read_updates(status: int, reason: str, body: bytes) -> list[dict[str, Any]]:
    """The canonical updates of one recorded response: its status, reason phrase and body."""
    # docs/conformance.md: "An interaction whose recorded status is not 2xx is not read as a
    # stream: its output is one `http_error` update".
    if not 200 <= status < 300:
        text = body.decode("utf-8", errors="replace")
        # OPEN: the raw of http_error is the body text, shortened, as settled for
        # openai_chat by conformance/goldens/openai_chat/http_429_json_error.json (the same
        # pipeline step, before any dialect). No bundled anthropic_messages cassette has a
        # non-2xx status.
        return [error("http_error", f"HTTP {status} {reason}: {shortened(text)}", shortened(text))]

    events, sse_truncated = read_events(body)
    reader = MessagesStreamReader()
    updates: list[dict[str, Any]] = []
    for event in events:
        if reader.done:  # "nothing after it is read"
            break
        updates.extend(reader.read_event(event))
    updates.extend(reader.close(sse_truncated))
    return updates


# =============================================================================================
# A deliberately simple reading of a real recorded stream (the shared corpus).
# =============================================================================================


def aggregate(body: bytes) -> dict[str, Any]:
    """The answer of a real recorded stream, read as plainly as possible.

    Text: the text of `text` blocks (their start's `text` and their `text_delta`s).
    Reasoning: the `thinking` of `thinking` blocks, `None` when there is none. Tool calls:
    the client `tool_use` blocks, each with its id, name and its arguments (the
    concatenated `partial_json`, else the start's `input`; nothing at all is `{}`), parsed;
    a call whose block never stopped or whose arguments are not JSON is left out (it is not a
    call a client could run).
    Finish reason: the last `stop_reason`, by the spec's table. Usage: the four counts of the
    last `message_start`, overridden by each `message_delta`, as the spec's usage table's
    (prompt, completion, total). Server blocks and their deltas are not read.
    """
    events, _ = read_events(body)
    text: list[str] = []
    reasoning: list[str] = []
    calls: list[dict[str, Any]] = []  # in block start order
    blocks: dict[int, dict[str, Any]] = {}
    stop_reason: str | None = None
    counts: dict[str, int] = {}
    counts_seen = False

    for event in events:
        data = event.data.strip()
        if data == "[DONE]":
            break
        if not data.startswith("{"):
            continue
        payload = json.loads(data)
        kind = payload.get("type") if isinstance(payload.get("type"), str) else event.type
        if kind == "message_start":
            blocks = {}
            usage = payload.get("message", {}).get("usage") or {}
            counts = {k: v for k, v in usage.items() if k in USAGE_COUNTS and is_count(v)}
            counts_seen = counts_seen or bool(counts)
        elif kind == "content_block_start":
            block = payload["content_block"]
            blocks[payload["index"]] = block
            if block.get("type") == "text":
                text.append(block.get("text") or "")
            elif block.get("type") == "thinking":
                reasoning.append(block.get("thinking") or "")
            elif block.get("type") == "tool_use":
                call = {"id": block["id"], "name": block["name"], "json": [], "input": block}
                block["_call"] = call
                calls.append(call)
        elif kind == "content_block_delta":
            block = blocks.get(payload["index"], {})
            delta = payload["delta"]
            if block.get("type") == "text" and delta.get("type") == "text_delta":
                text.append(delta["text"])
            elif block.get("type") == "thinking" and delta.get("type") == "thinking_delta":
                reasoning.append(delta["thinking"])
            elif block.get("type") == "tool_use" and delta.get("type") == "input_json_delta":
                block["_call"]["json"].append(delta["partial_json"])
        elif kind == "content_block_stop":
            block = blocks.get(payload["index"], {})
            if "_call" in block:
                block["_call"]["stopped"] = True
        elif kind == "message_delta":
            if payload.get("delta", {}).get("stop_reason"):
                stop_reason = payload["delta"]["stop_reason"]
            usage = payload.get("usage") or {}
            for key in USAGE_COUNTS:
                if is_count(usage.get(key)):
                    counts[key] = usage[key]
                    counts_seen = True

    tool_calls: list[tuple[str | None, str, Any]] = []
    for call in calls:
        if not call.get("stopped"):
            continue
        arguments_text = "".join(call["json"])
        if arguments_text:
            try:
                arguments = json.loads(arguments_text)
            except ValueError:
                continue
        else:
            arguments = call["input"].get("input") or {}
        tool_calls.append((call["id"], call["name"], arguments))

    usage_triple: tuple[int, int, int] | None = None
    if counts_seen:
        prompt = sum(
            counts.get(k, 0)
            for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        )
        completion = counts.get("output_tokens", 0)
        usage_triple = (prompt, completion, prompt + completion)

    joined_reasoning = "".join(reasoning)
    return {
        "text": "".join(text),
        "reasoning": joined_reasoning or None,
        "tool_calls": tool_calls,
        "finish_reason": None if stop_reason is None else finish_reason_of(stop_reason),
        "usage": usage_triple,
    }
