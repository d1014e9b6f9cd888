"""An independent reader of recorded ``openai_completions`` responses (legacy Completions).

``read_updates(status, reason, body)`` derives the canonical JSON of the
``AgentResponseUpdate`` values of one recorded HTTP response, as the goldens hold them
(``conformance/goldens/openai_completions/<scenario>.json``, key ``updates``). It is written
from the documentation only, so that the updates level of the goldens is checked against
something other than the code that wrote it:

- ``docs/dialects.md``, section ``openai_completions`` (what a text completion chunk is, the
  steps of a chunk, what is not read, the end of the stream, finish reasons, usage), and the
  shared rules it points to in ``openai_chat``'s section and "Chunks a dialect does not
  recognise" (unrecognised chunks, ``unrecognised_format``);
- ``docs/sse.md``: the event-stream rules (``read_events`` of the ``openai_chat`` reader,
  reused here);
- ``docs/conformance.md``: a non-2xx status is one ``http_error`` update;
- ``docs/model.md`` and ``conformance/schema/update.schema.json``: canonical JSON;
- ``docs/limits.md``: ``max_json_depth`` (256) and ``max_raw_chars`` (4,096).

It imports nothing from raf: only the standard library and the shared helpers of
``tests.conformance.independent_reader`` (canonical JSON builders, the SSE event reader, the
depth scan, the JSON decoding with its two repairs, typed field reads, raw shortening). It
reads the whole body at once and is written to be checked line by line against those
documents, not to be fast.

The marks are those of the ``openai_chat`` reader: ``OPEN:`` (the documents leave it open,
no bundled cassette depends on it), ``DOCS GAP:`` (they leave it open, a golden depends on
it, a reading of the documents decides it), ``SETTLED BY GOLDEN:`` (decided by looking at the
named golden).
"""

from __future__ import annotations

from typing import Any

from tests.conformance.independent_reader import (
    MAX_JSON_DEPTH,
    Event,
    decode_json,
    error,
    finish,
    integer_field,
    is_done_marker,
    is_integer,
    is_keep_alive,
    list_field,
    nested_deeper_than,
    object_field,
    provider_message_of_data,
    read_events,
    response_metadata,
    shortened,
    string_field,
    text_delta,
    usage_record,
    usage_update,
)


def is_text_completion_chunk(chunk: dict[str, Any]) -> bool:
    """Whether a JSON object is a text completion chunk (docs/dialects.md, section
    ``openai_completions``)."""
    # "its `object` is a non-empty string: when that string starts with `text_completion`".
    kind = chunk.get("object")
    if isinstance(kind, str) and kind:
        return kind.startswith("text_completion")
    # "otherwise, when its `choices` is an array that is empty or holds at least one object
    # with a `text` member and no `delta` member, or when it has a `usage` or an `error` that
    # is not `null`".
    choices = chunk.get("choices")
    if isinstance(choices, list) and (
        not choices
        or any(isinstance(c, dict) and "text" in c and "delta" not in c for c in choices)
    ):
        return True
    return chunk.get("usage") is not None or chunk.get("error") is not None


def count(usage: dict[str, Any] | None, key: str) -> int | None:
    """A count of the usage table: a JSON integer (anything else is "missing or malformed")."""
    # OPEN: "malformed" is read as anything but a non-negative JSON integer, as the
    # openai_chat reader reads it. Every bundled count is a non-negative integer.
    if usage is None:
        return None
    value = usage.get(key)
    return value if is_integer(value) and value >= 0 else None


def parse_usage(usage: dict[str, Any]) -> dict[str, Any]:
    """The usage record by the table of the section ("Usage")."""
    # "`prompt_tokens`, `completion_tokens`: the same names; a missing or malformed count is 0".
    prompt = count(usage, "prompt_tokens") or 0
    completion = count(usage, "completion_tokens") or 0
    # "`total_tokens`: the same name, else prompt + completion".
    total = count(usage, "total_tokens")
    if total is None:
        total = prompt + completion
    # "`prompt_cache_hit_tokens`: `prompt_tokens_details.cached_tokens`".
    details = usage.get("prompt_tokens_details")
    hit = count(details if isinstance(details, dict) else None, "cached_tokens")
    # "`prompt_cache_miss_tokens`: prompt - hit (at least 0) when the hit count is known".
    miss = None if hit is None else max(prompt - hit, 0)
    # "`reasoning_tokens`: `completion_tokens_details.reasoning_tokens`".
    completion_details = usage.get("completion_tokens_details")
    reasoning = count(
        completion_details if isinstance(completion_details, dict) else None, "reasoning_tokens"
    )
    return usage_record(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=total,
        prompt_cache_hit_tokens=hit,
        prompt_cache_miss_tokens=miss,
        reasoning_tokens=reasoning,
    )


class CompletionsStreamReader:
    """Reads the events of one legacy Completions stream, in order, into updates."""

    def __init__(self) -> None:
        self.last_id: str | None = None
        self.last_model: str | None = None
        self.done = False  # `[DONE]` came: "nothing after it is read"
        self.finish_seen = False
        self.provider_error_seen = False
        self.unrecognised = 0
        self.unrecognised_raw: str | None = None
        self.chunk_read = False

    def read_event(self, event: Event) -> list[dict[str, Any]]:
        """The updates of one event: the shared handling "as in `openai_chat`", then a chunk."""
        data = event.data
        # "an SSE event named `error` is `Error(provider_error)`".
        if event.type == "error":
            self.provider_error_seen = True
            # SETTLED BY GOLDEN (of openai_chat, whose handling this is): the raw is the
            # event's whole data (conformance/goldens/openai_chat/event_error_frame.json).
            return [error("provider_error", provider_message_of_data(data), shortened(data))]
        # "`[DONE]` (with the whitespace JSON allows around it) ends the stream".
        if is_done_marker(data):
            self.done = True
            return []
        # "empty data or JSON whitespace only is a keep-alive".
        if is_keep_alive(data):
            return []
        # "data nested deeper than `max_json_depth` (256) is `Error(json_too_deep)`".
        if nested_deeper_than(data, MAX_JSON_DEPTH):
            return [error("json_too_deep", "too deep", shortened(data))]
        # "data that is not JSON is `Error(sse_parse_error)`".
        try:
            chunk, repairs = decode_json(data)
        except ValueError as exc:
            return [error("sse_parse_error", f"not JSON ({exc})", shortened(data))]
        # "JSON that is not an object is `Error(invalid_chunk)`".
        if not isinstance(chunk, dict):
            return [error("invalid_chunk", "not an object", shortened(data))]
        # "Any other object gives no update at all and is counted as unrecognised".
        if not is_text_completion_chunk(chunk):
            self.unrecognised += 1
            if self.unrecognised_raw is None:
                self.unrecognised_raw = shortened(data)
            return []
        self.chunk_read = True
        updates, wrong = self.read_chunk(chunk, data)
        # Step 5 and the repairs: "named in an `Error(invalid_chunk)`".
        # OPEN: whether the repairs and the wrong-typed fields share one error is not said of
        # this format; they are one here (both are "fields ... read as absent" or repaired in
        # the same chunk). No bundled cassette has either.
        problems = wrong + repairs
        if problems:
            updates.append(error("invalid_chunk", "; ".join(problems), shortened(data)))
        return updates

    def read_chunk(
        self, chunk: dict[str, Any], data: str
    ) -> tuple[list[dict[str, Any]], list[str]]:
        """Steps 1 to 4 of a chunk; the paths of the fields of a wrong type (step 5)."""
        updates: list[dict[str, Any]] = []
        wrong: list[str] = []

        # 1. "`ResponseMetadata(id, model)` when the chunk's `id` or `model` differs from the
        # last ones emitted (empty strings count as absent; an absent value is not a change)."
        response_id = string_field(chunk, "id", "id", wrong) or None
        model = string_field(chunk, "model", "model", wrong) or None
        if (response_id is not None and response_id != self.last_id) or (
            model is not None and model != self.last_model
        ):
            # OPEN: a chunk that sends only one of the two carries its own values (as the
            # openai_chat reader reads it). Every bundled chunk sends both or neither.
            updates.append(response_metadata(response_id, model))
            if response_id is not None:
                self.last_id = response_id
            if model is not None:
                self.last_model = model

        # 2. "`Error(provider_error)` when the chunk has an `error` that is not `null` ... The
        # rest of the chunk is still read."
        if chunk.get("error") is not None:
            self.provider_error_seen = True
            # DOCS GAP: the raw is not given; it is the chunk's whole data, as for the
            # in-band error chunk of openai_chat (whose golden has the whole data).
            updates.append(error("provider_error", "in-band error", shortened(data)))

        usage_object = object_field(chunk, "usage", "usage", wrong)
        usage = None if usage_object is None else parse_usage(usage_object)

        # 3. "Each element of `choices`, in order".
        finished = False
        for position, choice in enumerate(list_field(chunk, "choices", "choices", wrong) or []):
            path = f"choices[{position}]"
            if not isinstance(choice, dict):
                wrong.append(path)  # "an element that is not an object is skipped"
                continue
            # "an element whose `index` is an integer other than 0 is skipped and not
            # checked"; an index of a wrong type is named and read as choice 0.
            if is_integer(choice.get("index")) and choice["index"] != 0:
                continue
            integer_field(choice, "index", f"{path}.index", wrong)
            # "`TextDelta(text)` when `text` is a non-empty string".
            text = string_field(choice, "text", f"{path}.text", wrong)
            if text:
                updates.append(text_delta(text))
            # "`Finish(finish_reason, usage)` when `finish_reason` is a non-empty string ...
            # with the usage of the same chunk (`null` when it has none)". The finish-reason
            # table maps every value to itself.
            reason = string_field(choice, "finish_reason", f"{path}.finish_reason", wrong)
            if reason:
                updates.append(finish(reason, usage))
                finished = True
                self.finish_seen = True

        # 4. "`Usage(usage)` when the chunk has a `usage` object and step 3 emitted no
        # `Finish`."
        if usage is not None and not finished:
            updates.append(usage_update(usage))
        return updates, wrong

    def close(self, sse_truncated: bool) -> list[dict[str, Any]]:
        """The end of the stream ("At the end of the stream", and the unrecognised chunks)."""
        # "when chunks were counted and none was recognised: `Error(unrecognised_format)`
        # and nothing else ..., also after `[DONE]`"; "when some were recognised too: one
        # notice, `Error(unrecognised_chunks)`; then the end is judged as usual".
        out: list[dict[str, Any]] = []
        if self.unrecognised:
            if not self.chunk_read:
                return [error("unrecognised_format", "another format", self.unrecognised_raw)]
            out.append(error("unrecognised_chunks", "skipped", self.unrecognised_raw))
        # "after `[DONE]`: nothing".
        if self.done:
            return out
        # "when the SSE decoder discarded an unfinished event: `Error(stream_truncated)`, even
        # if a finish reason came earlier".
        # SETTLED BY GOLDEN (of openai_chat): its raw is null, and a stream to which both
        # forms apply gets one error (openai_chat/stream_cut_without_done_or_finish.json).
        if sse_truncated:
            return [*out, error("stream_truncated", "cut inside an event", None)]
        # "when neither `[DONE]` nor a finish reason came, and no provider error explained
        # why: `Error(stream_truncated)`".
        if not self.finish_seen and not self.provider_error_seen:
            return [*out, error("stream_truncated", "no [DONE], no finish reason", None)]
        return out


def read_updates(status: int, reason: str, body: bytes) -> list[dict[str, Any]]:
    """The canonical updates of one recorded response: its status, reason phrase and body."""
    # docs/conformance.md: a status that is not 2xx is one `http_error` update; its raw is
    # the body text, shortened (settled by openai_chat/http_429_json_error.json).
    if not 200 <= status < 300:
        text = body.decode("utf-8", errors="replace")
        return [error("http_error", f"HTTP {status} {reason}", shortened(text))]
    events, sse_truncated = read_events(body)
    reader = CompletionsStreamReader()
    updates: list[dict[str, Any]] = []
    for event in events:
        if reader.done:
            break
        updates.extend(reader.read_event(event))
    updates.extend(reader.close(sse_truncated))
    return updates
