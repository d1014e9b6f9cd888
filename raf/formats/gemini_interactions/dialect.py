"""``gemini_interactions``: Google's Interactions API streams (``POST .../interactions`` with
``"stream": true``) -> updates. Sans-IO.

The rules are in docs/dialects.md (section ``gemini_interactions``); in short:

* An event's type is the payload's ``event_type`` (else the SSE event name); the stream ends
  with ``event: done`` / ``data: [DONE]``. ``interaction.created`` -> ``ResponseMetadata(id,
  model)`` (a stateless interaction's id ``""`` is no id); ``interaction.status_update`` is
  skipped on purpose.
* Steps are routed by their ``index``. A ``thought`` step's summary text -> ``ReasoningDelta``,
  its ``thought_signature`` -> ``ReasoningSignature`` (also the signature of the function call
  that follows it); a ``model_output`` step's text -> ``TextDelta``, its
  ``text_annotation_delta`` -> one ``RawItem`` per annotation (the citations, kept whole);
  a ``function_call`` step -> ``ToolCallStart(id, name)``, its ``arguments_delta`` fragments ->
  ``ToolCallArgs``, its stop -> ``ToolCallEnd`` (the start's ``arguments`` are used when no
  fragment came); a server tool's ``<tool>_call`` / ``<tool>_result`` step -> at its stop,
  ``HostedToolCall`` / ``HostedToolResult``.
* ``interaction.completed`` -> ``Finish(status, usage)``: ``completed`` -> ``stop`` (or
  ``tool_calls`` when a function call streamed), ``requires_action`` -> ``tool_calls``,
  ``incomplete`` -> ``length``, ``failed`` -> ``provider_error``, others verbatim.
* ``error`` -> ``provider_error``. A step event that does not fit its step ->
  ``protocol_violation``; what arrived is kept and reading goes on. ``[DONE]`` (or the end of
  the body) before ``interaction.completed`` is a truncation.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from raf._mypyc import mypyc_attr
from raf.dialects.base import Frame, JSONEventDialect
from raf.dialects.tables import UsageTable, finish_reason
from raf.framing.sse import ServerSentEvent
from raf.limits import DEFAULT_MAX_JSON_DEPTH, DEFAULT_MAX_RAW_CHARS
from raf.model import updates
from raf.model.codes import ErrorCode

__all__ = [
    "FINISH_REASONS",
    "LEGACY_EVENTS",
    "USAGE",
    "GeminiInteractionsDialect",
]

USAGE = UsageTable(
    prompt_tokens=(("total_input_tokens", "total_tool_use_tokens"),),
    completion_tokens=(("total_output_tokens", "total_thought_tokens"),),
    total_tokens=(("total_tokens",),),
    cache_hit=(("total_cached_tokens",),),
    reasoning=(("total_thought_tokens",),),
)
"""The interaction's ``usage``: prompt = input + tool-use tokens (the search results the model
read), completion = output + thought tokens; ``total_tokens`` is their sum on the wire."""

FINISH_REASONS: dict[str, str] = {
    "completed": "stop",
    "requires_action": "tool_calls",
    "incomplete": "length",
}
"""Interaction ``status`` at ``interaction.completed`` -> raf; ``completed`` is ``tool_calls``
when a function call streamed; ``failed`` is a provider error; others are kept verbatim."""

_FAILED = "failed"

LEGACY_EVENTS = ("interaction.start", "interaction.complete", "content.start", "content.delta")
"""Event types of the schema Google removed (outputs instead of steps): not read."""

# What a step is, by its ``type`` at step.start.
_THOUGHT = "thought"
_OUTPUT = "model_output"
_CALL = "function_call"
_HOSTED_CALL = "hosted_call"
_HOSTED_RESULT = "hosted_result"
_OTHER = "other"


@dataclass
class _Step:
    """A step of the stream, from its start to its stop."""

    kind: str
    type: str
    index: int
    call_id: str = ""
    arguments: Any = None  # a function call's start arguments; a hosted call's arguments
    fragments: bool = False  # an arguments_delta came
    step: dict[str, Any] = field(default_factory=dict)  # a hosted step as it grows
    stopped: bool = False


_NOT_HOSTED = frozenset({"function_result", "user_input"})
"""Step types of requests (and of stored timelines) that end like a server tool's."""


def _kind(step_type: str) -> str:
    if step_type in (_THOUGHT, _OUTPUT, _CALL):
        return step_type
    if step_type in _NOT_HOSTED:
        return _OTHER
    if step_type.endswith("_call"):
        return _HOSTED_CALL
    if step_type.endswith("_result"):
        return _HOSTED_RESULT
    return _OTHER


def _violation(dialect: GeminiInteractionsDialect, text: str, frame: Frame) -> None:
    frame.out.append(dialect.error(ErrorCode.PROTOCOL_VIOLATION, text, frame.data))


def _texts(items: list[Any] | None) -> list[str]:
    """The non-empty ``text`` of each text item of a list (a summary or a content list)."""
    out: list[str] = []
    for item in items or ():
        if isinstance(item, dict) and item.get("type", "text") == "text":
            text = item.get("text")
            if isinstance(text, str) and text:
                out.append(text)
    return out


def _created(dialect: GeminiInteractionsDialect, payload: dict[str, Any], frame: Frame) -> None:
    interaction = frame.dict(payload, "interaction")
    if interaction is not None:
        dialect.metadata(
            frame.str(interaction, "id", "interaction."),
            frame.str(interaction, "model", "interaction."),
            frame.out,
        )


def _step_start(dialect: GeminiInteractionsDialect, payload: dict[str, Any], frame: Frame) -> None:
    index = frame.int(payload, "index")
    step = frame.dict(payload, "step")
    if index is None or step is None:
        _violation(dialect, "step.start without an index and a step", frame)
        return
    if index in dialect.steps:
        _violation(dialect, f"step {index} started twice", frame)
        return
    step_type = frame.str(step, "type", "step.") or ""
    kind = _kind(step_type)
    state = _Step(kind=kind, type=step_type, index=index)
    dialect.steps[index] = state
    out = frame.out
    if kind == _THOUGHT:
        for text in _texts(frame.list(step, "summary", "step.")):
            out.append(updates.ReasoningDelta(delta=text))
        signature = frame.str(step, "signature", "step.")
        if signature:
            out.append(updates.ReasoningSignature(signature=signature))
    elif kind == _OUTPUT:
        for text in _texts(frame.list(step, "content", "step.")):
            out.append(updates.TextDelta(delta=text))
    elif kind == _CALL:
        call_id = frame.str(step, "id", "step.") or f"call_{index}"
        state.call_id = call_id
        state.arguments = step.get("arguments")
        dialect.called = True
        out.append(updates.ToolCallStart(id=call_id, name=frame.str(step, "name", "step.") or ""))
        signature = frame.str(step, "signature", "step.")
        if signature:
            out.append(updates.PartSignature(signature=signature, part="tool_call"))
    elif kind in (_HOSTED_CALL, _HOSTED_RESULT):
        state.step = dict(step)
    else:
        dialect.unrecognised(frame)


def _open_step(
    dialect: GeminiInteractionsDialect, payload: dict[str, Any], frame: Frame, what: str
) -> tuple[int, _Step] | None:
    """The step the event's ``index`` names, when it started and did not stop; else a
    violation."""
    index = frame.int(payload, "index")
    if index is None:
        _violation(dialect, f"{what} without an index", frame)
        return None
    state = dialect.steps.get(index)
    if state is None:
        _violation(dialect, f"{what} for step {index}, which never started", frame)
        return None
    if state.stopped:
        _violation(dialect, f"{what} for step {index} after its stop", frame)
        return None
    return index, state


def _step_delta(dialect: GeminiInteractionsDialect, payload: dict[str, Any], frame: Frame) -> None:
    delta = frame.dict(payload, "delta")
    if delta is None:
        return
    delta_type = frame.str(delta, "type", "delta.") or ""
    out = frame.out
    found = _open_step(dialect, payload, frame, f"{delta_type or 'a'} delta")
    state = None if found is None else found[1]
    if delta_type == "text":
        text = frame.str(delta, "text", "delta.")
        if text:
            out.append(updates.TextDelta(delta=text))
    elif delta_type == "thought_summary":
        content = frame.dict(delta, "content", "delta.")
        text = None if content is None else frame.str(content, "text", "delta.content.")
        if text:
            out.append(updates.ReasoningDelta(delta=text))
    elif delta_type == "thought_signature":
        signature = frame.str(delta, "signature", "delta.")
        if signature:
            out.append(updates.ReasoningSignature(signature=signature))
    elif delta_type == "text_annotation_delta":
        for annotation in frame.list(delta, "annotations", "delta.") or ():
            out.append(updates.RawItem(item=annotation))
    elif delta_type == "arguments_delta":
        if state is None:
            return
        if state.kind != _CALL:
            _violation(dialect, f"arguments for step {found and found[0]}, not a call", frame)
            return
        fragment = frame.str(delta, "arguments", "delta.")
        state.fragments = True
        if fragment:
            out.append(updates.ToolCallArgs(id=state.call_id, args_delta=fragment))
    elif delta_type in _IGNORED_DELTAS:
        pass
    elif state is not None and state.kind in (_HOSTED_CALL, _HOSTED_RESULT):
        state.step.update((k, v) for k, v in delta.items() if k != "type")
    else:
        dialect.unrecognised(frame)


_IGNORED_DELTAS = frozenset({"image", "audio", "video", "document"})


def _step_stop(dialect: GeminiInteractionsDialect, payload: dict[str, Any], frame: Frame) -> None:
    found = _open_step(dialect, payload, frame, "step.stop")
    if found is not None:
        found[1].stopped = True
        _finish_step(found[1], frame.out)


def _finish_step(state: _Step, out: list[updates.AgentResponseUpdate]) -> None:
    """The updates a step gives at its stop (or at the end of the stream, when it never
    stopped)."""
    if state.kind == _CALL:
        if not state.fragments and state.arguments not in (None, {}):
            out.append(
                updates.ToolCallArgs(
                    id=state.call_id, args_delta=json.dumps(state.arguments, ensure_ascii=False)
                )
            )
        out.append(updates.ToolCallEnd(id=state.call_id))
    elif state.kind == _HOSTED_CALL:
        step = state.step
        name = state.type.removesuffix("_call")
        call_id = step.get("id")
        out.append(
            updates.HostedToolCall(
                call_id=call_id
                if isinstance(call_id, str) and call_id
                else f"{name}_{state.index}",
                name=name,
                arguments=step.get("arguments"),
                item=step,
            )
        )
    elif state.kind == _HOSTED_RESULT:
        step = state.step
        call_id = step.get("call_id")
        error = step.get("is_error") is True
        out.append(
            updates.HostedToolResult(
                call_id=(
                    call_id
                    if isinstance(call_id, str) and call_id
                    else f"{state.type}_{state.index}"
                ),
                name=state.type,
                output=step.get("result"),
                error="the tool reported an error" if error else None,
                item=step,
            )
        )


def _completed(dialect: GeminiInteractionsDialect, payload: dict[str, Any], frame: Frame) -> None:
    interaction = frame.dict(payload, "interaction") or {}
    dialect.metadata(
        frame.str(interaction, "id", "interaction."),
        frame.str(interaction, "model", "interaction."),
        frame.out,
    )
    dialect.close_steps(frame.out)
    dialect.finished = True
    status = frame.str(interaction, "status", "interaction.") or "completed"
    if status == _FAILED:
        error = interaction.get("error") or interaction.get("errors") or "interaction failed"
        if isinstance(error, list) and error:
            error = error[0]
        frame.out.append(dialect.provider_error_update(error, frame.data, "at completion"))
        return
    reason = finish_reason(FINISH_REASONS, status)
    if status == "completed" and dialect.called:
        reason = finish_reason(FINISH_REASONS, "requires_action")
    usage = frame.dict(interaction, "usage", "interaction.")
    frame.out.append(
        updates.Finish(
            finish_reason=reason,
            usage=USAGE.parse(usage) if usage is not None and USAGE.has_any(usage) else None,
        )
    )


def _error(dialect: GeminiInteractionsDialect, payload: dict[str, Any], frame: Frame) -> None:
    error = payload.get("error") or "the provider reported an error"
    frame.out.append(dialect.provider_error_update(error, frame.data))


@mypyc_attr(allow_interpreted_subclasses=True)
class GeminiInteractionsDialect(JSONEventDialect):
    """Sans-IO state of one Interactions API stream. See the module docstring.

    Args:
        max_json_depth: deepest nesting accepted in a payload (``json_too_deep`` past it).
        max_raw_chars: longest ``raw`` excerpt an error keeps of an offending payload.
    """

    name = "gemini_interactions"
    framing = "sse"
    end_markers = frozenset({"[DONE]"})
    payload_name = "Interactions API event"
    sniff = (
        rb'"event_type"\s*:\s*"(?:interaction\.created|step\.(?:start|delta|stop)|'
        rb'interaction\.completed)"',
        rb"event:\s*(?:interaction\.created|step\.(?:start|delta))",
    )
    truncation_message = "stream ended before interaction.completed"
    ignored = frozenset(
        {"interaction.status_update", "interaction.in_progress", "interaction.requires_action"}
    )

    def __init__(
        self,
        *,
        max_json_depth: int = DEFAULT_MAX_JSON_DEPTH,
        max_raw_chars: int = DEFAULT_MAX_RAW_CHARS,
    ) -> None:
        super().__init__(max_json_depth=max_json_depth, max_raw_chars=max_raw_chars)
        self.steps: dict[int, _Step] = {}
        """Steps by index."""
        self.called = False
        """A function call streamed (``completed`` then means ``tool_calls``)."""

    def kind_of(self, event: ServerSentEvent, payload: dict[str, Any]) -> str:
        """The payload's ``event_type`` when it is a string, else the SSE event name."""
        kind = payload.get("event_type")
        return kind if isinstance(kind, str) else event.event

    def unknown(self, kind: str, payload: Any, frame: Frame) -> None:
        """A type the table does not list: the skipped ones (:attr:`ignored`) are passed over
        without counting as read (a body of the removed schema, whose ``status_update`` is
        the same, is then named as that schema); any other is unrecognised."""
        if kind not in self.ignored:
            self.unrecognised(frame)

    def end_marker_is_clean(self) -> bool:
        """``[DONE]`` ends the stream cleanly only after ``interaction.completed``."""
        return self.finished or self.provider_error

    def close_steps(self, out: list[updates.AgentResponseUpdate]) -> None:
        """Hand on the steps that never stopped (a call's end, a hosted call or result)."""
        for state in self.steps.values():
            if not state.stopped:
                state.stopped = True
                _finish_step(state, out)

    def at_close(self, out: list[updates.AgentResponseUpdate]) -> None:
        """What a cut stream still holds: hosted steps that never stopped are handed on (a
        call left open stays open, and the truncation says why)."""
        for state in self.steps.values():
            if not state.stopped and state.kind in (_HOSTED_CALL, _HOSTED_RESULT):
                state.stopped = True
                _finish_step(state, out)


GeminiInteractionsDialect.handlers = {
    "interaction.created": _created,
    "step.start": _step_start,
    "step.delta": _step_delta,
    "step.stop": _step_stop,
    "interaction.completed": _completed,
    "error": _error,
}
