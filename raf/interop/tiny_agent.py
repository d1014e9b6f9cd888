"""tiny-agent's ``AgentMessage`` stream (the Rust crate ``tiny-agent`` 0.3.0), both ways. No IO.

tiny-agent sends its front end one ``AgentMessage`` per event: the envelope ``session_id`` and
``at`` (Unix milliseconds) with a ``MessageKind`` flattened into it, tagged by ``"type"`` in
snake_case; the blocks of a message (``ContentBlock``) are tagged the other way, one PascalCase
key each. serde_json writes them so::

    {"session_id":"raf","at":0,"type":"reasoning_started"}
    {"session_id":"raf","at":1,"type":"partial_assistant_message","delta":"Check"}
    {"session_id":"raf","at":2,"type":"tool_call","call_id":"c1","name":"get_weather",
     "arguments":{"city":"Paris"}}
    {"session_id":"raf","at":3,"type":"assistant_message","blocks":[{"Thinking":{"text":"…"}},
     {"Text":{"text":"Checking."}},{"ToolUse":{"id":"c1","name":"get_weather","input":{…}}}]}
    {"session_id":"raf","at":4,"type":"tool_response","call_id":"c1",
     "output":[{"Text":{"text":"22°C"}}],"is_error":false}

:class:`TinyAgentEncoder` writes raf's results so: ``reasoning_started`` when a model round's
first content arrives, ``partial_assistant_message`` per text delta, ``partial_tool_call`` per
fragment of a call's arguments, ``tool_call`` when a call is complete (``ToolCalling``), the
round's ``assistant_message`` when it ends (its blocks are those of raf's message of the round,
``AgentResponse.turn_transcript``: thinking, text and tool_use in stream order), and
``tool_response`` per tool result (``ToolCalled``). tiny-agent has no partial reasoning: the
reasoning is the ``Thinking`` blocks of the ``assistant_message``.

:class:`TinyAgentDecoder` reads them back. A round's ``assistant_message`` is tiny-agent's
formed message and decides the round (its blocks give the text, the reasoning and the calls,
in their order; tiny-agent documents the partial kinds as reserved, so a producer may send
none): the round's contents are given when it arrives, and its partial items only when it
never does (a stream cut in the round). No crate exists for Python; the items are checked
against ``tiny_agent.schema.json``, written from the crate's Rust types (:func:`schema`).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from importlib import resources
from typing import Any, Final

from raf.collect import ResponseCollector
from raf.interop.base import JSON, Model, Row
from raf.model import blocks, contents, events
from raf.model.codes import ErrorCode
from raf.model.messages import MessageRole
from raf.model.response import AgentResponse, AgentResponseResult

__all__ = ["MODEL", "TinyAgentDecoder", "TinyAgentEncoder", "schema", "transcript"]

_U64_MAX: Final = 2**64 - 1

# The fields of each MessageKind variant (tiny_agent::messages, 0.3.0) and their JSON types:
# what the decoder requires of an item (every field, as none is an Option).
_STR, _BOOL, _BLOCKS, _VALUE = "string", "boolean", "array of ContentBlock", "JSON value"
KINDS: Final[dict[str, dict[str, str]]] = {
    "user_message": {"text": _STR},
    "reasoning_started": {},
    "partial_assistant_message": {"delta": _STR},
    "assistant_message": {"blocks": _BLOCKS},
    "partial_tool_call": {"call_id": _STR, "name": _STR, "delta": _STR},
    "tool_call": {"call_id": _STR, "name": _STR, "arguments": _VALUE},
    "tool_output": {"chunk": _STR},
    "tool_response": {"call_id": _STR, "output": _BLOCKS, "is_error": _BOOL},
}
"""tiny-agent's ``MessageKind``: each variant's ``type`` tag and its fields with their types."""

BLOCKS: Final[dict[str, dict[str, str]]] = {
    "Text": {"text": _STR},
    "Thinking": {"text": _STR},
    "ToolUse": {"id": _STR, "name": _STR, "input": _VALUE},
    "ToolResult": {"tool_use_id": _STR, "content": _BLOCKS, "is_error": _BOOL},
}
"""tiny-agent's ``ContentBlock``: each variant's key and its fields with their types."""

# The converter's events that can make a block of the round's message by themselves (a
# signature with no text of its own, redacted reasoning, a reasoning item, a raw item).
_BLOCK_EVENTS: Final = frozenset(
    {"reasoning_signature", "part_signature", "redacted_reasoning", "reasoning_item", "raw_item"}
)

# The contents that are not part of a model round: they neither start one nor go in its message.
_OUTSIDE_ROUND: Final = (contents.ToolCalled, contents.ToolApprovalRequest, contents.RoundFinished)


@functools.cache
def schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one tiny-agent item, written from the crate's Rust
    types: ``jsonschema.Draft202012Validator(schema()).validate(item)``."""
    text = resources.files("raf.interop").joinpath("tiny_agent.schema.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def _text_block(kind: str, text: str) -> JSON:
    return {kind: {"text": text}}


def _block(block: blocks.Block) -> JSON | None:
    """raf's block of an assistant message as tiny-agent's, or ``None`` when it has none."""
    if isinstance(block, blocks.Text):
        return _text_block("Text", block.text)
    if isinstance(block, blocks.Reasoning):
        return _text_block("Thinking", block.text)
    if isinstance(block, blocks.ToolCall):
        return {"ToolUse": {"id": block.id, "name": block.name, "input": block.arguments}}
    return None  # a hosted tool, a raw item: tiny-agent has no block for them


_ROLES: Final[dict[str, str]] = {
    MessageRole.SYSTEM: "System",
    MessageRole.USER: "User",
    MessageRole.ASSISTANT: "Assistant",
    MessageRole.TOOL: "Tool",
}
"""raf's message roles as tiny-agent's ``Role`` (serde writes the variant's name)."""


def _result_text(content: JSON) -> str:
    if isinstance(content, str):
        return content
    return json.dumps(content, ensure_ascii=False, separators=(",", ":"))


def _message_block(block: blocks.Block) -> JSON | None:
    """Any block of raf's messages as tiny-agent's, or ``None`` when it has none."""
    if isinstance(block, blocks.ToolResult):
        return {
            "ToolResult": {
                "tool_use_id": block.call_id,
                "content": [_text_block("Text", _result_text(block.content))],
                "is_error": block.is_error,
            }
        }
    return _block(block)


def transcript(response: AgentResponse) -> list[JSON]:
    """The turn's messages (``response.turn_transcript``: each round's assistant message and
    the tool messages answering it) as tiny-agent's transcript ``Message { role, blocks }``:
    what ``raf pipeline --response --format tiny-agent`` prints. A tool message is a ``Tool``
    message with one ``ToolResult`` block; blocks tiny-agent has no variant for are left out."""
    out: list[JSON] = []
    for message in response.turn_transcript:
        tiny = [b for b in map(_message_block, message.blocks) if b is not None]
        if not message.blocks and message.content:
            tiny = [_text_block("Text", message.content)]
        out.append({"role": _ROLES.get(message.role, "User"), "blocks": tiny})
    return out


class TinyAgentEncoder:
    """raf's results in, tiny-agent ``AgentMessage`` s (JSON values) out.

    Args:
        session_id: every item's ``session_id``.
        at: every item's ``at`` (Unix milliseconds). An ``int`` is the first item's, and each
            next item's is one more, so the output is the same on every run (the default
            numbers the items 0, 1, 2, …); a function is called for each item
            (``lambda: time.time_ns() // 1_000_000`` for the real time).
    """

    def __init__(self, *, session_id: str = "raf", at: int | Callable[[], int] = 0) -> None:
        self._session_id = session_id
        self._clock = at if callable(at) else None
        self._next_at = 0 if callable(at) else at
        self._round: ResponseCollector | None = None  # the open model round's message
        self._pending: list[contents.Content] = []  # of the open round, not yet collected
        self._names: dict[str, str] = {}  # call id -> tool name, for partial_tool_call

    def _item(self, kind: str, **fields: JSON) -> JSON:
        if self._clock is not None:
            at = self._clock()
        else:
            at = self._next_at
            self._next_at += 1
        return {"session_id": self._session_id, "at": at, "type": kind, **fields}

    def _start(self, out: list[JSON]) -> ResponseCollector:
        if self._round is None:
            self._round = ResponseCollector()
            out.append(self._item("reasoning_started"))
        return self._round

    def _collect(self, result_events: tuple[events.Event, ...] = ()) -> None:
        if self._round is not None and (self._pending or result_events):
            self._round.add(
                AgentResponseResult(contents=tuple(self._pending), events=result_events)
            )
            self._pending = []

    def _end(self, out: list[JSON]) -> None:
        """The open round's ``assistant_message``: raf's message of the round, as blocks."""
        self._collect()
        collector, self._round = self._round, None
        if collector is None:
            return
        tiny: list[JSON] = []
        for message in collector.response().turn_transcript:
            if message.role == MessageRole.ASSISTANT:
                for block in message.blocks:
                    converted = _block(block)
                    if converted is not None:
                        tiny.append(converted)
        out.append(self._item("assistant_message", blocks=tiny))

    def feed(self, result: AgentResponseResult) -> list[JSON]:
        out: list[JSON] = []
        for content in result.contents:
            if isinstance(content, _OUTSIDE_ROUND):
                if isinstance(content, contents.RoundFinished):
                    self._end(out)
                elif isinstance(content, contents.ToolCalled):
                    out.append(self._tool_response(content))
                continue  # an approval request: tiny-agent has no message for it
            self._start(out)
            self._pending.append(content)
            if isinstance(content, contents.Text):
                out.append(self._item("partial_assistant_message", delta=content.delta))
            elif isinstance(content, contents.ToolCallStart):
                self._names[content.call_id] = content.name
            elif isinstance(content, contents.ToolCallArgs):
                out.append(
                    self._item(
                        "partial_tool_call",
                        call_id=content.call_id,
                        name=self._names.get(content.call_id, ""),
                        delta=content.args_delta,
                    )
                )
            elif isinstance(content, contents.ToolCalling):
                out.append(
                    self._item(
                        "tool_call",
                        call_id=content.call_id,
                        name=content.name,
                        arguments=content.arguments,
                    )
                )
        custom = tuple(e for e in result.events if isinstance(e, events.Custom))
        if any(e.event_type in _BLOCK_EVENTS for e in custom):
            self._start(out)  # a signed part with no text of its own is a block of the round
        self._collect(custom)
        return out

    def _tool_response(self, content: contents.ToolCalled) -> JSON:
        is_error = content.result is None and content.error is not None
        text = content.error if is_error else content.result
        return self._item(
            "tool_response",
            call_id=content.call_id,
            output=[_text_block("Text", text or "")],
            is_error=is_error,
        )

    def close(self) -> list[JSON]:
        out: list[JSON] = []
        self._end(out)
        return out


# -- the way back --------------------------------------------------------------------------


def _type_problem(value: object, expected: str) -> bool:
    if expected == _STR:
        return not isinstance(value, str)
    if expected == _BOOL:
        return not isinstance(value, bool)
    if expected == _BLOCKS:
        return not isinstance(value, list)
    return False  # a JSON value: anything


def _fields_problem(fields: dict[str, Any], spec: dict[str, str], where: str) -> str | None:
    for name, expected in spec.items():
        if name not in fields:
            return f"{where} has no {name!r}"
        if _type_problem(fields[name], expected):
            return f"{where}'s {name!r} is not a {expected}"
    return None


def _blocks_problem(value: list[Any], where: str) -> str | None:
    """What is wrong with a list of ContentBlocks, or ``None``."""
    for i, block in enumerate(value):
        place = f"{where}[{i}]"
        if not isinstance(block, dict) or len(block) != 1:
            return f"{place} is not a ContentBlock (one key: Text, Thinking, ToolUse, ToolResult)"
        ((key, fields),) = block.items()
        spec = BLOCKS.get(key)
        if spec is None:
            return f"{place} is of no ContentBlock variant: {key!r}"
        if not isinstance(fields, dict):
            return f"{place}'s {key} is not an object"
        problem = _fields_problem(fields, spec, f"{place}'s {key}")
        if problem is None and key == "ToolResult":
            problem = _blocks_problem(fields["content"], f"{place}.content")
        if problem is not None:
            return problem
    return None


def _problem(item: object) -> str | None:
    """What keeps ``item`` from being a tiny-agent ``AgentMessage``, or ``None``."""
    if not isinstance(item, dict):
        return "not a JSON object"
    if not isinstance(item.get("session_id"), str):
        return "no session_id string"
    at = item.get("at")
    if not isinstance(at, int) or isinstance(at, bool) or not 0 <= at <= _U64_MAX:
        return "no at (Unix milliseconds, an unsigned integer)"
    kind = item.get("type")
    if not isinstance(kind, str):
        return "no type string"
    spec = KINDS.get(kind)
    if spec is None:
        return f"type {kind!r} is no MessageKind ({', '.join(KINDS)})"
    problem = _fields_problem(item, spec, kind)
    if problem is None:
        for name, expected in spec.items():
            if expected == _BLOCKS:
                problem = _blocks_problem(item[name], f"{kind}.{name}")
    return problem


def _quote(item: object) -> str:
    text = json.dumps(item, ensure_ascii=False, default=repr)
    return text if len(text) <= 200 else text[:197] + "..."


def _arguments_text(value: JSON) -> str:
    """A call's input as the raw text of its arguments (a string is taken as that text)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _joined_text(output: list[Any]) -> tuple[str, int]:
    """The text of a list of (valid) ContentBlocks, and how many blocks were not text."""
    texts = [b["Text"]["text"] for b in output if "Text" in b]
    return "".join(texts), len(output) - len(texts)


class TinyAgentDecoder:
    """tiny-agent ``AgentMessage`` s (JSON values) in, raf's results out. Never raises.

    A round (from one ``reasoning_started`` to the next) is given when its ``assistant_message``
    arrives: its ``Thinking``, ``Text`` and ``ToolUse`` blocks in their order, as ``Reasoning``,
    ``Text`` and tool call contents (start, the arguments' text, end); a call is ``ToolCalling``
    once its ``tool_call`` arrived (before the message or after it). A new round ends the last
    one with ``RoundFinished``; ``tool_response`` is ``ToolCalled``, given at its round's end
    (the next ``reasoning_started``, or the end of the items: raf ends a round before the
    answers to its calls, and tiny-agent may send a call after another's answer). The partial
    items of a round whose message never came are given at its end. ``user_message`` and
    ``tool_output`` have no place in raf's results: they are counted in one
    ``unrecognised_chunks`` notice at the end. An item that is not tiny-agent's is an
    ``invalid_chunk`` error naming its position.
    """

    def __init__(self) -> None:
        self._position = -1
        self._rounds = 0  # rounds ended so far
        self._open = False  # a round started (reasoning_started or one of its items)
        self._texts: list[str] = []  # the open round's partial text
        self._partial_calls: dict[str, tuple[str, list[str]]] = {}  # id -> (name, fragments)
        self._calls: dict[str, tuple[str, JSON]] = {}  # tool_call items not yet given
        self._given: set[str] = set()  # call ids whose ToolCallStart was given
        self._called: set[str] = set()  # call ids whose ToolCalling was given
        self._answers: list[contents.Content] = []  # the open round's tool responses
        self._skipped = 0
        self._first_skipped: object = None
        self._skipped_kinds: list[str] = []

    def feed(self, item: JSON) -> list[AgentResponseResult]:
        self._position += 1
        problem = _problem(item)
        if problem is not None:
            message = (
                f"item {self._position} is not a tiny-agent message: {problem}: {_quote(item)}"
            )
            error = contents.Error(error_code=ErrorCode.INVALID_CHUNK, message=message)
            return [AgentResponseResult(contents=(error,))]
        kind = item["type"]
        out: list[contents.Content] = []
        if kind == "reasoning_started":
            self._end_round(out)
            self._open = True
        elif kind == "partial_assistant_message":
            self._open = True
            self._texts.append(item["delta"])
        elif kind == "partial_tool_call":
            self._open = True
            call = self._partial_calls.setdefault(item["call_id"], (item["name"], []))
            call[1].append(item["delta"])
        elif kind == "tool_call":
            self._open = True
            self._tool_call(item["call_id"], item["name"], item["arguments"], out)
        elif kind == "assistant_message":
            self._open = True
            self._message(item["blocks"], out)
        elif kind == "tool_response":
            text, others = _joined_text(item["output"])
            if others:
                self._skip(f"{others} non-text block(s) of a tool_response", item)
            error = item["is_error"]
            answers = self._answers if self._open else out  # after the round's end
            answers.append(
                contents.ToolCalled(
                    call_id=item["call_id"],
                    result=None if error else text,
                    error=text if error else None,
                )
            )
        else:  # user_message, tool_output: nothing of raf's results
            self._skip(kind, item)
        return [AgentResponseResult(contents=tuple(out))] if out else []

    def _skip(self, what: str, item: object) -> None:
        self._skipped += 1
        if self._first_skipped is None:
            self._first_skipped = item
        if what not in self._skipped_kinds:
            self._skipped_kinds.append(what)

    def _start_call(self, call_id: str, name: str, out: list[contents.Content]) -> None:
        if call_id not in self._given:
            self._given.add(call_id)
            out.append(contents.ToolCallStart(call_id=call_id, name=name))

    def _tool_call(self, call_id: str, name: str, arguments: JSON, out: list[Any]) -> None:
        if call_id in self._given:  # its ToolUse block came first (tiny-agent's own order)
            if call_id not in self._called:
                self._called.add(call_id)
                out.append(contents.ToolCalling(call_id=call_id, name=name, arguments=arguments))
        else:
            self._calls[call_id] = (name, arguments)

    def _message(self, tiny_blocks: list[Any], out: list[contents.Content]) -> None:
        """A formed assistant message: the round's contents in the blocks' order."""
        for block in tiny_blocks:
            ((key, fields),) = block.items()
            if key == "Text":
                out.append(contents.Text(delta=fields["text"]))
            elif key == "Thinking":
                out.append(contents.Reasoning(delta=fields["text"]))
            elif key == "ToolUse":
                call_id, name = fields["id"], fields["name"]
                fragments = self._partial_calls.get(call_id, ("", []))[1]
                self._start_call(call_id, name, out)
                raw = "".join(fragments) if fragments else _arguments_text(fields["input"])
                out.append(contents.ToolCallArgs(call_id=call_id, args_delta=raw))
                out.append(contents.ToolCallEnd(call_id=call_id))
                called = self._calls.pop(call_id, None)
                if called is not None:
                    self._called.add(call_id)
                    out.append(
                        contents.ToolCalling(call_id=call_id, name=name, arguments=called[1])
                    )
            else:
                self._skip("a ToolResult block of an assistant_message", block)
        self._texts = []
        self._partial_calls = {}
        self._give_calls(out)

    def _give_calls(self, out: list[contents.Content]) -> None:
        """The tool_call items of the round no block placed: given where they stand."""
        for call_id, (name, arguments) in self._calls.items():
            self._start_call(call_id, name, out)
            self._called.add(call_id)
            out.append(contents.ToolCalling(call_id=call_id, name=name, arguments=arguments))
        self._calls = {}

    def _end_round(self, out: list[contents.Content], *, last: bool = False) -> None:
        """End the open round: what of it was not given yet (its message never came), then
        ``RoundFinished`` and the answers to its calls. The ``last`` round of the run has no
        ``RoundFinished`` unless its calls were answered (the run stopped after running them)."""
        if not self._open:
            return
        if self._texts:
            out.extend(contents.Text(delta=t) for t in self._texts)
            self._texts = []
        for call_id, (name, fragments) in self._partial_calls.items():
            self._start_call(call_id, name, out)
            out.extend(contents.ToolCallArgs(call_id=call_id, args_delta=f) for f in fragments)
        self._partial_calls = {}
        self._give_calls(out)
        if not last or self._answers:
            out.append(contents.RoundFinished(round=self._rounds))
        out.extend(self._answers)
        self._answers = []
        self._rounds += 1
        self._open = False
        self._given = set()  # a call id is the round's: a later round may use it again
        self._called = set()

    def close(self) -> list[AgentResponseResult]:
        out: list[contents.Content] = []
        self._end_round(out, last=True)
        if self._skipped:
            out.append(
                contents.Error(
                    error_code=ErrorCode.UNRECOGNISED_CHUNKS,
                    message=(
                        f"{self._skipped} tiny-agent item(s) or block(s) have no place in raf's "
                        f"results and were skipped ({', '.join(self._skipped_kinds)}); the "
                        f"first: {_quote(self._first_skipped)}"
                    ),
                )
            )
        return [AgentResponseResult(contents=tuple(out))] if out else []


_NO_SIGNATURE = "tiny-agent's Thinking and Text blocks have a text and nothing else."
_BLOCK_LIST = (
    "The list of blocks can differ: a hosted tool or a raw item has no block, and two "
    "adjacent Thinking (or Text) blocks come back as one, as raf's contents cannot mark where "
    "one ends; every other block comes back in order with its text, id and name."
)
ROWS: Final = (
    Row("id", "", "tiny-agent's envelope has a session id and a time, no response id."),
    Row("model", "", "No tiny-agent message names the model."),
    Row("text", "assistant_message Text blocks; partial_assistant_message deltas"),
    Row("reasoning_text", "assistant_message Thinking blocks (tiny-agent streams no reasoning)"),
    Row("tool_calls[].id", "tool_call.call_id; ToolUse.id"),
    Row("tool_calls[].name", "tool_call.name; ToolUse.name"),
    Row("tool_calls[].arguments", "tool_call.arguments (a JSON value); ToolUse.input"),
    Row(
        "hosted_tool_calls",
        "",
        "tiny-agent has no message or block for a tool the provider ran, and a ToolUse would "
        "tell its consumer to run it.",
    ),
    Row(
        "approval_requests",
        "",
        "MessageKind has no variant for a call that waits for approval (the call itself is "
        "sent as tool_call).",
    ),
    Row("tool_messages[].role", "tool_response"),
    Row("tool_messages[].content", "tool_response.output (one Text block)"),
    Row("tool_messages[].tool_call_id", "tool_response.call_id"),
    Row("tool_messages[].name", "tool_response (a tool message has no name)"),
    Row("tool_messages[].source", "tool_response"),
    Row("tool_messages[].tool_calls", "tool_response (a tool message has no calls)"),
    Row("tool_messages[].blocks[].call_id", "tool_response.call_id"),
    Row("tool_messages[].blocks[].content", "tool_response.output"),
    Row("tool_messages[].blocks[].is_error", "tool_response.is_error"),
    Row("tool_messages[].blocks[].name", "tool_call.name of the call it answers"),
    Row("turn_transcript[].role", "assistant_message (one per round); tool_response"),
    Row("turn_transcript[].content", "assistant_message Text blocks; tool_response.output"),
    Row("turn_transcript[].tool_calls", "tool_call items of the round"),
    Row("turn_transcript[].tool_call_id", "tool_response.call_id"),
    Row("turn_transcript[].name", "assistant_message; tool_response (neither has a name)"),
    Row("turn_transcript[].source", "assistant_message; tool_response"),
    Row(
        "turn_transcript[].blocks[]",
        "assistant_message.blocks (Thinking, Text, ToolUse); tool_response (ToolResult)",
        _BLOCK_LIST,
    ),
    Row(
        "turn_transcript[].blocks[].arguments",
        "ToolUse.input",
        "A call whose arguments were not JSON has their raw text as ToolUse.input, but raf "
        "takes a call's arguments only from tool_call, which such a call has not.",
    ),
    Row("turn_transcript[].blocks[].signature", "", _NO_SIGNATURE),
    Row(
        "turn_transcript[].blocks[].redacted",
        'Thinking { text: "" }',
        "Redacted reasoning is an empty Thinking block; its data has no field.",
    ),
    Row("turn_transcript[].blocks[].encrypted_content", "", _NO_SIGNATURE),
    Row("turn_transcript[].blocks[].item_id", "", _NO_SIGNATURE),
    Row("turn_transcript[].blocks[].summary", "", _NO_SIGNATURE),
    Row("turn_transcript[].blocks[].output", "", "A hosted tool has no block."),
    Row("turn_transcript[].blocks[].value", "", "A raw item has no block."),
    Row("finish_reason", "", "No tiny-agent message carries the provider's finish reason."),
    Row("usage", "", "No tiny-agent message carries token usage."),
    Row("errors", "", "MessageKind has no variant for an error."),
    Row("notices", "", "MessageKind has no variant for a notice."),
    Row(
        "rounds[].finish_reason",
        "reasoning_started (a round's start)",
        "A round's start and end are kept (reasoning_started, assistant_message), not its "
        "finish reason.",
    ),
    Row("rounds[].usage", "", "No tiny-agent message carries token usage."),
)

MODEL: Final = Model(
    name="tiny-agent",
    title="tiny-agent",
    validator=(
        "the JSON Schema raf/interop/tiny_agent.schema.json, written from tiny-agent 0.3.0's "
        "Rust types (jsonschema)"
    ),
    encoder=TinyAgentEncoder,
    decoder=TinyAgentDecoder,
    rows=ROWS,
    aggregate=transcript,
)
