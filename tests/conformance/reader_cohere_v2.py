"""An independent reader of recorded ``cohere_v2`` responses (Cohere's v2 Chat streams).

``read_updates(status, reason, body)`` derives the canonical JSON of the
``AgentResponseUpdate`` values of one recorded HTTP response, as the goldens hold them
(``conformance/goldens/cohere_v2/<scenario>.json``, key ``updates``). It is written from the
documentation only:

- ``docs/dialects.md``, section ``cohere_v2``: the framing, the events table, the ``ERROR``
  end, finish reasons, usage, the end of the stream;
- ``docs/dialects.md``, "Chunks a dialect does not recognise" and "Writing a dialect" (what
  the shared base does: keep-alives, depth, decode repairs, ``event: error``, truncation,
  metadata, fields of a wrong type);
- ``docs/sse.md`` through ``tests.conformance.independent_reader.read_events``;
- ``docs/conformance.md``: a non-2xx status is one ``http_error`` update;
- ``docs/model.md`` and ``conformance/schema/update.schema.json``: canonical JSON;
- ``docs/limits.md``: ``max_json_depth`` (256) and ``max_raw_chars`` (4,096).

It imports nothing from raf: only the standard library and the shared helpers of
``tests.conformance.independent_reader``. Marks as in the other readers: ``OPEN:`` the
documents leave it open and no bundled cassette depends on it.
"""

from __future__ import annotations

from typing import Any

from tests.conformance.independent_reader import (
    MAX_JSON_DEPTH,
    Event,
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
    usage_record,
)

# The section's events table: every type with a row, and the one skipped on purpose.
READ = {
    "message-start",
    "content-start",
    "content-delta",
    "content-end",
    "tool-plan-delta",
    "tool-call-start",
    "tool-call-delta",
    "tool-call-end",
    "citation-start",
    "citation-end",
    "message-end",
}
SKIPPED = {"debug"}

# "Finish reasons": the table; ERROR is handled before it; other values are kept verbatim.
FINISH_REASONS = {
    "COMPLETE": "stop",
    "STOP_SEQUENCE": "stop",
    "MAX_TOKENS": "length",
    "TOOL_CALL": "tool_calls",
}


def tool_call_start(call_id: str, name: str) -> dict[str, Any]:
    """``ToolCallStart(id, name)``."""
    return {"type": "tool_call_start", "id": call_id, "name": name}


def tool_call_args(call_id: str, args_delta: str) -> dict[str, Any]:
    """``ToolCallArgs(id, args_delta)``."""
    return {"type": "tool_call_args", "id": call_id, "args_delta": args_delta}


def tool_call_end(call_id: str) -> dict[str, Any]:
    """``ToolCallEnd(id)``."""
    return {"type": "tool_call_end", "id": call_id}


def raw_item(item: Any) -> dict[str, Any]:
    """``RawItem(item)``."""
    return {"type": "raw_item", "item": item}


def count(usage: dict[str, Any], path: str) -> int | None:
    """A count at a dotted path: a non-negative integer, else absent."""
    value: Any = usage
    for key in path.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    # OPEN: the section does not say what a negative count is; it is read as absent, as the
    # usage tables of the other formats do.
    return value if is_integer(value) and value >= 0 else None


def usage_of(usage: dict[str, Any]) -> dict[str, Any] | None:
    """The section's usage table; ``None`` when the object has none of its counts."""
    prompt = count(usage, "tokens.input_tokens")
    if prompt is None:
        prompt = count(usage, "billed_units.input_tokens")
    completion = count(usage, "tokens.output_tokens")
    if completion is None:
        completion = count(usage, "billed_units.output_tokens")
    hit = count(usage, "cached_tokens")
    if prompt is None and completion is None and hit is None:
        return None
    prompt = prompt or 0
    completion = completion or 0
    return usage_record(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=prompt + completion,
        prompt_cache_hit_tokens=hit,
        prompt_cache_miss_tokens=None if hit is None else max(prompt - hit, 0),
        reasoning_tokens=None,
    )


class Frame:
    """One event's payload being read: its updates and the fields of a wrong type."""

    def __init__(self, data: str) -> None:
        self.data = data
        self.out: list[dict[str, Any]] = []
        self.wrong: list[str] = []

    def typed(self, obj: dict[str, Any] | None, key: str, kind: type) -> Any:
        """``obj[key]`` of ``kind``; ``null`` or absent is ``None``; another type is named."""
        if obj is None:
            return None
        value = obj.get(key)
        if value is None:
            return None
        if isinstance(value, kind) and not isinstance(value, bool):
            return value
        self.wrong.append(key)
        return None

    def message(self, payload: dict[str, Any]) -> dict[str, Any] | None:
        """``delta.message``: "Every event nests its data under ``delta.message``"."""
        message: dict[str, Any] | None = self.typed(
            self.typed(payload, "delta", dict), "message", dict
        )
        return message

    def violation(self) -> None:
        self.out.append(error("protocol_violation", "", shortened(self.data)))


class Reader:
    """The state of one stream."""

    def __init__(self) -> None:
        self.last_id: str | None = None
        self.blocks: dict[int, str] = {}  # content index -> "open" or "ended"
        self.calls: dict[int, str] = {}  # call index -> id
        self.ended: set[int] = set()
        self.finished = False  # message-end came
        self.provider_error = False
        self.stopped = False  # [DONE] came
        self.recognised = False
        self.unrecognised: list[str] = []

    def metadata(self, frame: Frame, payload: dict[str, Any]) -> None:
        response_id = frame.typed(payload, "id", str)
        if response_id and response_id != self.last_id:
            self.last_id = response_id
            frame.out.append(response_metadata(response_id, None))

    def content(self, frame: Frame, payload: dict[str, Any]) -> None:
        content = frame.typed(frame.message(payload), "content", dict)
        thinking = frame.typed(content, "thinking", str)
        if thinking:
            frame.out.append(reasoning_delta(thinking))
        text = frame.typed(content, "text", str)
        if text:
            frame.out.append(text_delta(text))

    def arguments(self, frame: Frame, payload: dict[str, Any]) -> str | None:
        call = frame.typed(frame.message(payload), "tool_calls", dict)
        function = frame.typed(call, "function", dict)
        return frame.typed(function, "arguments", str)  # type: ignore[no-any-return]

    def open_call(self, frame: Frame, index: int | None) -> str | None:
        if index is None or index not in self.calls or index in self.ended:
            frame.violation()
            return None
        return self.calls[index]

    def event(self, kind: str, payload: dict[str, Any], frame: Frame) -> None:
        # Only the content and tool-call rows read an `index` (message and citation events
        # do not: a citation's index is not read).
        uses_index = kind.startswith(("content-", "tool-call-"))
        index = frame.typed(payload, "index", int) if uses_index else None
        if kind == "message-start":
            self.metadata(frame, payload)
        elif kind == "content-start":
            if index is not None:
                if index in self.blocks:
                    frame.violation()
                else:
                    self.blocks[index] = "open"
            self.content(frame, payload)
        elif kind == "content-delta":
            if index is not None and self.blocks.get(index) == "ended":
                frame.violation()
            self.content(frame, payload)
        elif kind == "content-end":
            if index is not None:
                if self.blocks.get(index) != "open":
                    frame.violation()
                self.blocks[index] = "ended"
        elif kind == "tool-plan-delta":
            plan = frame.typed(frame.message(payload), "tool_plan", str)
            if plan:
                frame.out.append(reasoning_delta(plan))
        elif kind == "tool-call-start":
            if index is None:
                index = 0
                while index in self.calls:
                    index += 1
            if index in self.calls:
                frame.violation()
                return
            call = frame.typed(frame.message(payload), "tool_calls", dict)
            call_id = frame.typed(call, "id", str) or f"call_{index}"
            function = frame.typed(call, "function", dict)
            name = frame.typed(function, "name", str) or ""
            self.calls[index] = call_id
            frame.out.append(tool_call_start(call_id, name))
            arguments = frame.typed(function, "arguments", str)
            if arguments:
                frame.out.append(tool_call_args(call_id, arguments))
        elif kind == "tool-call-delta":
            call_id = self.open_call(frame, index)
            if call_id is not None:
                arguments = self.arguments(frame, payload)
                if arguments:
                    frame.out.append(tool_call_args(call_id, arguments))
        elif kind == "tool-call-end":
            call_id = self.open_call(frame, index)
            if call_id is not None and index is not None:
                self.ended.add(index)
                frame.out.append(tool_call_end(call_id))
        elif kind == "citation-start":
            citation = frame.typed(frame.message(payload), "citations", dict)
            if citation is not None:
                frame.out.append(raw_item(citation))
        elif kind == "message-end":
            self.metadata(frame, payload)
            delta = frame.typed(payload, "delta", dict) or {}
            reason = frame.typed(delta, "finish_reason", str) or "COMPLETE"
            self.finished = True
            if reason == "ERROR":
                # Also read for the invalid_chunk of a wrong type; the message is not compared.
                frame.typed(delta, "error", str)
                frame.typed(delta, "error_type", str)
                self.provider_error = True
                frame.out.append(error("provider_error", "", shortened(frame.data)))
                return
            usage = frame.typed(delta, "usage", dict)
            frame.out.append(
                finish(
                    FINISH_REASONS.get(reason, reason),
                    None if usage is None else usage_of(usage),
                )
            )
        # citation-end: nothing.

    def read(self, event: Event) -> list[dict[str, Any]]:
        data = event.data
        if event.type == "error":  # "Writing a dialect": an event: error frame
            self.provider_error = True
            return [error("provider_error", "", shortened(data) if data else None)]
        if is_done_marker(data):
            self.stopped = True
            return []
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
        kind = payload.get("type")
        if not isinstance(kind, str):
            kind = event.type
        if kind not in READ and kind not in SKIPPED:
            self.unrecognised.append(data)
            return []
        self.recognised = True
        frame = Frame(data)
        frame.wrong.extend(repairs)
        if kind in READ:
            self.event(kind, payload, frame)
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
        clean = self.stopped and (self.finished or self.provider_error)
        if clean:
            return out
        # "one cut inside a frame says so"; else "stream ended before message-end".
        if (truncated and not self.stopped) or (not self.finished and not self.provider_error):
            out.append(error("stream_truncated", "", None))
        return out


def read_updates(status: int, reason: str, body: bytes) -> list[dict[str, Any]]:
    """The canonical updates of one recorded response: its status, reason phrase and body."""
    if not 200 <= status < 300:  # docs/conformance.md: one http_error, not a stream
        text = body.decode("utf-8", errors="replace")
        return [error("http_error", f"HTTP {status} {reason}", shortened(text))]
    events, truncated = read_events(body)
    reader = Reader()
    updates: list[dict[str, Any]] = []
    for event in events:
        if reader.stopped:
            break  # "[DONE] ends the stream": nothing after it is read
        updates.extend(reader.read(event))
    updates.extend(reader.close(truncated))
    return updates
