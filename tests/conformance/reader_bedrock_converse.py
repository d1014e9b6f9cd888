"""An independent reader of recorded ``bedrock_converse`` responses (Amazon Bedrock
ConverseStream).

``read_updates(status, reason, body)`` derives the canonical JSON of the
``AgentResponseUpdate`` values of one recorded HTTP response, as the goldens hold them
(``conformance/goldens/bedrock_converse/<scenario>.json``, key ``updates``). It is written
from the documentation only:

- ``docs/dialects.md``, section ``bedrock_converse``: the message types, the events and delta
  tables, hosted tools, errors in the stream, finish reasons, usage, the end of the stream;
- ``docs/eventstream.md``: the binary layout of a message (prelude, CRCs, header types), the
  frame (a message's name by its type), a corrupt stream (``stream_corrupt``) and a cut one;
- ``docs/dialects.md``, "Chunks a dialect does not recognise" and "Writing a dialect" (what
  the shared base does: keep-alives, depth, decoding, an ``error`` event, truncation, fields
  of a wrong type);
- ``docs/conformance.md``: a non-2xx status is one ``http_error`` update;
- ``docs/model.md`` and ``conformance/schema/update.schema.json``: canonical JSON;
- ``docs/limits.md``: ``max_json_depth`` (256) and ``max_raw_chars`` (4,096).

It imports nothing from raf: the standard library (its own event-stream decoding with
``struct`` and ``zlib``) and the shared helpers of ``tests.conformance.independent_reader``.
Marks as in the other readers: ``OPEN:`` the documents leave it open and no bundled cassette
depends on it.
"""

from __future__ import annotations

import json
import struct
import zlib
from dataclasses import dataclass
from typing import Any

from tests.conformance.independent_reader import (
    MAX_JSON_DEPTH,
    decode_json,
    error,
    finish,
    is_integer,
    is_keep_alive,
    nested_deeper_than,
    reasoning_delta,
    shortened,
    text_delta,
    usage_record,
    usage_update,
)

# =============================================================================================
# Part 1: bytes to messages (docs/eventstream.md, "The format" and "The frame").
# =============================================================================================


@dataclass(frozen=True)
class Message:
    """One message: its name, ``:message-type``, headers and payload text."""

    name: str
    message_type: str | None
    headers: dict[str, Any]
    data: str


class Corrupt(Exception):
    """A message failed a check of the format: the stream ends there."""


FIXED = {2: ">b", 3: ">h", 4: ">i", 5: ">q", 8: ">q"}


def parse_headers(block: bytes) -> dict[str, Any]:
    """A header block: name (length byte, UTF-8), type byte, value of that type."""
    headers: dict[str, Any] = {}
    pos = 0
    while pos < len(block):
        size = block[pos]
        pos += 1
        if size == 0 or pos + size + 1 > len(block):
            raise Corrupt("header name")
        try:
            name = block[pos : pos + size].decode("utf-8")
        except UnicodeDecodeError:
            raise Corrupt("header name not UTF-8") from None
        pos += size
        kind = block[pos]
        pos += 1
        value: Any
        if kind in (0, 1):
            value = kind == 0
        elif kind in FIXED:
            width = struct.calcsize(FIXED[kind])
            if pos + width > len(block):
                raise Corrupt("header value")
            value = struct.unpack(FIXED[kind], block[pos : pos + width])[0]
            pos += width
        elif kind in (6, 7):
            if pos + 2 > len(block):
                raise Corrupt("header value")
            length = struct.unpack(">H", block[pos : pos + 2])[0]
            pos += 2
            if pos + length > len(block):
                raise Corrupt("header value")
            raw = block[pos : pos + length]
            pos += length
            try:
                value = raw if kind == 6 else raw.decode("utf-8")
            except UnicodeDecodeError:
                raise Corrupt("header value not UTF-8") from None
        elif kind == 9:
            if pos + 16 > len(block):
                raise Corrupt("header value")
            value = block[pos : pos + 16]
            pos += 16
        else:
            raise Corrupt("unknown header type")  # "The type set is fixed."
        if name in headers:
            raise Corrupt("header twice")
        headers[name] = value
    return headers


NAME_HEADER = {"event": ":event-type", "exception": ":exception-type", "error": ":error-code"}


def read_messages(body: bytes) -> tuple[list[Message], str]:
    """The messages of a body and how it ended: ``"clean"``, ``"truncated"`` (inside a
    message) or ``"corrupt"`` (a check failed)."""
    messages: list[Message] = []
    pos = 0
    while pos < len(body):
        if len(body) - pos < 12:
            return messages, "truncated"
        total, headers_length, prelude_crc = struct.unpack(">III", body[pos : pos + 12])
        if zlib.crc32(body[pos : pos + 8]) != prelude_crc:
            return messages, "corrupt"
        if total < 16 or headers_length > total - 16:
            return messages, "corrupt"
        # OPEN: the size limit (max_event_bytes) is not applied; no cassette comes near it.
        if len(body) - pos < total:
            return messages, "truncated"
        whole = body[pos : pos + total]
        if zlib.crc32(whole[:-4]) != struct.unpack(">I", whole[-4:])[0]:
            return messages, "corrupt"
        try:
            headers = parse_headers(whole[12 : 12 + headers_length])
        except Corrupt:
            return messages, "corrupt"
        payload = whole[12 + headers_length : -4]
        message_type = headers.get(":message-type")
        if not isinstance(message_type, str):
            message_type = None
        name = headers.get(NAME_HEADER.get(message_type or "event", ":event-type"))
        messages.append(
            Message(
                name=name if isinstance(name, str) else "",
                message_type=message_type,
                headers=headers,
                data=payload.decode("utf-8", errors="replace"),
            )
        )
        pos += total
    return messages, "clean"


# =============================================================================================
# Part 2: messages to updates (docs/dialects.md, section bedrock_converse).
# =============================================================================================

READ = {
    "messageStart",
    "contentBlockStart",
    "contentBlockDelta",
    "contentBlockStop",
    "messageStop",
    "metadata",
}

FINISH_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "guardrail_intervened": "content_filter",
    "content_filtered": "content_filter",
}

COUNTS = (
    "inputTokens",
    "outputTokens",
    "totalTokens",
    "cacheReadInputTokens",
    "cacheWriteInputTokens",
)


def tool_call_start(call_id: str, name: str) -> dict[str, Any]:
    return {"type": "tool_call_start", "id": call_id, "name": name}


def tool_call_args(call_id: str, args_delta: str) -> dict[str, Any]:
    return {"type": "tool_call_args", "id": call_id, "args_delta": args_delta}


def tool_call_end(call_id: str) -> dict[str, Any]:
    return {"type": "tool_call_end", "id": call_id}


def hosted_tool_call(call_id: str, name: str, arguments: Any, item: Any) -> dict[str, Any]:
    return {
        "type": "hosted_tool_call",
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
        "item": item,
    }


def hosted_tool_result(
    call_id: str, name: str, output: Any, failure: str | None, item: Any
) -> dict[str, Any]:
    return {
        "type": "hosted_tool_result",
        "call_id": call_id,
        "name": name,
        "output": output,
        "error": failure,
        "item": item,
    }


@dataclass
class Block:
    kind: str  # "unknown", "text", "reasoning", "tool", "server", "result", "image"
    stopped: bool = False
    call_id: str = ""
    name: str = ""
    start: dict[str, Any] | None = None
    gathered: list[Any] | None = None


class Frame:
    """One payload being read: its updates and the fields of a wrong type."""

    def __init__(self, data: str) -> None:
        self.data = data
        self.out: list[dict[str, Any]] = []
        self.wrong: list[str] = []

    def typed(self, obj: dict[str, Any] | None, key: str, kind: type) -> Any:
        if obj is None:
            return None
        value = obj.get(key)
        if value is None:
            return None
        if isinstance(value, kind) and not isinstance(value, bool):
            return value
        self.wrong.append(key)
        return None

    def report(self, code: str) -> None:
        self.out.append(error(code, "", shortened(self.data)))


class Reader:
    def __init__(self) -> None:
        self.started = False
        self.blocks: dict[int, Block] = {}
        self.usage: dict[str, int] = {}
        self.finished = False
        self.provider_error = False
        self.untyped_noted = False
        self.recognised = False
        self.unrecognised: list[str] = []

    # -- usage --------------------------------------------------------------------------------

    def usage_record(self) -> dict[str, Any]:
        counts = self.usage
        prompt = (
            counts.get("inputTokens", 0)
            + counts.get("cacheReadInputTokens", 0)
            + counts.get("cacheWriteInputTokens", 0)
        )
        completion = counts.get("outputTokens", 0)
        hit = counts.get("cacheReadInputTokens")
        return usage_record(
            prompt_tokens=prompt,
            completion_tokens=completion,
            total_tokens=prompt + completion,
            prompt_cache_hit_tokens=hit,
            prompt_cache_miss_tokens=None if hit is None else max(prompt - hit, 0),
            reasoning_tokens=None,
        )

    # -- blocks -------------------------------------------------------------------------------

    def stop(self, block: Block, frame: Frame) -> None:
        block.stopped = True
        if block.kind == "tool":
            frame.out.append(tool_call_end(block.call_id))
        elif block.kind == "server":
            text = "".join(block.gathered or [])
            arguments: Any = None
            if text:
                try:
                    arguments = json.loads(text)
                except ValueError:
                    arguments = text
                    frame.wrong.append("input")
            item = dict(block.start or {})
            item["input"] = {} if arguments is None else arguments
            frame.out.append(hosted_tool_call(block.call_id, block.name, arguments, item))
        elif block.kind == "result":
            output = list(block.gathered or [])
            item = dict(block.start or {})
            item["content"] = output
            failure = None
            if item.get("status") == "error":
                texts = [
                    part["text"]
                    for part in output
                    if isinstance(part, dict) and isinstance(part.get("text"), str)
                ]
                failure = " ".join(texts) or "the tool reported an error"
            frame.out.append(hosted_tool_result(block.call_id, block.name, output, failure, item))

    def text_block(self, index: int, kind: str, frame: Frame) -> None:
        block = self.blocks.get(index)
        if block is None:
            self.blocks[index] = Block(kind)
            return
        if block.stopped:
            frame.report("protocol_violation")
        if block.kind == "unknown":
            block.kind = kind
        elif block.kind not in ("text", "reasoning"):
            frame.report("protocol_violation")

    # -- events -------------------------------------------------------------------------------

    def index_of(self, payload: dict[str, Any], frame: Frame) -> int | None:
        index = frame.typed(payload, "contentBlockIndex", int)
        if "contentBlockIndex" not in payload:
            frame.wrong.append("contentBlockIndex")
        return index  # type: ignore[no-any-return]

    def block_start(self, payload: dict[str, Any], frame: Frame) -> None:
        index = self.index_of(payload, frame)
        if index is None:
            return
        if index in self.blocks:
            frame.report("protocol_violation")
            return
        start = frame.typed(payload, "start", dict) or {}
        tool = frame.typed(start, "toolUse", dict)
        result = frame.typed(start, "toolResult", dict)
        if tool is not None:
            call_id = frame.typed(tool, "toolUseId", str)
            if not call_id:
                frame.wrong.append("toolUseId")
            block = Block("tool", call_id=call_id or f"tooluse_{index}")
            block.name = frame.typed(tool, "name", str) or ""
            if frame.typed(tool, "type", str) == "server_tool_use":
                block.kind, block.start, block.gathered = "server", tool, []
            else:
                frame.out.append(tool_call_start(block.call_id, block.name))
        elif result is not None:
            call_id = frame.typed(result, "toolUseId", str)
            if not call_id:
                frame.wrong.append("toolUseId")
            block = Block("result", call_id=call_id or f"tooluse_{index}", start=result)
            block.name = frame.typed(result, "type", str) or "toolResult"
            block.gathered = []
        elif "image" in start:
            block = Block("image")
        else:
            block = Block("unknown")
        self.blocks[index] = block

    def block_delta(self, payload: dict[str, Any], frame: Frame) -> None:
        index = self.index_of(payload, frame)
        delta = frame.typed(payload, "delta", dict)
        if delta is None and "delta" not in payload:
            frame.wrong.append("delta")
        if index is None or delta is None:
            return
        for member, value in delta.items():
            if member == "text":
                if not isinstance(value, str):
                    frame.wrong.append("text")
                    continue
                self.text_block(index, "text", frame)
                if value:
                    frame.out.append(text_delta(value))
            elif member == "reasoningContent":
                if not isinstance(value, dict):
                    frame.wrong.append("reasoningContent")
                    continue
                self.text_block(index, "reasoning", frame)
                text = frame.typed(value, "text", str)
                if text:
                    frame.out.append(reasoning_delta(text))
                signature = frame.typed(value, "signature", str)
                if signature:
                    frame.out.append({"type": "reasoning_signature", "signature": signature})
                redacted = frame.typed(value, "redactedContent", str)
                if redacted:
                    frame.out.append({"type": "redacted_reasoning", "data": redacted})
            elif member == "toolUse":
                if not isinstance(value, dict):
                    frame.wrong.append("toolUse")
                    continue
                fragment = frame.typed(value, "input", str)
                block = self.blocks.get(index)
                if block is None or block.kind not in ("tool", "server") or block.stopped:
                    frame.report("protocol_violation")
                    continue
                if not fragment:
                    continue
                if block.kind == "tool":
                    frame.out.append(tool_call_args(block.call_id, fragment))
                else:
                    assert block.gathered is not None
                    block.gathered.append(fragment)
            elif member == "toolResult":
                if not isinstance(value, list):
                    frame.wrong.append("toolResult")
                    continue
                block = self.blocks.get(index)
                if block is None or block.kind != "result" or block.stopped:
                    frame.report("protocol_violation")
                    continue
                assert block.gathered is not None
                block.gathered.extend(value)
            elif member not in ("citation", "image"):
                frame.report("protocol_notice")

    def block_stop(self, payload: dict[str, Any], frame: Frame) -> None:
        index = self.index_of(payload, frame)
        if index is None:
            return
        block = self.blocks.get(index)
        if block is None:
            self.blocks[index] = Block("unknown", stopped=True)
        elif block.stopped:
            frame.report("protocol_violation")
        else:
            self.stop(block, frame)

    def message_stop(self, payload: dict[str, Any], frame: Frame) -> None:
        if self.finished:
            frame.report("protocol_violation")
            return
        still = sorted(
            index
            for index, block in self.blocks.items()
            if not block.stopped and block.kind in ("tool", "server", "result")
        )
        if still:
            frame.report("protocol_violation")
            for index in still:
                self.stop(self.blocks[index], frame)
        reason = frame.typed(payload, "stopReason", str)
        if reason is None and "stopReason" not in payload:
            frame.wrong.append("stopReason")
        reason = reason or "end_turn"
        self.finished = True
        frame.out.append(
            finish(FINISH_REASONS.get(reason, reason), self.usage_record() if self.usage else None)
        )

    def metadata(self, payload: dict[str, Any], frame: Frame) -> None:
        usage = frame.typed(payload, "usage", dict)
        if usage is None:
            return
        for key in COUNTS:
            value = usage.get(key)
            if is_integer(value) and value >= 0:
                self.usage[key] = value
            elif value is not None:
                frame.wrong.append(key)
        if not any(key in self.usage for key in COUNTS if key != "totalTokens"):
            return
        total = self.usage.get("totalTokens")
        parts = sum(self.usage.get(key, 0) for key in COUNTS if key != "totalTokens")
        if total is not None and total != parts:
            frame.report("protocol_notice")
        frame.out.append(usage_update(self.usage_record()))

    def message_start(self, payload: dict[str, Any], frame: Frame) -> None:
        role = frame.typed(payload, "role", str)
        if self.started or (role is not None and role != "assistant"):
            frame.report("protocol_notice")
        self.started = True

    # -- one message --------------------------------------------------------------------------

    def read(self, message: Message) -> list[dict[str, Any]]:
        data = message.data
        if message.message_type in ("exception", "error"):
            self.provider_error = True
            return [error("provider_error", "", shortened(data))]
        out: list[dict[str, Any]] = []
        if message.message_type is None:
            if not self.untyped_noted:
                self.untyped_noted = True
                out.append(error("protocol_notice", "", shortened(data)))
        elif message.message_type != "event":
            return [error("protocol_notice", "", shortened(data))]
        return out + self.event(message.name, data)

    def event(self, name: str, data: str) -> list[dict[str, Any]]:
        if name == "error":  # "Writing a dialect": an error event
            self.provider_error = True
            return [error("provider_error", "", shortened(data) if data else None)]
        if is_keep_alive(data):
            return []
        if nested_deeper_than(data, MAX_JSON_DEPTH):
            return [error("json_too_deep", "", shortened(data))]
        try:
            payload, repairs = decode_json(data)
        except ValueError:
            return [error("sse_parse_error", "", shortened(data))]
        if not isinstance(payload, dict):
            return [error("invalid_chunk", "", shortened(data))]
        if name not in READ:
            self.unrecognised.append(data)
            return []
        self.recognised = True
        frame = Frame(data)
        frame.wrong.extend(repairs)
        {
            "messageStart": self.message_start,
            "contentBlockStart": self.block_start,
            "contentBlockDelta": self.block_delta,
            "contentBlockStop": self.block_stop,
            "messageStop": self.message_stop,
            "metadata": self.metadata,
        }[name](payload, frame)
        if frame.wrong:
            frame.out.append(error("invalid_chunk", "", shortened(data)))
        return frame.out

    def close(self, truncated: bool) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if self.unrecognised:
            first = shortened(self.unrecognised[0])
            if not self.recognised:
                return [error("unrecognised_format", "", first)]
            out.append(error("unrecognised_chunks", "", first))
        # "when it ended inside a message", or "without messageStop (and without an exception
        # or error message)".
        if truncated or not (self.finished or self.provider_error):
            out.append(error("stream_truncated", "", None))
        return out


def read_updates(status: int, reason: str, body: bytes) -> list[dict[str, Any]]:
    """The canonical updates of one recorded response: its status, reason phrase and body."""
    if not 200 <= status < 300:  # docs/conformance.md: one http_error, not a stream
        text = body.decode("utf-8", errors="replace")
        return [error("http_error", f"HTTP {status} {reason}", shortened(text))]
    messages, end = read_messages(body)
    reader = Reader()
    updates: list[dict[str, Any]] = []
    for message in messages:
        updates.extend(reader.read(message))
    if end == "corrupt":  # docs/eventstream.md: the stream ends there, nothing else is judged
        updates.append(error("stream_corrupt", "", None))
        return updates
    updates.extend(reader.close(end == "truncated"))
    return updates
