"""An independent reader of recorded ``gemini_interactions`` responses (Google's Interactions
API streams, steps schema).

``read_updates(status, reason, body)`` derives the canonical JSON of the
``AgentResponseUpdate`` values of one recorded HTTP response, as the goldens hold them
(``conformance/goldens/gemini_interactions/<scenario>.json``, key ``updates``). It is written
from the documentation only:

- ``docs/dialects.md``, section ``gemini_interactions``: the framing, the events, steps and
  deltas tables, ``status: failed``, finish reasons, usage, the end of the stream;
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

import json
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

# The events table: every type with a row, and the ones skipped on purpose.
READ = {"interaction.created", "step.start", "step.delta", "step.stop", "interaction.completed"}
SKIPPED = {"interaction.status_update", "interaction.in_progress", "interaction.requires_action"}

# "Finish reasons": the table; failed is handled before it; other values are kept verbatim.
FINISH_REASONS = {"completed": "stop", "requires_action": "tool_calls", "incomplete": "length"}

# Deltas "not read", and those read whatever step they name.
NOT_READ_DELTAS = {"image", "audio", "video", "document"}


def tool_call_start(call_id: str, name: str) -> dict[str, Any]:
    return {"type": "tool_call_start", "id": call_id, "name": name}


def tool_call_args(call_id: str, args_delta: str) -> dict[str, Any]:
    return {"type": "tool_call_args", "id": call_id, "args_delta": args_delta}


def tool_call_end(call_id: str) -> dict[str, Any]:
    return {"type": "tool_call_end", "id": call_id}


def raw_item(item: Any) -> dict[str, Any]:
    return {"type": "raw_item", "item": item}


def reasoning_signature(signature: str) -> dict[str, Any]:
    return {"type": "reasoning_signature", "signature": signature}


def part_signature(signature: str, part: str) -> dict[str, Any]:
    return {"type": "part_signature", "signature": signature, "part": part}


def hosted_call(call_id: str, name: str, arguments: Any, item: Any) -> dict[str, Any]:
    return {
        "type": "hosted_tool_call",
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
        "item": item,
    }


def hosted_result(
    call_id: str, name: str, output: Any, failed: str | None, item: Any
) -> dict[str, Any]:
    return {
        "type": "hosted_tool_result",
        "call_id": call_id,
        "name": name,
        "output": output,
        "error": failed,
        "item": item,
    }


def count(usage: dict[str, Any], key: str) -> int | None:
    value = usage.get(key)
    return value if is_integer(value) and value >= 0 else None


def added(usage: dict[str, Any], *keys: str) -> int | None:
    """ "A count that is absent counts 0 in a sum; a sum with none present is absent"."""
    found = [c for key in keys if (c := count(usage, key)) is not None]
    return sum(found) if found else None


def usage_of(usage: dict[str, Any]) -> dict[str, Any] | None:
    prompt = added(usage, "total_input_tokens", "total_tool_use_tokens")
    completion = added(usage, "total_output_tokens", "total_thought_tokens")
    total = count(usage, "total_tokens")
    hit = count(usage, "total_cached_tokens")
    reasoning = count(usage, "total_thought_tokens")
    if prompt is None and completion is None and total is None and hit is None:
        return None
    prompt = prompt or 0
    completion = completion or 0
    return usage_record(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=total if total is not None else prompt + completion,
        prompt_cache_hit_tokens=hit,
        prompt_cache_miss_tokens=None if hit is None else max(prompt - hit, 0),
        reasoning_tokens=reasoning,
    )


def kind_of_step(step_type: str) -> str:
    """The row of the steps table."""
    if step_type in ("thought", "model_output", "function_call"):
        return step_type
    if step_type in ("function_result", "user_input"):
        return "other"
    if step_type.endswith("_call"):
        return "hosted_call"
    if step_type.endswith("_result"):
        return "hosted_result"
    return "other"


class Step:
    def __init__(self, kind: str, step_type: str, index: int) -> None:
        self.kind = kind
        self.type = step_type
        self.index = index
        self.call_id = ""
        self.arguments: Any = None
        self.fragment = False
        self.obj: dict[str, Any] = {}
        self.stopped = False


class Frame:
    """One event's payload being read: its updates and the fields of a wrong type."""

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

    def violation(self) -> None:
        self.out.append(error("protocol_violation", "", shortened(self.data)))


def texts(items: list[Any] | None) -> list[str]:
    out = []
    for item in items or []:
        if isinstance(item, dict) and item.get("type", "text") == "text":
            text = item.get("text")
            if isinstance(text, str) and text:
                out.append(text)
    return out


class Reader:
    def __init__(self) -> None:
        self.last_id: str | None = None
        self.last_model: str | None = None
        self.steps: dict[int, Step] = {}
        self.called = False
        self.finished = False
        self.provider_error = False
        self.stopped = False
        self.recognised = False
        self.unrecognised: list[str] = []

    def metadata(self, frame: Frame, interaction: dict[str, Any]) -> None:
        response_id = frame.typed(interaction, "id", str) or None
        model = frame.typed(interaction, "model", str) or None
        new_id = response_id is not None and response_id != self.last_id
        new_model = model is not None and model != self.last_model
        if new_id or new_model:
            if response_id is not None:
                self.last_id = response_id
            if model is not None:
                self.last_model = model
            frame.out.append(response_metadata(response_id, model))

    def stop(self, step: Step, out: list[dict[str, Any]]) -> None:
        if step.kind == "function_call":
            if not step.fragment and step.arguments is not None and step.arguments != {}:
                out.append(
                    tool_call_args(step.call_id, json.dumps(step.arguments, ensure_ascii=False))
                )
            out.append(tool_call_end(step.call_id))
        elif step.kind == "hosted_call":
            name = step.type[: -len("_call")]
            given = step.obj.get("id")
            call_id = given if isinstance(given, str) and given else f"{name}_{step.index}"
            out.append(hosted_call(call_id, name, step.obj.get("arguments"), step.obj))
        elif step.kind == "hosted_result":
            given = step.obj.get("call_id")
            call_id = given if isinstance(given, str) and given else f"{step.type}_{step.index}"
            failed = "the tool reported an error" if step.obj.get("is_error") is True else None
            out.append(hosted_result(call_id, step.type, step.obj.get("result"), failed, step.obj))

    def open_step(self, frame: Frame, payload: dict[str, Any]) -> Step | None:
        index = frame.typed(payload, "index", int)
        step = None if index is None else self.steps.get(index)
        if step is None or step.stopped:
            frame.violation()
            return None
        return step

    def step_start(self, frame: Frame, payload: dict[str, Any]) -> None:
        index = frame.typed(payload, "index", int)
        obj = frame.typed(payload, "step", dict)
        if index is None or obj is None:
            frame.violation()
            return
        if index in self.steps:
            frame.violation()
            return
        step_type = frame.typed(obj, "type", str) or ""
        step = Step(kind_of_step(step_type), step_type, index)
        self.steps[index] = step
        if step.kind == "thought":
            for text in texts(frame.typed(obj, "summary", list)):
                frame.out.append(reasoning_delta(text))
            signature = frame.typed(obj, "signature", str)
            if signature:
                frame.out.append(reasoning_signature(signature))
        elif step.kind == "model_output":
            for text in texts(frame.typed(obj, "content", list)):
                frame.out.append(text_delta(text))
        elif step.kind == "function_call":
            step.call_id = frame.typed(obj, "id", str) or f"call_{index}"
            step.arguments = obj.get("arguments")
            self.called = True
            name = frame.typed(obj, "name", str) or ""
            frame.out.append(tool_call_start(step.call_id, name))
            signature = frame.typed(obj, "signature", str)
            if signature:
                frame.out.append(part_signature(signature, "tool_call"))
        elif step.kind in ("hosted_call", "hosted_result"):
            step.obj = dict(obj)
        else:
            self.unrecognised.append(frame.data)

    def step_delta(self, frame: Frame, payload: dict[str, Any]) -> None:
        delta = frame.typed(payload, "delta", dict)
        if delta is None:
            return
        delta_type = frame.typed(delta, "type", str) or ""
        step = self.open_step(frame, payload)
        if delta_type == "text":
            text = frame.typed(delta, "text", str)
            if text:
                frame.out.append(text_delta(text))
        elif delta_type == "thought_summary":
            content = frame.typed(delta, "content", dict)
            text = frame.typed(content, "text", str)
            if text:
                frame.out.append(reasoning_delta(text))
        elif delta_type == "thought_signature":
            signature = frame.typed(delta, "signature", str)
            if signature:
                frame.out.append(reasoning_signature(signature))
        elif delta_type == "text_annotation_delta":
            for annotation in frame.typed(delta, "annotations", list) or []:
                frame.out.append(raw_item(annotation))
        elif delta_type == "arguments_delta":
            if step is None:
                return
            if step.kind != "function_call":
                frame.violation()
                return
            fragment = frame.typed(delta, "arguments", str)
            step.fragment = True
            if fragment:
                frame.out.append(tool_call_args(step.call_id, fragment))
        elif delta_type in NOT_READ_DELTAS:
            pass
        elif step is not None and step.kind in ("hosted_call", "hosted_result"):
            for key, value in delta.items():
                if key != "type":
                    step.obj[key] = value
        else:
            self.unrecognised.append(frame.data)

    def completed(self, frame: Frame, payload: dict[str, Any]) -> None:
        interaction = frame.typed(payload, "interaction", dict) or {}
        self.metadata(frame, interaction)
        for step in self.steps.values():
            if not step.stopped:
                step.stopped = True
                self.stop(step, frame.out)
        self.finished = True
        status = frame.typed(interaction, "status", str) or "completed"
        if status == "failed":
            self.provider_error = True
            frame.out.append(error("provider_error", "", shortened(frame.data)))
            return
        reason = FINISH_REASONS.get(status, status)
        if status == "completed" and self.called:
            reason = "tool_calls"
        usage = frame.typed(interaction, "usage", dict)
        frame.out.append(finish(reason, None if usage is None else usage_of(usage)))

    def event(self, kind: str, payload: dict[str, Any], frame: Frame) -> None:
        if kind == "interaction.created":
            interaction = frame.typed(payload, "interaction", dict)
            if interaction is not None:
                self.metadata(frame, interaction)
        elif kind == "step.start":
            self.step_start(frame, payload)
        elif kind == "step.delta":
            self.step_delta(frame, payload)
        elif kind == "step.stop":
            step = self.open_step(frame, payload)
            if step is not None:
                step.stopped = True
                self.stop(step, frame.out)
        elif kind == "interaction.completed":
            self.completed(frame, payload)
        elif kind == "error":
            self.provider_error = True
            frame.out.append(error("provider_error", "", shortened(frame.data)))

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
        kind = payload.get("event_type")
        if not isinstance(kind, str):
            kind = event.type
        if kind in SKIPPED:
            return []  # neither read nor unrecognised
        if kind not in READ and kind != "error":
            self.unrecognised.append(data)
            return []
        self.recognised = True
        frame = Frame(data)
        frame.wrong.extend(repairs)
        self.event(kind, payload, frame)
        if frame.wrong:
            frame.out.append(error("invalid_chunk", "", shortened(data)))
        return frame.out

    def close(self, truncated: bool) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        # "At the end, hosted steps still open are handed on".
        for step in self.steps.values():
            if not step.stopped and step.kind in ("hosted_call", "hosted_result"):
                step.stopped = True
                self.stop(step, out)
        if self.unrecognised:
            first = shortened(self.unrecognised[0])
            if not self.recognised:
                return [*out, error("unrecognised_format", "", first)]
            out.append(error("unrecognised_chunks", "", first))
        clean = self.stopped and (self.finished or self.provider_error)
        if clean:
            return out
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
