"""An independent reader of recorded ``openai_responses`` (Responses API) streams.

``read_updates(status, reason, body)`` derives the canonical JSON of the
``AgentResponseUpdate`` values of one recorded HTTP response, as the goldens hold them
(``conformance/goldens/openai_responses/<scenario>.json``, key ``updates``). It is written from
the documentation only, so that the updates level of those goldens is checked against
something other than the code that wrote them:

- ``docs/dialects.md (section ``openai_responses``)`` (the spec of the dialect, "the spec" below):
  framing, state, routing, the table of events, the separator rule, ``sequence_number``, the
  items table, usage, finish reasons and the end of the stream;
- ``docs/dialects.md``, "Writing a dialect": what the shared base does (end markers,
  keep-alives, the depth limit, decoding and its repairs, ``event: error``, metadata only on a
  change, ``stream_truncated`` at close);
- ``docs/sse.md`` (event-stream rules), ``docs/conformance.md`` (a non-2xx status is one
  ``http_error`` update), ``docs/model.md`` and ``conformance/schema/update.schema.json``
  (canonical JSON), ``docs/limits.md`` (``max_json_depth`` 256, ``max_raw_chars`` 4,096).

``aggregate(body)`` is a second, deliberately simple reading of a real recorded stream (the
shared corpus): the text, reasoning, client calls, finish reason and usage triple a client
should end up with, without any of the error handling.

It imports nothing from raf: only the standard library and the shared helpers of the
``openai_chat`` independent reader (canonical JSON builders, the SSE event reader, the depth
scan, JSON decoding with its repairs, raw shortening), which are themselves written from the
docs. It reads the whole body at once and is written to be checked line by line against the
spec, not to be fast.

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
from collections.abc import Callable
from dataclasses import dataclass
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
    usage_record,
    usage_update,
)

# =============================================================================================
# Canonical JSON of the update types the openai_chat reader has no builder for
# (conformance/schema/update.schema.json: "type" first, then the properties in order).
# =============================================================================================


def tool_call_start(call_id: str, name: str) -> dict[str, Any]:
    """``ToolCallStart(id, name)``."""
    return {"type": "tool_call_start", "id": call_id, "name": name}


def tool_call_item(call_id: str, item_id: str) -> dict[str, Any]:
    """``ToolCallItem(call_id, item_id)``."""
    return {"type": "tool_call_item", "call_id": call_id, "item_id": item_id}


def reasoning_item(
    item_id: str | None, item: dict[str, Any], summary: list[str] | None, wrong: list[str]
) -> list[dict[str, Any]]:
    """``ReasoningItem(item_id, encrypted_content, summary)`` of a reasoning item, at added
    (``summary`` None: not read) or at done (the ``text`` of each summary object), when it has
    an id, encrypted content or a summary text; else nothing."""
    encrypted = get_str(item, "encrypted_content", "item.encrypted_content", wrong) or None
    if summary is not None:
        parts = item.get("summary")
        if isinstance(parts, list):
            summary.extend(
                p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)
            )
    if item_id is None and encrypted is None and not summary:
        return []
    return [
        {
            "type": "reasoning_item",
            "item_id": item_id,
            "encrypted_content": encrypted,
            "summary": summary or [],
        }
    ]


def tool_call_args(call_id: str, args_delta: str) -> dict[str, Any]:
    """``ToolCallArgs(id, args_delta)``."""
    return {"type": "tool_call_args", "id": call_id, "args_delta": args_delta}


def tool_call_end(call_id: str) -> dict[str, Any]:
    """``ToolCallEnd(id)``."""
    return {"type": "tool_call_end", "id": call_id}


def tool_approval_request(
    call_id: str, name: str, arguments: Any, description: str
) -> dict[str, Any]:
    """``ToolApprovalRequest(call_id, name, arguments, description)``."""
    return {
        "type": "tool_approval_request",
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
        "description": description,
    }


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
    call_id: str, name: str, output: Any, error: str | None, item: Any
) -> dict[str, Any]:
    """``HostedToolResult(call_id, name, output, error, item)``."""
    return {
        "type": "hosted_tool_result",
        "call_id": call_id,
        "name": name,
        "output": output,
        "error": error,
        "item": item,
    }


def violation(message: str, raw: str | None) -> dict[str, Any]:
    """``Error(protocol_violation)``."""
    return error("protocol_violation", message, raw)


def notice(message: str, raw: str | None) -> dict[str, Any]:
    """``Error(protocol_notice)``."""
    return error("protocol_notice", message, raw)


# =============================================================================================
# Field reading: a field of the expected type, `null` read as absent, a value of another type
# dropped and its path added to `wrong` (docs/dialects.md, "Writing a dialect": "a field of
# another type reads as `None` and is named in one `invalid_chunk` error, while the rest of
# the frame still counts").
# =============================================================================================


def get_str(obj: dict[str, Any] | None, key: str, path: str, wrong: list[str]) -> str | None:
    if obj is None:
        return None
    value = obj.get(key)
    if value is None or isinstance(value, str):
        return value
    wrong.append(path)
    return None


def get_int(obj: dict[str, Any] | None, key: str, path: str, wrong: list[str]) -> int | None:
    if obj is None:
        return None
    value = obj.get(key)
    if value is None or is_integer(value):
        return value
    wrong.append(path)
    return None


def get_dict(
    obj: dict[str, Any] | None, key: str, path: str, wrong: list[str]
) -> dict[str, Any] | None:
    if obj is None:
        return None
    value = obj.get(key)
    if value is None or isinstance(value, dict):
        return value
    wrong.append(path)
    return None


# =============================================================================================
# Usage (the spec, "Usage").
# =============================================================================================


def count(container: Any, key: str) -> int | None:
    """A token count, or ``None`` when missing or not an integer."""
    # OPEN: the table does not say what a count of a wrong type is; it is read as missing,
    # as the openai_chat reader does. Every count in the bundled cassettes is an integer.
    if not isinstance(container, dict):
        return None
    value = container.get(key)
    return value if is_integer(value) else None


def first_count(*candidates: int | None) -> int | None:
    for candidate in candidates:
        if candidate is not None:
            return candidate
    return None


def parse_usage(usage: Any) -> dict[str, Any] | None:
    """The usage record of a Response's ``usage`` object, or ``None`` for no usage.

    "`usage: null`, a missing usage, or a usage object holding none of the counts below is no
    usage."
    """
    if not isinstance(usage, dict):
        return None
    input_tokens = count(usage, "input_tokens")
    prompt_tokens = count(usage, "prompt_tokens")
    output_tokens = count(usage, "output_tokens")
    completion_tokens = count(usage, "completion_tokens")
    total_tokens = count(usage, "total_tokens")
    hit = first_count(
        count(usage.get("input_tokens_details"), "cached_tokens"),
        count(usage.get("prompt_tokens_details"), "cached_tokens"),
    )
    # "`output_tokens_details.reasoning_tokens`, else
    # `completion_tokens_details.reasoning_tokens`, else a top-level `reasoning_tokens`".
    reasoning = first_count(
        count(usage.get("output_tokens_details"), "reasoning_tokens"),
        count(usage.get("completion_tokens_details"), "reasoning_tokens"),
        count(usage, "reasoning_tokens"),
    )
    # OPEN: "none of the counts below" is read as none of the wire fields the table reads.
    if all(
        value is None
        for value in (
            input_tokens,
            prompt_tokens,
            output_tokens,
            completion_tokens,
            total_tokens,
            hit,
            reasoning,
        )
    ):
        return None
    # "`input_tokens` (cached tokens included), else `prompt_tokens`"; a missing count is 0
    # (the schema: "The three totals default to 0").
    prompt = first_count(input_tokens, prompt_tokens) or 0
    completion = first_count(output_tokens, completion_tokens) or 0
    total = total_tokens if total_tokens is not None else prompt + completion
    miss = None if hit is None else max(prompt - hit, 0)
    return usage_record(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=total,
        prompt_cache_hit_tokens=hit,
        prompt_cache_miss_tokens=miss,
        reasoning_tokens=reasoning,
    )


# =============================================================================================
# Finish reasons (the spec, "Finish reasons").
# =============================================================================================

INCOMPLETE_REASONS = {"max_output_tokens": "length", "content_filter": "content_filter"}


def incomplete_finish_reason(reason: str | None) -> str:
    """`response.incomplete`: the reason through the table; "without a reason: `incomplete`"."""
    if not reason:
        # OPEN: an empty string is read as "without a reason". No cassette sends one.
        return "incomplete"
    return INCOMPLETE_REASONS.get(reason, reason)


# =============================================================================================
# Items (the spec, "Items").
# =============================================================================================

# The client calls other than function_call / custom_tool_call: the name reported, and the
# field of the done item whose compact JSON is the arguments.
FIXED_CALLS = {
    "tool_search_call": ("tool_search", "arguments"),
    "computer_call": ("computer", "action"),
    "local_shell_call": ("local_shell", "action"),
    "shell_call": ("shell", "action"),
    "apply_patch_call": ("apply_patch", "operation"),
}


def is_client_call(item: dict[str, Any]) -> bool:
    """Whether an item is a call the client must run (the items table)."""
    kind = item.get("type")
    if kind == "tool_search_call":
        # "`tool_search_call` with `"execution": "client"`"; "`tool_search_call` run by the
        # server" is a built-in tool.
        return item.get("execution") == "client"
    if kind == "shell_call":
        # "A `shell_call` is a client call only when its item has no `environment`, or an
        # environment of type `local`".
        environment = item.get("environment")
        # OPEN: an environment that is not an object (a string, a list) is read as none, and
        # an object without a `type` as local. No cassette has either.
        return not isinstance(environment, dict) or environment.get("type") in (None, "local")
    return kind in {"function_call", "custom_tool_call"} or kind in FIXED_CALLS


# The hosted tools table: item type -> (the field of the arguments, the field of the output).
HOSTED_FIELDS: dict[str, tuple[str | None, str | None]] = {
    "web_search_call": ("action", None),
    "file_search_call": ("queries", "results"),
    "code_interpreter_call": ("code", "outputs"),
    "image_generation_call": (None, "result"),
    "mcp_call": ("arguments", "output"),
    "mcp_list_tools": (None, "tools"),
    "tool_search_call": ("arguments", None),
    "shell_call": ("action", None),
}
# The output items named in the spec, and their output field ("other `*_output`": `output`).
OUTPUT_FIELDS = {
    "shell_call_output": "output",
    "local_shell_call_output": "output",
    "tool_search_output": "tools",
}


def decoded_arguments(value: Any) -> Any:
    """ "a JSON string of arguments, as `mcp_call` sends, is decoded, the text itself when it
    is not JSON"."""
    # OPEN: the sentence is about `mcp_call`; every string in an arguments field is read the
    # same way. Only mcp_call sends a string in the bundled cassettes.
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def error_text(value: Any) -> str | None:
    """ "`error` is the item's `error` as text (compact JSON when it is not a string)"."""
    if value is None:
        return None
    return value if isinstance(value, str) else compact_json(value)


def json_string_piece(text: str) -> str:
    """``text`` JSON-string-escaped, without the quotes (the ``custom_tool_call`` row).

    OPEN: the spec says "`msgspec`/`json.dumps` escaping", and the two differ on non-ASCII
    text (json.dumps writes ``\\uXXXX`` by default, msgspec writes the characters). The
    characters are written as themselves here (docs/model.md rule 5: "non-ASCII characters
    written as themselves"); the bundled custom tool input is ASCII, so this does not matter
    for the goldens. Either way the JSON value is the same.
    """
    return json.dumps(text, ensure_ascii=False)[1:-1]


@dataclass
class Item:
    """One output item of the body (the spec, "State": items)."""

    key: str  # the item id (or a stand-in when the item has none)
    kind: str | None
    output_index: int | None
    client_call: bool
    call_id: str | None = None  # the call id reported (after the reuse rule)
    wire_call_id: str | None = None  # the `call_id` the added item carried
    name: str | None = None
    started: bool = False  # ToolCallStart was emitted
    arrived: str = ""  # the argument (or custom input) text that arrived
    any_arrived: bool = False
    done: bool = False
    rotated: bool = False  # "one `Error(protocol_notice)` per item" for its rotating ids
    item_id: str | None = None  # the non-empty string `id` the item came with, if any


@dataclass
class Part:
    """One text-bearing part (the spec, "State": parts)."""

    any_delta: bool = False
    text: str = ""


# =============================================================================================
# The dialect.
# =============================================================================================


Handler = Callable[
    ["ResponsesStreamReader", dict[str, Any], str, list[dict[str, Any]], list[str]], None
]


class ResponsesStreamReader:
    """Reads the events of one Responses body, in order, into updates."""

    def __init__(self) -> None:
        self.items: dict[str, Item] = {}
        self.slots: dict[int, Item] = {}
        self.parts: dict[tuple[str, str, int], Part] = {}
        self.started = False  # `response.created` was seen in this body
        self.finished = False  # a terminal event came after the last `response.created`
        self.provider_error = False
        self.done = False
        self.stop_reading = False  # `[DONE]` was read: "nothing after it is read"
        self.last_id: str | None = None
        self.last_model: str | None = None
        self.last_reasoning_part: tuple[str, str, int] | None = None
        self.reasoning_emitted = False
        self.last_sequence: int | None = None
        self.call_id_uses: dict[str, int] = {}  # wire call id -> times used in this body
        self.response_call_ids: set[str] = set()  # wire call ids used in this response
        self.response_has_call = False
        self.response_has_approval = False
        self.unanswered: str | None = None  # the last hosted call whose item held no output
        self.orphan_text: dict[str, str] = {}  # item id -> buffered orphan argument text
        self.reported_unknown_ids: set[str] = set()  # "one Error ... per unknown id"
        self.anonymous = 0
        self.data = ""  # the data of the event being read

    def event_violation(self, message: str) -> dict[str, Any]:
        """``Error(protocol_violation)`` about the event being read.

        SETTLED BY GOLDEN: the `raw` of a protocol violation. The spec names a raw only for
        a done text that differs ("the done text is only quoted (`raw`)") and for orphan
        argument text at close ("with the text in `raw`"); for the others (routing, output
        index collision, item id changed at done, ...) it says nothing, and the schema's "the
        offending input itself" fits both the event's data and null.
        conformance/goldens/openai_responses/item_id_changes_between_added_and_done.json and
        output_index_collision.json have the event's whole data, shortened like every raw;
        every other violation about one event is written the same way here.
        """
        return violation(message, shortened(self.data))

    def event_notice(self, message: str) -> dict[str, Any]:
        """``Error(protocol_notice)`` about the event being read, quoted as a violation is."""
        return notice(message, shortened(self.data))

    def rotated(self, slot: Item, item_id: str, out: list[dict[str, Any]]) -> None:
        """ "ids that rotate at one `output_index`: one `Error(protocol_notice)` per item, the
        first time an event names it by another id"."""
        if not slot.rotated:
            slot.rotated = True
            out.append(self.event_notice(f"item id {item_id} rotates at {slot.key}"))

    @property
    def resumed(self) -> bool:
        """ "A body without [`response.created`] is a *resumed* stream"."""
        return not self.started

    # -- one event -----------------------------------------------------------------------------

    def read_event(self, event: Event) -> list[dict[str, Any]]:
        data = event.data
        self.data = data

        # docs/dialects.md: "`event: error` frames (`provider_error`, with the provider's
        # message)"; the spec: "(its `error` object, else the body itself)".
        if event.type == "error":
            self.provider_error = True
            # SETTLED BY GOLDEN (as for openai_chat): the raw is the event's whole data.
            return [error("provider_error", message_of_data(data), shortened(data))]

        # "`[DONE]` (data alone, JSON whitespace around it allowed; not in an `event: error`
        # frame) | ends reading: nothing after it is read. After a terminal event (or a
        # provider error) it also sets `done` (orphan argument text ... is reported right
        # then); before one, `done` stays false so that `close` reports the truncation".
        if is_done_marker(data):
            self.stop_reading = True
            if self.finished or self.provider_error:
                self.done = True
                return self.orphan_errors()
            return []

        # "empty data is a keep-alive".
        if is_keep_alive(data):
            return []

        if nested_deeper_than(data, MAX_JSON_DEPTH):
            return [
                error(
                    "json_too_deep",
                    f"the payload nests deeper than {MAX_JSON_DEPTH} levels",
                    shortened(data),
                )
            ]
        try:
            payload, repairs = decode_json(data)
        except ValueError as exc:
            return [error("sse_parse_error", f"the data is not JSON ({exc})", shortened(data))]
        if not isinstance(payload, dict):
            return [error("invalid_chunk", "$: the payload is not a JSON object", shortened(data))]

        wrong: list[str] = []
        out: list[dict[str, Any]] = []

        # "The payload's own `"type"` decides; the SSE event name is used only when the JSON
        # has no string `type`."
        # OPEN: a `type` of another type (a number) is not also named as a wrong field: the
        # sentence says the event name is then used, nothing more. No cassette has one.
        kind = payload.get("type")
        if not isinstance(kind, str):
            kind = event.type

        # "`sequence_number`. When an event has an integer `sequence_number` and the previous
        # event that had one had a greater or equal number, and the event is not
        # `response.created` (which starts numbering again), `Error(protocol_violation)`
        # ... precedes the event's updates".
        sequence = get_int(payload, "sequence_number", "sequence_number", wrong)
        if sequence is not None:
            if (
                kind != "response.created"
                and self.last_sequence is not None
                and self.last_sequence >= sequence
            ):
                # OPEN: the raw of this error is not given; the payload is kept, as the
                # offending input. No bundled cassette repeats a number.
                out.append(
                    self.event_violation(f"sequence_number {sequence} after {self.last_sequence}")
                )
            self.last_sequence = sequence

        handler = HANDLERS.get(kind)
        if handler is not None:  # "unknown event types are ignored"
            handler(self, payload, data, out, wrong)

        if wrong:
            # OPEN: the raw of this error is the payload, as for the other invalid_chunk.
            out.append(
                error(
                    "invalid_chunk",
                    "fields of a wrong type, skipped: " + ", ".join(wrong),
                    shortened(data),
                )
            )
        if repairs:
            # OPEN: as in the openai_chat reader, the repairs are their own invalid_chunk,
            # after the wrong-typed fields'. No bundled cassette needs a repair.
            out.append(error("invalid_chunk", "repaired: " + "; ".join(repairs), shortened(data)))
        return out

    # -- metadata ------------------------------------------------------------------------------

    def metadata(
        self, payload: dict[str, Any], out: list[dict[str, Any]], wrong: list[str]
    ) -> None:
        """`ResponseMetadata(response.id, response.model)` when they differ from the last."""
        response = get_dict(payload, "response", "response", wrong)
        response_id = get_str(response, "id", "response.id", wrong) or None
        model = get_str(response, "model", "response.model", wrong) or None
        # OPEN (as for openai_chat): an absent id or model is no change, and a
        # ResponseMetadata carries the event's own values. Every bundled Responses event that
        # carries a response carries both, so this does not matter for the goldens.
        id_changed = response_id is not None and response_id != self.last_id
        model_changed = model is not None and model != self.last_model
        if id_changed or model_changed:
            out.append(response_metadata(response_id, model))
            if response_id is not None:
                self.last_id = response_id
            if model is not None:
                self.last_model = model

    # -- the response lifecycle ----------------------------------------------------------------

    def on_created(
        self, payload: dict[str, Any], data: str, out: list[dict[str, Any]], wrong: list[str]
    ) -> None:
        # "before a terminal event it is also accepted, after `Error(protocol_violation)`".
        # OPEN: "the previous response" is read as a response begun by a `response.created`
        # of this body; a resumed body's first `response.created` is not flagged. No bundled
        # cassette has that.
        if self.started and not self.finished:
            out.append(self.event_violation("response.created before the previous response ended"))
        self.slots = {}
        self.response_has_call = False
        self.response_has_approval = False
        # "answers the last hosted call of the response": a new response has none yet.
        self.unanswered = None
        self.response_call_ids = set()
        self.started = True
        self.finished = False
        self.metadata(payload, out, wrong)

    def on_progress(
        self, payload: dict[str, Any], data: str, out: list[dict[str, Any]], wrong: list[str]
    ) -> None:
        self.metadata(payload, out, wrong)

    def on_completed(
        self, payload: dict[str, Any], data: str, out: list[dict[str, Any]], wrong: list[str]
    ) -> None:
        self.metadata(payload, out, wrong)
        response = get_dict(payload, "response", "response", wrong) or {}
        # "`tool_calls` when the response started a client call, else `awaiting_approval` when
        # it asked for an approval (`mcp_approval_request`), else `stop`".
        if self.response_has_call:
            reason = "tool_calls"
        elif self.response_has_approval:
            reason = "awaiting_approval"
        else:
            reason = "stop"
        out.append(finish(reason, parse_usage(response.get("usage"))))
        self.finished = True

    def on_incomplete(
        self, payload: dict[str, Any], data: str, out: list[dict[str, Any]], wrong: list[str]
    ) -> None:
        self.metadata(payload, out, wrong)
        response = get_dict(payload, "response", "response", wrong) or {}
        details = get_dict(response, "incomplete_details", "response.incomplete_details", wrong)
        reason = get_str(details, "reason", "response.incomplete_details.reason", wrong)
        out.append(finish(incomplete_finish_reason(reason), parse_usage(response.get("usage"))))
        self.finished = True

    def on_failed(
        self, payload: dict[str, Any], data: str, out: list[dict[str, Any]], wrong: list[str]
    ) -> None:
        self.metadata(payload, out, wrong)
        response = get_dict(payload, "response", "response", wrong) or {}
        failure = get_dict(response, "error", "response.error", wrong)
        # "`Error(provider_error)` with `response.error` (its message and code; no error
        # object: the response quoted)".
        # SETTLED BY GOLDEN: the raw. The spec names the message and code only;
        # conformance/goldens/openai_responses/response_failed_after_partial_text.json has the
        # event's whole data (not the `error` object), shortened like every raw.
        if failure is not None:
            out.append(error("provider_error", message_of_object(failure), shortened(data)))
        else:
            out.append(
                error(
                    "provider_error",
                    "response.failed: " + shortened(compact_json(response)),
                    shortened(data),
                )
            )
        usage = parse_usage(response.get("usage"))
        if usage is not None:
            out.append(usage_update(usage))
        self.finished = True

    def on_error(
        self, payload: dict[str, Any], data: str, out: list[dict[str, Any]], wrong: list[str]
    ) -> None:
        # "`error` (top-level ... `{"type":"error","code":…,"message":…,"param":…}`; also
        # `{"type":"error","error":{…}}` and a bare top-level `message`) |
        # `Error(provider_error)` with the message and code".
        inner = payload.get("error")
        source = inner if isinstance(inner, dict) else payload
        self.provider_error = True
        # SETTLED BY GOLDEN: the raw. The row gives the message and code only;
        # conformance/goldens/openai_responses/error_event_top_level_message.json has the
        # event's whole data, as an `event: error` frame's raw is (openai_chat).
        out.append(error("provider_error", message_of_object(source), shortened(data)))

    # -- routing -------------------------------------------------------------------------------

    def route(
        self, payload: dict[str, Any], out: list[dict[str, Any]], wrong: list[str], what: str
    ) -> tuple[Item | None, str | None]:
        """The item an event names (the spec, "Routing an event to its item").

        Returns the item (``None`` for an orphan) and the event's own ``item_id``.
        """
        item_id = get_str(payload, "item_id", "item_id", wrong)
        output_index = get_int(payload, "output_index", "output_index", wrong)
        # "by `item_id` when it is a known item".
        if item_id is not None and item_id in self.items:
            return self.items[item_id], item_id
        slot = self.slots.get(output_index) if output_index is not None else None
        # "else, when `item_id` is missing, by `output_index` in the current slots, silently".
        if item_id is None:
            # OPEN: with neither an item id nor a slot, the event is an orphan that has no id
            # to report, so nothing is reported. No bundled cassette has one.
            return slot, None
        # "else, when `item_id` is unknown but the slot at `output_index` holds an open item,
        # that item, with one `Error(protocol_notice)` per item".
        if slot is not None and not slot.done:
            self.rotated(slot, item_id, out)
            return slot, item_id
        # "else the event is an *orphan*: one `Error(protocol_violation)` per unknown item id
        # ... unless the stream is resumed".
        if not self.resumed and item_id not in self.reported_unknown_ids:
            self.reported_unknown_ids.add(item_id)
            out.append(self.event_violation(f"{what} for an item never added ({item_id})"))
        return None, item_id

    # -- text, refusal, reasoning --------------------------------------------------------------

    def emit_text(self, channel: str, key: tuple[str, str, int], text: str) -> list[dict[str, Any]]:
        """A text of a part as the delta row says: TextDelta, or ReasoningDelta with the
        separator rule. Empty text emits nothing."""
        if not text:
            return []
        if channel in {"text", "refusal"}:
            return [text_delta(text)]
        out: list[dict[str, Any]] = []
        # "Before the first reasoning text of a part ... other than the part the last
        # reasoning text came from, when reasoning text was emitted before in this body, the
        # dialect emits `ReasoningDelta("\n\n")`".
        if self.reasoning_emitted and self.last_reasoning_part != key:
            out.append(reasoning_delta("\n\n"))
        out.append(reasoning_delta(text))
        self.reasoning_emitted = True
        self.last_reasoning_part = key
        return out

    def part_key(
        self,
        channel: str,
        payload: dict[str, Any],
        item: Item | None,
        item_id: str | None,
        wrong: list[str],
    ) -> tuple[str, str, int]:
        index_field = "summary_index" if channel == "summary" else "content_index"
        index = get_int(payload, index_field, index_field, wrong)
        # "a missing index is 0".
        if index is None:
            index = 0
        # The part belongs to the routed item; an orphan's to the id its events name.
        owner = item.key if item is not None else (item_id or "")
        return (channel, owner, index)

    @staticmethod
    def on_text_delta(channel: str) -> Handler:
        def handler(
            reader: ResponsesStreamReader,
            payload: dict[str, Any],
            data: str,
            out: list[dict[str, Any]],
            wrong: list[str],
        ) -> None:
            item, item_id = reader.route(payload, out, wrong, f"a {channel} delta")
            key = reader.part_key(channel, payload, item, item_id, wrong)
            delta = get_str(payload, "delta", "delta", wrong)
            part = reader.parts.setdefault(key, Part())
            # OPEN: an empty delta is not counted as "a delta arrived" (it carries nothing);
            # otherwise a done text after only empty deltas would be a violation and be lost.
            # No bundled cassette sends an empty text delta.
            if delta:
                part.any_delta = True
                part.text += delta
                out.extend(reader.emit_text(channel, key, delta))

        return handler

    @staticmethod
    def on_text_done(channel: str, field: str) -> Handler:
        def handler(
            reader: ResponsesStreamReader,
            payload: dict[str, Any],
            data: str,
            out: list[dict[str, Any]],
            wrong: list[str],
        ) -> None:
            item, item_id = reader.route(payload, out, wrong, f"a {channel} done")
            key = reader.part_key(channel, payload, item, item_id, wrong)
            text = get_str(payload, field, field, wrong)
            if text is None:
                return
            part = reader.parts.setdefault(key, Part())
            if not part.any_delta:
                # "if no delta arrived for the part: the done text is the part's text, emitted
                # as the delta above would be (non-empty only)".
                part.any_delta = bool(text)
                part.text = text
                out.extend(reader.emit_text(channel, key, text))
                return
            if text == part.text:
                return
            # "In a resumed stream a done text that *ends with* the deltas is no violation".
            if reader.resumed and text.endswith(part.text):
                return
            # "`Error(protocol_notice)` ... the deltas are kept".
            # SETTLED BY GOLDEN: its raw is the event's data, as for every notice about one
            # event (tests/dialects: the done text differs).
            out.append(reader.event_notice(f"{channel} done text differs from its deltas"))

        return handler

    # -- client calls --------------------------------------------------------------------------

    def assign_call_id(self, wire: str, out: list[dict[str, Any]]) -> str:
        """The call id reported for a call whose id on the wire is ``wire`` (the reuse rule).

        "When a call id was already used by another item of this body, the call is reported
        as `<call_id>#<n>` (n = 2, 3, … per repeated id) ...; inside one response that is also
        `Error(protocol_violation)` ("call_id reused"), across concatenated responses ... it
        is not."
        """
        uses = self.call_id_uses.get(wire, 0) + 1
        self.call_id_uses[wire] = uses
        if wire in self.response_call_ids:
            out.append(self.event_violation(f"call_id reused: {wire}"))
        self.response_call_ids.add(wire)
        return wire if uses == 1 else f"{wire}#{uses}"

    def wire_call_id(self, item: dict[str, Any], output_index: int | None, wrong: list[str]) -> str:
        """ "the item's `call_id` ...; when the item has no `call_id`, its item `id` is the call
        id; with neither, `output_<output_index>`"."""
        call_id = get_str(item, "call_id", "item.call_id", wrong)
        if call_id:
            return call_id
        item_id = get_str(item, "id", "item.id", wrong)
        if item_id:
            return item_id
        # OPEN: with no output_index either, "output_None" is not meaningful; "output_0" is
        # not right either. No cassette has such an item.
        return f"output_{output_index}"

    def start_call(self, record: Item, out: list[dict[str, Any]]) -> None:
        """`ToolCallStart`, then any argument text that arrived before the name did."""
        assert record.call_id is not None
        assert record.name is not None
        out.append(tool_call_start(record.call_id, record.name))
        record.started = True
        # "Right after a call's `ToolCallStart`, when its item has a non-empty string `id` (the
        # one it was added with) that differs from the call id, `ToolCallItem(call id, item
        # id)` follows".
        if record.item_id is not None and record.item_id != record.call_id:
            out.append(tool_call_item(record.call_id, record.item_id))
        if record.arrived and record.kind == "function_call":
            # OPEN: argument text that arrived while the start waited for the name is emitted
            # right after the start (a ToolCallArgs before its ToolCallStart names no call).
            # No bundled cassette has a function_call without a name at `added`.
            out.append(tool_call_args(record.call_id, record.arrived))

    def add_arguments(self, record: Item, text: str, out: list[dict[str, Any]]) -> None:
        """Argument text that arrived for a function_call (non-empty only)."""
        if not text:
            return
        record.arrived += text
        record.any_arrived = True
        if record.started and record.call_id is not None:
            out.append(tool_call_args(record.call_id, text))

    def add_input(self, record: Item, text: str, out: list[dict[str, Any]]) -> None:
        """Input text that arrived for a custom_tool_call, encoded as `{"input": <text>}`."""
        if not text:
            return
        assert record.call_id is not None
        # "the first input text is preceded by `{"input":"`, every piece is
        # JSON-string-escaped".
        # SETTLED BY GOLDEN: "the first input text is preceded by `{"input":"`" does not say
        # whether the opening is its own ToolCallArgs or part of the first piece;
        # conformance/goldens/openai_responses/custom_tool_call_freeform_input.json has it in
        # the first piece's ToolCallArgs.
        prefix = "" if record.any_arrived else '{"input":"'
        record.arrived += text
        record.any_arrived = True
        out.append(tool_call_args(record.call_id, prefix + json_string_piece(text)))

    def on_item_added(
        self, payload: dict[str, Any], data: str, out: list[dict[str, Any]], wrong: list[str]
    ) -> None:
        item = get_dict(payload, "item", "item", wrong)
        output_index = get_int(payload, "output_index", "output_index", wrong)
        if item is None:
            # OPEN: an `added` without an item object adds nothing. No cassette has one.
            return
        item_id = get_str(item, "id", "item.id", wrong)
        # "a second `added` for a known item id is `Error(protocol_violation)` and otherwise
        # ignored".
        if item_id is not None and item_id in self.items:
            out.append(self.event_violation(f"output_item.added for the known item {item_id}"))
            return
        if item_id is None:
            # OPEN: an item without an id is kept under a stand-in key that no event can
            # name; it is found by its output_index only. No cassette has one.
            self.anonymous += 1
            key = f"<item {self.anonymous}>"
        else:
            key = item_id
        kind = get_str(item, "type", "item.type", wrong)
        record = Item(
            key=key,
            kind=kind,
            output_index=output_index,
            client_call=is_client_call(item),
            item_id=item_id or None,
        )
        # "an `output_index` whose slot already holds another item of this response is
        # `Error(protocol_violation)` ("output_index collision"), both items are kept and the
        # slot now names the new one".
        if output_index is not None:
            previous = self.slots.get(output_index)
            if previous is not None:
                out.append(
                    self.event_violation(
                        f"output_index collision: {key} added at output_index {output_index}, "
                        f"which holds {previous.key}"
                    )
                )
            self.slots[output_index] = record
        self.items[key] = record

        if kind == "reasoning":
            # "`ReasoningItem(item_id, encrypted_content, summary=[])` when the item has a
            # non-empty string `id` or `encrypted_content`".
            out.extend(reasoning_item(record.item_id, item, None, wrong))
            return
        if kind == "mcp_approval_request" or not record.client_call:
            return  # "none" at added (message, built-in tools, approval requests)

        # A client call. "Every client call starts the response's call flag".
        self.response_has_call = True
        record.wire_call_id = get_str(item, "call_id", "item.call_id", wrong) or None
        record.call_id = self.assign_call_id(self.wire_call_id(item, output_index, wrong), out)
        if kind == "function_call":
            name = get_str(item, "name", "item.name", wrong)
            # "`ToolCallStart(call id, name)` when `name` is a non-empty string (else the start
            # waits for the name at `done`); non-empty `arguments` on the added item are
            # emitted as `ToolCallArgs` and count as arrived text".
            if name:
                record.name = name
                self.start_call(record, out)
            arguments = get_str(item, "arguments", "item.arguments", wrong)
            self.add_arguments(record, arguments or "", out)
        elif kind == "custom_tool_call":
            # OPEN: a custom call without a name is started with the name "" (the row gives
            # no rule for a missing name, unlike function_call's). No cassette has one.
            record.name = get_str(item, "name", "item.name", wrong) or ""
            self.start_call(record, out)
            # OPEN: the row does not say whether a non-empty `input` on the added item counts
            # (function_call's `arguments` do); it is read like function_call's. The bundled
            # custom call has `"input": ""`.
            self.add_input(record, get_str(item, "input", "item.input", wrong) or "", out)
        else:
            assert kind is not None
            record.name = FIXED_CALLS[kind][0]
            self.start_call(record, out)
            # "none while streaming": an added item's arguments are a placeholder.

    @staticmethod
    def on_arguments_delta(custom: bool) -> Handler:
        def handler(
            reader: ResponsesStreamReader,
            payload: dict[str, Any],
            data: str,
            out: list[dict[str, Any]],
            wrong: list[str],
        ) -> None:
            what = "custom_tool_call_input.delta" if custom else "function_call_arguments.delta"
            item, item_id = reader.route(payload, out, wrong, what)
            delta = get_str(payload, "delta", "delta", wrong) or ""
            if item is None:
                # "an orphan's text is buffered under its `item_id`".
                if item_id is not None and delta:
                    reader.orphan_text[item_id] = reader.orphan_text.get(item_id, "") + delta
                return
            if item.done or not item.client_call:
                # OPEN: text for an item already done, or for an item that is not a call of
                # this kind, is dropped. No bundled cassette has either.
                return
            if custom and item.kind == "custom_tool_call":
                reader.add_input(item, delta, out)
            elif not custom and item.kind == "function_call":
                reader.add_arguments(item, delta, out)

        return handler

    @staticmethod
    def on_arguments_done(custom: bool) -> Handler:
        def handler(
            reader: ResponsesStreamReader,
            payload: dict[str, Any],
            data: str,
            out: list[dict[str, Any]],
            wrong: list[str],
        ) -> None:
            what = "custom_tool_call_input.done" if custom else "function_call_arguments.done"
            item, item_id = reader.route(payload, out, wrong, what)
            field = "input" if custom else "arguments"
            text = get_str(payload, field, field, wrong)
            if text is None:
                return
            if item is None:
                # OPEN: the done text of an orphan is buffered like its deltas when none came,
                # so that the orphan's output_item.done can report it. No bundled cassette has
                # an orphan argument done.
                if item_id is not None and text and item_id not in reader.orphan_text:
                    reader.orphan_text[item_id] = text
                return
            if item.done or not item.client_call:
                return
            expected_kind = "custom_tool_call" if custom else "function_call"
            if item.kind != expected_kind:
                return
            # "if no argument text arrived for the call: `ToolCallArgs(call id, arguments)`
            # (non-empty only)".
            if not item.any_arrived:
                if custom:
                    reader.add_input(item, text, out)
                else:
                    reader.add_arguments(item, text, out)
                return
            if text == item.arrived or (reader.resumed and text.endswith(item.arrived)):
                return
            # "if it differs from what arrived: `Error(protocol_violation)`, what arrived is
            # kept".
            # OPEN: the raw is not given for this row; it is the done text, as the text done
            # events' row says ("the done text is only quoted (`raw`)"). No bundled cassette
            # has arguments that differ from their deltas.
            out.append(violation(f"{what} differs from what arrived", shortened(text)))

        return handler

    def on_item_done(
        self, payload: dict[str, Any], data: str, out: list[dict[str, Any]], wrong: list[str]
    ) -> None:
        item = get_dict(payload, "item", "item", wrong)
        output_index = get_int(payload, "output_index", "output_index", wrong)
        if item is None:
            return
        item_id = get_str(item, "id", "item.id", wrong)
        # "`output_item.done` finds its item by `item.id`; when that is unknown, by the slot at
        # `output_index`: an open item there whose id differs is `Error(protocol_violation)`
        # ... and the done applies to the added item".
        record: Item | None = None
        if item_id is not None and item_id in self.items:
            record = self.items[item_id]
        else:
            slot = self.slots.get(output_index) if output_index is not None else None
            if slot is not None and not slot.done:
                record = slot
                # OPEN: a done item without an id is applied to the open slot silently, as
                # events without an item_id are routed. No cassette has one.
                if item_id is not None:
                    self.rotated(slot, item_id, out)
        if record is None:
            self.orphan_done(item, item_id, output_index, out, wrong)
            return
        # "A second `done` of an item already done is ignored."
        if record.done:
            return
        record.done = True
        if record.kind == "mcp_approval_request":
            self.response_has_approval = True
            out.append(approval_request(item, record.key, wrong))
            return
        if record.kind == "reasoning":
            # "`item_id`: the id it was added with, else the done item's".
            out.extend(reasoning_item(record.item_id or item_id or None, item, [], wrong))
            return
        if record.kind == "compaction":
            # "`RawItem(item)`: the done item whole".
            out.append({"type": "raw_item", "item": item})
            return
        if not record.client_call:
            self.hosted(item, output_index, out)
            return
        assert record.call_id is not None
        if record.kind == "function_call":
            self.finish_function_call(record, item, out, wrong)
        elif record.kind == "custom_tool_call":
            # OPEN: a done item's `input` is used when no input text arrived at all (as
            # function_call's `arguments` are); the bundled custom call streams its input.
            if not record.any_arrived:
                self.add_input(record, get_str(item, "input", "item.input", wrong) or "", out)
            out.append(tool_call_args(record.call_id, close_input(record)))
        else:
            self.fixed_arguments(record, item, out, wrong)
        out.append(tool_call_end(record.call_id))

    def finish_function_call(
        self, record: Item, item: dict[str, Any], out: list[dict[str, Any]], wrong: list[str]
    ) -> None:
        assert record.call_id is not None
        name = get_str(item, "name", "item.name", wrong)
        if not record.started:
            # "else the start waits for the name at `done`".
            # OPEN: with no name at done either, the call starts with the name "".
            record.name = name or ""
            self.start_call(record, out)
        arguments = get_str(item, "arguments", "item.arguments", wrong)
        # "if no text arrived at all: `item.arguments` (non-empty); differing from what arrived:
        # `Error(protocol_violation)`, kept what arrived."
        if not record.any_arrived:
            self.add_arguments(record, arguments or "", out)
        elif (
            arguments is not None
            and arguments != record.arrived
            and not (self.resumed and arguments.endswith(record.arrived))
        ):
            # OPEN: the resumed-stream exception is applied here too ("same resumed-stream
            # exception" is said of function_call_arguments.done); an absent `arguments` on the
            # done item is not a difference. No bundled cassette depends on either.
            out.append(
                violation(
                    "output_item.done arguments differ from what arrived", shortened(arguments)
                )
            )
        # "A different `call_id` than at `added`: `Error(protocol_notice)`; a different `name`:
        # `Error(protocol_violation)`; the first ones stand."
        call_id = get_str(item, "call_id", "item.call_id", wrong)
        if (
            record.wire_call_id is not None
            and call_id is not None
            and call_id != record.wire_call_id
        ):
            out.append(
                self.event_notice(
                    f"call_id changed from {record.wire_call_id} at added to {call_id} at done"
                )
            )
        if record.name and name and name != record.name:
            out.append(
                self.event_violation(f"name changed from {record.name} at added to {name} at done")
            )

    def fixed_arguments(
        self, record: Item, item: dict[str, Any], out: list[dict[str, Any]], wrong: list[str]
    ) -> None:
        """`ToolCallArgs(compact JSON of the done item's field)`; "absent or `null`: no
        arguments (`{}`)"."""
        assert record.call_id is not None
        assert record.kind is not None
        value = item.get(FIXED_CALLS[record.kind][1])
        # OPEN: "no arguments (`{}`)" is read as: no ToolCallArgs at all (the call's
        # arguments are then empty, which a client reads as `{}`), not a ToolCallArgs("{}").
        # The bundled client calls of these kinds all carry their field.
        if value is not None:
            out.append(tool_call_args(record.call_id, compact_json(value)))

    def orphan_done(
        self,
        item: dict[str, Any],
        item_id: str | None,
        output_index: int | None,
        out: list[dict[str, Any]],
        wrong: list[str],
    ) -> None:
        """ "A done whose item was never added (an orphan) is `Error(protocol_violation)` unless
        the stream is resumed, and a client call is then reported whole from the done item"."""
        if not self.resumed:
            out.append(
                self.event_violation(f"output_item.done for an item never added ({item_id})")
            )
        kind = get_str(item, "type", "item.type", wrong)
        if kind == "mcp_approval_request":
            # OPEN: an orphan approval request is reported from the done item as a known one
            # would be. No cassette has one.
            self.response_has_approval = True
            out.append(approval_request(item, item_id or "", wrong))
            return
        if kind == "reasoning":
            # OPEN: an orphan reasoning item gives its done ReasoningItem, as a known one does.
            # The bundled resumed stream has none.
            out.extend(reasoning_item(item_id or None, item, [], wrong))
            return
        if kind == "compaction":
            out.append({"type": "raw_item", "item": item})
            return
        if not is_client_call(item):
            self.hosted(item, output_index, out)
            return
        # OPEN: the orphan item is recorded as done, so that a second done of it is ignored.
        key = item_id if item_id is not None else f"<orphan {output_index}>"
        record = Item(
            key=key,
            kind=kind,
            output_index=output_index,
            client_call=True,
            done=True,
            item_id=item_id or None,
        )
        self.items[key] = record
        self.response_has_call = True
        record.wire_call_id = get_str(item, "call_id", "item.call_id", wrong) or None
        record.call_id = self.assign_call_id(self.wire_call_id(item, output_index, wrong), out)
        buffered = self.orphan_text.pop(item_id, None) if item_id is not None else None
        if kind == "function_call":
            record.name = get_str(item, "name", "item.name", wrong) or ""
            self.start_call(record, out)
            arguments = (
                buffered
                if buffered is not None
                else get_str(item, "arguments", "item.arguments", wrong)
            )
            self.add_arguments(record, arguments or "", out)
        elif kind == "custom_tool_call":
            record.name = get_str(item, "name", "item.name", wrong) or ""
            self.start_call(record, out)
            text = buffered if buffered is not None else get_str(item, "input", "item.input", wrong)
            self.add_input(record, text or "", out)
            out.append(tool_call_args(record.call_id, close_input(record)))
        else:
            assert kind is not None
            record.name = FIXED_CALLS[kind][0]
            self.start_call(record, out)
            self.fixed_arguments(record, item, out, wrong)
        out.append(tool_call_end(record.call_id))

    def hosted(
        self, item: dict[str, Any], output_index: int | None, out: list[dict[str, Any]]
    ) -> None:
        """The spec, "Hosted (server-side) tools": the updates of a done item of a tool the
        server ran, or of its output."""
        kind = item.get("type")
        if not isinstance(kind, str):
            return
        error = error_text(item.get("error"))
        is_call = kind in HOSTED_FIELDS or (
            # "any other type ending in `_call` that is not a client call"
            kind.endswith("_call") and not is_client_call(item)
        )
        if is_call:
            arguments_field, output_field = HOSTED_FIELDS.get(kind, (None, None))
            # "`call_id` is the item's `call_id`, else its `id`, else `output_<output_index>`"
            call_id = item.get("call_id") or item.get("id") or f"output_{output_index}"
            # "`name` is the tool's `name` for an `mcp_call`, else the item type without
            # `_call`"
            name = item.get("name") if kind == "mcp_call" else None
            if not isinstance(name, str) or not name:
                name = kind[: -len("_call")] if kind.endswith("_call") else kind
            arguments = (
                None if arguments_field is None else decoded_arguments(item.get(arguments_field))
            )
            # "`item` is the rest of the item": without the fields read into arguments,
            # output and error.
            rest = {
                k: v for k, v in item.items() if k not in {arguments_field, output_field, "error"}
            }
            out.append(hosted_tool_call(call_id, name, arguments, rest))
            output = None if output_field is None else item.get(output_field)
            # "then, when the item holds its output or an `error`, `HostedToolResult(call_id,
            # name=<item type>, output, error)`"
            if output is not None or error is not None:
                self.unanswered = None
                out.append(hosted_tool_result(call_id, kind, output, error, None))
            else:
                self.unanswered = call_id
            return
        if kind in OUTPUT_FIELDS or kind.endswith("_output"):
            field = OUTPUT_FIELDS.get(kind, "output")
            # "an output item without a `call_id` ... answers the last hosted call of the
            # response whose item held no output"
            call_id = item.get("call_id") or self.unanswered
            self.unanswered = None
            if not call_id:
                call_id = item.get("id") or f"output_{output_index}"
            rest = {k: v for k, v in item.items() if k not in {field, "error"}}
            out.append(hosted_tool_result(call_id, kind, item.get(field), error, rest))

    # -- the end -------------------------------------------------------------------------------

    def orphan_errors(self) -> list[dict[str, Any]]:
        """ "when orphan argument text (deltas for an item never added) was never claimed by an
        `output_item.done`: `Error(protocol_violation)` per item with the text in `raw`"."""
        out = [
            violation(f"argument text for the item {item_id}, never added", shortened(text))
            for item_id, text in self.orphan_text.items()
        ]
        self.orphan_text = {}
        return out

    def close(self, sse_truncated: bool) -> list[dict[str, Any]]:
        if self.done:
            # OPEN: after a `[DONE]` that set `done`, nothing more ("nothing after it is
            # read"), as for openai_chat: its orphan text was reported at the marker.
            return []
        out = self.orphan_errors()
        # "when the SSE decoder discarded an unfinished event: `Error(stream_truncated)`;
        # otherwise, when no terminal event came after the last `response.created` and no
        # provider error: `Error(stream_truncated)`".
        # SETTLED BY GOLDEN (as for openai_chat): the raw of stream_truncated is null.
        if sse_truncated:
            out.append(
                error("stream_truncated", "the stream ended inside an unfinished event", None)
            )
        elif not self.finished and not self.provider_error:
            out.append(
                error("stream_truncated", "the response ended without a terminal event", None)
            )
        return out


def close_input(record: Item) -> str:
    """The text that closes a custom call's arguments: `"}`, or `{"input":""}` with no input."""
    return '"}' if record.any_arrived else '{"input":""}'


def approval_request(item: dict[str, Any], call_id: str, wrong: list[str]) -> dict[str, Any]:
    """`ToolApprovalRequest(call_id=item.id, name, arguments=item.arguments decoded as JSON (the
    text itself when it is not JSON; `{}` when absent), description=server_label or "")`."""
    name = get_str(item, "name", "item.name", wrong) or ""
    raw_arguments = item.get("arguments")
    arguments: Any
    if raw_arguments is None:
        arguments = {}
    elif isinstance(raw_arguments, str):
        try:
            arguments = json.loads(raw_arguments)
        except ValueError:
            arguments = raw_arguments
    else:
        # OPEN: arguments that are already a JSON value are kept as they are.
        arguments = raw_arguments
    description = get_str(item, "server_label", "item.server_label", wrong) or ""
    return tool_approval_request(call_id, name, arguments, description)


def message_of_object(source: dict[str, Any]) -> str:
    """A person's message for a provider's error (never compared)."""
    message = source.get("message")
    code = source.get("code")
    text = message if isinstance(message, str) and message else compact_json(source)
    return f"provider error: {shortened(text)}" + (f" ({code})" if isinstance(code, str) else "")


def message_of_data(data: str) -> str:
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):
        return f"provider error: {shortened(data)}"
    if isinstance(value, dict):
        inner = value.get("error")
        return message_of_object(inner if isinstance(inner, dict) else value)
    return f"provider error: {shortened(data)}"


HANDLERS: dict[str, Handler] = {
    "response.created": ResponsesStreamReader.on_created,
    "response.queued": ResponsesStreamReader.on_progress,
    "response.in_progress": ResponsesStreamReader.on_progress,
    "response.completed": ResponsesStreamReader.on_completed,
    "response.incomplete": ResponsesStreamReader.on_incomplete,
    "response.failed": ResponsesStreamReader.on_failed,
    "error": ResponsesStreamReader.on_error,
    "response.output_item.added": ResponsesStreamReader.on_item_added,
    "response.output_item.done": ResponsesStreamReader.on_item_done,
    "response.output_text.delta": ResponsesStreamReader.on_text_delta("text"),
    "response.refusal.delta": ResponsesStreamReader.on_text_delta("refusal"),
    "response.reasoning_summary_text.delta": ResponsesStreamReader.on_text_delta("summary"),
    "response.reasoning_text.delta": ResponsesStreamReader.on_text_delta("reasoning"),
    "response.output_text.done": ResponsesStreamReader.on_text_done("text", "text"),
    "response.refusal.done": ResponsesStreamReader.on_text_done("refusal", "refusal"),
    "response.reasoning_summary_text.done": ResponsesStreamReader.on_text_done("summary", "text"),
    "response.reasoning_text.done": ResponsesStreamReader.on_text_done("reasoning", "text"),
    "response.function_call_arguments.delta": ResponsesStreamReader.on_arguments_delta(False),
    "response.function_call_arguments.done": ResponsesStreamReader.on_arguments_done(False),
    "response.custom_tool_call_input.delta": ResponsesStreamReader.on_arguments_delta(True),
    "response.custom_tool_call_input.done": ResponsesStreamReader.on_arguments_done(True),
}


# =============================================================================================
# The whole response.
# =============================================================================================


def read_updates(status: int, reason: str, body: bytes) -> list[dict[str, Any]]:
    """The canonical updates of one recorded response: its status, reason phrase and body."""
    # docs/conformance.md: "An interaction whose recorded status is not 2xx is not read as a
    # stream: its output is one `http_error` update".
    if not 200 <= status < 300:
        text = body.decode("utf-8", errors="replace")
        # SETTLED BY GOLDEN (openai_chat's http_429_json_error.json): the raw is the body text.
        return [error("http_error", f"HTTP {status} {reason}: {shortened(text)}", shortened(text))]

    events, sse_truncated = read_events(body)
    reader = ResponsesStreamReader()
    updates: list[dict[str, Any]] = []
    for event in events:
        updates.extend(reader.read_event(event))
        if reader.stop_reading:  # "[DONE] ... ends reading: nothing after it is read"
            break
    updates.extend(reader.close(sse_truncated))
    return updates


# =============================================================================================
# A deliberately simple aggregate reading of a real recorded stream (the shared corpus).
# =============================================================================================


def aggregate(body: bytes) -> dict[str, Any]:
    """What a client ends up with from a well-formed recorded Responses stream.

    Line-based (the recordings are LF-framed), ``json.loads`` per ``data:`` payload, up to
    ``[DONE]``; no error handling at all. Text: output_text and refusal deltas (a part's done
    text when it had no delta). Reasoning: summary and raw reasoning text, a blank line between
    parts (the separator rule). Client calls by item id, with the spec's call ids (``call_id``,
    ``#n`` on reuse), arguments parsed as JSON. Finish reason and usage: the last terminal
    event's, by the spec's finish and usage tables.
    """
    text = ""
    reasoning_segments: list[str] = []
    last_reasoning_key: tuple[str, str, int] | None = None
    parts_with_deltas: set[tuple[str, str, int]] = set()
    calls: dict[str, dict[str, Any]] = {}  # item id -> {"id", "name", "kind", "args", "item"}
    order: list[str] = []
    used: dict[str, int] = {}
    response_has_call = False
    finish_reason: str | None = None
    usage: tuple[int, int, int] | None = None

    def add_reasoning(key: tuple[str, str, int], piece: str) -> None:
        nonlocal last_reasoning_key
        if key != last_reasoning_key:
            reasoning_segments.append("")
            last_reasoning_key = key
        reasoning_segments[-1] += piece

    for line in body.decode("utf-8").split("\n"):
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if data == "[DONE]":
            break
        if not data:
            continue
        event = json.loads(data)
        kind = event.get("type")
        item_id = event.get("item_id", "")
        if kind in {"response.output_text.delta", "response.refusal.delta"}:
            parts_with_deltas.add((kind, item_id, event.get("content_index", 0)))
            text += event["delta"]
        elif kind in {"response.output_text.done", "response.refusal.done"}:
            key = (kind.replace(".done", ".delta"), item_id, event.get("content_index", 0))
            if key not in parts_with_deltas:
                text += event.get("text") or event.get("refusal") or ""
        elif kind in {"response.reasoning_summary_text.delta", "response.reasoning_text.delta"}:
            index = event.get("summary_index", event.get("content_index", 0))
            key = (kind, item_id, index)
            if event["delta"]:
                parts_with_deltas.add(key)
                add_reasoning(key, event["delta"])
        elif kind in {"response.reasoning_summary_text.done", "response.reasoning_text.done"}:
            index = event.get("summary_index", event.get("content_index", 0))
            key = (kind.replace(".done", ".delta"), item_id, index)
            if key not in parts_with_deltas and event.get("text"):
                add_reasoning(key, event["text"])
        elif kind == "response.created":
            response_has_call = False
        elif kind == "response.output_item.added":
            item = event["item"]
            if is_client_call(item):
                response_has_call = True
                wire = item.get("call_id") or item.get("id")
                used[wire] = used.get(wire, 0) + 1
                call_id = wire if used[wire] == 1 else f"{wire}#{used[wire]}"
                calls[item["id"]] = {
                    "id": call_id,
                    "name": item.get("name") or FIXED_CALLS.get(item["type"], ("",))[0],
                    "kind": item["type"],
                    "args": item.get("arguments") if item["type"] == "function_call" else "",
                }
                calls[item["id"]]["args"] = calls[item["id"]]["args"] or ""
                order.append(item["id"])
        elif kind in {
            "response.function_call_arguments.delta",
            "response.custom_tool_call_input.delta",
        }:
            calls[item_id]["args"] += event["delta"]
        elif kind in {
            "response.function_call_arguments.done",
            "response.custom_tool_call_input.done",
        }:
            call = calls[item_id]
            call["args"] = call["args"] or event.get("arguments") or event.get("input") or ""
        elif kind == "response.output_item.done":
            item = event["item"]
            if item.get("id", "") not in calls:
                continue
            call = calls[item["id"]]
            if call["kind"] == "function_call":
                call["args"] = call["args"] or item.get("arguments") or ""
            elif call["kind"] == "custom_tool_call":
                call["args"] = call["args"] or item.get("input") or ""
            else:
                value = item.get(FIXED_CALLS[call["kind"]][1])
                call["args"] = "" if value is None else json.dumps(value)
        elif kind in {"response.completed", "response.incomplete", "response.failed"}:
            response = event["response"]
            if kind == "response.completed":
                finish_reason = "tool_calls" if response_has_call else "stop"
            elif kind == "response.incomplete":
                reason = (response.get("incomplete_details") or {}).get("reason")
                finish_reason = incomplete_finish_reason(reason)
            raw_usage = response.get("usage")
            if raw_usage:
                prompt = raw_usage.get("input_tokens", raw_usage.get("prompt_tokens", 0))
                completion = raw_usage.get("output_tokens", raw_usage.get("completion_tokens", 0))
                usage = (prompt, completion, raw_usage.get("total_tokens", prompt + completion))

    tool_calls: list[tuple[str | None, str, Any]] = []
    for item_key in order:
        call = calls[item_key]
        if call["kind"] == "custom_tool_call":
            arguments: Any = {"input": call["args"]}
        else:
            arguments = json.loads(call["args"] or "{}")
        tool_calls.append((call["id"], call["name"], arguments))
    return {
        "text": text,
        "reasoning": "\n\n".join(reasoning_segments) or None,
        "tool_calls": tool_calls,
        "finish_reason": finish_reason,
        "usage": usage,
    }
