"""An independent reader of recorded ``ollama_chat`` responses (Ollama's ``/api/chat``).

``read_updates(status, reason, body)`` derives the canonical JSON of the
``AgentResponseUpdate`` values of one recorded HTTP response, as the goldens hold them
(``conformance/goldens/ollama_chat/<scenario>.json``, key ``updates``). It is written from the
documentation only:

- ``docs/dialects.md``, section ``ollama_chat``: the framing, a line, the steps of a
  ``ChatResponse``, finish reasons, usage, the end of the stream;
- ``docs/dialects.md``, "Chunks a dialect does not recognise" and "Writing a dialect" (what
  the shared base does: keep-alives, depth, decode repairs, truncation, metadata);
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
    JSON_WHITESPACE,
    MAX_JSON_DEPTH,
    compact_json,
    decode_json,
    error,
    finish,
    is_integer,
    nested_deeper_than,
    reasoning_delta,
    response_metadata,
    shortened,
    text_delta,
    tool_call_delta,
    usage_record,
)


def read_lines(body: bytes) -> tuple[list[str], bool]:
    """The lines of a JSON-lines body, and whether an unfinished last line was discarded:
    "a line ending at LF (a CR before it is dropped), blank lines skipped; an unfinished last
    line is discarded and the stream is truncated"."""
    text = body.decode("utf-8", errors="replace")
    # OPEN: one leading BOM is skipped, as the JSON framings of the other formats do; no
    # bundled body has one.
    text = text.removeprefix("\ufeff")
    pieces = text.split("\n")
    lines = []
    for piece in pieces[:-1]:
        line = piece.removesuffix("\r")
        if line.strip(JSON_WHITESPACE):
            lines.append(line)
    return lines, pieces[-1].strip(JSON_WHITESPACE) != ""


def usage_of(line: dict[str, Any]) -> dict[str, Any] | None:
    """The usage table: prompt = ``prompt_eval_count`` (0 when absent), completion =
    ``eval_count``, total their sum; ``None`` without either count."""
    prompt = line.get("prompt_eval_count")
    completion = line.get("eval_count")
    # OPEN: a count is read when it is a non-negative integer (the shared usage rule of the
    # other formats); a negative count counts as absent.
    prompt = prompt if is_integer(prompt) and prompt >= 0 else None
    completion = completion if is_integer(completion) and completion >= 0 else None
    if prompt is None and completion is None:
        return None
    return usage_record(
        prompt_tokens=prompt or 0,
        completion_tokens=completion or 0,
        total_tokens=(prompt or 0) + (completion or 0),
        prompt_cache_hit_tokens=None,
        prompt_cache_miss_tokens=None,
        reasoning_tokens=None,
    )


class Reader:
    """The state of one stream: calls numbered so far, the last model, the end."""

    def __init__(self) -> None:
        self.calls = 0
        self.model: str | None = None
        self.done = False
        self.provider_error = False
        self.recognised = False
        self.unrecognised: list[str] = []

    def line(self, data: str) -> list[dict[str, Any]]:
        if nested_deeper_than(data, MAX_JSON_DEPTH):
            return [error("json_too_deep", "", shortened(data))]
        try:
            obj, repairs = decode_json(data)
        except ValueError:
            return [error("sse_parse_error", "", shortened(data))]
        if not isinstance(obj, dict):
            return [error("invalid_chunk", "", shortened(data))]
        if not ("message" in obj or "error" in obj or ("done" in obj and "response" not in obj)):
            self.unrecognised.append(data)
            return []
        self.recognised = True
        out: list[dict[str, Any]] = []
        wrong: list[str] = list(repairs)

        def typed(container: dict[str, Any], key: str, kind: type, path: str) -> Any:
            value = container.get(key)
            if value is None:
                return None
            if isinstance(value, kind) and not isinstance(value, bool):
                return value
            wrong.append(path + key)
            return None

        model = typed(obj, "model", str, "")
        if model and model != self.model:  # step 1: an empty model counts as absent
            self.model = model
            out.append(response_metadata(None, model))
        if obj.get("error") is not None:  # step 2
            self.provider_error = True
            out.append(error("provider_error", "", shortened(data)))
        message = typed(obj, "message", dict, "")
        if message is not None:  # step 3
            thinking = typed(message, "thinking", str, "message.")
            if thinking:
                out.append(reasoning_delta(thinking))
            content = typed(message, "content", str, "message.")
            if content:
                out.append(text_delta(content))
            for n, entry in enumerate(typed(message, "tool_calls", list, "message.") or []):
                where = f"message.tool_calls[{n}]."
                if not isinstance(entry, dict):
                    wrong.append(where)
                    continue
                function = typed(entry, "function", dict, where) or {}
                call_id = typed(entry, "id", str, where) or None
                name = typed(function, "name", str, where + "function.") or None
                arguments = function.get("arguments")
                if arguments is None:
                    text = ""
                elif isinstance(arguments, str):
                    text = arguments
                else:
                    text = compact_json(arguments)
                out.append(tool_call_delta(self.calls, call_id, name, text))
                self.calls += 1
        done = obj.get("done")
        if done is not None and not isinstance(done, bool):
            wrong.append("done")
        elif done is True:  # step 4
            reason = typed(obj, "done_reason", str, "") or "stop"
            if reason == "stop" and self.calls:
                reason = "tool_calls"
            self.done = True
            out.append(finish(reason, usage_of(obj)))
        if wrong:  # step 5
            out.append(error("invalid_chunk", "", shortened(data)))
        return out

    def close(self, truncated: bool) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if self.unrecognised:
            first = shortened(self.unrecognised[0])
            if not self.recognised:
                return [error("unrecognised_format", "", first)]
            out.append(error("unrecognised_chunks", "", first))
        # "when the framing discarded an unfinished last line, even after a done: true line;
        # else ... when no done: true line and no error arrived".
        if truncated or (not self.done and not self.provider_error):
            out.append(error("stream_truncated", "", None))
        return out


def read_updates(status: int, reason: str, body: bytes) -> list[dict[str, Any]]:
    """The canonical updates of one recorded response: its status, reason phrase and body."""
    if not 200 <= status < 300:  # docs/conformance.md: one http_error, not a stream
        text = body.decode("utf-8", errors="replace")
        return [error("http_error", f"HTTP {status} {reason}", shortened(text))]
    lines, truncated = read_lines(body)
    reader = Reader()
    updates: list[dict[str, Any]] = []
    for line in lines:
        updates.extend(reader.line(line))
    updates.extend(reader.close(truncated))
    return updates
