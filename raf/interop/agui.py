"""AG-UI events (the Agent User Interaction Protocol, ``ag_ui.core``), both directions. No IO.

The items are AG-UI events as JSON, exactly as ``ag_ui.core``'s event classes dump them
(``model_dump(by_alias=True, exclude_none=True)``: camelCase, no ``null`` optional fields,
the fields in the classes' order), so ``ag_ui.encoder.EventEncoder`` writes the same SSE bytes
as :func:`raf.interop.base.frame`.

**raf -> AG-UI** (:class:`Encoder`). A run is ``RUN_STARTED``, then for each result, in order:

* text: ``TEXT_MESSAGE_START`` (role ``assistant``) / ``_CONTENT`` / ``_END``; reasoning: a
  ``REASONING_START`` span holding one ``REASONING_MESSAGE_START`` / ``_CONTENT`` / ``_END``.
  A message ends where raf's turn ends its block (reasoning starts, a call starts, a
  signature closes it), so each AG-UI message is one block of raf's ``turn_transcript``.
* a tool call: ``TOOL_CALL_START`` (``parentMessageId``: the round's assistant message) /
  ``TOOL_CALL_ARGS`` / ``TOOL_CALL_END``, every event naming its ``toolCallId``, in the order
  raf streamed them. Parallel calls whose arguments interleave stay interleaved and apart:
  each ``ARGS`` names its call, so no call is ever ended early or merged. The chunk form
  (``TOOL_CALL_CHUNK``), which names no call after the first chunk, is never written.
* a tool's result (``ToolCalled``): ``TOOL_CALL_RESULT`` (role ``tool``, a fresh
  ``messageId``); an error result has ``metadata: {"raf": {"is_error": true}}``.
* signatures: a reasoning signature is ``REASONING_ENCRYPTED_VALUE`` on its reasoning message
  (subtype ``message``), a signature on a text part on its text message, on a call
  (Gemini's ``thoughtSignature``) subtype ``tool-call`` on the call; redacted reasoning is an
  empty reasoning message with its data as ``REASONING_ENCRYPTED_VALUE`` marked
  ``metadata: {"raf": {"kind": "redacted_reasoning"}}``.
* what AG-UI has no event for is a ``CUSTOM`` event named ``raf.<type>`` whose value is raf's
  canonical JSON of it (docs/model.md): ``raf.result`` (a result's ``id``, ``model``,
  ``finish_reason``), ``raf.tool_calling`` (the complete call with its parsed arguments),
  ``raf.usage``, ``raf.error`` (errors and notices, where they happened),
  ``raf.hosted_tool_call``, ``raf.hosted_tool_result``, ``raf.tool_approval_request``,
  ``raf.round_finished``, ``raf.uri``, ``raf.custom`` (raf's other events: reasoning items,
  provider item ids, raw items), ``raf.executor_invoking``, ``raf.executor_invoked``. An
  AG-UI consumer may ignore them; raf's decoder reads the response back from them exactly.

The run ends (:meth:`Encoder.close`) with every open message and call ended, then
``RUN_ERROR`` (``message`` and ``code`` of the run's first error, the usage) when raf reported
an error, else ``RUN_FINISHED`` with ``result`` ``{"id", "model", "finishReason"}``, the usage
as ``TokenUsage`` and, when calls wait for a person's approval, an ``interrupt`` outcome (one
interrupt per request: ``reason`` ``tool_approval``, ``toolCallId``, ``message`` the
description, ``metadata`` ``{"toolCallName", "arguments"}``). Nothing follows ``RUN_ERROR``.
Every stream obeys AG-UI's lifecycle rules (the TypeScript client's ``verifyEvents``).

**AG-UI -> raf** (:class:`Decoder`): the events of any producer, the START/CONTENT/END and the
``*_CHUNK`` forms (a chunk call ends at the next event that is not one of its chunks), the
deprecated ``THINKING_*`` events too. A stream raf wrote (it holds ``raf.*`` events) is read
back from them; another producer's is read from its native events: the calls' arguments
parsed as raf parses them when its run ends (``{}`` when blank, else an
``invalid_tool_arguments`` error keeping the text), ``RUN_FINISHED``'s ``result``, ``usage``
and interrupts, ``RUN_ERROR`` as an error (one error with the call's when it reports the
arguments of a call just parsed; the model of either from its ``usage``). It never raises:
an item that is not an AG-UI event or is out of place (arguments of a call not started, an
event after the run ended) is an ``invalid_chunk`` error naming its position; a well-formed
event raf has no use for (state, steps, activity, another application's ``CUSTOM``) an
``unrecognised_chunks`` notice.

**A plain AG-UI consumer** (:func:`native`) skips raf's ``CUSTOM`` events and ``metadata.raf``;
the rows marked ``extension`` say what it then misses (docs/interop.md).
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterable
from typing import Any, Final

import msgspec

from raf import safe_json
from raf.collect import ResponseCollector
from raf.interop.base import JSON, Model, Row
from raf.model import contents, events
from raf.model.canonical import from_canonical, to_canonical
from raf.model.codes import ErrorCode, is_notice
from raf.model.contents import Content
from raf.model.events import Event
from raf.model.response import AgentResponseResult
from raf.model.usage import Usage, add_usage

__all__ = [
    "CUSTOM_PREFIX",
    "DEFAULT_RUN_ID",
    "DEFAULT_THREAD_ID",
    "MODEL",
    "Decoder",
    "Encoder",
    "native",
    "objects",
]

DEFAULT_THREAD_ID: Final = "raf-thread"
DEFAULT_RUN_ID: Final = "raf-run"
CUSTOM_PREFIX: Final = "raf."
"""The prefix of the names of the ``CUSTOM`` events raf writes (``raf.usage``, ...)."""

_RAF_RESULT: Final = "raf.result"
_REDACTED: Final = "redacted_reasoning"
_APPROVAL_REASON: Final = "tool_approval"

# Derived contents raf recomputes from the arguments: AG-UI has no place for them, and raf's
# response is not made of them.
_DROPPED: Final[frozenset[type]] = frozenset(
    {contents.ToolCallArgsParsed, contents.ToolCallArgsProgress}
)
# raf's Custom events after which the turn's next text or reasoning is a block of its own.
_NEW_BLOCK_EVENTS: Final = frozenset({"reasoning_item", "raw_item", "part_signature"})

# raf's usage <-> AG-UI's TokenUsage (in TokenUsage's field order).
_USAGE_FIELDS: Final[tuple[tuple[str, str], ...]] = (
    ("inputTokens", "prompt_tokens"),
    ("outputTokens", "completion_tokens"),
    ("totalTokens", "total_tokens"),
    ("reasoningTokens", "reasoning_tokens"),
    ("cachedInputTokens", "prompt_cache_hit_tokens"),
)

# The string fields each event must carry (what the decoder reads of it); "?" marks optional.
_FIELDS: Final[dict[str, tuple[str, ...]]] = {
    "RUN_STARTED": ("threadId", "runId"),
    "RUN_FINISHED": ("threadId", "runId"),
    "RUN_ERROR": ("message", "code?"),
    "TEXT_MESSAGE_START": ("messageId", "role?"),
    "TEXT_MESSAGE_CONTENT": ("messageId", "delta"),
    "TEXT_MESSAGE_END": ("messageId",),
    "TEXT_MESSAGE_CHUNK": ("messageId?", "role?", "delta?"),
    "REASONING_START": ("messageId",),
    "REASONING_END": ("messageId",),
    "REASONING_MESSAGE_START": ("messageId",),
    "REASONING_MESSAGE_CONTENT": ("messageId", "delta"),
    "REASONING_MESSAGE_END": ("messageId",),
    "REASONING_MESSAGE_CHUNK": ("messageId?", "delta?"),
    "REASONING_ENCRYPTED_VALUE": ("subtype", "entityId", "encryptedValue"),
    "THINKING_START": (),
    "THINKING_END": (),
    "THINKING_TEXT_MESSAGE_START": (),
    "THINKING_TEXT_MESSAGE_CONTENT": ("delta",),
    "THINKING_TEXT_MESSAGE_END": (),
    "TOOL_CALL_START": ("toolCallId", "toolCallName", "parentMessageId?"),
    "TOOL_CALL_ARGS": ("toolCallId", "delta"),
    "TOOL_CALL_END": ("toolCallId",),
    "TOOL_CALL_CHUNK": ("toolCallId?", "toolCallName?", "parentMessageId?", "delta?"),
    "TOOL_CALL_RESULT": ("messageId", "toolCallId"),
    "CUSTOM": ("name",),
}
# Well-formed AG-UI events raf's results have no place for.
_UNUSED: Final = frozenset(
    {
        "STATE_SNAPSHOT",
        "STATE_DELTA",
        "MESSAGES_SNAPSHOT",
        "ACTIVITY_SNAPSHOT",
        "ACTIVITY_DELTA",
        "RAW",
        "STEP_STARTED",
        "STEP_FINISHED",
        "SUBAGENT_STARTED",
        "SUBAGENT_FINISHED",
        "SUBAGENT_ERROR",
    }
)


def _custom(name: str, value: JSON) -> dict[str, JSON]:
    return {"type": "CUSTOM", "name": name, "value": value}


def _token_usage(usage: Usage, model: str | None) -> dict[str, JSON] | None:
    out: dict[str, JSON] = {}
    if model:
        out["model"] = model
    for wire, field in _USAGE_FIELDS:
        value = getattr(usage, field)
        if isinstance(value, int) and value >= 0:
            out[wire] = value
    return out if len(out) > (1 if model else 0) else None


class Encoder:
    """raf results in, AG-UI events (JSON) out (module docstring).

    Args:
        thread_id: the ``threadId`` of ``RUN_STARTED`` and ``RUN_FINISHED``.
        run_id: the ``runId``; the ids of the messages raf mints start with it
            (``<run_id>-text-1``, ``<run_id>-reasoning-2``, ``<run_id>-tool-result-3``).
    """

    def __init__(self, *, thread_id: str = DEFAULT_THREAD_ID, run_id: str = DEFAULT_RUN_ID):
        self.thread_id = thread_id
        self.run_id = run_id
        self._started = False
        self._closed = False
        self._minted = 0
        self._text: str | None = None  # the open text message
        self._reasoning: tuple[str, str] | None = None  # the open reasoning span and message
        self._parent: str | None = None  # the round's assistant message (calls' parent)
        self._calls: dict[str, None] = {}  # calls started and not ended
        self._last_call: str | None = None
        self._errors: list[contents.Error] = []
        self._collector = ResponseCollector()

    # -- ids and lifecycle ---------------------------------------------------------------

    def _mint(self, kind: str) -> str:
        self._minted += 1
        return f"{self.run_id}-{kind}-{self._minted}"

    def _start(self, out: list[JSON]) -> None:
        if not self._started:
            self._started = True
            out.append({"type": "RUN_STARTED", "threadId": self.thread_id, "runId": self.run_id})

    def _open_text(self, out: list[JSON]) -> str:
        self._end_reasoning(out)
        if self._text is None:
            self._text = self._parent = self._mint("text")
            out.append({"type": "TEXT_MESSAGE_START", "messageId": self._text, "role": "assistant"})
        return self._text

    def _end_text(self, out: list[JSON]) -> None:
        if self._text is not None:
            out.append({"type": "TEXT_MESSAGE_END", "messageId": self._text})
            self._text = None

    def _open_reasoning(self, out: list[JSON]) -> str:
        self._end_text(out)
        if self._reasoning is None:
            span, message = self._mint("thinking"), self._mint("reasoning")
            self._reasoning = (span, message)
            out.append({"type": "REASONING_START", "messageId": span})
            out.append(
                {"type": "REASONING_MESSAGE_START", "messageId": message, "role": "reasoning"}
            )
        return self._reasoning[1]

    def _end_reasoning(self, out: list[JSON], *, sealed: JSON = None) -> None:
        """End the open reasoning message and its span (``sealed``: the encrypted value that
        goes between them, as AG-UI's documentation places it)."""
        if self._reasoning is not None:
            span, message = self._reasoning
            out.append({"type": "REASONING_MESSAGE_END", "messageId": message})
            if sealed is not None:
                out.append(sealed)
            out.append({"type": "REASONING_END", "messageId": span})
            self._reasoning = None

    def _end_blocks(self, out: list[JSON]) -> None:
        self._end_text(out)
        self._end_reasoning(out)

    # -- feeding -------------------------------------------------------------------------

    def feed(self, result: AgentResponseResult) -> list[JSON]:
        """The events of ``result`` (none once the run was closed)."""
        if self._closed:
            return []
        out: list[JSON] = []
        self._start(out)
        self._collector.add(result)
        if result.id or result.model or result.finish_reason:
            out.append(
                _custom(
                    _RAF_RESULT,
                    {
                        "id": result.id,
                        "model": result.model,
                        "finish_reason": result.finish_reason,
                    },
                )
            )
        for content in result.contents:
            self._content(content, out)
        for event in result.events:
            self._event(event, out)
        return out

    def _as_custom(self, value: Content | Event, out: list[JSON]) -> None:
        data = to_canonical(value)
        out.append(_custom(CUSTOM_PREFIX + data["type"], data))

    def _content(self, content: Content, out: list[JSON]) -> None:
        kind = type(content)
        if isinstance(content, contents.Text):
            message = self._open_text(out)
            out.append(
                {"type": "TEXT_MESSAGE_CONTENT", "messageId": message, "delta": content.delta}
            )
        elif isinstance(content, contents.Reasoning):
            message = self._open_reasoning(out)
            out.append(
                {"type": "REASONING_MESSAGE_CONTENT", "messageId": message, "delta": content.delta}
            )
        elif isinstance(content, contents.ToolCallStart):
            self._tool_call_start(content, out)
        elif isinstance(content, contents.ToolCallArgs) and content.call_id in self._calls:
            out.append(
                {
                    "type": "TOOL_CALL_ARGS",
                    "toolCallId": content.call_id,
                    "delta": content.args_delta,
                }
            )
        elif isinstance(content, contents.ToolCallEnd) and content.call_id in self._calls:
            del self._calls[content.call_id]
            out.append({"type": "TOOL_CALL_END", "toolCallId": content.call_id})
        elif isinstance(content, contents.ToolCalled):
            self._tool_called(content, out)
        elif kind in _DROPPED:
            pass
        else:
            if isinstance(content, contents.Error) and not is_notice(content.error_code):
                self._errors.append(content)
            elif isinstance(content, contents.RoundFinished):
                self._end_blocks(out)
                self._parent = None
            elif isinstance(content, (contents.HostedToolCall, contents.HostedToolResult)):
                self._end_blocks(out)
            # what AG-UI has no event for (module docstring), or a call's args or end out of
            # place: kept, never written as an event that would break AG-UI's lifecycle
            self._as_custom(content, out)

    def _tool_call_start(self, content: contents.ToolCallStart, out: list[JSON]) -> None:
        if content.call_id in self._calls:  # started twice: AG-UI forbids it
            self._as_custom(content, out)
            return
        self._end_blocks(out)
        if self._parent is None:
            self._parent = self._mint("assistant")
        self._calls[content.call_id] = None
        self._last_call = content.call_id
        out.append(
            {
                "type": "TOOL_CALL_START",
                "toolCallId": content.call_id,
                "toolCallName": content.name,
                "parentMessageId": self._parent,
            }
        )

    def _tool_called(self, content: contents.ToolCalled, out: list[JSON]) -> None:
        event: dict[str, JSON] = {"type": "TOOL_CALL_RESULT"}
        if content.result is not None:
            text = content.result
        elif content.error is not None:
            text = content.error
            event["metadata"] = {"raf": {"is_error": True}}
        else:
            text = ""
        event["messageId"] = self._mint("tool-result")
        event["toolCallId"] = content.call_id
        event["content"] = text
        event["role"] = "tool"
        out.append(event)

    def _encrypted(self, subtype: str, entity: str, value: str, kind: str | None = None) -> JSON:
        event: dict[str, JSON] = {"type": "REASONING_ENCRYPTED_VALUE"}
        if kind is not None:
            event["metadata"] = {"raf": {"kind": kind}}
        event["subtype"] = subtype
        event["entityId"] = entity
        event["encryptedValue"] = value
        return event

    def _event(self, event: Event, out: list[JSON]) -> None:
        if not isinstance(event, events.Custom):
            self._as_custom(event, out)
            return
        payload: dict[str, Any] = event.payload if isinstance(event.payload, dict) else {}
        kind = event.event_type
        keys = tuple(payload)
        signature = payload.get("signature")
        if kind == "reasoning_signature" and keys == ("signature",) and isinstance(signature, str):
            # the signature ends its reasoning block; one with no text is a block of its own
            message = self._open_reasoning(out)
            self._end_reasoning(out, sealed=self._encrypted("message", message, signature))
        elif kind == _REDACTED and keys == ("data",) and isinstance(payload["data"], str):
            self._end_blocks(out)
            message = self._open_reasoning(out)
            sealed = self._encrypted("message", message, payload["data"], _REDACTED)
            self._end_reasoning(out, sealed=sealed)
        elif (
            kind == "part_signature"
            and set(keys) == {"signature", "part"}
            and isinstance(signature, str)
            and payload["part"] == "text"
        ):
            message = self._open_text(out)
            self._end_text(out)
            out.append(self._encrypted("message", message, signature))
        elif (
            kind == "part_signature"
            and set(keys) == {"signature", "part"}
            and isinstance(signature, str)
            and payload["part"] == "tool_call"
            and self._last_call is not None
        ):
            out.append(self._encrypted("tool-call", self._last_call, signature))
        else:
            if kind in _NEW_BLOCK_EVENTS:
                self._end_blocks(out)
            self._as_custom(event, out)

    def close(self) -> list[JSON]:
        """What ends the run: open messages and calls ended, then ``RUN_ERROR`` or
        ``RUN_FINISHED``."""
        if self._closed:
            return []
        self._closed = True
        out: list[JSON] = []
        self._start(out)
        self._end_blocks(out)
        out.extend({"type": "TOOL_CALL_END", "toolCallId": call_id} for call_id in self._calls)
        self._calls = {}
        response = self._collector.response()
        usage = None if response.usage is None else _token_usage(response.usage, response.model)
        if self._errors:
            first = self._errors[0]
            end: dict[str, JSON] = {
                "type": "RUN_ERROR",
                "message": first.message,
                "code": first.error_code,
            }
        else:
            end = {"type": "RUN_FINISHED", "threadId": self.thread_id, "runId": self.run_id}
            result = {
                key: value
                for key, value in (
                    ("id", response.id),
                    ("model", response.model),
                    ("finishReason", response.finish_reason),
                )
                if value
            }
            if result:
                end["result"] = result
            if response.approval_requests:
                end["outcome"] = {
                    "type": "interrupt",
                    "interrupts": [_interrupt(request) for request in response.approval_requests],
                }
        if usage is not None:
            end["usage"] = [usage]
        out.append(end)
        return out


def _interrupt(request: Any) -> dict[str, JSON]:
    interrupt: dict[str, JSON] = {"id": request.call_id, "reason": _APPROVAL_REASON}
    if request.description:
        interrupt["message"] = request.description
    interrupt["toolCallId"] = request.call_id
    interrupt["metadata"] = {"toolCallName": request.name, "arguments": request.arguments}
    return interrupt


# -- AG-UI -> raf ------------------------------------------------------------------------------


class _Call:
    __slots__ = ("args", "ended", "name")

    def __init__(self, name: str) -> None:
        self.name = name
        self.args: list[str] = []
        self.ended = False


def _text_of(content: JSON) -> str:
    """A tool result's content as text: the string, or the text of its text parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(
        isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)
        for part in content
    ):
        return "".join(part["text"] for part in content)
    return json.dumps(content, ensure_ascii=False, separators=(",", ":"))


def _usage_of(entries: JSON) -> Usage | None:
    """raf's usage of AG-UI's ``usage`` (a list of TokenUsage, summed)."""
    if not isinstance(entries, list):
        return None
    total: Usage | None = None
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        fields = {
            field: entry[wire]
            for wire, field in _USAGE_FIELDS
            if isinstance(entry.get(wire), int) and not isinstance(entry.get(wire), bool)
        }
        if fields:
            total = add_usage(total, Usage(**fields))
    return total


def _model_of(entries: JSON) -> str | None:
    """The model AG-UI's ``usage`` names (its first TokenUsage with a ``model``): the only
    field of ``RUN_ERROR`` that says which model ran."""
    for entry in entries if isinstance(entries, list) else ():
        if isinstance(entry, dict) and isinstance(entry.get("model"), str) and entry["model"]:
            model: str = entry["model"]
            return model
    return None


class Decoder:
    """AG-UI events (JSON) in, raf results out; never raises (module docstring)."""

    def __init__(self) -> None:
        self._position = -1
        self._raf = False  # the stream holds raf's CUSTOM events: read the response from them
        self._ended = False  # RUN_FINISHED or RUN_ERROR seen
        self._seen = False
        self._text_ids: set[str] = set()  # text messages started (ever)
        self._open_text: set[str] = set()
        self._open_reasoning: set[str] = set()
        self._skipped: set[str] = set()  # text messages of other roles than assistant
        self._calls: dict[str, _Call] = {}  # every call started, in order
        self._open_calls: set[str] = set()
        self._chunk_call: str | None = None  # the call the chunk form streams
        self._resolved: set[str] = set()  # calls with a ToolCalling or an error

    # -- answers -------------------------------------------------------------------------

    def _invalid(self, item: JSON, why: str) -> list[AgentResponseResult]:
        try:
            raw = json.dumps(item, ensure_ascii=False, separators=(",", ":"))
        except (TypeError, ValueError):
            raw = repr(item)
        error = contents.Error(
            error_code=ErrorCode.INVALID_CHUNK,
            message=f"AG-UI item {self._position}: {why}",
            raw=raw,
        )
        return [AgentResponseResult(contents=(error,))]

    def _unused(self, kind: str) -> list[AgentResponseResult]:
        notice = contents.Error(
            error_code=ErrorCode.UNRECOGNISED_CHUNKS,
            message=f"AG-UI item {self._position}: a {kind} event has no place in raf's "
            "results; skipped",
        )
        return [AgentResponseResult(contents=(notice,))]

    # -- feeding -------------------------------------------------------------------------

    def feed(self, item: JSON) -> list[AgentResponseResult]:
        """The results of one AG-UI event (a dict, camelCase)."""
        self._position += 1
        self._seen = True
        if not isinstance(item, dict) or not isinstance(item.get("type"), str):
            return self._invalid(item, "not an AG-UI event (an object with a string type)")
        kind: str = item["type"]
        fields = _FIELDS.get(kind)
        if fields is None:
            if kind in _UNUSED:
                return self._unused(kind)
            return self._invalid(item, f"{kind!r} is not an AG-UI event type")
        for field in fields:
            name = field.rstrip("?")
            value = item.get(name)
            if value is None and field.endswith("?"):
                continue
            if not isinstance(value, str):
                return self._invalid(item, f"{kind} needs a string {name}")
        if self._ended and kind != "RUN_STARTED":
            return self._invalid(item, f"{kind} after the run ended")
        out: list[AgentResponseResult] = []
        if self._chunk_call is not None and kind != "TOOL_CALL_CHUNK":
            out.extend(self._end_chunk_call())
        out.extend(self._event(kind, item))
        return out

    def _event(self, kind: str, item: dict[str, Any]) -> list[AgentResponseResult]:
        handler = _HANDLERS.get(kind)
        if handler is not None:
            return handler(self, item)
        return []  # a lifecycle event that makes no result

    def _results(self, *values: Content | Event) -> list[AgentResponseResult]:
        cs = tuple(v for v in values if not isinstance(v, events.VARIANTS))
        es = tuple(v for v in values if isinstance(v, events.VARIANTS))
        return [AgentResponseResult(contents=cs, events=es)]  # type: ignore[arg-type]

    # run

    def _run_started(self, item: dict[str, Any]) -> list[AgentResponseResult]:
        self._ended = False
        return []

    def _run_finished(self, item: dict[str, Any]) -> list[AgentResponseResult]:
        out = self._end_run()
        if self._raf:
            return out
        result = item.get("result")
        if isinstance(result, dict):
            fields = {
                key: result.get(wire) if isinstance(result.get(wire), str) else None
                for key, wire in (
                    ("id", "id"),
                    ("model", "model"),
                    ("finish_reason", "finishReason"),
                )
            }
        else:
            fields = {"id": None, "model": None, "finish_reason": None}
        fields["model"] = fields["model"] or _model_of(item.get("usage"))
        if any(fields.values()):
            out.append(
                AgentResponseResult(
                    id=fields["id"],
                    model=fields["model"],
                    finish_reason=fields["finish_reason"],
                )
            )
        usage = _usage_of(item.get("usage"))
        if usage is not None:
            out.extend(self._results(contents.Usage(usage=usage)))
        outcome = item.get("outcome")
        if isinstance(outcome, dict) and outcome.get("type") == "interrupt":
            interrupts = outcome.get("interrupts")
            for interrupt in interrupts if isinstance(interrupts, list) else ():
                request = self._approval(interrupt)
                if request is not None:
                    out.extend(self._results(request))
        return out

    def _approval(self, interrupt: JSON) -> contents.ToolApprovalRequest | None:
        if not isinstance(interrupt, dict) or not isinstance(interrupt.get("toolCallId"), str):
            return None
        call_id: str = interrupt["toolCallId"]
        metadata = interrupt.get("metadata")
        metadata = metadata if isinstance(metadata, dict) else {}
        call = self._calls.get(call_id)
        name = metadata.get("toolCallName")
        if not isinstance(name, str):
            name = call.name if call is not None else ""
        arguments = metadata.get("arguments") if "arguments" in metadata else None
        message = interrupt.get("message")
        return contents.ToolApprovalRequest(
            call_id=call_id,
            name=name,
            arguments=arguments,
            description=message if isinstance(message, str) else "",
        )

    def _run_error(self, item: dict[str, Any]) -> list[AgentResponseResult]:
        out = self._end_run()
        if self._raf:
            return out
        model = _model_of(item.get("usage"))
        if model is not None:
            out.append(AgentResponseResult(model=model))
        usage = _usage_of(item.get("usage"))
        if usage is not None:
            out.extend(self._results(contents.Usage(usage=usage)))
        code = item.get("code")
        error = contents.Error(
            error_code=code if isinstance(code, str) and code else ErrorCode.PROVIDER_ERROR,
            message=item["message"],
        )
        for index, result in enumerate(out):
            parsed = _same_call_error(result, error)
            if parsed is not None:
                # the run ended on the arguments of a call just parsed: one error, with the
                # run's own words and the call's id and text
                merged = msgspec.structs.replace(parsed, message=error.message)
                out[index] = msgspec.structs.replace(result, contents=(merged,))
                return out
        out.extend(self._results(error))
        return out

    def _end_run(self) -> list[AgentResponseResult]:
        """The run ended: a stream another producer wrote gets its calls' ToolCalling (or
        their errors), parsed as raf parses a call's arguments."""
        self._ended = True
        self._open_text.clear()
        self._open_reasoning.clear()
        if self._raf:
            self._open_calls.clear()
            return []
        out: list[AgentResponseResult] = []
        for call_id in list(self._open_calls):
            out.extend(self._results(contents.ToolCallEnd(call_id=call_id)))
        self._open_calls.clear()
        for call_id, call in self._calls.items():
            if call_id not in self._resolved:
                self._resolved.add(call_id)
                out.extend(self._results(_calling(call_id, call)))
        return out

    # text and reasoning

    def _text_start(self, item: dict[str, Any]) -> list[AgentResponseResult]:
        message = item["messageId"]
        if message in self._open_text:
            return self._invalid(item, f"text message {message!r} is already open")
        self._open_text.add(message)
        self._text_ids.add(message)
        if (item.get("role") or "assistant") != "assistant":
            self._skipped.add(message)
        return []

    def _text_content(self, item: dict[str, Any]) -> list[AgentResponseResult]:
        message = item["messageId"]
        if message not in self._open_text:
            return self._invalid(item, f"text message {message!r} was not started")
        if message in self._skipped:
            return self._unused(f"{item.get('role', 'non-assistant')} TEXT_MESSAGE_CONTENT")
        return self._results(contents.Text(delta=item["delta"]))

    def _text_end(self, item: dict[str, Any]) -> list[AgentResponseResult]:
        message = item["messageId"]
        if message not in self._open_text:
            return self._invalid(item, f"text message {message!r} was not started")
        self._open_text.discard(message)
        return []

    def _text_chunk(self, item: dict[str, Any]) -> list[AgentResponseResult]:
        if isinstance(item.get("messageId"), str):
            self._text_ids.add(item["messageId"])
        if (item.get("role") or "assistant") != "assistant":
            return self._unused(f"{item['role']} TEXT_MESSAGE_CHUNK")
        delta = item.get("delta")
        return [] if delta is None else self._results(contents.Text(delta=delta))

    def _reasoning_start(self, item: dict[str, Any]) -> list[AgentResponseResult]:
        self._open_reasoning.add(item["messageId"])
        return []

    def _reasoning_content(self, item: dict[str, Any]) -> list[AgentResponseResult]:
        message = item["messageId"]
        if message not in self._open_reasoning:
            return self._invalid(item, f"reasoning message {message!r} was not started")
        return self._results(contents.Reasoning(delta=item["delta"]))

    def _reasoning_end(self, item: dict[str, Any]) -> list[AgentResponseResult]:
        message = item["messageId"]
        if message not in self._open_reasoning:
            return self._invalid(item, f"reasoning message {message!r} was not started")
        self._open_reasoning.discard(message)
        return []

    def _reasoning_delta(self, item: dict[str, Any]) -> list[AgentResponseResult]:
        delta = item.get("delta")
        return [] if delta is None else self._results(contents.Reasoning(delta=delta))

    def _encrypted(self, item: dict[str, Any]) -> list[AgentResponseResult]:
        value: str = item["encryptedValue"]
        metadata = item.get("metadata")
        raf = metadata.get("raf") if isinstance(metadata, dict) else None
        if isinstance(raf, dict) and raf.get("kind") == _REDACTED:
            return self._results(events.Custom(event_type=_REDACTED, payload={"data": value}))
        if item["subtype"] == "tool-call":
            payload = {"signature": value, "part": "tool_call"}
            return self._results(events.Custom(event_type="part_signature", payload=payload))
        if item["subtype"] != "message":
            return self._invalid(item, f"REASONING_ENCRYPTED_VALUE of subtype {item['subtype']!r}")
        if item["entityId"] in self._text_ids:
            payload = {"signature": value, "part": "text"}
            return self._results(events.Custom(event_type="part_signature", payload=payload))
        payload = {"signature": value}
        return self._results(events.Custom(event_type="reasoning_signature", payload=payload))

    # tool calls

    def _call_start(self, item: dict[str, Any]) -> list[AgentResponseResult]:
        call_id: str = item["toolCallId"]
        if call_id in self._open_calls:
            return self._invalid(item, f"tool call {call_id!r} is already open")
        self._open_calls.add(call_id)
        self._calls[call_id] = _Call(item["toolCallName"])
        return self._results(contents.ToolCallStart(call_id=call_id, name=item["toolCallName"]))

    def _call_args(self, item: dict[str, Any]) -> list[AgentResponseResult]:
        call_id: str = item["toolCallId"]
        if call_id not in self._open_calls:
            return self._invalid(item, f"arguments of tool call {call_id!r}, which is not open")
        self._calls[call_id].args.append(item["delta"])
        return self._results(contents.ToolCallArgs(call_id=call_id, args_delta=item["delta"]))

    def _call_end(self, item: dict[str, Any]) -> list[AgentResponseResult]:
        call_id: str = item["toolCallId"]
        if call_id not in self._open_calls:
            return self._invalid(item, f"end of tool call {call_id!r}, which is not open")
        self._open_calls.discard(call_id)
        self._calls[call_id].ended = True
        return self._results(contents.ToolCallEnd(call_id=call_id))

    def _call_chunk(self, item: dict[str, Any]) -> list[AgentResponseResult]:
        out: list[AgentResponseResult] = []
        call_id = item.get("toolCallId")
        if call_id is not None and call_id != self._chunk_call:
            if call_id in self._open_calls:
                self._chunk_call = call_id  # a call of the START form, continued in chunks
            elif item.get("toolCallName") is None:
                return self._invalid(item, f"the first chunk of tool call {call_id!r} has no name")
            else:
                out.extend(self._end_chunk_call())
                name: str = item["toolCallName"]
                self._open_calls.add(call_id)
                self._calls[call_id] = _Call(name)
                self._chunk_call = call_id
                out.extend(self._results(contents.ToolCallStart(call_id=call_id, name=name)))
        if self._chunk_call is None:
            return self._invalid(item, "a TOOL_CALL_CHUNK with no call to belong to")
        delta = item.get("delta")
        if delta is not None:
            self._calls[self._chunk_call].args.append(delta)
            out.extend(
                self._results(contents.ToolCallArgs(call_id=self._chunk_call, args_delta=delta))
            )
        return out

    def _end_chunk_call(self) -> list[AgentResponseResult]:
        call_id, self._chunk_call = self._chunk_call, None
        if call_id is None or call_id not in self._open_calls:
            return []
        self._open_calls.discard(call_id)
        self._calls[call_id].ended = True
        return self._results(contents.ToolCallEnd(call_id=call_id))

    def _call_result(self, item: dict[str, Any]) -> list[AgentResponseResult]:
        if "content" not in item:
            return self._invalid(item, "TOOL_CALL_RESULT needs a content")
        text = _text_of(item["content"])
        metadata = item.get("metadata")
        raf = metadata.get("raf") if isinstance(metadata, dict) else None
        if isinstance(raf, dict) and raf.get("is_error") is True:
            called = contents.ToolCalled(call_id=item["toolCallId"], error=text)
        else:
            called = contents.ToolCalled(call_id=item["toolCallId"], result=text)
        return self._results(called)

    # custom

    def _custom(self, item: dict[str, Any]) -> list[AgentResponseResult]:
        name: str = item["name"]
        if not name.startswith(CUSTOM_PREFIX):
            return self._unused(f"CUSTOM {name!r}")
        if "value" not in item:
            return self._invalid(item, "CUSTOM needs a value")
        self._raf = True
        value = item["value"]
        if name == _RAF_RESULT:
            if not isinstance(value, dict) or not all(
                value.get(key) is None or isinstance(value.get(key), str)
                for key in ("id", "model", "finish_reason")
            ):
                return self._invalid(item, "raf.result needs id, model and finish_reason strings")
            return [
                AgentResponseResult(
                    id=value.get("id"),
                    model=value.get("model"),
                    finish_reason=value.get("finish_reason"),
                )
            ]
        try:
            decoded: Content | Event = from_canonical(value, Content | Event)
        except (msgspec.ValidationError, TypeError, ValueError) as exc:
            return self._invalid(item, f"{name} is not raf's canonical JSON ({exc})")
        if CUSTOM_PREFIX + value["type"] != name:
            return self._invalid(item, f"{name} holds a {value['type']}")
        if isinstance(decoded, (contents.ToolCalling, contents.Error)) and decoded.call_id:
            self._resolved.add(decoded.call_id)
        return self._results(decoded)

    def close(self) -> list[AgentResponseResult]:
        """The end of the items: a stream cut before its run ended gets a
        ``stream_truncated`` error (and its calls ended, as at a run's end)."""
        if not self._seen or self._ended:
            return []
        out = self._end_chunk_call()
        out.extend(self._end_run())
        error = contents.Error(
            error_code=ErrorCode.STREAM_TRUNCATED,
            message=f"the AG-UI stream ended after {self._position + 1} items without "
            "RUN_FINISHED or RUN_ERROR",
        )
        out.extend(self._results(error))
        return out


def _calling(call_id: str, call: _Call) -> Content:
    """The ToolCalling of a call another producer streamed, or the error saying why not."""
    text = "".join(call.args)
    if not text.strip(" \t\r\n"):
        return contents.ToolCalling(call_id=call_id, name=call.name, arguments={})
    try:
        arguments = safe_json.decode_strict(text)
    except safe_json.UnusableJSON as exc:
        code = (
            ErrorCode.JSON_TOO_DEEP
            if exc.code == ErrorCode.JSON_TOO_DEEP
            else ErrorCode.INVALID_TOOL_ARGUMENTS
        )
        return contents.Error(
            error_code=code,
            message=f"arguments of tool call {call_id} ({call.name}) are not one JSON "
            f"document: {exc.reason}",
            call_id=call_id,
            raw=text,
        )
    return contents.ToolCalling(call_id=call_id, name=call.name, arguments=arguments)


def _same_call_error(result: AgentResponseResult, error: contents.Error) -> contents.Error | None:
    """The error of a call's arguments that ``result`` is, when ``error`` (a RUN_ERROR)
    reports it again: the same code, and a message about the same call."""
    parsed = result.contents[0] if len(result.contents) == 1 else None
    if (
        isinstance(parsed, contents.Error)
        and parsed.call_id is not None
        and parsed.error_code == error.error_code
        and error.message.startswith(f"arguments of tool call {parsed.call_id} ")
    ):
        return parsed
    return None


_HANDLERS: Final = {
    "RUN_STARTED": Decoder._run_started,
    "RUN_FINISHED": Decoder._run_finished,
    "RUN_ERROR": Decoder._run_error,
    "TEXT_MESSAGE_START": Decoder._text_start,
    "TEXT_MESSAGE_CONTENT": Decoder._text_content,
    "TEXT_MESSAGE_END": Decoder._text_end,
    "TEXT_MESSAGE_CHUNK": Decoder._text_chunk,
    "REASONING_MESSAGE_START": Decoder._reasoning_start,
    "REASONING_MESSAGE_CONTENT": Decoder._reasoning_content,
    "REASONING_MESSAGE_END": Decoder._reasoning_end,
    "REASONING_MESSAGE_CHUNK": Decoder._reasoning_delta,
    "REASONING_ENCRYPTED_VALUE": Decoder._encrypted,
    "THINKING_TEXT_MESSAGE_CONTENT": Decoder._reasoning_delta,
    "TOOL_CALL_START": Decoder._call_start,
    "TOOL_CALL_ARGS": Decoder._call_args,
    "TOOL_CALL_END": Decoder._call_end,
    "TOOL_CALL_CHUNK": Decoder._call_chunk,
    "TOOL_CALL_RESULT": Decoder._call_result,
    "CUSTOM": Decoder._custom,
}
"""What each AG-UI event makes; the others (REASONING_START/END, THINKING_START/END, the
THINKING message's start and end) only open and close."""


def objects(items: Iterable[JSON]) -> list[Any]:
    """``items`` as ``ag_ui.core`` event objects, validated by the ``Event`` union of
    ag-ui-protocol (imported here; pydantic's ``ValidationError`` on an item that is not an
    AG-UI event)."""
    event = importlib.import_module("ag_ui.core").Event
    adapter = importlib.import_module("pydantic").TypeAdapter(event)
    return [adapter.validate_python(item) for item in items]


def native(item: JSON) -> JSON | None:
    """``item`` as an AG-UI consumer that knows nothing of raf reads it: a ``CUSTOM`` event
    named ``raf.*`` is raf's alone (``None``); any other event loses its ``metadata.raf``
    (and its ``metadata`` when nothing else is left in it). Everything else is AG-UI's own
    and kept as it is."""
    if not isinstance(item, dict):
        return item
    if item.get("type") == "CUSTOM":
        name = item.get("name")
        if isinstance(name, str) and name.startswith(CUSTOM_PREFIX):
            return None
    metadata = item.get("metadata")
    if not isinstance(metadata, dict) or "raf" not in metadata:
        return item
    rest = {key: value for key, value in metadata.items() if key != "raf"}
    out = {key: value for key, value in item.items() if key != "metadata"}
    if rest:
        return {key: (rest if key == "metadata" else value) for key, value in item.items()}
    return out


_ROWS: Final[tuple[Row, ...]] = (
    Row(
        "id",
        "RUN_FINISHED `result.id`; CUSTOM `raf.result` `id` where it arrived. A run that ends "
        "in RUN_ERROR (which has no `result`) has it only in `raf.result`",
        extension=True,
    ),
    Row(
        "model",
        "RUN_FINISHED `result.model`, `usage[].model` of RUN_FINISHED / RUN_ERROR; CUSTOM "
        "`raf.result` `model`. A run that ends in RUN_ERROR with no usage has it only in "
        "`raf.result`",
        extension=True,
    ),
    Row("text", "TEXT_MESSAGE_CONTENT `delta` (role `assistant`)"),
    Row("reasoning_text", "REASONING_MESSAGE_CONTENT `delta`, in a REASONING_START span"),
    Row("tool_calls[].id", "TOOL_CALL_START `toolCallId`"),
    Row("tool_calls[].name", "TOOL_CALL_START `toolCallName`"),
    Row(
        "tool_calls[].arguments",
        "TOOL_CALL_ARGS `delta` (the text, parsed when the run ends); CUSTOM "
        "`raf.tool_calling` (the parsed value)",
    ),
    Row(
        "hosted_tool_calls[].id",
        "CUSTOM `raf.hosted_tool_call` / `raf.hosted_tool_result` (AG-UI's calls are the "
        "client's to run)",
        extension=True,
    ),
    Row("hosted_tool_calls[].name", "CUSTOM `raf.hosted_tool_call` `name`", extension=True),
    Row(
        "hosted_tool_calls[].arguments",
        "CUSTOM `raf.hosted_tool_call` `arguments`",
        extension=True,
    ),
    Row("hosted_tool_calls[].output", "CUSTOM `raf.hosted_tool_result` `output`", extension=True),
    Row("hosted_tool_calls[].error", "CUSTOM `raf.hosted_tool_result` `error`", extension=True),
    Row(
        "approval_requests[].call_id",
        "RUN_FINISHED `outcome` interrupt `toolCallId`; CUSTOM `raf.tool_approval_request`",
    ),
    Row("approval_requests[].name", "interrupt `metadata.toolCallName`"),
    Row("approval_requests[].arguments", "interrupt `metadata.arguments`"),
    Row("approval_requests[].description", "interrupt `message`"),
    Row("tool_messages[].role", "TOOL_CALL_RESULT `role` (`tool`)"),
    Row("tool_messages[].content", "TOOL_CALL_RESULT `content`"),
    Row("tool_messages[].tool_call_id", "TOOL_CALL_RESULT `toolCallId`"),
    Row("tool_messages[].name", "TOOL_CALL_START `toolCallName` of the call answered"),
    Row("tool_messages[].source", "TOOL_CALL_RESULT (a tool's answer)"),
    Row(
        "tool_messages[].blocks",
        "TOOL_CALL_RESULT: `content`, `toolCallId`; `metadata.raf.is_error` for an error "
        "(AG-UI's result has no error flag: natively an error result reads as a result)",
        extension=True,
    ),
    Row(
        "turn_transcript[].role",
        "the message's events; where a tool loop's round ends, CUSTOM `raf.round_finished` "
        "(natively all the rounds' assistant output is one message)",
        extension=True,
    ),
    Row("turn_transcript[].content", "TEXT_MESSAGE_CONTENT `delta`", extension=True),
    Row(
        "turn_transcript[].tool_calls",
        "TOOL_CALL_START / ARGS; CUSTOM `raf.tool_calling`",
        extension=True,
    ),
    Row("turn_transcript[].tool_call_id", "TOOL_CALL_RESULT `toolCallId`", extension=True),
    Row(
        "turn_transcript[].source",
        "TOOL_CALL_RESULT (a tool's answer); else the model's",
        extension=True,
    ),
    Row(
        "turn_transcript[].blocks[].type",
        "the kind of message: text, reasoning, tool call, tool result natively; hosted tools, "
        "reasoning items and raw items only in CUSTOM `raf.*`",
        extension=True,
    ),
    Row(
        "turn_transcript[].blocks[].text",
        "one text or reasoning message's deltas",
        extension=True,
    ),
    Row(
        "turn_transcript[].blocks[].signature",
        "REASONING_ENCRYPTED_VALUE on the reasoning or text message (subtype `message`) or the "
        "call (subtype `tool-call`); CUSTOM `raf.custom` `part_signature` on a hosted tool",
        extension=True,
    ),
    Row(
        "turn_transcript[].blocks[].redacted",
        "REASONING_ENCRYPTED_VALUE with `metadata.raf.kind` `redacted_reasoning` (natively a "
        "signature on an empty reasoning message)",
        extension=True,
    ),
    Row(
        "turn_transcript[].blocks[].encrypted_content",
        "CUSTOM `raf.custom` `reasoning_item` `encrypted_content`",
        extension=True,
    ),
    Row(
        "turn_transcript[].blocks[].item_id",
        "CUSTOM `raf.custom` `reasoning_item` / `tool_call_item`",
        extension=True,
    ),
    Row(
        "turn_transcript[].blocks[].summary",
        "CUSTOM `raf.custom` `reasoning_item` `summary`",
        extension=True,
    ),
    Row(
        "turn_transcript[].blocks[].id",
        "TOOL_CALL_START `toolCallId`; CUSTOM `raf.hosted_tool_call`",
        extension=True,
    ),
    Row("turn_transcript[].blocks[].name", "TOOL_CALL_START `toolCallName`", extension=True),
    Row(
        "turn_transcript[].blocks[].arguments",
        "TOOL_CALL_ARGS `delta`; CUSTOM `raf.tool_calling` `arguments`",
        extension=True,
    ),
    Row(
        "turn_transcript[].blocks[].output",
        "CUSTOM `raf.hosted_tool_result` `output`",
        extension=True,
    ),
    Row(
        "turn_transcript[].blocks[].error",
        "CUSTOM `raf.hosted_tool_result` `error`",
        extension=True,
    ),
    Row(
        "turn_transcript[].blocks[].item",
        "CUSTOM `raf.hosted_tool_call` / `_result` `item`",
        extension=True,
    ),
    Row("turn_transcript[].blocks[].value", "CUSTOM `raf.custom` `raw_item`", extension=True),
    Row("turn_transcript[].blocks[].call_id", "TOOL_CALL_RESULT `toolCallId`", extension=True),
    Row("turn_transcript[].blocks[].content", "TOOL_CALL_RESULT `content`", extension=True),
    Row(
        "turn_transcript[].blocks[].is_error",
        "TOOL_CALL_RESULT `metadata.raf.is_error`",
        extension=True,
    ),
    Row(
        "finish_reason",
        "RUN_FINISHED `result.finishReason`; CUSTOM `raf.result`. A run that ends in "
        "RUN_ERROR has it only in `raf.result`",
        extension=True,
    ),
    Row(
        "usage.prompt_tokens",
        "`usage[].inputTokens` of RUN_FINISHED / RUN_ERROR; CUSTOM `raf.usage`",
    ),
    Row("usage.completion_tokens", "`usage[].outputTokens`; CUSTOM `raf.usage`"),
    Row("usage.total_tokens", "`usage[].totalTokens`; CUSTOM `raf.usage`"),
    Row("usage.reasoning_tokens", "`usage[].reasoningTokens`; CUSTOM `raf.usage`"),
    Row("usage.prompt_cache_hit_tokens", "`usage[].cachedInputTokens`; CUSTOM `raf.usage`"),
    Row(
        "usage.prompt_cache_miss_tokens",
        "CUSTOM `raf.usage` (TokenUsage's `cacheWriteInputTokens` counts cache writes, not misses)",
        extension=True,
    ),
    Row(
        "errors[].error_code",
        "RUN_ERROR `code` (the first error, natively); CUSTOM `raf.error` (every error)",
        extension=True,
    ),
    Row(
        "errors[].message",
        "RUN_ERROR `message` (the first error, natively); CUSTOM `raf.error` (every error)",
        extension=True,
    ),
    Row("errors[].call_id", "CUSTOM `raf.error` `call_id`", extension=True),
    Row("errors[].raw", "CUSTOM `raf.error` `raw`", extension=True),
    Row("notices[].error_code", "CUSTOM `raf.error` `error_code`", extension=True),
    Row("notices[].message", "CUSTOM `raf.error` `message`", extension=True),
    Row("notices[].raw", "CUSTOM `raf.error` `raw`", extension=True),
    Row(
        "rounds[].finish_reason",
        "CUSTOM `raf.round_finished` `finish_reason`",
        extension=True,
    ),
    Row("rounds[].usage", "CUSTOM `raf.round_finished` `usage`, `raf.usage`", extension=True),
)


MODEL: Final = Model(
    name="ag-ui",
    title="AG-UI",
    validator="ag-ui-protocol (ag_ui.core) and raf agui verify",
    encoder=Encoder,
    decoder=Decoder,
    rows=_ROWS,
    framing="sse",
    media_type="text/event-stream",
    native=native,
)
