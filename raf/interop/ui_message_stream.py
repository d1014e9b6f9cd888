"""The AI SDK's UI message stream (``ai`` 6): what ``useChat`` and ``readUIMessageStream``
read. No IO, no third-party import.

raf's results become the protocol's chunks (``{"type": "text-delta", "id": …, "delta": …}``),
each sent as an SSE ``data:`` event, the stream ended by ``data: [DONE]``
(docs/interop.md, "AI SDK UI message stream"):

* the run is one message: ``start``, then one step per model round (``start-step`` …
  ``finish-step``), then ``finish``; the provider's response id, model, finish reason and
  usage go in the message's metadata (``message-metadata`` chunks), where they arrive;
* text and reasoning are ``text-*`` and ``reasoning-*`` parts, which start and end where raf's
  blocks of the turn do; a signature, redacted reasoning and a Responses reasoning item ride
  on the part's ``providerMetadata`` under ``"raf"``;
* a client's tool call is ``tool-input-start``, ``tool-input-delta`` … and
  ``tool-input-available`` (its input parsed); arguments that are not JSON are
  ``tool-input-error``; the tool loop's result is ``tool-output-available`` (or
  ``tool-output-error``); a call waiting for approval is ``tool-approval-request`` (its
  ``approvalId`` is the call id); a tool the provider ran is ``providerExecuted``;
* what the protocol has no chunk for is a transient data chunk (``data-raf-error``,
  ``data-raf-round``, ``data-raf-event``): seen by ``onData``, kept out of the message;
* raf's errors do not stop a run, but ``useChat`` stops reading at an ``error`` chunk, so
  the ``error`` chunks (``abort`` for a cancelled run) come last, before ``finish``; each
  error's code, call and raw text travel in a ``data-raf-error`` where it happened.

The decoder reads those chunks back, and any other UI message stream as well as it can.
"""

from __future__ import annotations

import json
from typing import Any, Final

from raf.interop.base import JSON, Model, Row
from raf.model import contents, events
from raf.model.codes import NOTICE_CODES, ErrorCode
from raf.model.response import AgentResponseResult
from raf.model.usage import Usage

__all__ = [
    "FINISH_REASONS",
    "MODEL",
    "USAGE_FIELDS",
    "UIMessageStreamDecoder",
    "UIMessageStreamEncoder",
    "usage_from_json",
    "usage_to_json",
]

PROVIDER_KEY: Final = "raf"
"""The ``providerMetadata`` key under which raf keeps what a part carries beyond the
protocol's fields (signatures, reasoning items, a hosted tool's items)."""

FINISH_REASONS: Final[dict[str, str]] = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool-calls",
    "content_filter": "content-filter",
    "awaiting_approval": "tool-calls",
    "max_rounds": "tool-calls",
}
"""raf's finish reason -> the ``finish`` chunk's ``finishReason`` (any other is ``other``; a
run that ended without one but with errors is ``error``). raf's own string is in the
message's metadata (``finishReason``)."""

FINISH_REASONS_BACK: Final[dict[str, str | None]] = {
    "stop": "stop",
    "length": "length",
    "tool-calls": "tool_calls",
    "content-filter": "content_filter",
    "error": None,
    "other": "other",
}
"""The ``finish`` chunk's ``finishReason`` -> raf's, read only when the metadata gave none."""

USAGE_FIELDS: Final[tuple[tuple[str, tuple[str, ...]], ...]] = (
    ("prompt_tokens", ("inputTokens",)),
    ("prompt_cache_miss_tokens", ("inputTokenDetails", "noCacheTokens")),
    ("prompt_cache_hit_tokens", ("inputTokenDetails", "cacheReadTokens")),
    ("completion_tokens", ("outputTokens",)),
    ("reasoning_tokens", ("outputTokenDetails", "reasoningTokens")),
    ("total_tokens", ("totalTokens",)),
)
"""raf's usage field -> its place in the AI SDK's ``LanguageModelUsage`` (a count the provider
did not report is ``null``: the AI SDK merges a message's metadata, and a count left out would
keep an earlier usage's)."""

DENIED: Final = "Rejected: User denied"
"""The tool result a ``tool-output-denied`` chunk reads as (the tool loop's text for a call a
person rejected)."""

# The chunk types of the protocol and their required string fields.
_REQUIRED: Final[dict[str, tuple[str, ...]]] = {
    "text-start": ("id",),
    "text-delta": ("id", "delta"),
    "text-end": ("id",),
    "reasoning-start": ("id",),
    "reasoning-delta": ("id", "delta"),
    "reasoning-end": ("id",),
    "error": ("errorText",),
    "tool-input-start": ("toolCallId", "toolName"),
    "tool-input-delta": ("toolCallId", "inputTextDelta"),
    "tool-input-available": ("toolCallId", "toolName"),
    "tool-input-error": ("toolCallId", "toolName", "errorText"),
    "tool-approval-request": ("approvalId", "toolCallId"),
    "tool-output-available": ("toolCallId",),
    "tool-output-error": ("toolCallId", "errorText"),
    "tool-output-denied": ("toolCallId",),
    "source-url": ("sourceId", "url"),
    "source-document": ("sourceId", "mediaType", "title"),
    "file": ("url", "mediaType"),
    "start-step": (),
    "finish-step": (),
    "start": (),
    "finish": (),
    "abort": (),
    "message-metadata": (),
}

DATA_ERROR: Final = "data-raf-error"
DATA_ROUND: Final = "data-raf-round"
DATA_EVENT: Final = "data-raf-event"


def _compact(value: JSON) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def usage_to_json(usage: Usage) -> dict[str, JSON]:
    """raf's usage as the AI SDK's ``LanguageModelUsage`` (:data:`USAGE_FIELDS`)."""
    out: dict[str, Any] = {}
    for field, path in USAGE_FIELDS:
        value = getattr(usage, field)
        node = out
        for key in path[:-1]:
            node = node.setdefault(key, {})
        node[path[-1]] = value
    return out


def usage_from_json(value: JSON) -> Usage | None:
    """The usage of a ``LanguageModelUsage`` object, ``None`` when it is not one (a count that
    is not a whole number)."""
    if not isinstance(value, dict):
        return None
    fields: dict[str, int] = {}
    for field, path in USAGE_FIELDS:
        node: Any = value
        for key in path:
            node = node.get(key) if isinstance(node, dict) else None
        if node is None:
            continue
        if isinstance(node, bool) or not isinstance(node, int):
            return None
        fields[field] = node
    return Usage(**fields)


def _meta(**fields: JSON) -> dict[str, JSON]:
    """A ``providerMetadata`` holding ``fields`` (those not ``None``) under raf's key."""
    return {PROVIDER_KEY: {k: v for k, v in fields.items() if v is not None}}


class _Call:
    """A client call of the current round: its name, whether its input is final."""

    __slots__ = ("called", "name")

    def __init__(self, name: str) -> None:
        self.name = name
        self.called = False


class UIMessageStreamEncoder:
    """raf results in, UI message stream chunks out (JSON objects in stream order).

    Args:
        message_id: the ``start`` chunk's ``messageId`` (the UI's id of the message; leave it
            out to let the client choose one, or when the stream continues the message the
            client already has: the answer to an approval).
    """

    def __init__(self, *, message_id: str | None = None) -> None:
        self._message_id = message_id
        self._started = False
        self._step = False  # a step is open
        self._parts = 0  # ids of text and reasoning parts
        self._open: str | None = None  # "text" or "reasoning"
        self._open_id = ""
        self._open_item: str | None = None  # the open reasoning part's reasoning item
        self._items: set[str] = set()  # reasoning item ids seen
        self._calls: dict[str, _Call] = {}  # client calls of this round
        self._hosted: set[str] = set()  # hosted calls of this round
        self._tools: dict[str, tuple[str, JSON]] = {}  # tool parts of the message: name, input
        self._last_call_signed: bool | None = None  # the last call's part: signed? (None: none)
        self._last_hosted_signed: bool | None = None
        self._round_ended = False
        self._sent_id: str | None = None
        self._sent_model: str | None = None
        self._finish: str | None = None
        self._errors: list[contents.Error] = []  # deferred to the end

    # -- parts ---------------------------------------------------------------------------------

    def _begin(self, out: list[JSON]) -> None:
        if not self._started:
            self._started = True
            start: dict[str, JSON] = {"type": "start"}
            if self._message_id is not None:
                start["messageId"] = self._message_id
            out.append(start)
        if not self._step:
            self._step = True
            out.append({"type": "start-step"})

    def _end(self, out: list[JSON], meta: dict[str, JSON] | None = None) -> None:
        """End the open text or reasoning part (with ``meta`` as its ``providerMetadata``)."""
        if self._open is None:
            return
        chunk: dict[str, JSON] = {"type": f"{self._open}-end", "id": self._open_id}
        if meta is not None:
            chunk["providerMetadata"] = meta
        out.append(chunk)
        self._open = None
        self._open_item = None

    def _part(self, out: list[JSON], kind: str, meta: dict[str, JSON] | None = None) -> None:
        """Start a text or reasoning part (ending the open one)."""
        self._end(out)
        self._parts += 1
        self._open, self._open_id = kind, f"{kind}-{self._parts}"
        chunk: dict[str, JSON] = {"type": f"{kind}-start", "id": self._open_id}
        if meta is not None:
            chunk["providerMetadata"] = meta
        out.append(chunk)

    def _delta(self, out: list[JSON], kind: str, delta: str) -> None:
        if self._open != kind:
            self._part(out, kind)
        out.append({"type": f"{kind}-delta", "id": self._open_id, "delta": delta})

    # -- results -------------------------------------------------------------------------------

    def feed(self, result: AgentResponseResult) -> list[JSON]:
        out: list[JSON] = []
        self._begin(out)
        metadata: dict[str, JSON] = {}
        fresh = self._round_ended
        if result.id and (result.id != self._sent_id or fresh):
            metadata["id"] = self._sent_id = result.id
        if result.model and (result.model != self._sent_model or fresh):
            metadata["model"] = self._sent_model = result.model
        if result.finish_reason:
            metadata["finishReason"] = self._finish = result.finish_reason
        if metadata:
            out.append({"type": "message-metadata", "messageMetadata": metadata})
            if "id" in metadata or "model" in metadata:
                self._round_ended = False
        for content in result.contents:
            self._content(out, content)
        for event in result.events:
            if isinstance(event, events.Custom):
                self._event(out, event)
        return out

    def _content(self, out: list[JSON], content: contents.Content) -> None:
        if not self._step:
            self._begin(out)
        if isinstance(content, contents.Text):
            self._delta(out, "text", content.delta)
        elif isinstance(content, contents.Reasoning):
            self._delta(out, "reasoning", content.delta)
        elif isinstance(content, contents.ToolCallStart):
            if content.call_id not in self._calls:
                self._end(out)
                self._calls[content.call_id] = _Call(content.name)
                self._last_call_signed = False
                self._tools[content.call_id] = (content.name, None)
                out.append(
                    {
                        "type": "tool-input-start",
                        "toolCallId": content.call_id,
                        "toolName": content.name,
                    }
                )
        elif isinstance(content, contents.ToolCallArgs):
            if content.call_id in self._calls:
                out.append(
                    {
                        "type": "tool-input-delta",
                        "toolCallId": content.call_id,
                        "inputTextDelta": content.args_delta,
                    }
                )
        elif isinstance(content, contents.ToolCalling):
            call = self._calls.get(content.call_id)
            if call is None:
                # Every call the model made starts its tool part: a tool-input-available
                # alone is a part that only shows a call awaiting approval.
                self._end(out)
                call = self._calls[content.call_id] = _Call(content.name)
                self._last_call_signed = False
                out.append(
                    {
                        "type": "tool-input-start",
                        "toolCallId": content.call_id,
                        "toolName": content.name,
                    }
                )
            call.called = True
            self._tools[content.call_id] = (content.name, content.arguments)
            out.append(
                {
                    "type": "tool-input-available",
                    "toolCallId": content.call_id,
                    "toolName": content.name,
                    "input": content.arguments,
                }
            )
        elif isinstance(content, contents.ToolCalled):
            self._called(out, content)
        elif isinstance(content, contents.ToolApprovalRequest):
            self._approval(out, content)
        elif isinstance(content, contents.HostedToolCall):
            self._hosted_part(out, content.call_id)
            self._tools[content.call_id] = (content.name, content.arguments)
            chunk: dict[str, JSON] = {
                "type": "tool-input-available",
                "toolCallId": content.call_id,
                "toolName": content.name,
                "input": content.arguments,
                "providerExecuted": True,
            }
            if content.item is not None:
                chunk["providerMetadata"] = _meta(item=content.item)
            out.append(chunk)
        elif isinstance(content, contents.HostedToolResult):
            self._hosted_result(out, content)
        elif isinstance(content, contents.Usage):
            out.append(
                {
                    "type": "message-metadata",
                    "messageMetadata": {"usage": usage_to_json(content.usage)},
                }
            )
        elif isinstance(content, contents.Error):
            self._error(out, content)
        elif isinstance(content, contents.RoundFinished):
            self._end(out)
            data: dict[str, JSON] = {"round": content.round}
            if content.finish_reason is not None:
                data["finishReason"] = content.finish_reason
            if content.usage is not None:
                data["usage"] = usage_to_json(content.usage)
            out.append({"type": DATA_ROUND, "data": data, "transient": True})
            out.append({"type": "finish-step"})
            self._step = False
            self._calls = {}
            self._hosted = set()
            self._round_ended = True
        elif isinstance(content, contents.Uri):
            chunk = {"type": "source-url", "sourceId": content.uri, "url": content.uri}
            if content.label is not None:
                chunk["title"] = content.label
            out.append(chunk)
        # ToolCallArgsParsed, ToolCallArgsProgress, ToolCallEnd: the protocol derives them.

    def _hosted_part(self, out: list[JSON], call_id: str) -> None:
        if call_id not in self._hosted:
            self._end(out)
            self._hosted.add(call_id)
            self._last_hosted_signed = False

    def _hosted_result(self, out: list[JSON], content: contents.HostedToolResult) -> None:
        self._hosted_part(out, content.call_id)
        if content.call_id not in self._tools:
            # A result whose call never came: its tool part, named after the result.
            self._tools[content.call_id] = (content.name, None)
            out.append(
                {
                    "type": "tool-input-available",
                    "toolCallId": content.call_id,
                    "toolName": content.name,
                    "input": None,
                    "providerExecuted": True,
                }
            )
        chunk: dict[str, JSON] = {"toolCallId": content.call_id}
        if content.error is not None:
            chunk["type"] = "tool-output-error"
            chunk["errorText"] = content.error
            extra: JSON = content.output
        else:
            chunk["type"] = "tool-output-available"
            chunk["output"] = content.output
            extra = None
        chunk["providerExecuted"] = True
        chunk["providerMetadata"] = _meta(name=content.name, item=content.item, output=extra)
        out.append(chunk)

    def _called(self, out: list[JSON], content: contents.ToolCalled) -> None:
        if content.result is None and content.error is not None:
            out.append(
                {
                    "type": "tool-output-error",
                    "toolCallId": content.call_id,
                    "errorText": content.error,
                }
            )
        else:
            out.append(
                {
                    "type": "tool-output-available",
                    "toolCallId": content.call_id,
                    "output": content.result,
                }
            )

    def _approval(self, out: list[JSON], content: contents.ToolApprovalRequest) -> None:
        descriptor: dict[str, JSON] = {}
        known = self._tools.get(content.call_id)
        if known is None:
            # No tool part to attach the approval to: one that shows the call, not made.
            self._end(out)
            known = self._tools[content.call_id] = (content.name, content.arguments)
            out.append(
                {
                    "type": "tool-input-available",
                    "toolCallId": content.call_id,
                    "toolName": content.name,
                    "input": content.arguments,
                    "providerMetadata": _meta(awaitsApproval=True),
                }
            )
        if content.description:
            descriptor["description"] = content.description
        if known[0] != content.name:
            descriptor["toolName"] = content.name
        if known[1] != content.arguments:
            descriptor["input"] = content.arguments
        chunk: dict[str, JSON] = {
            "type": "tool-approval-request",
            "approvalId": content.call_id,
            "toolCallId": content.call_id,
        }
        if descriptor:
            chunk["approvalDescriptor"] = descriptor
        out.append(chunk)

    def _error(self, out: list[JSON], content: contents.Error) -> None:
        call = None if content.call_id is None else self._calls.get(content.call_id)
        if (
            call is not None
            and not call.called
            and content.call_id is not None
            and content.error_code not in NOTICE_CODES
        ):
            # The call's arguments failed: the tool part ends in error, with the raw text.
            call.called = True
            out.append(
                {
                    "type": "tool-input-error",
                    "toolCallId": content.call_id,
                    "toolName": call.name,
                    "input": content.raw,
                    "errorText": content.message,
                    "providerMetadata": _meta(errorCode=content.error_code),
                }
            )
            return
        data: dict[str, JSON] = {"errorCode": content.error_code, "message": content.message}
        if content.call_id is not None:
            data["callId"] = content.call_id
        if content.raw is not None:
            data["raw"] = content.raw
        out.append({"type": DATA_ERROR, "data": data, "transient": True})
        if content.error_code not in NOTICE_CODES:
            self._errors.append(content)

    # -- events --------------------------------------------------------------------------------

    def _event(self, out: list[JSON], event: events.Custom) -> None:
        payload = event.payload
        kind = event.event_type
        if not isinstance(payload, dict):
            self._fallback(out, event)
            return
        if kind == "reasoning_signature" and isinstance(payload.get("signature"), str):
            meta = _meta(signature=payload["signature"])
            if self._open == "reasoning":
                self._end(out, meta)  # a signature ends its reasoning part
            else:
                self._part(out, "reasoning")
                self._end(out, meta)
            return
        if kind == "redacted_reasoning" and isinstance(payload.get("data"), str):
            self._part(out, "reasoning")
            self._end(out, _meta(redacted=payload["data"]))
            return
        if (
            kind == "part_signature"
            and isinstance(payload.get("signature"), str)
            and payload.get("part") in ("text", "empty")
        ):
            meta = _meta(signature=payload["signature"])
            if not (payload.get("part") == "text" and self._open == "text"):
                self._part(out, "text")
            self._end(out, meta)
            return
        if kind == "reasoning_item" and isinstance(payload.get("item_id"), str):
            item_id: str = payload["item_id"]
            encrypted = payload.get("encrypted_content")
            summary = payload.get("summary")
            meta = _meta(
                itemId=item_id,
                encryptedContent=encrypted if isinstance(encrypted, str) else None,
                summary=summary if isinstance(summary, list) and summary else None,
            )
            if item_id not in self._items:
                self._items.add(item_id)
                self._part(out, "reasoning", meta)
                self._open_item = item_id
                return
            if self._open == "reasoning" and self._open_item == item_id:
                self._end(out, meta)
                return
        self._fallback(out, event)

    def _fallback(self, out: list[JSON], event: events.Custom) -> None:
        """A Custom event with no place in a part: a ``data-raf-event`` where it came. The
        open part is ended where raf's turn ends its block."""
        payload = event.payload
        kind = event.event_type
        if kind in ("raw_item", "redacted_reasoning", "reasoning_signature"):
            self._end(out)
        elif kind == "reasoning_item":
            item_id = payload.get("item_id") if isinstance(payload, dict) else None
            if not isinstance(item_id, str):
                self._end(out)  # a reasoning item without an id: a new part
        elif kind == "part_signature" and isinstance(payload, dict):
            where = payload.get("part")
            signed = (
                self._last_call_signed
                if where == "tool_call"
                else self._last_hosted_signed
                if where == "hosted"
                else None
            )
            if signed is None or signed:
                self._end(out)
            elif where == "tool_call":
                self._last_call_signed = True
            else:
                self._last_hosted_signed = True
        out.append(
            {
                "type": DATA_EVENT,
                "data": {"eventType": kind, "payload": payload},
                "transient": True,
            }
        )

    def close(self) -> list[JSON]:
        out: list[JSON] = []
        if not self._started:
            self._started = True
            start: dict[str, JSON] = {"type": "start"}
            if self._message_id is not None:
                start["messageId"] = self._message_id
            out.append(start)
        self._end(out)
        if self._step:
            out.append({"type": "finish-step"})
            self._step = False
        for error in self._errors:
            if error.error_code == ErrorCode.CANCELLED:
                out.append({"type": "abort", "reason": error.message})
            else:
                out.append({"type": "error", "errorText": error.message})
        finish: dict[str, JSON] = {"type": "finish"}
        if self._finish is not None:
            finish["finishReason"] = FINISH_REASONS.get(self._finish, "other")
        elif self._errors:
            finish["finishReason"] = "error"
        out.append(finish)
        return out


def _raf(chunk: dict[str, Any]) -> dict[str, Any]:
    """What raf put in a chunk's ``providerMetadata`` (empty when nothing)."""
    meta = chunk.get("providerMetadata")
    if isinstance(meta, dict):
        mine = meta.get(PROVIDER_KEY)
        if isinstance(mine, dict):
            return mine
    return {}


def native(item: JSON) -> JSON | None:
    """The chunk as a front end that knows only the protocol reads it: ``providerMetadata``
    without raf's key, no ``data-raf-*`` chunk, and no ``message-metadata`` chunk (its keys,
    ``id``, ``model``, ``finishReason`` and ``usage``, are raf's names: the protocol passes a
    message's metadata through untyped, so only an application that knows raf's names reads
    them)."""
    if not isinstance(item, dict):
        return item
    kind = item.get("type")
    if kind == "message-metadata" or (isinstance(kind, str) and kind.startswith("data-raf-")):
        return None
    out = dict(item)
    if kind in ("start", "finish"):
        out.pop("messageMetadata", None)
    meta = out.get("providerMetadata")
    if isinstance(meta, dict) and PROVIDER_KEY in meta:
        rest = {key: value for key, value in meta.items() if key != PROVIDER_KEY}
        if rest:
            out["providerMetadata"] = rest
        else:
            del out["providerMetadata"]
    return out


def _string(value: object) -> str | None:
    return value if isinstance(value, str) else None


class UIMessageStreamDecoder:
    """UI message stream chunks in (JSON objects), raf results out; never raises.

    Reads what :class:`UIMessageStreamEncoder` writes exactly, and any UI message stream as
    well as the protocol allows: a chunk that is not one of the protocol's (not an object, no
    ``type``, a required field missing or not a string) or out of place (a delta of a part
    never started) is an ``invalid_chunk`` error naming its position; a well-formed chunk of no
    use to raf (``file``, ``source-document``, an application's ``data-*``) is counted in one
    ``unrecognised_chunks`` notice at the end.
    """

    def __init__(self) -> None:
        self._position = 0
        self._texts: set[str] = set()  # open text parts
        self._reasonings: set[str] = set()
        self._empty: set[str] = set()  # open parts with no delta yet
        self._unopened: set[str] = set()  # reasoning parts whose block is not yet opened
        self._unsure: tuple[str, str, JSON] | None = None  # a call read, not yet said
        self._calls: dict[str, str] = {}  # client calls started: name
        self._raw: dict[str, list[str]] = {}  # their input text so far
        self._closed: set[str] = set()  # calls whose input is final (or failed)
        self._tools: dict[str, tuple[str, JSON]] = {}  # tool parts: name, input
        self._hosted: set[str] = set()  # tool parts of tools the provider ran
        self._errors: list[str] = []  # raf's errors whose error chunk is still to come
        self._finish_seen = False
        self._finish_reason = False  # a finish reason was read from the metadata
        self._round = 0
        self._step_ended = False  # a finish-step with no data-raf-round before it
        self._round_given = False
        self._unused = 0
        self._unused_example = ""

    def _invalid(self, what: str) -> list[AgentResponseResult]:
        message = f"chunk {self._position}: {what}"
        return [
            AgentResponseResult(
                contents=(contents.Error(error_code=ErrorCode.INVALID_CHUNK, message=message),)
            )
        ]

    def feed(self, item: JSON) -> list[AgentResponseResult]:
        unsure, self._unsure = self._unsure, None
        out = self._feed(item)
        if unsure is None:
            return out
        call_id, name, arguments = unsure
        if (
            isinstance(item, dict)
            and item.get("type") == "tool-approval-request"
            and item.get("toolCallId") == call_id
        ):
            return out  # a tool part that only shows the call awaiting approval
        return [*self._called_now(call_id, name, arguments), *out]

    def _called_now(self, call_id: str, name: str, arguments: JSON) -> list[AgentResponseResult]:
        self._calls.setdefault(call_id, name)
        self._closed.add(call_id)
        call = contents.ToolCalling(call_id=call_id, name=name, arguments=arguments)
        return [AgentResponseResult(contents=(call,))]

    def _feed(self, item: JSON) -> list[AgentResponseResult]:
        self._position += 1
        if not isinstance(item, dict):
            return self._invalid(f"not a JSON object: {_compact(item)[:80]}")
        kind = item.get("type")
        if not isinstance(kind, str):
            return self._invalid("no string 'type'")
        if kind.startswith("data-"):
            return self._data(kind, item)
        required = _REQUIRED.get(kind)
        if required is None:
            return self._unused_chunk(kind)
        for field in required:
            if not isinstance(item.get(field), str):
                return self._invalid(f"{kind} without a string {field!r}")
        try:
            out = self._chunk(kind, item)
        except Exception as exc:  # a bug of raf's: said, never raised
            message = f"chunk {self._position}: {kind} could not be read: {exc!r}"
            error = contents.Error(error_code=ErrorCode.INTERNAL_ERROR, message=message)
            return [AgentResponseResult(contents=(error,))]
        return [
            AgentResponseResult(contents=tuple(c)) if isinstance(c, list) else c
            for c in out
            if c != []
        ]

    def _unused_chunk(self, kind: str) -> list[AgentResponseResult]:
        self._unused += 1
        if not self._unused_example:
            self._unused_example = kind
        return []

    # Each handler returns results, or lists of contents (one result each).
    def _chunk(self, kind: str, chunk: dict[str, Any]) -> list[Any]:
        if kind in ("text-start", "reasoning-start"):
            return self._start_part(kind, chunk)
        if kind in ("text-delta", "reasoning-delta"):
            return self._delta(kind, chunk)
        if kind in ("text-end", "reasoning-end"):
            return self._end_part(kind, chunk)
        if kind.startswith("tool-"):
            return self._tool(kind, chunk)
        if kind == "message-metadata" or kind in ("start", "finish"):
            out = self._metadata(chunk.get("messageMetadata"))
            if kind == "start" and isinstance(chunk.get("messageId"), str) and chunk["messageId"]:
                out.insert(0, AgentResponseResult(id=chunk["messageId"]))
            if kind == "finish":
                self._finish_seen = True
                reason = chunk.get("finishReason")
                if not self._finish_reason and isinstance(reason, str):
                    mapped = FINISH_REASONS_BACK.get(reason, reason)
                    if mapped is not None:
                        self._finish_reason = True
                        out.append(AgentResponseResult(finish_reason=mapped))
            return out
        if kind == "start-step":
            if self._step_ended:
                self._step_ended = False
                self._round += 1
                return [[contents.RoundFinished(round=self._round - 1)]]
            return []
        if kind == "finish-step":
            self._texts.clear()
            self._reasonings.clear()
            if self._round_given:
                self._round_given = False
            else:
                self._step_ended = True
            return []
        if kind in ("error", "abort"):
            text = chunk.get("errorText" if kind == "error" else "reason")
            text = text if isinstance(text, str) else "the stream was aborted"
            if self._errors and self._errors[0] == text:
                self._errors.pop(0)
                return []
            code = ErrorCode.PROVIDER_ERROR if kind == "error" else ErrorCode.CANCELLED
            return [[contents.Error(error_code=code, message=text)]]
        if kind == "source-url":
            title = chunk.get("title")
            return [
                [contents.Uri(uri=chunk["url"], label=title if isinstance(title, str) else None)]
            ]
        return self._unused_chunk(kind)

    def _start_part(self, kind: str, chunk: dict[str, Any]) -> list[Any]:
        part_id: str = chunk["id"]
        (self._texts if kind == "text-start" else self._reasonings).add(part_id)
        self._empty.add(part_id)
        mine = _raf(chunk)
        item_id = mine.get("itemId")
        if kind == "reasoning-start" and isinstance(item_id, str):
            return [[], AgentResponseResult(events=(self._item_event(mine),))]
        if kind == "reasoning-start":
            self._unopened.add(part_id)
        return []

    def _open_reasoning(self, part_id: str) -> list[events.Event]:
        """A reasoning part is a reasoning block of its own, as the UIMessage has it: the
        event that opens one (a reasoning item without an id), once per part not opened by
        raf's ``itemId``. Without it, two reasoning parts in a row would be one block."""
        if part_id not in self._unopened:
            return []
        self._unopened.discard(part_id)
        return [events.Custom(event_type="reasoning_item", payload={"item_id": None})]

    @staticmethod
    def _item_event(mine: dict[str, Any]) -> events.Custom:
        summary = mine.get("summary")
        return events.Custom(
            event_type="reasoning_item",
            payload={
                "item_id": mine.get("itemId"),
                "encrypted_content": _string(mine.get("encryptedContent")),
                "summary": summary if isinstance(summary, list) else [],
            },
        )

    def _delta(self, kind: str, chunk: dict[str, Any]) -> list[Any]:
        part_id: str = chunk["id"]
        text = kind == "text-delta"
        content: contents.Content = (
            contents.Text(delta=chunk["delta"])
            if text
            else contents.Reasoning(delta=chunk["delta"])
        )
        self._empty.discard(part_id)
        if part_id not in (self._texts if text else self._reasonings):
            # Kept, and said: the part was never started.
            error = contents.Error(
                error_code=ErrorCode.INVALID_CHUNK,
                message=f"chunk {self._position}: {kind} of part {part_id!r}, never started",
            )
            return [[content, error]]
        opening = self._open_reasoning(part_id)
        if opening:
            return [AgentResponseResult(events=tuple(opening)), [content]]
        return [[content]]

    def _end_part(self, kind: str, chunk: dict[str, Any]) -> list[Any]:
        part_id: str = chunk["id"]
        opened = self._texts if kind == "text-end" else self._reasonings
        empty = part_id in self._empty
        self._empty.discard(part_id)
        if part_id not in opened:
            return self._invalid(f"{kind} of part {part_id!r}, never started")
        opened.discard(part_id)
        mine = _raf(chunk)
        signature = _string(mine.get("signature"))
        if kind == "text-end":
            if signature is None:
                # The part ends its block (the next text part is another, as in the
                # UIMessage); an empty text part is an empty text block.
                end = AgentResponseResult(
                    events=(events.Custom(event_type="part_end", payload={}),)
                )
                return [[contents.Text(delta="")], end] if empty else [end]
            where = "empty" if empty else "text"
            return [
                AgentResponseResult(
                    events=(
                        events.Custom(
                            event_type="part_signature",
                            payload={"signature": signature, "part": where},
                        ),
                    )
                )
            ]
        out: list[events.Event] = []
        redacted = _string(mine.get("redacted"))
        if redacted is None:
            out.extend(self._open_reasoning(part_id))  # an empty part is an empty block
        self._unopened.discard(part_id)
        if isinstance(mine.get("itemId"), str):
            out.append(self._item_event(mine))
        if signature is not None:
            out.append(
                events.Custom(event_type="reasoning_signature", payload={"signature": signature})
            )
        if redacted is not None:
            out.append(events.Custom(event_type="redacted_reasoning", payload={"data": redacted}))
        return [AgentResponseResult(events=tuple(out))] if out else []

    def _tool(self, kind: str, chunk: dict[str, Any]) -> list[Any]:
        call_id: str = chunk["toolCallId"]
        mine = _raf(chunk)
        hosted = chunk.get("providerExecuted") is True
        if kind == "tool-input-start":
            name: str = chunk["toolName"]
            self._tools[call_id] = (name, None)
            if hosted:
                self._hosted.add(call_id)
                return []
            self._calls[call_id] = name
            self._raw[call_id] = []
            self._closed.discard(call_id)
            return [[contents.ToolCallStart(call_id=call_id, name=name)]]
        if kind == "tool-input-delta":
            if call_id in self._hosted:
                return []
            delta: str = chunk["inputTextDelta"]
            if call_id not in self._calls or call_id in self._closed:
                return self._invalid(f"tool-input-delta of call {call_id!r}, not streaming")
            self._raw.setdefault(call_id, []).append(delta)
            return [[contents.ToolCallArgs(call_id=call_id, args_delta=delta)]]
        if kind == "tool-input-available":
            name = chunk["toolName"]
            value = chunk.get("input")
            self._tools[call_id] = (name, value)
            if mine.get("awaitsApproval") is True:
                return []
            if hosted:
                self._hosted.add(call_id)
                return [
                    [
                        contents.HostedToolCall(
                            call_id=call_id, name=name, arguments=value, item=mine.get("item")
                        )
                    ]
                ]
            if call_id not in self._calls:
                # A call that did not stream: whether it was made or only waits for approval
                # (a provider's request, an MCP approval) is said by the next chunk.
                self._unsure = (call_id, name, value)
                return []
            self._closed.add(call_id)
            return [[contents.ToolCalling(call_id=call_id, name=name, arguments=value)]]
        if kind == "tool-input-error":
            name = chunk["toolName"]
            raw = chunk.get("input")
            code = _string(mine.get("errorCode")) or ErrorCode.INVALID_TOOL_ARGUMENTS
            out: list[contents.Content] = []
            if call_id not in self._calls:
                self._calls[call_id] = name
                out.append(contents.ToolCallStart(call_id=call_id, name=name))
            self._tools.setdefault(call_id, (name, None))
            self._closed.add(call_id)
            out.append(
                contents.Error(
                    error_code=code,
                    message=chunk["errorText"],
                    call_id=call_id,
                    raw=raw if raw is None or isinstance(raw, str) else _compact(raw),
                )
            )
            return [out]
        if kind == "tool-approval-request":
            known = self._tools.get(call_id)
            descriptor = chunk.get("approvalDescriptor")
            descriptor = descriptor if isinstance(descriptor, dict) else {}
            name = _string(descriptor.get("toolName")) or (known[0] if known else "")
            arguments: JSON = None
            if "input" in descriptor:
                arguments = descriptor["input"]
            elif known is not None:
                arguments = known[1]
            description = _string(descriptor.get("description")) or ""
            request = contents.ToolApprovalRequest(
                call_id=call_id, name=name, arguments=arguments, description=description
            )
            return [[request]]
        if kind in ("tool-output-available", "tool-output-error"):
            error = _string(chunk.get("errorText")) if kind == "tool-output-error" else None
            output = chunk.get("output") if kind == "tool-output-available" else mine.get("output")
            if hosted or call_id in self._hosted:
                known = self._tools.get(call_id)
                name = _string(mine.get("name")) or (known[0] if known else "")
                return [
                    [
                        contents.HostedToolResult(
                            call_id=call_id,
                            name=name,
                            output=output,
                            error=error,
                            item=mine.get("item"),
                        )
                    ]
                ]
            if error is not None:
                return [[contents.ToolCalled(call_id=call_id, error=error)]]
            result = output if output is None or isinstance(output, str) else _compact(output)
            return [[contents.ToolCalled(call_id=call_id, result=result)]]
        if kind == "tool-output-denied":
            return [[contents.ToolCalled(call_id=call_id, error=DENIED)]]
        return self._unused_chunk(kind)

    def _metadata(self, metadata: JSON) -> list[Any]:
        if not isinstance(metadata, dict):
            return []
        out: list[Any] = []
        id_, model, reason = (
            value if isinstance(value, str) and value else None
            for value in (metadata.get("id"), metadata.get("model"), metadata.get("finishReason"))
        )
        if reason is not None:
            self._finish_reason = True
        if id_ is not None or model is not None or reason is not None:
            out.append(AgentResponseResult(id=id_, model=model, finish_reason=reason))
        if "usage" in metadata:
            usage = usage_from_json(metadata["usage"])
            if usage is None:
                return [*out, *self._invalid("a usage that is not a LanguageModelUsage")]
            out.append([contents.Usage(usage=usage)])
        return out

    def _data(self, kind: str, chunk: dict[str, Any]) -> list[AgentResponseResult]:
        data = chunk.get("data")
        if kind == DATA_ERROR and isinstance(data, dict):
            code, message = data.get("errorCode"), data.get("message")
            if not (isinstance(code, str) and isinstance(message, str)):
                return self._invalid(f"{kind} without a string errorCode and message")
            if code not in NOTICE_CODES:
                self._errors.append(message)
            error = contents.Error(
                error_code=code,
                message=message,
                call_id=_string(data.get("callId")),
                raw=_string(data.get("raw")),
            )
            return [AgentResponseResult(contents=(error,))]
        if kind == DATA_ROUND and isinstance(data, dict):
            number = data.get("round")
            usage = usage_from_json(data["usage"]) if "usage" in data else None
            if not isinstance(number, int) or ("usage" in data and usage is None):
                return self._invalid(f"{kind} without a whole 'round' or with a bad usage")
            self._round = number + 1
            self._round_given = True
            self._step_ended = False
            done = contents.RoundFinished(
                round=number, finish_reason=_string(data.get("finishReason")), usage=usage
            )
            return [AgentResponseResult(contents=(done,))]
        if kind == DATA_EVENT and isinstance(data, dict):
            event_type = data.get("eventType")
            if not isinstance(event_type, str):
                return self._invalid(f"{kind} without a string eventType")
            event = events.Custom(event_type=event_type, payload=data.get("payload"))
            return [AgentResponseResult(events=(event,))]
        if "data" not in chunk:
            return self._invalid(f"{kind} without 'data'")
        self._unused_chunk(kind)
        return []

    def close(self) -> list[AgentResponseResult]:
        called: list[AgentResponseResult] = []
        if self._unsure is not None:
            called = self._called_now(*self._unsure)
            self._unsure = None
        out: list[contents.Content] = []
        if not self._finish_seen:
            for call_id, name in self._calls.items():
                if call_id not in self._closed:
                    out.append(
                        contents.Error(
                            error_code=ErrorCode.TOOL_CALL_INCOMPLETE,
                            message=f"the stream ended inside the input of call {call_id!r} "
                            f"({name})",
                            call_id=call_id,
                            raw="".join(self._raw.get(call_id, ())),
                        )
                    )
            out.append(
                contents.Error(
                    error_code=ErrorCode.STREAM_TRUNCATED,
                    message="the stream ended without its finish chunk",
                )
            )
        if self._unused:
            out.append(
                contents.Error(
                    error_code=ErrorCode.UNRECOGNISED_CHUNKS,
                    message=(
                        f"{self._unused} chunk(s) of no kind raf reads were skipped, "
                        f"e.g. {self._unused_example!r}"
                    ),
                )
            )
        return [*called, AgentResponseResult(contents=tuple(out))] if out else called


_META = "messageMetadata"
ROWS: Final[tuple[Row, ...]] = (
    Row(
        "id",
        f"{_META}.id (message-metadata, where it arrived; raf's name); the start chunk's "
        "messageId is the UI's id of the message, not the provider's",
        extension=True,
    ),
    Row("model", f"{_META}.model (raf's name)", extension=True),
    Row("text", "text-delta delta, in text-start … text-end parts"),
    Row("reasoning_text", "reasoning-delta delta, in reasoning-start … reasoning-end parts"),
    Row("tool_calls[].id", "tool-input-available toolCallId"),
    Row("tool_calls[].name", "tool-input-available toolName"),
    Row("tool_calls[].arguments", "tool-input-available input"),
    Row("hosted_tool_calls[].id", "tool-input-available toolCallId, providerExecuted: true"),
    Row("hosted_tool_calls[].name", "tool-input-available toolName"),
    Row("hosted_tool_calls[].arguments", "tool-input-available input"),
    Row(
        "hosted_tool_calls[].output",
        "tool-output-available output; of a call that failed (tool-output-error): "
        f"providerMetadata.{PROVIDER_KEY}.output",
        extension=True,
    ),
    Row("hosted_tool_calls[].error", "tool-output-error errorText"),
    Row("approval_requests[].call_id", "tool-approval-request toolCallId and approvalId"),
    Row("approval_requests[].name", "the tool part's toolName (approvalDescriptor.toolName)"),
    Row("approval_requests[].arguments", "the tool part's input (approvalDescriptor.input)"),
    Row("approval_requests[].description", "approvalDescriptor.description"),
    Row("tool_messages[].tool_call_id", "tool-output-available / tool-output-error toolCallId"),
    Row("tool_messages[].content", "tool-output-available output, tool-output-error errorText"),
    Row("tool_messages[].blocks", "the same (is_error: tool-output-error)"),
    Row("tool_messages[].role", "a tool-output chunk (tool)"),
    Row("tool_messages[].source", "a tool-output chunk (tool_result)"),
    Row("tool_messages[].name", "the toolName of the call's tool part"),
    Row("tool_messages[].tool_calls", "a tool-output chunk (none)"),
    Row("turn_transcript[].role", "the message (assistant) and the tool-output chunks (tool)"),
    Row("turn_transcript[].content", "the text parts of a step"),
    Row("turn_transcript[].tool_calls", "the tool parts of a step"),
    Row("turn_transcript[].tool_call_id", "tool-output-* toolCallId"),
    Row("turn_transcript[].name", "the toolName of the call's tool part"),
    Row("turn_transcript[].source", "a tool-output chunk (tool_result)"),
    Row(
        "turn_transcript[].blocks[].type",
        "the part: text, reasoning, tool-*; a raw item has no part (data-raf-event only)",
    ),
    Row(
        "turn_transcript[].blocks[].text",
        "text and reasoning parts, as they start and end",
    ),
    Row(
        "turn_transcript[].blocks[].signature",
        f"text-end / reasoning-end providerMetadata.{PROVIDER_KEY}.signature; on a tool "
        "part: data-raf-event (part_signature)",
        extension=True,
    ),
    Row(
        "turn_transcript[].blocks[].redacted",
        f"reasoning-end providerMetadata.{PROVIDER_KEY}.redacted (natively an empty "
        "reasoning part)",
        extension=True,
    ),
    Row(
        "turn_transcript[].blocks[].encrypted_content",
        f"reasoning-start / -end providerMetadata.{PROVIDER_KEY}.encryptedContent",
        extension=True,
    ),
    Row(
        "turn_transcript[].blocks[].item_id",
        f"reasoning-start / -end providerMetadata.{PROVIDER_KEY}.itemId; of a call: "
        "data-raf-event (tool_call_item)",
        extension=True,
    ),
    Row(
        "turn_transcript[].blocks[].summary",
        f"reasoning-end providerMetadata.{PROVIDER_KEY}.summary",
        extension=True,
    ),
    Row("turn_transcript[].blocks[].id", "tool-* toolCallId"),
    Row("turn_transcript[].blocks[].name", "tool-* toolName"),
    Row(
        "turn_transcript[].blocks[].arguments",
        "tool-input-available input (tool-input-error input)",
    ),
    Row(
        "turn_transcript[].blocks[].output",
        "tool-output-available output; a failed provider's tool's: "
        f"providerMetadata.{PROVIDER_KEY}.output",
        extension=True,
    ),
    Row(
        "turn_transcript[].blocks[].error",
        "tool-output-error errorText",
    ),
    Row(
        "turn_transcript[].blocks[].item",
        f"providerMetadata.{PROVIDER_KEY}.item of a provider's tool",
        extension=True,
    ),
    Row("turn_transcript[].blocks[].value", "data-raf-event (raw_item)", extension=True),
    Row(
        "turn_transcript[].blocks[].call_id",
        "tool-output-* toolCallId",
    ),
    Row(
        "turn_transcript[].blocks[].content",
        "tool-output-* output / errorText",
    ),
    Row(
        "turn_transcript[].blocks[].is_error",
        "tool-output-error",
    ),
    Row(
        "finish_reason",
        f"{_META}.finishReason (raf's own string); natively only the finish chunk's "
        "finishReason, the protocol's (stop, length, tool-calls, content-filter, error, "
        "other): awaiting_approval and max_rounds read as tool_calls, a provider's own "
        "reason as other",
        extension=True,
    ),
    Row("usage.prompt_tokens", f"{_META}.usage.inputTokens", extension=True),
    Row("usage.completion_tokens", f"{_META}.usage.outputTokens", extension=True),
    Row("usage.total_tokens", f"{_META}.usage.totalTokens", extension=True),
    Row(
        "usage.prompt_cache_hit_tokens",
        f"{_META}.usage.inputTokenDetails.cacheReadTokens",
        extension=True,
    ),
    Row(
        "usage.prompt_cache_miss_tokens",
        f"{_META}.usage.inputTokenDetails.noCacheTokens",
        extension=True,
    ),
    Row(
        "usage.reasoning_tokens",
        f"{_META}.usage.outputTokenDetails.reasoningTokens",
        extension=True,
    ),
    Row(
        "errors[].message",
        "data-raf-error message, where it happened; natively every message too (error "
        "errorText or abort reason at the end, tool-input-error errorText where the call "
        "failed), but not in raf's order",
        extension=True,
    ),
    Row(
        "errors[].error_code",
        f"data-raf-error errorCode; tool-input-error providerMetadata.{PROVIDER_KEY}.errorCode "
        "(natively: provider_error, cancelled for abort, invalid_tool_arguments)",
        extension=True,
    ),
    Row(
        "errors[].call_id",
        "data-raf-error callId; natively only tool-input-error toolCallId",
        extension=True,
    ),
    Row(
        "errors[].raw",
        "data-raf-error raw; natively only tool-input-error input",
        extension=True,
    ),
    Row("notices[].error_code", "data-raf-error errorCode (no error chunk)", extension=True),
    Row("notices[].message", "data-raf-error message", extension=True),
    Row("notices[].call_id", "data-raf-error callId", extension=True),
    Row("notices[].raw", "data-raf-error raw", extension=True),
    Row(
        "rounds[].finish_reason",
        "data-raf-round finishReason, before each finish-step (natively: a step per round)",
        extension=True,
    ),
    Row(
        "rounds[].usage",
        "data-raf-round usage; the last step's: message-metadata usage",
        extension=True,
    ),
)

MODEL: Final = Model(
    name="ui-message-stream",
    title="AI SDK UI message stream",
    validator="the ai package's uiMessageChunkSchema",
    encoder=UIMessageStreamEncoder,
    decoder=UIMessageStreamDecoder,
    rows=ROWS,
    framing="sse",
    trailer=b"data: [DONE]\n\n",
    media_type="text/event-stream",
    headers=(("x-vercel-ai-ui-message-stream", "v1"),),
    native=native,
)
