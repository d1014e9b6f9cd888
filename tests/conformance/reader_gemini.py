"""An independent reader of recorded ``gemini`` responses (``streamGenerateContent``).

``read_updates(status, reason, body)`` derives the canonical JSON of the
``AgentResponseUpdate`` values of one recorded HTTP response, as the goldens hold them
(``conformance/goldens/gemini/<scenario>.json``, key ``updates``). It is written from the
documentation only, so that the updates level of the goldens is checked against something
other than the code that wrote it:

- ``docs/dialects.md (section ``gemini``)``: the dialect (framing, a frame, the steps of a
  ``GenerateContentResponse``, tool calls and ``partialArgs``, finish reasons, usage, the end
  of the stream, choices);
- ``docs/dialects.md``: the ``auto`` framing and "Writing a dialect" (what the shared base
  does: keep-alives, depth, decode repairs, ``event: error``, truncation, metadata);
- the module docstrings of ``raf/framing/__init__.py`` and ``raf/framing/json_values.py``:
  the JSON-array and JSON-lines framing rules (their code was not read);
- ``docs/sse.md``: the event-stream rules (read by ``read_events`` of the ``openai_chat``
  reader, reused here);
- ``docs/conformance.md``: a non-2xx status is one ``http_error`` update;
- ``docs/model.md`` and ``conformance/schema/update.schema.json``: canonical JSON;
- ``docs/limits.md``: ``max_json_depth`` (256) and ``max_raw_chars`` (4,096).

It imports nothing from raf: only the standard library and the shared helpers of
``tests.conformance.independent_reader`` (canonical JSON builders, the SSE event reader, the
depth scan, the JSON decoding with its two repairs, raw shortening). It reads the whole body
at once and is written to be checked line by line against those documents, not to be fast.

Three kinds of comment mark the places where the documents alone did not decide (the same
marks as the ``openai_chat`` reader):

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
import re
from dataclasses import dataclass, field
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
    read_events,
    reasoning_delta,
    response_metadata,
    shortened,
    text_delta,
    tool_call_delta,
    usage_record,
    usage_update,
)

# The partialArgs rules: "an index more than 1,024 past an array's end ... is skipped".
MAX_INDEX_PAST_END = 1024


def hosted_tool_call(call_id: str, name: str, arguments: Any, item: Any) -> dict[str, Any]:
    """``HostedToolCall(call_id, name, arguments, item)`` (schema ``HostedToolCall``)."""
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
    """``HostedToolResult(call_id, name, output, error, item)`` (schema ``HostedToolResult``)."""
    return {
        "type": "hosted_tool_result",
        "call_id": call_id,
        "name": name,
        "output": output,
        "error": error_text,
        "item": item,
    }


def reasoning_signature(signature: str) -> dict[str, Any]:
    """``ReasoningSignature(signature)`` (schema ``ReasoningSignature``: type, signature)."""
    return {"type": "reasoning_signature", "signature": signature}


def part_signature(signature: str, part: str) -> dict[str, Any]:
    """``PartSignature(signature, part)`` (schema ``PartSignature``: type, signature, part)."""
    return {"type": "part_signature", "signature": signature, "part": part}


# =============================================================================================
# Part 1: bytes to frames. Every frame is (event type, data); JSON framings have only data,
# so their type is the SSE default "message".
# =============================================================================================


@dataclass(frozen=True)
class Frame:
    """One frame: its SSE event type (``"message"`` for the JSON framings) and its data."""

    type: str
    data: str


def framing_of(body: bytes) -> str:
    """The framing ``auto`` chooses: "the first byte of the body that is not whitespace (after
    an optional BOM) chooses it. ``[`` is a JSON array, ``{`` is JSON lines, anything else is
    Server-Sent Events"."""
    rest = body[3:] if body.startswith(b"\xef\xbb\xbf") else body
    # OPEN: "whitespace" is read as JSON whitespace (space, tab, CR, LF), the whitespace the
    # JSON framings skip. Every bundled body starts with `[` or `d`.
    stripped = rest.lstrip(JSON_WHITESPACE.encode())
    if stripped.startswith(b"["):
        return "json_array"
    if stripped.startswith(b"{"):
        return "json_lines"
    # An empty body has no such byte: "anything else" is SSE (no events, not truncated).
    return "sse"


def body_text(body: bytes) -> str:
    """The body as text for the JSON framings: UTF-8 with U+FFFD for invalid bytes, "one
    leading BOM is skipped"."""
    text = body.decode("utf-8", errors="replace")
    return text[1:] if text.startswith("\ufeff") else text


def end_of_string(text: str, start: int) -> int | None:
    """The position after the closing quote of the JSON string opening at ``start``."""
    position = start + 1
    while position < len(text):
        char = text[position]
        if char == "\\":
            position += 2
            continue
        if char == '"':
            return position + 1
        position += 1
    return None


def end_of_container(text: str, start: int) -> int | None:
    """The position after the bracket closing the array or object opening at ``start``
    (strings skipped), or ``None`` when the text ends first."""
    depth = 0
    position = start
    while position < len(text):
        char = text[position]
        if char == '"':
            after = end_of_string(text, position)
            if after is None:
                return None
            position = after
            continue
        if char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
            if depth == 0:
                return position + 1
        position += 1
    return None


# A run of text that is neither whitespace nor structural: a number, true/false/null, or stray
# text, ended by whitespace or the next structural character.
# OPEN: the framing docstring says stray text between elements "is passed on as a frame of its
# own" without saying where such a frame ends. Here it ends at JSON whitespace, a comma, a
# bracket, a brace or a quote, so `[1 2]` is two frames and `[{...}, oops, {...}]` has the frame
# `oops`. No bundled body has stray text, a number or a literal at the top level.
BARE_RUN = re.compile(r'[^ \t\r\n,\[\]{}"]+')


def read_json_array(body: bytes) -> tuple[list[Frame], bool]:
    """The frames of a streamed JSON array and whether the framing discarded an unfinished one.

    json_values.py: "Every top-level value is one frame: the elements of the outermost array,
    and values outside any array too ... Whitespace, the commas between elements and the
    array's brackets are not frames ... What is not a JSON value (stray text between elements)
    is passed on as a frame of its own ... At the end of the stream a value ... that is not
    finished is discarded and truncated says so; for a JSON array, a missing closing ``]`` is
    truncation too."
    """
    text = body_text(body)
    frames: list[Frame] = []
    inside_array = False
    position = 0
    while position < len(text):
        char = text[position]
        if char in JSON_WHITESPACE:
            position += 1
            continue
        if not inside_array and char == "[":
            # OPEN: a second array after the first one closed is read as another outermost
            # array (its elements are frames). No bundled body has two.
            inside_array = True
            position += 1
            continue
        if inside_array and char == ",":
            position += 1
            continue
        if inside_array and char == "]":
            inside_array = False
            position += 1
            continue
        if char in "[{":
            # Inside the outer array a nested `[` is an element (the dialect reports it as
            # not a GenerateContentResponse); outside it only `{` gets here.
            end = end_of_container(text, position)
        elif char == '"':
            end = end_of_string(text, position)
        elif char in ",]}":
            # OPEN: a structural character where none belongs (`,` or `]` outside an array,
            # a stray `}`) is stray text of one character. No bundled body has one.
            end = position + 1
        else:
            match = BARE_RUN.match(text, position)
            assert match is not None
            end = match.end()
            # OPEN: a bare run that reaches the end of the body (`[... , 12`) is passed on
            # as complete; the body is truncated anyway when the array is still open.
        if end is None:
            # "a value ... that is not finished is discarded".
            return frames, True
        frames.append(Frame("message", text[position:end]))
        position = end
    # "for a JSON array, a missing closing `]` is truncation too".
    return frames, inside_array


def read_json_lines(body: bytes) -> tuple[list[Frame], bool]:
    """The frames of a JSON-lines body: "one value per line. A line ends at LF (a CR before it
    is dropped); blank lines are skipped", and an unfinished last line "is discarded and
    truncated says so"."""
    text = body_text(body)
    pieces = text.split("\n")
    frames: list[Frame] = []
    for piece in pieces[:-1]:
        line = piece[:-1] if piece.endswith("\r") else piece
        # OPEN: "blank" is read as empty or only JSON whitespace; either way such a line
        # would be a keep-alive for the dialect, so the choice changes no update.
        if line.strip(JSON_WHITESPACE) == "":
            continue
        frames.append(Frame("message", line))
    # OPEN: an unfinished last line of only whitespace is not counted as a discarded frame
    # (a blank line carries no value). No bundled body is JSON lines.
    truncated = pieces[-1].strip(JSON_WHITESPACE) != ""
    return frames, truncated


def read_frames(body: bytes) -> tuple[list[Frame], bool]:
    """The frames of a body by the ``auto`` framing, and the framing's ``truncated``."""
    kind = framing_of(body)
    if kind == "json_array":
        return read_json_array(body)
    if kind == "json_lines":
        return read_json_lines(body)
    events, truncated = read_events(body)
    return [Frame(event.type, event.data) for event in events], truncated


# =============================================================================================
# Part 2: field readers. JSON `null` is "not sent"; a value of the wrong type is skipped and
# its path added to `wrong`, which becomes the object's Error(invalid_chunk) (step 7).
# =============================================================================================


def get_str(obj: dict[str, Any], key: str, path: str, wrong: list[str]) -> str | None:
    value = obj.get(key)
    if value is None or isinstance(value, str):
        return value
    wrong.append(path)
    return None


def get_int(obj: dict[str, Any], key: str, path: str, wrong: list[str]) -> int | None:
    value = obj.get(key)
    if value is None or is_integer(value):
        return value
    wrong.append(path)
    return None


def get_dict(obj: dict[str, Any], key: str, path: str, wrong: list[str]) -> dict[str, Any] | None:
    value = obj.get(key)
    if value is None or isinstance(value, dict):
        return value
    wrong.append(path)
    return None


def get_list(obj: dict[str, Any], key: str, path: str, wrong: list[str]) -> list[Any] | None:
    value = obj.get(key)
    if value is None or isinstance(value, list):
        return value
    wrong.append(path)
    return None


# =============================================================================================
# Part 3: usage and finish reasons (the spec's tables).
# =============================================================================================

# The counts of the usage table; "A usageMetadata with none of these counts (`{}`) is ignored."
USAGE_COUNTS = (
    "promptTokenCount",
    "toolUsePromptTokenCount",
    "candidatesTokenCount",
    "thoughtsTokenCount",
    "totalTokenCount",
    "cachedContentTokenCount",
)


def usage_of(members: dict[str, Any]) -> dict[str, Any]:
    """The usage record of the merged ``usageMetadata`` members, by the usage table."""

    def count(key: str) -> int | None:
        value = members.get(key)
        return value if is_integer(value) else None

    # DOCS GAP: the table does not say what a missing addend is. It is 0: the schema's
    # `usage.Usage` says "The three totals default to 0", and Gemini omits
    # `toolUsePromptTokenCount` and `thoughtsTokenCount` when there are none (every bundled
    # stream but two omits one of them, and their goldens depend on this).
    prompt = (count("promptTokenCount") or 0) + (count("toolUsePromptTokenCount") or 0)
    completion = (count("candidatesTokenCount") or 0) + (count("thoughtsTokenCount") or 0)
    total = count("totalTokenCount")
    if total is None:
        total = prompt + completion
    hit = count("cachedContentTokenCount")
    miss = None if hit is None else max(prompt - hit, 0)
    return usage_record(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=total,
        prompt_cache_hit_tokens=hit,
        prompt_cache_miss_tokens=miss,
        reasoning_tokens=count("thoughtsTokenCount"),
    )


CONTENT_FILTER_REASONS = {
    "SAFETY",
    "RECITATION",
    "BLOCKLIST",
    "PROHIBITED_CONTENT",
    "SPII",
    "IMAGE_SAFETY",
    "IMAGE_PROHIBITED_CONTENT",
    "IMAGE_RECITATION",
}


def finish_reason_of(wire: str, had_function_call: bool) -> str:
    """The finish-reason table."""
    if wire == "STOP":
        return "tool_calls" if had_function_call else "stop"
    if wire == "MAX_TOKENS":
        return "length"
    if wire in CONTENT_FILTER_REASONS:
        return "content_filter"
    return wire  # "kept verbatim"


# =============================================================================================
# Part 4: partialArgs paths ("Paths are `$` followed by `.name`, `['name']`/`["name"]`
# (backslash escapes undone) and `[<n>]` steps; a path not starting with `$` is read as `$.` +
# path").
# =============================================================================================


def parse_path(path: str) -> list[str | int] | None:
    """The steps of a ``jsonPath`` (a name is a ``str``, an index an ``int``), or ``None``
    when it is unreadable."""
    if not path.startswith("$"):
        path = "$." + path
    steps: list[str | int] = []
    position = 1
    while position < len(path):
        char = path[position]
        if char == ".":
            match = re.compile(r"[^.\[]+").match(path, position + 1)
            if match is None:
                return None  # `$.` or `$..a`: an empty name
            steps.append(match.group())
            position = match.end()
        elif char == "[":
            if position + 1 < len(path) and path[position + 1] in "'\"":
                quote = path[position + 1]
                name_chars: list[str] = []
                cursor = position + 2
                while cursor < len(path) and path[cursor] != quote:
                    if path[cursor] == "\\":
                        # OPEN: "backslash escapes undone" is read as `\X` -> `X` for every X
                        # (so `\'`, `\"` and `\\`); JSON-style `\n` is not decoded. Every
                        # bundled path uses `.name` and `[n]` only.
                        cursor += 1
                        if cursor >= len(path):
                            return None
                    name_chars.append(path[cursor])
                    cursor += 1
                if cursor + 1 >= len(path) or path[cursor + 1] != "]":
                    return None
                steps.append("".join(name_chars))
                position = cursor + 2
            else:
                match = re.compile(r"\[([0-9]+)\]").match(path, position)
                if match is None:
                    return None
                steps.append(int(match.group(1)))
                position = match.end()
        else:
            return None
    return steps


class SkippedEntry(Exception):
    """A partialArgs entry that is skipped (and named in the object's invalid_chunk)."""


def set_at_path(root: dict[str, Any], steps: list[str | int], value: Any, append: bool) -> None:
    """Set ``value`` at ``steps`` in ``root``, creating missing objects and arrays on the way
    (arrays padded with ``null``); with ``append``, a string there is extended instead.

    Raises:
        SkippedEntry: the path crosses a value of another kind, or an index is more than
            1,024 past an array's end.
    """
    if not steps:
        # OPEN: the path `$` alone (no step) would replace the argument object itself; it is
        # skipped as unreadable. No bundled entry has it.
        raise SkippedEntry("the path has no step")
    container: Any = root
    for number, step in enumerate(steps):
        last = number == len(steps) - 1
        if isinstance(step, str):
            if not isinstance(container, dict):
                raise SkippedEntry("a name step on a value that is not an object")
            if last:
                current = container.get(step)
                container[step] = current + value if append and isinstance(current, str) else value
                return
            child = container.get(step)
            # OPEN: a `null` on the way (set by nullValue or array padding) is read as missing
            # and replaced by the object or array the next step needs. No bundled path
            # crosses one.
            if child is None:
                child = {} if isinstance(steps[number + 1], str) else []
                container[step] = child
            container = child
        else:
            if not isinstance(container, list):
                raise SkippedEntry("an index step on a value that is not an array")
            if step - len(container) > MAX_INDEX_PAST_END:
                raise SkippedEntry("an index more than 1,024 past the array's end")
            while len(container) <= step:
                container.append(None)
            if last:
                current = container[step]
                container[step] = current + value if append and isinstance(current, str) else value
                return
            child = container[step]
            if child is None:
                child = {} if isinstance(steps[number + 1], str) else []
                container[step] = child
            container = child


# The value members of a partialArgs entry, in the order the spec lists them.
# OPEN: an entry with several value members takes the first of this order; one whose member
# has the wrong JSON type (`"stringValue": 5`) is "an entry without a value". No bundled entry
# has either.
VALUE_KINDS: tuple[tuple[str, Any], ...] = (
    ("stringValue", str),
    ("numberValue", (int, float)),
    ("boolValue", bool),
    ("nullValue", object),
    ("structValue", dict),
    ("listValue", list),
)


def entry_value(entry: dict[str, Any]) -> tuple[str, Any] | None:
    """The kind and JSON value of a partialArgs entry, or ``None`` when it has none."""
    for kind, python_type in VALUE_KINDS:
        if kind not in entry:
            continue
        value = entry[kind]
        if kind == "nullValue":
            # "`nullValue` (any value, normally `"NULL_VALUE"`) is JSON `null`."
            return kind, None
        if value is None:
            continue
        if kind == "numberValue" and isinstance(value, bool):
            continue
        if isinstance(value, python_type):
            return kind, value
    return None


# =============================================================================================
# Part 5: the dialect.
# =============================================================================================


@dataclass
class OpenCall:
    """A streamed (``partialArgs``) call that has not ended."""

    index: int
    arguments: dict[str, Any] = field(default_factory=dict)
    partial_arrived: bool = False
    start_args: Any = None
    # The previous entry of this call: its jsonPath and whether it had willContinue: true.
    previous_path: str | None = None
    previous_continued: bool = False


def arguments_text(args: Any) -> str:
    """A whole call's ``arguments_delta``: "the compact JSON text of `args` in wire key order
    (`{}` stays `"{}"`), `""` when `args` is absent or `null` ..., and the text itself when
    `args` is a string"."""
    if args is None:
        return ""
    if isinstance(args, str):
        return args
    return compact_json(args)


class GeminiStreamReader:
    """Reads the frames of one ``streamGenerateContent`` body, in order, into updates."""

    def __init__(self) -> None:
        self.last_id: str | None = None
        self.last_model: str | None = None
        self.next_index = 0  # "numbers the calls of the stream 0, 1, 2, ..."
        self.open_call: OpenCall | None = None
        self.had_function_call = False
        # Section "Hosted (server-side) tools": the ids made up so far ("n counting the ids
        # made up earlier in the stream, from 0"), and per kind of call the calls that "have
        # no result yet", in arrival order.
        self.made_up_ids = 0
        self.without_result: dict[str, list[str]] = {"executableCode": [], "toolCall": []}
        self.usage_members: dict[str, Any] | None = None  # the merged usageMetadata members
        self.finish_emitted = False
        self.last_usage_emitted: dict[str, Any] | None = None
        self.clean_end = False  # a candidate finishReason or a promptFeedback.blockReason
        self.provider_error_seen = False

    # -- one frame -------------------------------------------------------------------------

    def read_frame(self, frame: Frame) -> list[dict[str, Any]]:
        """The updates of one frame (the table "A frame")."""
        data = frame.data

        # "an SSE event named `error`: Error(provider_error) (shared base)".
        if frame.type == "error":
            self.provider_error_seen = True
            # SETTLED BY GOLDEN (openai_chat, same shared base): the raw is the event's
            # whole data (conformance/goldens/openai_chat/event_error_frame.json); no
            # bundled gemini cassette has an `event: error`.
            return [error("provider_error", f"provider error: {shortened(data)}", shortened(data))]

        # "empty, or only JSON whitespace: none (a keep-alive)". There is no end marker.
        if data.strip(JSON_WHITESPACE) == "":
            return []

        if nested_deeper_than(data, MAX_JSON_DEPTH):
            return [error("json_too_deep", "too deep", shortened(data))]

        try:
            value, repairs = decode_json(data)
        except ValueError as exc:
            return [error("sse_parse_error", f"not JSON ({exc})", shortened(data))]

        if not isinstance(value, dict):
            return [error("invalid_chunk", "not a GenerateContentResponse object", shortened(data))]

        updates = self.read_response(value, data)
        # docs/dialects.md: repairs are "named in an invalid_chunk after the frame's updates".
        # OPEN: they are their own error, after step 7's (as in the openai_chat reader). No
        # bundled gemini body needs a repair.
        if repairs:
            updates.append(
                error("invalid_chunk", "repaired: " + "; ".join(repairs), shortened(data))
            )
        return updates

    # -- one GenerateContentResponse --------------------------------------------------------

    def read_response(self, obj: dict[str, Any], data: str) -> list[dict[str, Any]]:
        """Steps 1 to 7 of "For a GenerateContentResponse"."""
        updates: list[dict[str, Any]] = []
        wrong: list[str] = []

        # 1. ResponseMetadata "when either differs from the last ones emitted (empty strings
        # count as absent; an absent value is not a change)".
        response_id = get_str(obj, "responseId", "responseId", wrong) or None
        model = get_str(obj, "modelVersion", "modelVersion", wrong) or None
        if (response_id is not None and response_id != self.last_id) or (
            model is not None and model != self.last_model
        ):
            # OPEN: as in the openai_chat reader, the metadata carries this object's own
            # values, and only values sent are remembered. Every bundled object that sends
            # one sends both.
            updates.append(response_metadata(response_id, model))
            if response_id is not None:
                self.last_id = response_id
            if model is not None:
                self.last_model = model

        # 2. Error(provider_error) when the object has an `error` member.
        provider = obj.get("error")
        if provider is not None:
            # OPEN: the spec shows `error` as an object; a string `error` is read as its
            # message, anything else as an error without one. No bundled object has either.
            self.provider_error_seen = True
            # SETTLED BY GOLDEN: the raw of this error. The spec gives its message only; the
            # schema's "the offending input itself" fits both the whole data and the error
            # member. conformance/goldens/gemini/json_array_error_element_mid_stream.json has
            # the frame's whole data (the array element's text).
            updates.append(error("provider_error", provider_message(provider), shortened(data)))

        # Step 6's merge happens first: "merged into the stored usage ... before step 5 reads
        # it". DOCS GAP: step 4's Finish "usage" is not said to include this object's usage;
        # it is read the same way as step 5's ("the usage known so far (this object's
        # included)"): prompt_blocked_no_candidates.yaml sends its only usage beside the
        # block reason.
        self.merge_usage(obj, wrong)

        # 3. The candidate.
        candidate = self.first_candidate(obj, wrong)
        finish_wire: str | None = None
        if candidate is not None:
            updates.extend(self.read_candidate(candidate, data, wrong))
            finish_wire = (
                get_str(candidate, "finishReason", "candidates[0].finishReason", wrong) or None
            )

        finished_here = False

        # 4. promptFeedback.blockReason.
        feedback = get_dict(obj, "promptFeedback", "promptFeedback", wrong)
        if feedback is not None:
            block = get_str(feedback, "blockReason", "promptFeedback.blockReason", wrong)
            if block:
                block_message = get_str(
                    feedback, "blockReasonMessage", "promptFeedback.blockReasonMessage", wrong
                )
                message = f"provider error in stream: prompt blocked: {block}"
                if block_message:
                    message += f" ({block_message})"
                self.provider_error_seen = True
                self.clean_end = True
                # SETTLED BY GOLDEN: the raw is the frame's whole data, as for step 2's error
                # (conformance/goldens/gemini/prompt_blocked_no_candidates.json).
                updates.append(error("provider_error", message, shortened(data)))
                if finish_wire is None:
                    # OPEN: the block reason's Finish does not end an open streamed call (only
                    # the candidate's finishReason is said to). No bundled stream has both.
                    updates.append(finish("content_filter", self.current_usage()))
                    self.note_finish()
                    finished_here = True

        # 5. The candidate's finishReason.
        if finish_wire is not None:
            updates.extend(self.end_open_call(at_close=False))
            updates.append(
                finish(finish_reason_of(finish_wire, self.had_function_call), self.current_usage())
            )
            self.note_finish()
            self.clean_end = True
            finished_here = True

        # 6. Usage after a Finish: "When no Finish was emitted for this object, a Finish was
        # already emitted earlier in the stream, and the merged usage differs from the last
        # usage emitted: Usage(usage)".
        usage = self.current_usage()
        if (
            not finished_here
            and self.finish_emitted
            and usage is not None
            and usage != self.last_usage_emitted
        ):
            updates.append(usage_update(usage))
            self.last_usage_emitted = usage

        # 7. Error(invalid_chunk) naming every field of a wrong type that was skipped.
        if wrong:
            # OPEN: the raw is the frame's data, as for the other invalid_chunk rows. No
            # bundled object has a field of a wrong type.
            updates.append(
                error(
                    "invalid_chunk",
                    "fields of a wrong type, skipped: " + ", ".join(wrong),
                    shortened(data),
                )
            )
        return updates

    def note_finish(self) -> None:
        self.finish_emitted = True
        self.last_usage_emitted = self.current_usage()

    def current_usage(self) -> dict[str, Any] | None:
        return None if self.usage_members is None else usage_of(self.usage_members)

    def merge_usage(self, obj: dict[str, Any], wrong: list[str]) -> None:
        """Step 6's merge: "each top-level member present and not `null` replaces the earlier
        value of that member; absent members keep theirs; nothing is summed"."""
        metadata = get_dict(obj, "usageMetadata", "usageMetadata", wrong)
        if metadata is None:
            return
        counts: dict[str, int] = {}
        for key in USAGE_COUNTS:
            # OPEN: a count of a wrong type (`"promptTokenCount": "12"`) is a field of a wrong
            # type: skipped (the earlier value stays) and named in step 7. The spec's usage
            # table, unlike openai_chat's, says nothing of malformed counts. Every bundled
            # count is an integer.
            value = get_int(metadata, key, f"usageMetadata.{key}", wrong)
            if value is not None:
                counts[key] = value
        # "A usageMetadata with none of these counts (`{}`) is ignored" (Vertex's first
        # chunk sends only `trafficType`).
        if not counts:
            return
        if self.usage_members is None:
            self.usage_members = {}
        self.usage_members.update(counts)

    def first_candidate(self, obj: dict[str, Any], wrong: list[str]) -> dict[str, Any] | None:
        """ "the first element of `candidates` whose `index` is `0` or absent"."""
        candidates = get_list(obj, "candidates", "candidates", wrong) or []
        for position, candidate in enumerate(candidates):
            if not isinstance(candidate, dict):
                # OPEN: a candidate that is not an object, met before candidate 0, is named as
                # a field of a wrong type. No bundled object has one.
                wrong.append(f"candidates[{position}]")
                continue
            index = get_int(candidate, "index", f"candidates[{position}].index", wrong)
            if index is None or index == 0:
                return candidate
        return None

    def read_candidate(
        self, candidate: dict[str, Any], data: str, wrong: list[str]
    ) -> list[dict[str, Any]]:
        """The parts of candidate 0, in order."""
        updates: list[dict[str, Any]] = []
        content = get_dict(candidate, "content", "candidates[0].content", wrong)
        if content is None:
            return updates
        parts = get_list(content, "parts", "candidates[0].content.parts", wrong) or []
        for position, part in enumerate(parts):
            path = f"candidates[0].content.parts[{position}]"
            if not isinstance(part, dict):
                wrong.append(path)
                continue
            # OPEN: a part with both `text` and `functionCall` gives the text's update first,
            # in the order the spec lists the kinds. Every bundled part has one kind.
            text = get_str(part, "text", f"{path}.text", wrong)
            if text:
                # "`"thought": "yes"` is read as not a thought and is not an error".
                if part.get("thought") is True:
                    updates.append(reasoning_delta(text))
                else:
                    updates.append(text_delta(text))
            call = get_dict(part, "functionCall", f"{path}.functionCall", wrong)
            if call is not None:
                updates.extend(self.read_function_call(call, f"{path}.functionCall", data, wrong))
            # "`executableCode`, `codeExecutionResult`, `toolCall`, `toolResponse` -> a hosted
            # call or its result"; "`inlineData`, `fileData`, ... -> nothing".
            # OPEN: a part holding several of these gives their updates in the order the spec
            # lists them, after a functionCall's. No bundled part holds two.
            for kind in ("executableCode", "codeExecutionResult", "toolCall", "toolResponse"):
                if kind not in part:
                    continue
                hosted = get_dict(part, kind, f"{path}.{kind}", wrong)
                if hosted is not None:
                    updates.append(self.read_hosted(part, kind, hosted, f"{path}.{kind}", wrong))
            signature = get_str(part, "thoughtSignature", f"{path}.thoughtSignature", wrong)
            if signature:
                # "on a part with `thought: true` -> `ReasoningSignature`; on any other part ->
                # `PartSignature(thoughtSignature, part)`".
                if part.get("thought") is True:
                    updates.append(reasoning_signature(signature))
                elif isinstance(part.get("functionCall"), dict):
                    updates.append(part_signature(signature, "tool_call"))
                elif any(
                    isinstance(part.get(kind), dict)
                    for kind in (
                        "executableCode",
                        "codeExecutionResult",
                        "toolCall",
                        "toolResponse",
                    )
                ):
                    updates.append(part_signature(signature, "hosted"))
                else:
                    updates.append(part_signature(signature, "text" if text else "empty"))
        return updates

    # -- hosted tools ------------------------------------------------------------------------

    def read_hosted(
        self, part: dict[str, Any], kind: str, obj: dict[str, Any], path: str, wrong: list[str]
    ) -> dict[str, Any]:
        """One part of the table of section "Hosted (server-side) tools"."""
        wire_id = get_str(obj, "id", f"{path}.id", wrong)
        given = wire_id if wire_id else None  # "its `id` when a non-empty string"

        def item_with(kept: dict[str, Any]) -> dict[str, Any]:
            # "`item`: the part without its `thoughtSignature` ..., its object keeping only
            # what is not in `arguments` or `output`".
            item = {key: value for key, value in part.items() if key != "thoughtSignature"}
            item[kind] = kept
            return item

        if kind in ("executableCode", "toolCall"):
            if kind == "executableCode":
                name = "code_execution"
                # "arguments=<the executableCode object without its id>".
                arguments: Any = {key: value for key, value in obj.items() if key != "id"}
                kept = {key: value for key, value in obj.items() if key == "id"}
            else:
                tool_type = get_str(obj, "toolType", f"{path}.toolType", wrong)
                # "<toolType in lower case ...; without one, tool_call>".
                # OPEN: an empty toolType counts as none. No bundled part has one.
                name = tool_type.lower() if tool_type else "tool_call"
                arguments = obj.get("args")  # "None when absent"
                kept = {key: value for key, value in obj.items() if key != "args"}
            call_id = given if given is not None else self.make_up_id(name)
            # OPEN: a call id seen before is moved to the end of the calls without a result
            # (it is the latest). No bundled stream repeats one.
            waiting = self.without_result[kind]
            if call_id in waiting:
                waiting.remove(call_id)
            waiting.append(call_id)
            return hosted_tool_call(call_id, name, arguments, item_with(kept))

        answers = "executableCode" if kind == "codeExecutionResult" else "toolCall"
        name = "code_execution_result" if kind == "codeExecutionResult" else "tool_response"
        waiting = self.without_result[answers]
        if given is not None:
            call_id = given
            # OPEN: a result naming a call by its id takes that call off the waiting list, so
            # an id-less result after it does not answer it again. The bundled streams with
            # ids answer each call once.
            if given in waiting:
                waiting.remove(given)
        elif waiting:
            # "the latest call of its kind ... that has no result yet, which it answers".
            call_id = waiting.pop()
        else:
            call_id = self.make_up_id(name)
        error_text: str | None = None
        if kind == "codeExecutionResult":
            output = obj.get("output", "")  # `"" when absent`
            kept = {key: value for key, value in obj.items() if key != "output"}
            outcome = get_str(obj, "outcome", f"{path}.outcome", wrong)
            # "outcome when it is a non-empty string other than OUTCOME_OK".
            if outcome and outcome != "OUTCOME_OK":
                error_text = outcome
        else:
            output = obj.get("response", {})  # "{} when absent"
            kept = {key: value for key, value in obj.items() if key != "response"}
        return hosted_tool_result(call_id, name, output, error_text, item_with(kept))

    def make_up_id(self, name: str) -> str:
        """ "`<name>_<n>` (`code_execution_0`), n counting the ids made up earlier in the
        stream, from 0"."""
        made_up = f"{name}_{self.made_up_ids}"
        self.made_up_ids += 1
        return made_up

    # -- tool calls --------------------------------------------------------------------------

    def read_function_call(
        self, call: dict[str, Any], path: str, data: str, wrong: list[str]
    ) -> list[dict[str, Any]]:
        """One `functionCall` part (section "Tool calls")."""
        updates: list[dict[str, Any]] = []
        name = get_str(call, "name", f"{path}.name", wrong) or None
        call_id = get_str(call, "id", f"{path}.id", wrong) or None
        # OPEN: like `thought`, a `willContinue` that is not `true` is read as not true and is
        # not an error. Every bundled willContinue is `true`.
        will_continue = call.get("willContinue") is True
        partial = get_list(call, "partialArgs", f"{path}.partialArgs", wrong)
        args = call.get("args")

        if name is not None:
            # "at a `functionCall` that has a `name` (a new call, which then starts)".
            updates.extend(self.end_open_call(at_close=False))
            self.had_function_call = True
            index = self.take_index()
            if will_continue or partial:
                # A streamed call starts: "it emits ToolCallDelta(index=n, id, name,
                # arguments_delta="") at once".
                # OPEN: a named `functionCall` with `partialArgs` and without `willContinue:
                # true` is read as a streamed call that starts and ends in the same part (the
                # end rule: "a final one with partialArgs"). No bundled part is one.
                updates.append(tool_call_delta(index, call_id, name, ""))
                self.open_call = OpenCall(index=index, start_args=args)
                self.apply_partial(partial or [], path, wrong)
                if not will_continue:
                    updates.extend(self.end_open_call(at_close=False))
                return updates
            # Whole call.
            updates.append(tool_call_delta(index, call_id, name, arguments_text(args)))
            return updates

        if self.open_call is not None:
            # "Later parts `functionCall` without a `name` continue the open call".
            # OPEN: `args` and `id` on a continuation are not read. No bundled continuation
            # has them.
            self.apply_partial(partial or [], path, wrong)
            # "The call ends at a `functionCall` whose `willContinue` is not `true`".
            if not will_continue:
                updates.extend(self.end_open_call(at_close=False))
            return updates

        # "A nameless `functionCall` with no open streamed call".
        if partial or will_continue:
            # OPEN: the raw of protocol_violation is not given; it is the frame's data, as for
            # the dialect's other errors. No bundled part is one.
            updates.append(
                error("protocol_violation", "a nameless streamed functionCall", shortened(data))
            )
            self.had_function_call = True
            index = self.take_index()
            updates.append(tool_call_delta(index, call_id, None, ""))
            self.open_call = OpenCall(index=index, start_args=args)
            self.apply_partial(partial or [], path, wrong)
            if not will_continue:
                updates.extend(self.end_open_call(at_close=False))
            return updates
        if args is not None:
            # "with `args`, a whole call without a name (no dialect error)".
            self.had_function_call = True
            updates.append(tool_call_delta(self.take_index(), call_id, None, arguments_text(args)))
            return updates
        # "empty (`{}`), Error(protocol_violation) and nothing else".
        # OPEN: this part is not counted as "a functionCall" for STOP -> tool_calls (no call
        # was numbered); the finish table's "the stream had at least one functionCall" is
        # read as "at least one tool call". No bundled stream has a lone empty functionCall.
        updates.append(error("protocol_violation", "an empty functionCall", shortened(data)))
        return updates

    def take_index(self) -> int:
        index = self.next_index
        self.next_index += 1
        return index

    def apply_partial(self, entries: list[Any], path: str, wrong: list[str]) -> None:
        """The `partialArgs` entries of one part, applied to the open call."""
        call = self.open_call
        assert call is not None
        for number, entry in enumerate(entries):
            entry_path = f"{path}.partialArgs[{number}]"
            # OPEN: "no partialArgs arrived" is read as "no entry arrived, valid or not": a
            # call whose entries were all skipped ends with "{}" (the converter reads an
            # empty text as {} too, so the choice changes no response). No bundled entry is
            # skipped.
            call.partial_arrived = True
            if not isinstance(entry, dict):
                wrong.append(entry_path)
                continue
            json_path = entry.get("jsonPath")
            steps = parse_path(json_path) if isinstance(json_path, str) else None
            found = entry_value(entry)
            if steps is None or found is None or len(steps) > MAX_JSON_DEPTH:
                wrong.append(entry_path)
                continue
            kind, value = found
            entry_continues = entry.get("willContinue") is True
            # "a `stringValue` for the same `jsonPath` as the previous entry of this call,
            # when that entry had `willContinue: true`, is appended to the string there".
            # OPEN: "the same `jsonPath`" is read as the same `jsonPath` text (so `$.a` after
            # `a` is set, not appended, although both name the same place), and "the previous
            # entry" is the previous entry applied (a skipped one does not count). Every
            # bundled continuation repeats its path verbatim.
            append = (
                kind == "stringValue"
                and call.previous_continued
                and call.previous_path == json_path
            )
            try:
                set_at_path(call.arguments, steps, value, append)
            except SkippedEntry:
                wrong.append(entry_path)
                continue
            call.previous_path = json_path
            call.previous_continued = entry_continues

    def end_open_call(self, *, at_close: bool) -> list[dict[str, Any]]:
        """The open streamed call ends: "one ToolCallDelta(index=n, arguments_delta=<compact
        JSON of the assembled object>) is emitted (nothing when no partialArgs arrived)"."""
        call = self.open_call
        if call is None:
            return []
        self.open_call = None
        if call.partial_arrived:
            text = compact_json(call.arguments)
        elif call.start_args is not None:
            # "the start's args, when present and no partialArgs came, are the arguments".
            text = arguments_text(call.start_args)
        else:
            text = ""
        if at_close:
            # "A call still open when the stream ends ... gets that text without its final
            # `}`". OPEN: with nothing arrived, "that text" is read as "{}" (so "{"): the
            # sentence's aim is "never a call with made-up arguments", and an empty text
            # would be read as a complete `{}`. A string `args` that does not end with `}`
            # is left whole. No bundled stream ends inside a call.
            if text == "":
                text = "{}"
            if text.endswith("}"):
                text = text[:-1]
        if text == "":
            return []
        # SETTLED BY GOLDEN: the spec writes this update as `ToolCallDelta(index=n,
        # arguments_delta=...)`, leaving id and name unset (None), and
        # conformance/goldens/gemini/vertex_partial_args_streaming.json has id and name
        # null. The start's id is not repeated.
        return [tool_call_delta(call.index, None, None, text)]

    # -- the end of the stream ---------------------------------------------------------------

    def close(self, truncated: bool) -> list[dict[str, Any]]:
        """ "End of stream": the open call's arguments, the stored usage, then truncation."""
        updates = self.end_open_call(at_close=True)
        # "when the stream ends without a finish reason, the stored usage (if any, and not
        # emitted yet) is emitted as Usage at close".
        usage = self.current_usage()
        if not self.finish_emitted and usage is not None:
            updates.append(usage_update(usage))
        # SETTLED BY GOLDEN: the spec lists two stream_truncated bullets, one for a discarded
        # frame "even after a finish reason" and one for a missing finishReason; it does not
        # say whether a stream to which both apply gets two errors. docs/dialects.md
        # ("stream_truncated when the framing discarded a frame, or when the terminal event
        # never came") suggests one, and conformance/goldens/gemini/json_array_cut_mid_element.json
        # has one, the discarded-frame one. Its raw is null, as in the openai_chat goldens.
        if truncated:
            updates.append(
                error(
                    "stream_truncated",
                    "stream ended inside an unfinished frame (an SSE event or a JSON value); "
                    "its data was discarded",
                    None,
                )
            )
        elif not self.clean_end and not self.provider_error_seen:
            updates.append(error("stream_truncated", "stream ended without a finishReason", None))
        return updates


def provider_message(provider: Any) -> str:
    """`provider error in stream: <message> (code <code>)` (never compared)."""
    if isinstance(provider, dict):
        message = provider.get("message")
        code = provider.get("code")
        text = message if isinstance(message, str) and message else compact_json(provider)
        suffix = f" (code {code})" if code is not None else ""
        return f"provider error in stream: {shortened(text)}{suffix}"
    if isinstance(provider, str):
        return f"provider error in stream: {shortened(provider)}"
    return f"provider error in stream: {shortened(compact_json(provider))}"


# =============================================================================================
# The whole response.
# =============================================================================================


def read_updates(status: int, reason: str, body: bytes) -> list[dict[str, Any]]:
    """The canonical updates of one recorded response: its status, reason phrase and body."""
    # docs/conformance.md: a non-2xx status "is not read as a stream: its output is one
    # `http_error` update". Its raw is the body text, shortened, as the openai_chat reader
    # settled from conformance/goldens/openai_chat/http_429_json_error.json (no bundled gemini
    # cassette has an error status).
    if not 200 <= status < 300:
        text = body.decode("utf-8", errors="replace")
        return [error("http_error", f"HTTP {status} {reason}: {shortened(text)}", shortened(text))]
    frames, truncated = read_frames(body)
    reader = GeminiStreamReader()
    updates: list[dict[str, Any]] = []
    for frame in frames:
        updates.extend(reader.read_frame(frame))
    updates.extend(reader.close(truncated))
    return updates


# =============================================================================================
# A deliberately simple aggregate of a real recorded stream (for the shared corpus). It does
# not go through read_updates: it concatenates what the candidate-0 parts carry.
# =============================================================================================


def aggregate(body: bytes) -> dict[str, Any]:
    """{"text", "reasoning", "tool_calls": [(id or None, name, arguments)], "hosted":
    [[name, arguments, answered]], "finish_reason", "usage": (prompt, completion, total) or
    None} of one recorded body."""
    frames, _ = read_frames(body)
    text = ""
    reasoning: str | None = None
    calls: list[tuple[str | None, str | None, Any]] = []
    # The tools Google ran: [name, arguments, answered, kind of call part], and by call id,
    # the entry.
    hosted: list[list[Any]] = []
    hosted_by_id: dict[str, list[Any]] = {}
    streaming: dict[str, Any] | None = None  # the open partialArgs call
    finish_wire: str | None = None
    members: dict[str, Any] = {}
    for frame in frames:
        try:
            obj = json.loads(frame.data)
        except ValueError:
            continue
        if not isinstance(obj, dict):
            continue
        metadata = obj.get("usageMetadata")
        if isinstance(metadata, dict):
            members.update(
                {k: v for k, v in metadata.items() if k in USAGE_COUNTS and is_integer(v)}
            )
        feedback = obj.get("promptFeedback")
        if isinstance(feedback, dict) and feedback.get("blockReason"):
            # A blocked prompt finishes as content_filter (written here as a wire value
            # that maps to it).
            finish_wire = finish_wire or "SAFETY"
        candidate = next(
            (
                c
                for c in obj.get("candidates") or []
                if isinstance(c, dict) and c.get("index", 0) in (0, None)
            ),
            None,
        )
        if candidate is None:
            continue
        for part in (candidate.get("content") or {}).get("parts") or []:
            if isinstance(part.get("text"), str) and part["text"]:
                if part.get("thought") is True:
                    reasoning = (reasoning or "") + part["text"]
                else:
                    text += part["text"]
            for part_kind in ("executableCode", "toolCall"):
                if isinstance(part.get(part_kind), dict):
                    wire = part[part_kind]
                    seen: list[Any]
                    if part_kind == "executableCode":
                        seen = ["code_execution", {k: v for k, v in wire.items() if k != "id"}]
                    else:
                        seen = [str(wire.get("toolType")).lower(), wire.get("args")]
                    seen += [False, part_kind]
                    hosted.append(seen)
                    hosted_by_id[wire.get("id") or f"{part_kind}{len(hosted)}"] = seen
            for part_kind, name, of in (
                ("codeExecutionResult", "code_execution_result", "executableCode"),
                ("toolResponse", "tool_response", "toolCall"),
            ):
                if isinstance(part.get(part_kind), dict):
                    answered = hosted_by_id.get(part[part_kind].get("id") or "")
                    if answered is None:
                        # No id: the latest call of its kind still waiting for its result.
                        waiting = [e for e in hosted if not e[2] and e[3] == of]
                        answered = waiting[-1] if waiting else None
                    if answered is None:
                        hosted.append([name, None, True, of])
                    else:
                        answered[2] = True
            call = part.get("functionCall")
            if not isinstance(call, dict):
                continue
            if call.get("name") and call.get("willContinue") is not True:
                args = call.get("args")
                calls.append((call.get("id") or None, call["name"], {} if args is None else args))
            elif call.get("name"):
                streaming = {"id": call.get("id") or None, "name": call["name"], "args": {}}
                calls.append((streaming["id"], streaming["name"], streaming["args"]))
            if streaming is not None:
                for entry in call.get("partialArgs") or []:
                    steps = parse_path(entry["jsonPath"])
                    assert steps is not None
                    kind, value = entry_value(entry) or ("", None)
                    set_at_path(streaming["args"], steps, value, kind == "stringValue")
                if call.get("willContinue") is not True:
                    streaming = None
        if candidate.get("finishReason"):
            finish_wire = candidate["finishReason"]
    usage = None
    if members:
        record = usage_of(members)
        usage = (record["prompt_tokens"], record["completion_tokens"], record["total_tokens"])
    finish_reason = None
    if finish_wire is not None:
        finish_reason = finish_reason_of(finish_wire, bool(calls))
    return {
        "text": text,
        "reasoning": reasoning,
        "tool_calls": calls,
        "hosted": [entry[:3] for entry in hosted],
        "finish_reason": finish_reason,
        "usage": usage,
    }
