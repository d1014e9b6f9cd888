"""The tool loop (RAF's ``FunctionInvokingChatClient``, raf-spec 5) as a sans-IO state
machine, in the manner of h11: a :class:`ToolLoop` is fed what happened (:class:`Begin`, each
:class:`InnerUpdate` of the model's turn, :class:`InnerEnded`, :class:`ModelCallFailed`, the
:class:`ToolsDone` outcomes, :class:`Cancel`) and returns what to do (:class:`Emit` an update,
:class:`CallModel` with these messages, :class:`RunTools`, :class:`Fail`, :class:`Done`). It
decides everything; the shells (:mod:`raf.agent.invoking`) only call the model, run tools in
threads or tasks and watch for cancellation.

The states and the moves between them are :data:`TRANSITIONS`; docs/agent.md ("The tool loop")
draws them and lists the error texts (:data:`ERROR_TEXTS`); tests check both against this
module.

What a round's calls are comes from the converter and the collector, fed the same updates the
loop emits (so the loop's ids are the ones a converter downstream reports): the assistant
message of the round is the collector's ``turn_transcript[0]``, with its blocks (reasoning and
its signatures, reasoning items, call ids and item ids), and that is the message sent back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Final, TypeAlias

import jsonschema
import msgspec

from raf.agent.errors import ChatClientError, HttpStatusError
from raf.agent.tools import Tool, ToolRegistry, ToolResult, ToolText
from raf.collect import ResponseCollector
from raf.converter import AgentResponseConverter
from raf.formats.conversation import arguments_text
from raf.model import blocks, contents, events, updates
from raf.model._base import JSONValue
from raf.model.codes import ErrorCode
from raf.model.messages import ChatMessage, MessageRole, ToolApprovalResponse
from raf.model.updates import AgentResponseUpdate
from raf.model.usage import FinishReason, Usage
from raf.safe_json import UnusableJSON, decode_strict

__all__ = [
    "DEFAULT_MAX_ROUNDS",
    "ERROR_TEXTS",
    "TRANSITIONS",
    "Begin",
    "CallModel",
    "Cancel",
    "Done",
    "Emit",
    "Fail",
    "InnerEnded",
    "InnerUpdate",
    "Invocation",
    "LoopError",
    "ModelCallFailed",
    "Raised",
    "Returned",
    "RunTools",
    "State",
    "ToolLoop",
    "ToolsDone",
    "schema_problems",
]

DEFAULT_MAX_ROUNDS: Final = 10
"""Model calls per run, at most (RAF's default)."""

CANCELLED_MESSAGE: Final = "Agent run cancelled"

# -- the error texts the model reads (raf-spec 5.4, 5.4.1, 5.7) ----------------------------

NO_ARGUMENTS: Final = (
    "Tool '{name}' was called without any arguments. Expected schema: {schema}. "
    "Please provide all required fields."
)
INVALID_JSON: Final = (
    "Tool '{name}' was called with invalid JSON arguments: {raw}\n"
    "Parse error: {error}\n"
    "Please provide valid JSON with all required fields."
)
EXPECTED_SCHEMA_SUFFIX: Final = " Expected schema: {schema}"
INVALID_ARGUMENTS: Final = (
    "Tool '{name}' was called with invalid or incomplete arguments.\n"
    "You sent: {raw}\n"
    "Problem: {problems}\n"
    "Expected schema: {schema}\n"
    "Please fix your arguments and retry."
)
NOT_AN_OBJECT: Final = (
    "Expected a JSON object with named parameters, but received: {what}. "
    'Please use the format {{"param1": value1, "param2": value2}}.'
)
BARE_STRING: Final = (
    'Expected a JSON object, but received a bare string: "{text}". '
    'Did you mean {{"<parameter_name>": "{text}"}}? '
    "Check the schema below for the correct parameter names."
)
MISSING_FIELD: Final = 'Missing required field: "{key}"'
WRONG_TYPE: Final = 'Field "{key}" has type "{actual}", but expected type {expected}.'
OTHER_PROBLEM: Final = "At {path}: {message}"
NOT_FOUND: Final = "Tool '{name}' not found"
FRAMEWORK_ERROR: Final = '{{"data":null,"error":{display},"ok":false}}'
FRAMEWORK_ERROR_DISPLAY: Final = "Framework error: {exception}"
SERIALIZE_ERROR: Final = '{{"ok":false,"error":{message}}}'
REJECTED: Final = "Rejected: {reason}"
USER_DENIED: Final = "User denied"

ERROR_TEXTS: Final[tuple[tuple[str, str, str], ...]] = (
    ("no arguments (the tool has required parameters)", "NO_ARGUMENTS", NO_ARGUMENTS),
    ("arguments not one JSON document", "INVALID_JSON", INVALID_JSON),
    ("... and the tool exists", "EXPECTED_SCHEMA_SUFFIX", EXPECTED_SCHEMA_SUFFIX),
    ("arguments that fail the schema", "INVALID_ARGUMENTS", INVALID_ARGUMENTS),
    ("problem: not an object", "NOT_AN_OBJECT", NOT_AN_OBJECT),
    ("problem: a non-empty bare string", "BARE_STRING", BARE_STRING),
    ("problem: a required key missing", "MISSING_FIELD", MISSING_FIELD),
    ("problem: a top-level value of another type", "WRONG_TYPE", WRONG_TYPE),
    ("problem: anything else the schema says", "OTHER_PROBLEM", OTHER_PROBLEM),
    ("unknown tool", "NOT_FOUND", NOT_FOUND),
    ("the tool raised", "FRAMEWORK_ERROR", FRAMEWORK_ERROR),
    ("... its display", "FRAMEWORK_ERROR_DISPLAY", FRAMEWORK_ERROR_DISPLAY),
    ("a result that is not JSON", "SERIALIZE_ERROR", SERIALIZE_ERROR),
    ("a rejected call (resume)", "REJECTED", REJECTED),
    ("... without a reason", "USER_DENIED", USER_DENIED),
)
"""Every text the loop writes for the model: (situation, constant, template). docs/agent.md's
table is checked against it."""


def _json_type(value: object) -> str:
    """The JSON type name of a value (RAF's names: ``string``, ``number``, ``boolean``,
    ``array``, ``object``, ``null``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    return "object"


def _expected(schema_type: object) -> str:
    if isinstance(schema_type, list):
        return " or ".join(f'"{t}"' for t in schema_type)
    return f'"{schema_type}"'


def schema_problems(value: JSONValue, validator: jsonschema.protocols.Validator) -> list[str]:
    """What is wrong with ``value`` under the tool's schema (raf-spec 5.4.1), ``[]`` when it
    is valid.

    The schema decides (JSON Schema, by ``jsonschema``); the problems RAF reports keep RAF's
    words: not an object (:data:`NOT_AN_OBJECT`, :data:`BARE_STRING`), a required key missing
    (:data:`MISSING_FIELD`, in the schema's order), a top-level value of another type
    (:data:`WRONG_TYPE`, in the arguments' order); every other problem (an ``enum``, a nested
    value, ``additionalProperties``...) is ``jsonschema``'s message, after the path of the
    value (:data:`OTHER_PROBLEM`).
    """
    if not isinstance(value, dict):
        if isinstance(value, str) and value:
            return [BARE_STRING.format(text=value)]
        if isinstance(value, str):
            what = "an empty string"
        elif value is None:
            what = "null"
        elif isinstance(value, bool):
            what = "a boolean"
        elif isinstance(value, list | tuple):
            what = "an array"
        else:
            what = "a number"
        return [NOT_AN_OBJECT.format(what=what)]
    missing: list[str] = []
    wrong: dict[str, str] = {}
    other: list[tuple[str, str]] = []
    for found in validator.iter_errors(value):
        error = _deepest(found)
        path = list(error.absolute_path)
        if error.validator == "required" and not path:
            key = _missing_key(error)
            if key is not None:
                missing.append(key)
                continue
        if (
            error is found
            and error.validator == "type"
            and len(path) == 1
            and isinstance(path[0], str)
        ):
            key = path[0]
            wrong[key] = WRONG_TYPE.format(
                key=key,
                actual=_json_type(error.instance),
                expected=_expected(error.validator_value),
            )
            continue
        where = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)
        other.append((where, OTHER_PROBLEM.format(path=where, message=error.message)))
    required = validator.schema.get("required", []) if isinstance(validator.schema, dict) else []
    order = {key: n for n, key in enumerate(required) if isinstance(key, str)}
    missing.sort(key=lambda k: order.get(k, len(order)))
    problems = [MISSING_FIELD.format(key=k) for k in missing]
    problems.extend(wrong[key] for key in value if key in wrong)
    problems.extend(text for _, text in sorted(other))
    return problems


def _deepest(error: jsonschema.ValidationError) -> jsonschema.ValidationError:
    """The most relevant error under an ``anyOf``/``oneOf`` failure: among the branches'
    errors the deepest, a wrong type last (the branch of the value's own type went further),
    so the model reads what is wrong inside."""
    while error.context:
        error = max(error.context, key=lambda e: (len(e.absolute_path), e.validator != "type"))
    return error


def _missing_key(error: jsonschema.ValidationError) -> str | None:
    """The key a ``required`` error names."""
    required = error.validator_value
    instance = error.instance
    if isinstance(required, list) and isinstance(instance, dict):
        for key in required:
            if isinstance(key, str) and key not in instance and f"'{key}'" in error.message:
                return key
    return None


def framework_error(exception: BaseException) -> str:
    """The error text of a tool that raised (:data:`FRAMEWORK_ERROR`): RAF's object with its
    keys sorted (``data``, ``error``, ``ok``) as serde_json writes it."""
    message = str(exception)
    display = type(exception).__name__ + (f": {message}" if message else "")
    text = msgspec.json.encode(FRAMEWORK_ERROR_DISPLAY.format(exception=display)).decode()
    return FRAMEWORK_ERROR.format(display=text)


def result_text(value: ToolResult | ToolText | str) -> str:
    """What the model reads for a tool's result: a ``str`` or a ``ToolText`` as it is, a
    ``ToolResult`` as its JSON text (:data:`SERIALIZE_ERROR` when its data is not JSON)."""
    if isinstance(value, str):
        return value
    if isinstance(value, ToolText):
        return value.text
    try:
        return value.to_json()
    except (TypeError, ValueError, msgspec.EncodeError) as exc:
        return SERIALIZE_ERROR.format(message=msgspec.json.encode(f"serialize: {exc}").decode())


# -- what the loop is fed -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Begin:
    """The run starts."""


@dataclass(frozen=True, slots=True)
class InnerUpdate:
    """One update of the model's turn, as the inner client streamed it."""

    update: AgentResponseUpdate


@dataclass(frozen=True, slots=True)
class InnerEnded:
    """The inner client's stream ended."""


@dataclass(frozen=True, slots=True)
class ModelCallFailed:
    """The inner client raised instead of streaming (a :class:`ChatClientError`, before its
    first update)."""

    error: BaseException


@dataclass(frozen=True, slots=True)
class Returned:
    """A tool returned ``value``."""

    value: ToolResult | ToolText | str


@dataclass(frozen=True, slots=True)
class Raised:
    """A tool raised ``error``."""

    error: BaseException


Outcome: TypeAlias = Returned | Raised


@dataclass(frozen=True, slots=True)
class ToolsDone:
    """The outcomes of a :class:`RunTools`, one per invocation in its order."""

    outcomes: tuple[Outcome, ...]


@dataclass(frozen=True, slots=True)
class Cancel:
    """The run was cancelled (the caller's ``Cancellation`` is set)."""


Event: TypeAlias = Begin | InnerUpdate | InnerEnded | ModelCallFailed | ToolsDone | Cancel

# -- what the loop asks for ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Emit:
    """Pass ``update`` to the caller."""

    update: AgentResponseUpdate


@dataclass(frozen=True, slots=True)
class CallModel:
    """Stream the inner client's turn for ``messages`` (model round ``round``, from 0); feed
    each update, then :class:`InnerEnded`."""

    messages: tuple[ChatMessage, ...]
    round: int


@dataclass(frozen=True, slots=True)
class Invocation:
    """Run ``tool`` with ``arguments`` (the call ``call_id``)."""

    call_id: str
    tool: Tool
    arguments: JSONValue


@dataclass(frozen=True, slots=True)
class RunTools:
    """Run these invocations (concurrently) and feed :class:`ToolsDone` with their outcomes in
    this order."""

    invocations: tuple[Invocation, ...]


@dataclass(frozen=True, slots=True)
class Fail:
    """Raise ``error`` to the caller (the first model call failed before any update)."""

    error: BaseException


@dataclass(frozen=True, slots=True)
class Done:
    """The run is over: nothing more to emit."""


Action: TypeAlias = Emit | CallModel | RunTools | Fail | Done


class State(Enum):
    """Where a run is."""

    READY = "ready"
    """Made; nothing fed yet."""
    RESUMING = "resuming"
    """Running the calls a previous run left waiting for approval (raf-spec 5.7)."""
    STREAMING = "streaming"
    """A model round is streaming."""
    RUNNING = "running"
    """The round's tools are running."""
    DONE = "done"
    """Over."""


TRANSITIONS: Final[dict[tuple[State, type], tuple[State, ...]]] = {
    (State.READY, Begin): (State.RESUMING, State.STREAMING, State.DONE),
    (State.READY, Cancel): (State.DONE,),
    (State.RESUMING, ToolsDone): (State.STREAMING, State.DONE),
    (State.RESUMING, Cancel): (State.DONE,),
    (State.STREAMING, InnerUpdate): (State.STREAMING,),
    (State.STREAMING, InnerEnded): (State.RUNNING, State.STREAMING, State.DONE),
    (State.STREAMING, ModelCallFailed): (State.DONE,),
    (State.STREAMING, Cancel): (State.DONE,),
    (State.RUNNING, ToolsDone): (State.STREAMING, State.DONE),
    (State.RUNNING, Cancel): (State.DONE,),
}
"""Each (state, event) the loop accepts and the states it may move to; anything else is a
:class:`LoopError` (a bug in the shell that drives it)."""

TRANSITION_NOTES: Final[dict[tuple[State, type], str]] = {
    (State.READY, Begin): (
        "approval responses with calls pending: RESUMING; else max_rounds 0: Finish(max_rounds),"
        " DONE; else CallModel: STREAMING"
    ),
    (State.READY, Cancel): "Error(cancelled)",
    (State.RESUMING, ToolsDone): "ToolCalled per pending call; CallModel or Finish(max_rounds)",
    (State.RESUMING, Cancel): "Error(cancelled)",
    (State.STREAMING, InnerUpdate): "forwarded, except Finish (kept for the round)",
    (State.STREAMING, InnerEnded): (
        "no calls: the Finish forwarded, DONE; no finish reason: DONE; calls: RoundFinished, "
        "then approval requests and Finish(awaiting_approval) (DONE), or RunTools (RUNNING), "
        "or, when every call is answered without running, ToolCalled and the next round"
    ),
    (
        State.STREAMING,
        ModelCallFailed,
    ): "Fail before any update, else Error(http_error or transport_error)",
    (State.STREAMING, Cancel): "Error(cancelled)",
    (State.RUNNING, ToolsDone): "ToolCalled per call; CallModel or Finish(max_rounds)",
    (State.RUNNING, Cancel): "Error(cancelled)",
}
"""What each transition emits (docs/agent.md's table)."""


class LoopError(RuntimeError):
    """The loop was fed an event its state does not accept (a bug in the driving shell)."""


@dataclass(slots=True)
class _Call:
    """One call of a round (or of the message a resume answers), and how it is answered."""

    id: str  # the id the assistant message gives the call: the tool message answers it
    name: str
    arguments: JSONValue  # parsed, or the raw text when it was not JSON
    raw: str  # the text the model sent ("" when none arrived)
    parse_error: str | None = None  # why the text is not usable JSON
    tool: Tool | None = None
    content: str | None = None  # the answer, once decided
    is_error: bool = False
    run: bool = False  # the tool runs (its outcome gives the answer)


class ToolLoop:
    """One run of the tool loop over ``messages``.

    Args:
        messages: the conversation the caller sent.
        registry: the tools (the static ones merged with the call's provider tools).
        max_rounds: model calls at most (10 by default; 0 never calls the model).
        approval_responses: the answers to the approval requests of the previous run; with
            them the run first answers the calls of the last assistant message that calls
            tools (raf-spec 5.7).
    """

    def __init__(
        self,
        messages: Sequence[ChatMessage],
        registry: ToolRegistry,
        *,
        max_rounds: int = DEFAULT_MAX_ROUNDS,
        approval_responses: Sequence[ToolApprovalResponse] = (),
    ) -> None:
        if max_rounds < 0:
            raise ValueError("max_rounds must be 0 or more")
        self.registry = registry
        self.max_rounds = max_rounds
        self.messages: list[ChatMessage] = list(messages)
        """The conversation so far: the caller's, then what the loop added."""
        self.transcript: list[ChatMessage] = []
        """What the loop added to the conversation, in order: each tool round's assistant
        message and tool messages (and a paused round's assistant message)."""
        self.state = State.READY
        self.round = 0
        """Model calls made so far."""
        self.emitted = 0
        """Updates emitted so far."""
        self._responses = {r.call_id: r for r in approval_responses}  # the later one wins
        self._converter = AgentResponseConverter()
        self._collector = ResponseCollector()
        self._calls: list[_Call] = []
        self._running: list[_Call] = []
        self._insert_at: int | None = None  # where a resume's tool messages go
        self._finish: updates.Finish | None = None
        self._usage: Usage | None = None
        self._raw: dict[str, list[str]] = {}  # converter call id -> its argument fragments
        self._provider_ids: dict[str, str] = {}  # converter call id -> the provider's id
        self._results: dict[str, contents.Content] = {}  # converter id -> ToolCalling | Error

    # -- driving -------------------------------------------------------------------------

    def feed(self, event: Event) -> list[Action]:
        """Take ``event`` into account; what to do next, in order.

        Raises:
            LoopError: the current state does not accept ``event``.
        """
        allowed = TRANSITIONS.get((self.state, type(event)))
        if allowed is None:
            raise LoopError(f"the tool loop in state {self.state.value!r} cannot take {event!r}")
        handler = _HANDLERS[type(event)]
        actions: list[Action] = handler(self, event)
        if self.state not in allowed:  # pragma: no cover - the table and the code disagree
            raise LoopError(f"moved to {self.state.value!r}, which the table does not allow")
        self.emitted += sum(1 for a in actions if isinstance(a, Emit))
        return actions

    # -- handlers ------------------------------------------------------------------------

    def _on_begin(self, event: Begin) -> list[Action]:
        del event
        if self._responses:
            resumed = self._pending()
            if resumed:
                for call in resumed:
                    self._decide_resumed(call)
                self._calls = resumed
                return self._run_or_answer(State.RESUMING)
        return self._next_round([])

    def _on_update(self, event: InnerUpdate) -> list[Action]:
        update = event.update
        if isinstance(update, updates.Finish):
            self._finish = update
            if update.usage is not None:
                self._usage = update.usage
            return []
        if isinstance(update, updates.Usage):
            self._usage = update.usage
        self._observe(update)
        return [Emit(update)]

    def _on_ended(self, event: InnerEnded) -> list[Action]:
        del event
        self.round += 1
        finish = self._finish
        message = self._message()
        has_calls = message is not None and any(
            isinstance(b, blocks.ToolCall) for b in message.blocks
        )
        if finish is None:
            # No finish reason: the turn was cut (its errors were forwarded). Nothing runs.
            self.state = State.DONE
            return [Done()]
        if not has_calls:
            self.state = State.DONE
            return [Emit(finish), Done()]
        mark = updates.RoundFinished(
            round=self.round - 1, finish_reason=finish.finish_reason, usage=self._usage
        )
        self._observe(mark)
        out: list[Action] = [Emit(mark)]
        message = self._message()
        assert message is not None
        self._calls = [
            self._round_call(b) for b in message.blocks if isinstance(b, blocks.ToolCall)
        ]
        self.messages.append(message)
        self.transcript.append(message)
        waiting = [
            c for c in self._calls if c.run and c.tool is not None and c.tool.requires_approval
        ]
        if waiting:
            for call in waiting:
                assert call.tool is not None
                out.append(
                    Emit(
                        updates.ToolApprovalRequest(
                            call_id=call.id,
                            name=call.name,
                            arguments=call.arguments,
                            description=call.tool.description,
                        )
                    )
                )
            out.append(Emit(updates.Finish(finish_reason=FinishReason.AWAITING_APPROVAL)))
            out.append(Done())
            self.state = State.DONE
            return out
        out.extend(self._run_or_answer(State.RUNNING))
        return out

    def _on_failed(self, event: ModelCallFailed) -> list[Action]:
        self.state = State.DONE
        if self.emitted == 0:
            return [Fail(event.error)]
        error = event.error
        code = (
            ErrorCode.HTTP_ERROR
            if isinstance(error, HttpStatusError)
            else ErrorCode.TRANSPORT_ERROR
        )
        message = error.message if isinstance(error, ChatClientError) else str(error)
        return [Emit(updates.Error(error_code=code, message=message)), Done()]

    def _on_tools_done(self, event: ToolsDone) -> list[Action]:
        if len(event.outcomes) != len(self._running):
            raise LoopError(f"{len(event.outcomes)} outcomes for {len(self._running)} invocations")
        for call, outcome in zip(self._running, event.outcomes, strict=True):
            if isinstance(outcome, Returned):
                value = outcome.value
                call.content = result_text(value)
                call.is_error = isinstance(value, ToolText) and value.is_error
            else:
                call.content, call.is_error = framework_error(outcome.error), True
        self._running = []
        return self._answer()

    def _on_cancel(self, event: Cancel) -> list[Action]:
        del event
        self.state = State.DONE
        self._running = []
        error = updates.Error(error_code=ErrorCode.CANCELLED, message=CANCELLED_MESSAGE)
        return [Emit(error), Done()]

    # -- rounds --------------------------------------------------------------------------

    def _next_round(self, out: list[Action]) -> list[Action]:
        """Call the model, or stop at max_rounds."""
        if self.round >= self.max_rounds:
            out.append(Emit(updates.Finish(finish_reason=FinishReason.MAX_ROUNDS)))
            out.append(Done())
            self.state = State.DONE
            return out
        self._finish = None
        self._usage = None
        self._collector = ResponseCollector()
        self._raw = {}
        self._provider_ids = {}
        self._results = {}
        self.state = State.STREAMING
        out.append(CallModel(messages=tuple(self.messages), round=self.round))
        return out

    def _run_or_answer(self, running: State) -> list[Action]:
        """Run the calls that run; when none does, answer at once."""
        self._running = [c for c in self._calls if c.run]
        if self._running:
            self.state = running
            invocations = []
            for call in self._running:
                assert call.tool is not None  # a call runs only when its tool was found
                invocations.append(
                    Invocation(call_id=call.id, tool=call.tool, arguments=call.arguments)
                )
            return [RunTools(tuple(invocations))]
        return self._answer()

    def _answer(self) -> list[Action]:
        """The tool messages of the calls (in call order) and their ToolCalled updates, then
        the next round."""
        answers = [_tool_message(c) for c in self._calls]
        if self._insert_at is None:
            self.messages.extend(answers)
        else:
            self.messages[self._insert_at : self._insert_at] = answers
            self._insert_at = None
        self.transcript.extend(answers)
        out: list[Action] = []
        for call in self._calls:
            called = (
                updates.ToolCalled(id=call.id, error=call.content)
                if call.is_error
                else updates.ToolCalled(id=call.id, result=call.content)
            )
            self._observe(called)
            out.append(Emit(called))
        self._calls = []
        return self._next_round(out)

    # -- the round's turn ----------------------------------------------------------------

    def _observe(self, update: AgentResponseUpdate) -> None:
        """Feed an emitted update to the loop's converter and collector (the same view a
        converter downstream has)."""
        for result in self._converter.results((update,)):
            self._collector.add(result)
            for content in result.contents:
                if isinstance(content, contents.ToolCallArgs):
                    self._raw.setdefault(content.call_id, []).append(content.args_delta)
                elif isinstance(content, contents.ToolCalling):
                    self._results[content.call_id] = content
                elif isinstance(content, contents.Error) and content.call_id is not None:
                    self._results.setdefault(content.call_id, content)
            for ev in result.events:
                if isinstance(ev, events.Custom) and ev.event_type == "tool_call_provider_id":
                    payload = ev.payload
                    if isinstance(payload, dict):
                        call_id, provider_id = payload.get("call_id"), payload.get("provider_id")
                        if isinstance(call_id, str) and isinstance(provider_id, str):
                            self._provider_ids[provider_id] = call_id

    def _message(self) -> ChatMessage | None:
        transcript = self._collector.response().turn_transcript
        return transcript[0] if transcript else None

    def _round_call(self, block: blocks.ToolCall) -> _Call:
        """A call of the round just streamed, with its answer decided unless it runs."""
        converter_id = self._provider_ids.get(block.id, block.id)
        raw = "".join(self._raw.get(converter_id, ()))
        result = self._results.get(converter_id)
        call = _Call(id=block.id, name=block.name, arguments=block.arguments, raw=raw)
        if isinstance(result, contents.ToolCalling):
            call.arguments = result.arguments
        elif isinstance(result, contents.Error):
            call.raw = result.raw if result.raw is not None else raw
            call.parse_error = _parse_error(call.raw, result)
            call.arguments = None
        else:  # pragma: no cover - the converter closes every started call
            call.parse_error = "no arguments were received"
        self._decide(call)
        return call

    def _decide(self, call: _Call) -> None:
        """How a call is answered (raf-spec 5.4, first matching rule): no arguments, invalid
        JSON, schema problems, the tool runs, or no such tool."""
        tool = self.registry.get(call.name)
        call.tool = tool
        schema = _schema_text(tool) if tool is not None else ""
        required = bool(tool is not None and (tool.parameters or {}).get("required"))
        if tool is not None and not call.raw.strip() and call.parse_error is None and required:
            call.content, call.is_error = NO_ARGUMENTS.format(name=call.name, schema=schema), True
            return
        if call.parse_error is not None:
            text = INVALID_JSON.format(name=call.name, raw=call.raw, error=call.parse_error)
            if tool is not None:
                text += EXPECTED_SCHEMA_SUFFIX.format(schema=schema)
            call.content, call.is_error = text, True
            return
        if tool is None:
            call.content, call.is_error = NOT_FOUND.format(name=call.name), True
            return
        problems = schema_problems(call.arguments, self.registry.validator(call.name))
        if problems:
            raw = call.raw if call.raw.strip() else arguments_text(call.arguments)
            call.content = INVALID_ARGUMENTS.format(
                name=call.name, raw=raw, problems="; ".join(problems), schema=schema
            )
            call.is_error = True
            return
        call.run = True

    # -- approval resume (raf-spec 5.7) -----------------------------------------------------

    def _pending(self) -> list[_Call]:
        """The unanswered calls of the last assistant message that calls tools; sets where
        their tool messages go: right after that message's existing answers."""
        messages = self.messages
        for at in range(len(messages) - 1, -1, -1):
            message = messages[at]
            if message.role is not MessageRole.ASSISTANT:
                continue
            calls = _calls_of(message)
            if not calls:
                continue
            end = at + 1
            answered: set[str] = set()
            while end < len(messages) and messages[end].role is MessageRole.TOOL:
                answered.update(_answers_of(messages[end]))
                end += 1
            self._insert_at = end
            return [c for c in calls if c.id not in answered]
        return []

    def _decide_resumed(self, call: _Call) -> None:
        """A pending call on resume: an answer given decides (approved: it is checked and
        runs; rejected: :data:`REJECTED`); without one, a call whose tool requires approval is
        rejected (:data:`USER_DENIED`) and any other is checked and runs."""
        response = self._responses.get(call.id)
        tool = self.registry.get(call.name)
        if response is None and tool is not None and tool.requires_approval:
            call.tool = tool
            call.content, call.is_error = REJECTED.format(reason=USER_DENIED), True
            return
        if response is not None and not response.approved:
            call.tool = tool
            reason = response.reason or USER_DENIED
            call.content, call.is_error = REJECTED.format(reason=reason), True
            return
        self._decide(call)


# -- helpers ---------------------------------------------------------------------------------


def _schema_text(tool: Tool) -> str:
    """A tool's schema as the error texts quote it: compact JSON, keys in the schema's own
    order."""
    return msgspec.json.encode(tool.parameters).decode()


def _parse_error(raw: str, error: contents.Error) -> str:
    """Why a call's arguments are not usable: the JSON library's words for a text that is not
    JSON; else the converter's message (too deep, too large, incomplete)."""
    if error.error_code == ErrorCode.INVALID_TOOL_ARGUMENTS:
        try:
            decode_strict(raw)
        except UnusableJSON as exc:
            return exc.reason
    return error.message


def _calls_of(message: ChatMessage) -> list[_Call]:
    """The calls of an assistant message: its ToolCall blocks, or its RAF ``tool_calls``."""
    found = [b for b in message.blocks if isinstance(b, blocks.ToolCall)]
    if found:
        return [_message_call(b.id, b.name, b.arguments) for b in found]
    return [_message_call(c.id, c.name, c.arguments) for c in message.tool_calls or ()]


def _message_call(call_id: str, name: str, arguments: JSONValue) -> _Call:
    """A call read from a message: a string holds the arguments' text (RAF's form, or raw
    text that was not JSON), anything else the parsed arguments."""
    if not isinstance(arguments, str):
        return _Call(id=call_id, name=name, arguments=arguments, raw=arguments_text(arguments))
    call = _Call(id=call_id, name=name, arguments=None, raw=arguments)
    if not arguments.strip():
        call.arguments = {}
        return call
    try:
        call.arguments = decode_strict(arguments)
    except UnusableJSON as exc:
        call.parse_error = exc.reason
    return call


def _answers_of(message: ChatMessage) -> list[str]:
    found = [b.call_id for b in message.blocks if isinstance(b, blocks.ToolResult)]
    if message.tool_call_id is not None:
        found.append(message.tool_call_id)
    return found


def _tool_message(call: _Call) -> ChatMessage:
    """The tool message answering ``call``."""
    content = call.content or ""
    result = blocks.ToolResult(
        call_id=call.id, content=content, is_error=call.is_error, name=call.name
    )
    return ChatMessage(
        role=MessageRole.TOOL, content=content, tool_call_id=call.id, blocks=(result,)
    )


_HANDLERS: Final[dict[type, Any]] = {
    Begin: ToolLoop._on_begin,
    InnerUpdate: ToolLoop._on_update,
    InnerEnded: ToolLoop._on_ended,
    ModelCallFailed: ToolLoop._on_failed,
    ToolsDone: ToolLoop._on_tools_done,
    Cancel: ToolLoop._on_cancel,
}


def state_table() -> list[tuple[str, str, str, str]]:
    """The transition table as rows (state, event, next states, what happens), for the docs."""
    return [
        (
            state.value,
            event.__name__,
            " / ".join(s.value for s in targets),
            TRANSITION_NOTES[(state, event)],
        )
        for (state, event), targets in TRANSITIONS.items()
    ]
