"""An independent reader of recorded ``openai_chat`` responses.

``read_updates(status, reason, body)`` derives the canonical JSON of the
``AgentResponseUpdate`` values of one recorded HTTP response, as the goldens hold them
(``conformance/goldens/openai_chat/<scenario>.json``, key ``updates``). It is written from the
documentation only, so that the updates level of the goldens is checked against something
other than the code that wrote it:

- ``docs/sse.md``: the event-stream rules (HTML Living Standard 9.2.6);
- ``docs/dialects.md``, section ``openai_chat``: what each event's data becomes, the chunk
  rules, the end of the stream, and the usage table;
- ``docs/conformance.md``: a non-2xx status is not read as a stream but gives one
  ``http_error`` update;
- ``docs/model.md`` and ``conformance/schema/update.schema.json``: the canonical JSON of an
  update (a ``"type"`` tag first, then every field in the order of the schema);
- ``docs/limits.md``: ``max_json_depth`` (256) and ``max_raw_chars`` (4,096).

It imports nothing from raf, only the standard library, and reads the whole body at once. It
is written to be checked line by line against those documents, not to be fast.

Three kinds of comment mark the places where the documents alone did not decide:

- ``OPEN:`` the documents leave the question open, and no bundled cassette depends on the
  answer; the comment says what was chosen and why.
- ``DOCS GAP:`` the documents leave the question open and the goldens depend on the answer,
  but a reading of the documents decides it; the comment gives that reading.
- ``SETTLED BY GOLDEN:`` a format question the documents leave open and a bundled cassette
  depends on; it was settled by looking at the named golden file, and the comment says why
  the documents did not settle it.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any, TypeGuard

# docs/limits.md: the defaults of the two limits the dialect applies to a payload.
MAX_JSON_DEPTH = 256
MAX_RAW_CHARS = 4096

# docs/dialects.md: "the whitespace JSON allows around a value (space, tab, CR, LF)".
JSON_WHITESPACE = " \t\r\n"


# =============================================================================================
# Canonical JSON of the updates (docs/model.md, conformance/schema/update.schema.json).
# The first key is "type"; then every field, in the order of the schema's "properties".
# =============================================================================================


def response_metadata(response_id: str | None, model: str | None) -> dict[str, Any]:
    """``ResponseMetadata(id, model)``."""
    return {"type": "response_metadata", "id": response_id, "model": model}


def text_delta(delta: str) -> dict[str, Any]:
    """``TextDelta(delta)``."""
    return {"type": "text_delta", "delta": delta}


def reasoning_delta(delta: str) -> dict[str, Any]:
    """``ReasoningDelta(delta)``."""
    return {"type": "reasoning_delta", "delta": delta}


def tool_call_delta(
    index: int | None, call_id: str | None, name: str | None, arguments_delta: str
) -> dict[str, Any]:
    """``ToolCallDelta(index, id, name, arguments_delta)``."""
    return {
        "type": "tool_call_delta",
        "index": index,
        "id": call_id,
        "name": name,
        "arguments_delta": arguments_delta,
    }


def finish(finish_reason: str, usage: dict[str, Any] | None) -> dict[str, Any]:
    """``Finish(finish_reason, usage)``."""
    return {"type": "finish", "finish_reason": finish_reason, "usage": usage}


def usage_update(usage: dict[str, Any]) -> dict[str, Any]:
    """``Usage(usage)``, the update (its ``usage`` is the record below)."""
    return {"type": "usage", "usage": usage}


def usage_record(
    *,
    prompt_tokens: int,
    completion_tokens: int,
    total_tokens: int,
    prompt_cache_hit_tokens: int | None,
    prompt_cache_miss_tokens: int | None,
    reasoning_tokens: int | None,
) -> dict[str, Any]:
    """The ``Usage`` record (schema ``usage.Usage``): a record, so it has no ``"type"``."""
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": total_tokens,
        "prompt_cache_hit_tokens": prompt_cache_hit_tokens,
        "prompt_cache_miss_tokens": prompt_cache_miss_tokens,
        "reasoning_tokens": reasoning_tokens,
    }


def error(error_code: str, message: str, raw: str | None) -> dict[str, Any]:
    """``Error(error_code, message, raw)``. ``message`` is for people and never compared."""
    return {"type": "error", "error_code": error_code, "message": message, "raw": raw}


def shortened(text: str) -> str:
    """``text`` as an error's ``raw`` keeps it (docs/dialects.md, docs/limits.md).

    Up to ``MAX_RAW_CHARS`` characters it is kept whole; a longer text is kept as its first
    and last 2,048 characters around the marker ``...[N characters omitted]...``.
    """
    if len(text) <= MAX_RAW_CHARS:
        return text
    half = MAX_RAW_CHARS // 2
    omitted = len(text) - 2 * half
    # OPEN: docs/limits.md gives the marker as `...[N characters omitted]...` without saying
    # how N is written; it is written here as plain digits. No bundled cassette has a raw
    # value this long, so the answer does not matter for the goldens.
    return text[:half] + f"...[{omitted} characters omitted]..." + text[-half:]


# =============================================================================================
# Part 1: bytes to events (docs/sse.md, "Rules").
# =============================================================================================


@dataclass(frozen=True)
class Event:
    """A dispatched event: its type (``"message"`` by default) and its data."""

    type: str
    data: str


def read_events(body: bytes) -> tuple[list[Event], bool]:
    """The events of a whole event stream, and whether it ended inside an unfinished event.

    The second value is the decoder's ``truncated`` of docs/sse.md.
    """
    # "The stream is UTF-8 as a whole ... invalid bytes become U+FFFD, one per maximal
    # subpart": Python's "replace" error handler replaces each maximal subpart of an
    # ill-formed sequence by one U+FFFD (b"\xe2\x82" -> one, b"\xc0\xaf" -> two). Decoding the
    # whole stream at once is the same as decoding each line: CR and LF are ASCII bytes, which
    # never belong to a multi-byte sequence.
    text = body.decode("utf-8", errors="replace")

    # "Exactly one leading byte-order mark is removed, at the start of the stream only."
    if text.startswith("\ufeff"):
        text = text[1:]

    # "A line ends at CRLF, LF or CR ... Nothing else ends a line." The alternation tries
    # CRLF first, so a CRLF is one line end and not two. The last piece is what follows the
    # last line end: "" when the stream ends with a line end, else an unfinished line.
    pieces = re.split(r"\r\n|\r|\n", text)
    complete_lines = pieces[:-1]
    unfinished_line = pieces[-1]

    events: list[Event] = []
    data_lines: list[str] = []  # the data buffer, one entry per `data` line
    event_type = ""  # the event type buffer
    block_has_fields = False  # a field line was seen since the last blank line

    for line in complete_lines:
        if line == "":
            # "A blank line ... dispatches an event, unless the data buffer is empty."
            # The buffer is empty exactly when the block had no `data` line: `data` appends
            # its value and a LF, so even `data:` with an empty value makes it non-empty.
            if data_lines:
                # Appending "value + LF" per line and then removing one trailing LF is the
                # same as joining the values with LF.
                events.append(Event(type=event_type or "message", data="\n".join(data_lines)))
            data_lines = []
            event_type = ""
            block_has_fields = False
            continue

        # "A line starting with `:` is a comment."
        if line.startswith(":"):
            continue

        # "Otherwise the line is `field:value`, with one optional space after the colon
        # removed; a line without a colon is a field with an empty value."
        if ":" in line:
            field, value = line.split(":", 1)
            if value.startswith(" "):
                value = value[1:]
        else:
            field, value = line, ""
        block_has_fields = True

        # "`data` appends the value and a LF to the data buffer; `event` sets the event
        # type." `id` and `retry` are decoded by the standard, but the openai_chat dialect
        # reads only an event's type and data, so they change no update here. "Other
        # fields, including differently-cased ones such as `Data`, are ignored."
        if field == "data":
            data_lines.append(value)
        elif field == "event":
            event_type = value

    # "At the end of the stream an unfinished line and an undispatched block are discarded
    # ... `truncated` is then True; it is False when the stream ended right after a complete
    # line with nothing pending (a final complete comment line is fine)."
    # OPEN: docs/sse.md does not say whether a block of only `event:`, `id:` or `retry:`
    # lines still waiting for its blank line is "pending". It is counted as pending here
    # (such a block is an undispatched block, and the docs say undispatched blocks are
    # discarded and flagged). Every bundled stream ends with a blank line, an empty body or
    # an unfinished `data` line, so the answer does not matter for the goldens.
    truncated = unfinished_line != "" or block_has_fields
    return events, truncated


# =============================================================================================
# Part 2: events to updates (docs/dialects.md, "`openai_chat`: Chat Completions streams").
# =============================================================================================


def is_done_marker(data: str) -> bool:
    """``[DONE]``, alone or surrounded by JSON whitespace (space, tab, CR, LF).

    Anything else around it (``[DONE]x``, ``"[DONE]"``, ``[DONE] [DONE]``) is not the marker.
    """
    return data.strip(JSON_WHITESPACE) == "[DONE]"


def is_keep_alive(data: str) -> bool:
    """Data that is empty or only whitespace."""
    # OPEN: "only whitespace" is read as JSON whitespace, the whitespace the `[DONE]` row of
    # the same table names. Every bundled keep-alive is a comment line or empty data, so
    # whether e.g. U+00A0 counts does not matter for the goldens.
    return data.strip(JSON_WHITESPACE) == ""


def nested_deeper_than(text: str, limit: int) -> bool:
    """Whether the JSON text nests arrays and objects deeper than ``limit``.

    docs/limits.md: a linear scan over the text that skips string contents, run only on a
    payload longer than ``2 * limit + 1`` characters (a shorter one cannot be deeper than the
    limit and still be JSON; if it is deep only because its brackets never close, it is not
    JSON and becomes ``sse_parse_error``).
    """
    if len(text) <= 2 * limit + 1:
        return False
    depth = 0
    in_string = False
    after_backslash = False
    for char in text:
        if in_string:
            if after_backslash:
                after_backslash = False
            elif char == "\\":
                after_backslash = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False


LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def without_lone_surrogates(value: Any) -> tuple[Any, bool]:
    """``value`` with every lone UTF-16 surrogate in its strings (keys too) read as U+FFFD.

    Returns the value and whether anything was replaced. Python's ``json`` combines a valid
    surrogate-pair escape into one character and keeps a lone one as a surrogate code point,
    and the text it reads came from a UTF-8 decode (which never yields surrogates), so every
    surrogate left in a decoded string came from a lone escape such as ``"\\ud83d"``.
    Recursion is bounded: the payload passed the depth check first.
    """
    if isinstance(value, str):
        repaired = LONE_SURROGATE.sub("\ufffd", value)
        return repaired, repaired != value
    if isinstance(value, list):
        items = []
        changed = False
        for item in value:
            new_item, item_changed = without_lone_surrogates(item)
            items.append(new_item)
            changed = changed or item_changed
        return items, changed
    if isinstance(value, dict):
        members = {}
        changed = False
        for key, item in value.items():
            new_key, key_changed = without_lone_surrogates(key)
            new_item, item_changed = without_lone_surrogates(item)
            members[new_key] = new_item
            changed = changed or key_changed or item_changed
        return members, changed
    return value, False


def decode_json(text: str) -> tuple[Any, list[str]]:
    """The JSON value of ``text`` and the repairs it needed (docs/dialects.md).

    "A number the JSON library cannot represent (``1e400``, an integer of 5,000 digits) is
    read as ``null``" and "a lone UTF-16 surrogate escape ... is read as U+FFFD"; each repair
    is named in the returned list.

    Raises:
        ValueError: ``text`` is not JSON (also for ``NaN`` and ``Infinity``, which Python's
            ``json`` would otherwise accept).
    """
    repairs: list[str] = []

    def read_float(literal: str) -> float | None:
        number = float(literal)
        if math.isinf(number):
            repairs.append(f"the number {literal[:40]} is out of range, read as null")
            return None
        return number

    def read_int(literal: str) -> int | None:
        try:
            return int(literal)
        except ValueError:  # more digits than Python converts (docs/limits.md: 4,300)
            repairs.append(f"an integer of {len(literal)} digits, read as null")
            return None

    def refuse_constant(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    value = json.loads(
        text, parse_float=read_float, parse_int=read_int, parse_constant=refuse_constant
    )
    value, replaced = without_lone_surrogates(value)
    if replaced:
        repairs.append("a lone surrogate escape, read as U+FFFD")
    return value, repairs


def compact_json(value: Any) -> str:
    """Compact JSON text of a value (no spaces; non-ASCII characters written as themselves,
    docs/model.md rule 5; object keys in their original order)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def is_integer(value: Any) -> TypeGuard[int]:
    """A JSON integer (Python's ``bool`` is an ``int`` subclass; JSON ``true`` is not)."""
    return isinstance(value, int) and not isinstance(value, bool)


# ---------------------------------------------------------------------------------------------
# Reading a field whose type is checked. JSON `null` is read as "not sent": the docs treat
# `"choices": null`, `"delta": null`, a `null` index and `usage: null` as absent, and the
# recordings send `null` for every unused field ("content": null, "tool_calls": null, ...).
# A value of the wrong type is dropped and its path added to `wrong`, which becomes the
# chunk's `Error(invalid_chunk)` (chunk rule 5: "the other fields of the chunk still count").
# ---------------------------------------------------------------------------------------------


def string_field(obj: dict[str, Any], key: str, path: str, wrong: list[str]) -> str | None:
    """``obj[key]`` when it is a string, else ``None`` (a wrong type is added to ``wrong``)."""
    value = obj.get(key)
    if value is None or isinstance(value, str):
        return value
    wrong.append(path)
    return None


def integer_field(obj: dict[str, Any], key: str, path: str, wrong: list[str]) -> int | None:
    """``obj[key]`` when it is an integer, else ``None`` (a wrong type is added to ``wrong``)."""
    value = obj.get(key)
    if value is None or is_integer(value):
        return value
    wrong.append(path)
    return None


def object_field(
    obj: dict[str, Any], key: str, path: str, wrong: list[str]
) -> dict[str, Any] | None:
    """``obj[key]`` when it is an object, else ``None`` (a wrong type is added to ``wrong``)."""
    value = obj.get(key)
    if value is None or isinstance(value, dict):
        return value
    wrong.append(path)
    return None


def list_field(obj: dict[str, Any], key: str, path: str, wrong: list[str]) -> list[Any] | None:
    """``obj[key]`` when it is an array, else ``None`` (a wrong type is added to ``wrong``)."""
    value = obj.get(key)
    if value is None or isinstance(value, list):
        return value
    wrong.append(path)
    return None


# ---------------------------------------------------------------------------------------------
# Usage (docs/dialects.md, "Usage").
# ---------------------------------------------------------------------------------------------


def token_count(container: dict[str, Any] | None, key: str) -> int | None:
    """The count ``container[key]``, or ``None`` when it is missing or malformed."""
    # OPEN: the usage table says "a missing or malformed count" without defining malformed.
    # Anything but a JSON integer is malformed here (a string "12", a float, a bool). Every
    # count in the bundled cassettes is a non-negative integer, so this does not matter for
    # the goldens. A malformed count is not also reported as invalid_chunk: the usage table
    # says what it becomes, and the docs name no error for it.
    if container is None:
        return None
    value = container.get(key)
    return value if is_integer(value) else None


def parse_usage(usage: dict[str, Any]) -> dict[str, Any]:
    """The usage record of a provider's usage object, by the table of docs/dialects.md.

    The schema's ``usage.Usage`` says: "The three totals default to 0; the optional counts
    are ``None`` when the provider did not report them (which is different from a reported
    0)". That, with the table, decides every null-vs-0 question.
    """
    # `prompt_tokens`, `completion_tokens`: "the same names; a missing or malformed count is 0".
    prompt = token_count(usage, "prompt_tokens")
    if prompt is None:
        prompt = 0
    completion = token_count(usage, "completion_tokens")
    if completion is None:
        completion = 0

    # `total_tokens`: "the same name, else prompt + completion".
    total = token_count(usage, "total_tokens")
    if total is None:
        total = prompt + completion

    # `prompt_cache_hit_tokens`: "DeepSeek's top-level field, else
    # `prompt_tokens_details.cached_tokens`".
    prompt_details = usage.get("prompt_tokens_details")
    if not isinstance(prompt_details, dict):
        prompt_details = None
    hit = token_count(usage, "prompt_cache_hit_tokens")
    if hit is None:
        hit = token_count(prompt_details, "cached_tokens")

    # `prompt_cache_miss_tokens`: "DeepSeek's top-level field, else prompt - hit (at least 0)
    # when the hit count is known".
    miss = token_count(usage, "prompt_cache_miss_tokens")
    if miss is None and hit is not None:
        miss = max(prompt - hit, 0)

    # `reasoning_tokens`: "`completion_tokens_details.reasoning_tokens`, else a top-level
    # `reasoning_tokens`" (missing_id.yaml has the top-level one).
    completion_details = usage.get("completion_tokens_details")
    if not isinstance(completion_details, dict):
        completion_details = None
    reasoning = token_count(completion_details, "reasoning_tokens")
    if reasoning is None:
        reasoning = token_count(usage, "reasoning_tokens")

    return usage_record(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=total,
        prompt_cache_hit_tokens=hit,
        prompt_cache_miss_tokens=miss,
        reasoning_tokens=reasoning,
    )


# ---------------------------------------------------------------------------------------------
# The dialect.
# ---------------------------------------------------------------------------------------------


class ChatStreamReader:
    """Reads the events of one Chat Completions stream, in order, into updates."""

    def __init__(self) -> None:
        # The id and model of the last ResponseMetadata emitted (chunk rule 1).
        self.last_id: str | None = None
        self.last_model: str | None = None
        # `[DONE]` was seen: "the stream is over and nothing after it is read".
        self.done = False
        # For the end-of-stream rules.
        self.finish_seen = False
        self.provider_error_seen = False
        # "Chunks a dialect does not recognise": how many, the first one's data, and whether
        # a chat completion chunk was read at all.
        self.unrecognised = 0
        self.unrecognised_raw: str | None = None
        self.chunk_read = False

    # -- one event -----------------------------------------------------------------------------

    def read_event(self, event: Event) -> list[dict[str, Any]]:
        """The updates of one event (the table of docs/dialects.md, then the chunk rules)."""
        data = event.data

        # "An SSE event of type `error` is `Error(provider_error)` with the provider's message."
        if event.type == "error":
            self.provider_error_seen = True
            # SETTLED BY GOLDEN: the `raw` of this error. The docs give its code and message
            # only; the schema's description of `raw` ("the offending input itself where
            # there is one") fits both the whole data and the error object inside it.
            # conformance/goldens/openai_chat/event_error_frame.json has the event's whole
            # data, shortened like every raw.
            return [error("provider_error", provider_message_of_data(data), shortened(data))]

        # `[DONE]`: no update; "the stream is over and nothing after it is read".
        if is_done_marker(data):
            self.done = True
            return []

        # "empty or only whitespace: none (a keep-alive)".
        if is_keep_alive(data):
            return []

        # "nested deeper than `max_json_depth` (256): `Error(json_too_deep)`, checked by a
        # linear scan before decoding; the event is skipped". Its raw is the payload, as the
        # paragraph under the table says of every error's raw.
        if nested_deeper_than(data, MAX_JSON_DEPTH):
            return [
                error(
                    "json_too_deep",
                    f"the payload nests deeper than {MAX_JSON_DEPTH} levels",
                    shortened(data),
                )
            ]

        # "not JSON: `Error(sse_parse_error)` with the data in `raw`".
        try:
            chunk, repairs = decode_json(data)
        except ValueError as exc:
            return [error("sse_parse_error", f"the data is not JSON ({exc})", shortened(data))]

        # "JSON that is not a chunk (an array, `"choices": "x"`): `Error(invalid_chunk)`
        # naming the path, data in `raw`."
        # OPEN: the docs give these two examples of "not a chunk" and, separately, say that
        # a field of the wrong type ("content": 5, "id": 123) is dropped while the rest of the
        # chunk counts. Only the two examples (a value that is not an object, a `choices`
        # that is not an array) reject the whole chunk here; every other wrong type is a
        # dropped field. No bundled cassette has either, so this does not matter for the
        # goldens.
        if not isinstance(chunk, dict):
            return [error("invalid_chunk", "$: the payload is not a JSON object", shortened(data))]
        choices = chunk.get("choices")
        if choices is not None and not isinstance(choices, list):
            return [error("invalid_chunk", "$.choices: not an array", shortened(data))]

        # "A chunk that is not recognised gives no update at all (no metadata either) and is
        # counted."
        if not is_chat_chunk(chunk):
            self.unrecognised += 1
            if self.unrecognised_raw is None:
                self.unrecognised_raw = shortened(data)
            return []
        self.chunk_read = True

        updates = self.read_chunk(chunk, data)

        # "Two kinds of damage are repaired ... and named in an `Error(invalid_chunk)` after
        # the chunk's updates."
        # OPEN: whether these repairs share one invalid_chunk with the wrong-type fields of
        # rule 5 is not said; here they are their own error, after rule 5's. Its raw is the
        # payload, as for every invalid_chunk. No bundled cassette needs a repair.
        if repairs:
            updates.append(
                error("invalid_chunk", "repaired: " + "; ".join(repairs), shortened(data))
            )
        return updates

    # -- one chunk -----------------------------------------------------------------------------

    def read_chunk(self, chunk: dict[str, Any], data: str) -> list[dict[str, Any]]:
        """The updates of a chunk, rules 1 to 5 of docs/dialects.md, in this order."""
        updates: list[dict[str, Any]] = []
        wrong: list[str] = []  # paths of the fields of a wrong type (rule 5)

        # 1. "`ResponseMetadata(id, model)` when the chunk's `id` or `model` differs from the
        # last ones emitted. Empty strings (Azure's filter chunks send `"id": ""`) count as
        # absent."
        response_id = string_field(chunk, "id", "id", wrong) or None
        model = string_field(chunk, "model", "model", wrong) or None
        # DOCS GAP: whether an absent id or model "differs" from the last one is not said. It
        # does not: otherwise every Azure filter chunk (`"id": ""`, `"model": ""`) in the
        # middle of a stream would emit metadata, and docs/cassettes.md says those chunks
        # "produce nothing" (azure_content_filter_chunks.yaml depends on this).
        id_changed = response_id is not None and response_id != self.last_id
        model_changed = model is not None and model != self.last_model
        if id_changed or model_changed:
            # OPEN: the docs do not say what a ResponseMetadata carries when the chunk sends
            # only one of the two (the chunk's own values, or the other one remembered). The
            # chunk's own values are emitted, and only the values sent are remembered. Every
            # bundled chunk that sends one of them sends both, so this does not matter for
            # the goldens.
            updates.append(response_metadata(response_id, model))
            if response_id is not None:
                self.last_id = response_id
            if model is not None:
                self.last_model = model

        # 2. "`Error(provider_error)` if the chunk has an `error` object (OpenRouter sends these
        # inside a 200 response); the rest of the chunk is still read."
        provider_error = object_field(chunk, "error", "error", wrong)
        if provider_error is not None:
            self.provider_error_seen = True
            # SETTLED BY GOLDEN: the `raw` of this error. The docs do not say whether it is
            # the `error` object or the whole payload; the schema's "the offending input
            # itself" fits both. conformance/goldens/openai_chat/in_band_error_chunk.json has
            # the chunk's whole data, shortened like every raw.
            updates.append(
                error("provider_error", provider_message_of_object(provider_error), shortened(data))
            )

        # The chunk's usage object, needed by rule 3 (a Finish carries it) and rule 4.
        usage = self.chunk_usage(chunk, wrong)

        # 3. The choice with `index` 0 (or without an index).
        choice = self.first_choice(chunk.get("choices") or [], wrong)
        finished = False
        if choice is not None:
            choice_updates, finished = self.read_choice(choice, usage, wrong)
            updates.extend(choice_updates)

        # 4. "`Usage(usage)` when the chunk has a usage object (or Groq's `x_groq.usage`) and
        # no finish reason. `usage: null` is ignored, so a later chunk cannot erase the usage."
        if usage is not None and not finished:
            updates.append(usage_update(usage))

        # 5. "`Error(invalid_chunk)` listing the fields of a wrong type that were skipped."
        if wrong:
            # OPEN: the raw of this error is not given; it is the payload, as for the other
            # invalid_chunk row of the table. No bundled cassette has a field of a wrong type.
            updates.append(
                error(
                    "invalid_chunk",
                    "fields of a wrong type, skipped: " + ", ".join(wrong),
                    shortened(data),
                )
            )
        return updates

    def chunk_usage(self, chunk: dict[str, Any], wrong: list[str]) -> dict[str, Any] | None:
        """The parsed usage of a chunk: its `usage` object, else Groq's `x_groq.usage`."""
        usage = object_field(chunk, "usage", "usage", wrong)
        if usage is None:
            x_groq = object_field(chunk, "x_groq", "x_groq", wrong)
            if x_groq is not None:
                usage = object_field(x_groq, "usage", "x_groq.usage", wrong)
        if usage is None:
            return None
        return parse_usage(usage)

    def first_choice(self, choices: list[Any], wrong: list[str]) -> dict[str, Any] | None:
        """The first choice whose `index` is 0 or absent; "other choices of an `n > 1`
        request are ignored, their deltas and finish reasons included" (so a chunk whose only
        finish reason is another choice's has "no finish reason" for rule 4)."""
        for position, choice in enumerate(choices):
            if not isinstance(choice, dict):
                wrong.append(f"choices[{position}]")
                continue
            # A wrong-typed index is a dropped field, so the choice is one "without an index".
            index = integer_field(choice, "index", f"choices[{position}].index", wrong)
            if index is None or index == 0:
                return choice
        return None

    def read_choice(
        self, choice: dict[str, Any], usage: dict[str, Any] | None, wrong: list[str]
    ) -> tuple[list[dict[str, Any]], bool]:
        """The updates of choice 0 (rule 3), and whether it had a finish reason."""
        updates: list[dict[str, Any]] = []
        path = "choices[0]"

        # "A choice without `delta` or with `"delta": null` ... fine."
        delta = object_field(choice, "delta", f"{path}.delta", wrong) or {}

        # "`ReasoningDelta` from `delta.reasoning_content`, or from `delta.reasoning` when the
        # first is absent or empty (servers that send both send the same text)".
        reasoning_content = string_field(
            delta, "reasoning_content", f"{path}.delta.reasoning_content", wrong
        )
        reasoning = string_field(delta, "reasoning", f"{path}.delta.reasoning", wrong)
        if reasoning_content:
            updates.append(reasoning_delta(reasoning_content))
        elif reasoning:
            updates.append(reasoning_delta(reasoning))

        # "then, for each object of OpenRouter's `delta.reasoning_details` array, in order ...:
        # a `reasoning.text` entry's non-empty string `signature` -> `ReasoningSignature`; a
        # `reasoning.encrypted` entry's non-empty string `data` -> `RedactedReasoning`".
        details = list_field(delta, "reasoning_details", f"{path}.delta.reasoning_details", wrong)
        for detail in details or []:
            if not isinstance(detail, dict):
                continue
            signature, data = detail.get("signature"), detail.get("data")
            if detail.get("type") == "reasoning.text" and isinstance(signature, str) and signature:
                updates.append({"type": "reasoning_signature", "signature": signature})
            elif detail.get("type") == "reasoning.encrypted" and isinstance(data, str) and data:
                updates.append({"type": "redacted_reasoning", "data": data})

        # "`TextDelta` from `delta.content`, or from the text parts of a content list
        # (`[{"type": "text", "text": ...}]`); Mistral's `thinking` parts become
        # `ReasoningDelta`".
        updates.extend(self.read_content(delta, f"{path}.delta.content", wrong))

        # "one `ToolCallDelta(index, id, name, arguments_delta)` per `delta.tool_calls` entry,
        # in order".
        tool_calls = list_field(delta, "tool_calls", f"{path}.delta.tool_calls", wrong) or []
        for position, entry in enumerate(tool_calls):
            entry_path = f"{path}.delta.tool_calls[{position}]"
            if not isinstance(entry, dict):
                wrong.append(entry_path)
                continue
            updates.append(self.read_tool_call(entry, entry_path, wrong))

        # "`Finish(finish_reason, usage)` when `finish_reason` is a non-empty string; the
        # usage of the same chunk rides on it."
        # DOCS GAP: whether "the usage of the same chunk" includes Groq's `x_groq.usage` is
        # not said. It does: rule 4 names both as the chunk's usage object, and rule 4 gives no
        # Usage update for a chunk with a finish reason, so otherwise Groq's usage, which
        # arrives beside the finish reason, would be lost (groq_usage_in_x_groq.yaml depends
        # on this).
        finish_reason = string_field(choice, "finish_reason", f"{path}.finish_reason", wrong)
        finished = bool(finish_reason)
        if finish_reason:
            updates.append(finish(finish_reason, usage))
            self.finish_seen = True
        return updates, finished

    def read_content(
        self, delta: dict[str, Any], path: str, wrong: list[str]
    ) -> list[dict[str, Any]]:
        """The updates of `delta.content`: a string, or a list of content parts."""
        content = delta.get("content")
        # DOCS GAP: the docs do not say whether `"content": ""` is a TextDelta of "" or
        # nothing. Nothing is emitted here, by analogy with `reasoning_content`, for which the
        # docs treat "absent or empty" alike, and because an empty fragment carries nothing.
        # Unlike the OPEN questions, the goldens depend on this one: most bundled streams
        # open with `"content": ""`. It was decided before comparing, and the goldens agree.
        if content is None:
            return []
        if isinstance(content, str):
            return [text_delta(content)] if content else []
        if not isinstance(content, list):
            wrong.append(path)
            return []
        updates: list[dict[str, Any]] = []
        for position, part in enumerate(content):
            part_path = f"{path}[{position}]"
            if not isinstance(part, dict):
                wrong.append(part_path)
                continue
            kind = part.get("type")
            if kind == "text":
                text = string_field(part, "text", f"{part_path}.text", wrong)
                if text:
                    updates.append(text_delta(text))
            elif kind == "thinking":
                updates.extend(self.read_thinking(part, part_path, wrong))
            # Any other part type is an unknown key: "every unknown key [is] fine".
        return updates

    def read_thinking(
        self, part: dict[str, Any], path: str, wrong: list[str]
    ) -> list[dict[str, Any]]:
        """Mistral's `{"type": "thinking", "thinking": [{"type": "text", "text": ...}]}`."""
        # DOCS GAP: the docs name Mistral's `thinking` parts without their inner shape. The
        # shape read is the one magistral sends on the wire (mistral_content_parts.yaml, read
        # from the recording, not the golden): a list of text parts. A plain string is read
        # too, as the only other plausible form.
        thinking = part.get("thinking")
        if thinking is None:
            return []
        if isinstance(thinking, str):
            return [reasoning_delta(thinking)] if thinking else []
        if not isinstance(thinking, list):
            wrong.append(f"{path}.thinking")
            return []
        updates: list[dict[str, Any]] = []
        for position, inner in enumerate(thinking):
            inner_path = f"{path}.thinking[{position}]"
            if not isinstance(inner, dict):
                wrong.append(inner_path)
                continue
            if inner.get("type") == "text":
                text = string_field(inner, "text", f"{inner_path}.text", wrong)
                if text:
                    updates.append(reasoning_delta(text))
        return updates

    def read_tool_call(self, entry: dict[str, Any], path: str, wrong: list[str]) -> dict[str, Any]:
        """One `delta.tool_calls` entry: "a missing or `null` index is `None`, an empty `id`
        or `name` is absent, missing arguments are `""`, and non-string arguments (an
        object) become their compact JSON text. The entry's `type` is not read (`"function"`,
        `null` or absent alike), and an id or name that an entry repeats is passed on as it
        came. Entries are not merged here"."""
        index = integer_field(entry, "index", f"{path}.index", wrong)
        call_id = string_field(entry, "id", f"{path}.id", wrong) or None
        function = object_field(entry, "function", f"{path}.function", wrong) or {}
        name = string_field(function, "name", f"{path}.function.name", wrong) or None
        arguments = function.get("arguments")
        if arguments is None:
            arguments_delta = ""
        elif isinstance(arguments, str):
            arguments_delta = arguments
        else:
            arguments_delta = compact_json(arguments)
        return tool_call_delta(index, call_id, name, arguments_delta)

    # -- the end of the stream -----------------------------------------------------------------

    def close(self, sse_truncated: bool) -> list[dict[str, Any]]:
        """The updates at the end of the stream (docs/dialects.md, "At the end of the stream").

        SETTLED BY GOLDEN: the `raw` of `stream_truncated` is null. The docs give no raw for
        it; the schema's "the offending input itself where there is one" suggests null
        (nothing offending arrived: what is missing is the rest), but the discarded
        unfinished event could also be read as that input.
        conformance/goldens/openai_chat/stream_cut_without_done_or_finish.json (a stream cut
        inside an unfinished event) and empty_200_body.json (an empty body) both have null.
        The same golden shows that a stream to which both forms apply gets one error, not
        two.
        """
        # "At `close`, before anything else is judged: when chunks were counted and none was
        # recognised: `Error(unrecognised_format)` and nothing else ..., also after `[DONE]`";
        # "when some were recognised too: one notice, `Error(unrecognised_chunks)` ...; then
        # the end is judged as usual". Both quote the first one's data (`raw`).
        notices: list[dict[str, Any]] = []
        if self.unrecognised:
            if not self.chunk_read:
                return [error("unrecognised_format", "another format", self.unrecognised_raw)]
            notices.append(error("unrecognised_chunks", "chunks skipped", self.unrecognised_raw))
        return notices + self.judge_end(sse_truncated)

    def judge_end(self, sse_truncated: bool) -> list[dict[str, Any]]:
        """The end of the stream proper (after the count of unrecognised chunks)."""
        # "after `[DONE]`: nothing".
        if self.done:
            return []
        # "when the SSE decoder discarded an unfinished event: `Error(stream_truncated)`,
        # even if a finish reason came earlier (the last event was lost)".
        if sse_truncated:
            return [error("stream_truncated", "the stream ended inside an unfinished event", None)]
        # "when neither `[DONE]` nor a finish reason came, and no provider error explained
        # why: `Error(stream_truncated)`".
        if not self.finish_seen and not self.provider_error_seen:
            return [
                error(
                    "stream_truncated", "the stream ended without [DONE] or a finish reason", None
                )
            ]
        return []


def is_chat_chunk(chunk: dict[str, Any]) -> bool:
    """Whether a JSON object is a chat completion chunk (docs/dialects.md, "Chunks a dialect
    does not recognise")."""
    # "a chunk whose `object` is a non-empty string is one when that string starts with
    # `chat.completion`".
    kind = chunk.get("object")
    if isinstance(kind, str) and kind:
        return kind.startswith("chat.completion")
    # "any other is one when its `choices` are `[]` or hold at least one choice that is not a
    # legacy Completions choice (one with `text` and no `delta`), or when it has a `usage`,
    # an `error` or an `x_groq` that is not `null`".
    choices = chunk.get("choices")
    if isinstance(choices, list) and (
        not choices
        or any(
            not isinstance(c, dict) or c.get("delta") is not None or c.get("text") is None
            for c in choices
        )
    ):
        return True
    # OPEN: "a chunk with a field of the wrong type counts as one"; a `choices` that is not
    # an array is rejected as a whole before (invalid_chunk), and the other fields of a wrong
    # type are read by the rules above as present. No bundled cassette has one.
    return any(chunk.get(key) is not None for key in ("usage", "error", "x_groq"))


def provider_message_of_object(provider_error: dict[str, Any]) -> str:
    """A person's message for a provider's error object (never compared)."""
    message = provider_error.get("message")
    if isinstance(message, str) and message:
        return f"provider error: {message}"
    return f"provider error: {shortened(compact_json(provider_error))}"


def provider_message_of_data(data: str) -> str:
    """A person's message for the data of an `event: error` frame (never compared)."""
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):
        return f"provider error: {shortened(data)}"
    if isinstance(value, dict) and isinstance(value.get("error"), dict):
        return provider_message_of_object(value["error"])
    if isinstance(value, dict):
        return provider_message_of_object(value)
    return f"provider error: {shortened(data)}"


# =============================================================================================
# The whole response.
# =============================================================================================


def read_updates(status: int, reason: str, body: bytes) -> list[dict[str, Any]]:
    """The canonical updates of one recorded response: its status, reason phrase and body."""
    # docs/conformance.md: "An interaction whose recorded status is not 2xx is not read as a
    # stream: the output is one `http_error` update (its message quotes the body)".
    if not 200 <= status < 300:
        text = body.decode("utf-8", errors="replace")
        # SETTLED BY GOLDEN: the `raw` of `http_error`. The docs say only that its message
        # quotes the body (docs/conformance.md, README) and that `max_raw_chars` applies to
        # it (docs/limits.md), which implies a raw but not what it holds.
        # conformance/goldens/openai_chat/http_429_json_error.json has the body decoded as
        # UTF-8, whole (it is short), so it is the body text, shortened like every raw.
        # OPEN: an empty error body gives raw "" here (no bundled cassette has one).
        return [error("http_error", f"HTTP {status} {reason}: {shortened(text)}", shortened(text))]

    events, sse_truncated = read_events(body)
    reader = ChatStreamReader()
    updates: list[dict[str, Any]] = []
    for event in events:
        if reader.done:  # "nothing after it is read"
            break
        updates.extend(reader.read_event(event))
    updates.extend(reader.close(sse_truncated))
    return updates
