"""LangChain's messages, spoken by raf (docs/interop.md, "LangChain"). No IO, no import of
LangChain (:func:`objects` imports it when called).

raf's results become the items LangChain's ``messages_to_dict`` writes and
``messages_from_dict`` reads: ``{"type": "AIMessageChunk", "data": {...}}`` for every piece of
the model's answer, as a chat model's ``stream()`` yields them, and ``{"type": "tool", "data":
{...}}`` for each tool result of an agent run. Adding the chunks up (``AIMessageChunk`` ``+``)
gives the ``AIMessage`` that :func:`aggregate` makes of raf's whole response.

The chunks are in LangChain's standard content blocks (``response_metadata.output_version ==
"v1"``, ``content`` a list of blocks with a stable ``index`` each), the form that keeps what a
string content cannot: the order of text and reasoning, each reasoning block apart, and the
provider's signatures in the block's ``extras``. Tool calls are ``tool_call_chunks`` (and a
``tool_call_chunk`` block in ``content``) with one ``index`` per call, the id and name on the
call's first chunk, so that calls streamed interleaved add up apart. ``usage_metadata``,
``finish_reason`` and ``model_name`` come once, on the chunk that ends the message
(``chunk_position: "last"``): LangChain adds numbers and concatenates strings when it adds
chunks up. What LangChain has no field for (raf's errors and notices, calls waiting for
approval) is kept in ``response_metadata`` under ``raf_errors``, ``raf_notices`` and
``raf_approval_requests``.

* :data:`MODEL`: the encoder, the decoder, the table of what is kept.
* :func:`aggregate`: an :class:`~raf.model.AgentResponse` as LangChain messages (the
  ``AIMessage`` of each model round, the ``ToolMessage`` s of an agent run).
* :func:`from_ai_message`: an ``AIMessage`` or added-up ``AIMessageChunk`` (the object, or its
  ``model_dump()`` / ``messages_to_dict`` form) as raf's response.
* :func:`v3_events`: LangChain's v3 stream events (``message-start``,
  ``content-block-start/delta/finish``, ``message-finish``, ``error``).
* :func:`objects`: the items as LangChain's own message objects.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Final

from raf.collect import collect_agent_response
from raf.interop.base import JSON, Model, Row, encode_all
from raf.model import blocks, contents, events
from raf.model.codes import NOTICE_CODES, ErrorCode
from raf.model.messages import ChatMessage, MessageRole
from raf.model.response import AgentResponse, AgentResponseResult, Round
from raf.model.usage import FinishReason, Usage

__all__ = [
    "MODEL",
    "Decoder",
    "Encoder",
    "aggregate",
    "from_ai_message",
    "native",
    "objects",
    "usage_metadata",
    "usage_of",
    "v3_events",
]

CHUNK: Final = "AIMessageChunk"
AI: Final = "ai"
TOOL: Final = "tool"

ERRORS: Final = "raf_errors"
NOTICES: Final = "raf_notices"
APPROVALS: Final = "raf_approval_requests"
REDACTED: Final = "redacted_content"
"""Where a ``reasoning`` block keeps its redacted data: LangChain's own ``extras`` key for it
(``langchain_core``'s Bedrock Converse translator writes it)."""

USAGE_FIELDS: Final = (
    # (raf's Usage field, where LangChain's usage_metadata has it)
    ("prompt_tokens", ("input_tokens",)),
    ("completion_tokens", ("output_tokens",)),
    ("total_tokens", ("total_tokens",)),
    ("prompt_cache_hit_tokens", ("input_token_details", "cache_read")),
    ("prompt_cache_miss_tokens", ("input_token_details", "cache_miss")),
    ("reasoning_tokens", ("output_token_details", "reasoning")),
)
"""raf's usage and LangChain's ``usage_metadata``, field by field. ``cache_miss`` is not one of
LangChain's named details; ``usage_metadata``'s details are open, and raf keeps it there."""

FINISH_KEYS: Final = ("finish_reason", "stop_reason")
"""Where chat models put the finish reason in ``response_metadata`` (``stop_reason``:
langchain-anthropic)."""

STATUS_COMPLETED: Final = "completed"
"""The Responses API's ``status`` (langchain-openai's ``response_metadata`` for it), read when
there is no finish reason: ``completed`` is ``tool_calls`` when the message has calls, else
``stop``; any other status is kept as it is."""

# The kinds of an open block of the message being built (mirrors raf's collector).
_TEXT, _REASONING = "text", "reasoning"


def _chunk(data: dict[str, Any]) -> JSON:
    """One ``AIMessageChunk`` as ``messages_to_dict`` writes it."""
    body: dict[str, Any] = {
        "content": data.get("content", []),
        "additional_kwargs": {},
        "response_metadata": {"output_version": "v1", **data.get("response_metadata", {})},
        "type": CHUNK,
        "name": None,
        "id": data.get("id"),
        "tool_calls": [],
        "invalid_tool_calls": [],
        "usage_metadata": data.get("usage_metadata"),
        "tool_call_chunks": data.get("tool_call_chunks", []),
        "chunk_position": data.get("chunk_position"),
    }
    return {"type": CHUNK, "data": body}


def _tool_message(call_id: str, text: str, is_error: bool, name: str | None) -> JSON:
    return {
        "type": TOOL,
        "data": {
            "content": text,
            "additional_kwargs": {},
            "response_metadata": {},
            "type": TOOL,
            "name": name,
            "id": None,
            "tool_call_id": call_id,
            "artifact": None,
            "status": "error" if is_error else "success",
        },
    }


def usage_metadata(usage: Usage) -> dict[str, Any]:
    """raf's usage as LangChain's ``usage_metadata``."""
    out: dict[str, Any] = {}
    for field, path in USAGE_FIELDS:
        value = getattr(usage, field)
        if value is None:
            continue
        if len(path) == 1:
            out[path[0]] = value
        else:
            out.setdefault(path[0], {})[path[1]] = value
    return out


def usage_of(metadata: Any) -> Usage | None:
    """LangChain's ``usage_metadata`` as raf's usage (``None`` when there is none)."""
    if not isinstance(metadata, Mapping) or not metadata:
        return None
    values: dict[str, Any] = {}
    for field, path in USAGE_FIELDS:
        value: Any = metadata.get(path[0])
        if len(path) == 2:
            value = value.get(path[1]) if isinstance(value, Mapping) else None
        if isinstance(value, int) and not isinstance(value, bool):
            values[field] = value
    return Usage(**values)


def _error_dict(error: contents.Error) -> dict[str, Any]:
    return {
        "error_code": error.error_code,
        "message": error.message,
        "call_id": error.call_id,
        "raw": error.raw,
    }


def _error_of(value: Any) -> contents.Error | None:
    if not isinstance(value, Mapping) or not isinstance(value.get("message"), str):
        return None
    code, call_id, raw = value.get("error_code"), value.get("call_id"), value.get("raw")
    return contents.Error(
        error_code=code if isinstance(code, str) else ErrorCode.INVALID_CHUNK,
        message=value["message"],
        call_id=call_id if isinstance(call_id, str) else None,
        raw=raw if isinstance(raw, str) else None,
    )


def _mapping(value: Any) -> Mapping[str, Any]:
    """``value`` when it is a mapping, else an empty one (a malformed field is read as none)."""
    return value if isinstance(value, Mapping) else {}


def _mappings(value: Any) -> list[Mapping[str, Any]]:
    """The mappings of a list field (the rest of a malformed one is skipped)."""
    return [v for v in value if isinstance(v, Mapping)] if isinstance(value, list) else []


def _extras(block: Mapping[str, Any]) -> Mapping[str, Any]:
    """A content block's ``extras`` (empty when it has none)."""
    extras = block.get("extras")
    return extras if isinstance(extras, Mapping) else {}


def _approvals(metadata: Mapping[str, Any]) -> list[contents.ToolApprovalRequest]:
    """The calls waiting for approval that ``response_metadata`` keeps."""
    return [
        contents.ToolApprovalRequest(
            call_id=value["call_id"],
            name=str(value.get("name") or ""),
            arguments=value.get("arguments"),
            description=str(value.get("description") or ""),
        )
        for value in metadata.get(APPROVALS) or []
        if isinstance(value, Mapping) and isinstance(value.get("call_id"), str)
    ]


def _redacted_thinking(value: Any) -> str | None:
    """The data of Anthropic's redacted thinking as LangChain's ``content_blocks`` give it (a
    ``non_standard`` block whose ``value`` is the ``redacted_thinking`` block), else ``None``."""
    if isinstance(value, Mapping) and value.get("type") == "redacted_thinking":
        data = value.get("data")
        return data if isinstance(data, str) else None
    return None


def _hosted_args(arguments: Any) -> dict[str, Any]:
    """A hosted call's arguments in a ``server_tool_call`` block: ``args`` when they are an
    object (LangChain's ``args`` is one, and it reads any other ``args`` as JSON text), else
    ``args: {}`` and the arguments as they are in ``extras``."""
    if isinstance(arguments, dict):
        return {"args": arguments}
    return {"args": {}, "extras": {"arguments": arguments}}


def _hosted_arguments(block: Mapping[str, Any], extras: Mapping[str, Any]) -> Any:
    return extras["arguments"] if "arguments" in extras else block.get("args")


def _args_text(arguments: Any) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)


def _parse(text: str) -> tuple[bool, Any]:
    try:
        return True, json.loads(text) if text else {}
    except ValueError:
        return False, text


# -- raf -> LangChain ------------------------------------------------------------------------


class _Call:
    __slots__ = ("id", "index", "name", "sent")

    def __init__(self, call_id: str, name: str, index: int) -> None:
        self.id = call_id
        self.name = name
        self.index = index
        self.sent: dict[str, Any] = {}  # the extras sent on the call's block


class Encoder:
    """raf's results in, LangChain's message dicts out (``AIMessageChunk`` s, and a
    ``ToolMessage`` for each tool result of an agent run)."""

    def __init__(self) -> None:
        self._open_message = False
        self._next = 0  # the next block index of the message
        self._open_kind: str | None = None
        self._open_index = -1
        self._open_signed = False
        self._calls: dict[str, _Call] = {}
        self._names: dict[str, str] = {}  # every call's name, across rounds
        self._last_call: _Call | None = None
        self._last_hosted = -1
        self._reasoning_items: dict[str, tuple[int, dict[str, Any]]] = {}
        self._usage: Usage | None = None
        self._id: str | None = None
        self._model: str | None = None
        self._finish: str | None = None
        self._pending_finish = False

    # the message being built

    def _index(self) -> int:
        index = self._next
        self._next += 1
        return index

    def _close_part(self) -> None:
        self._open_kind = None

    def _start(self, kind: str) -> int:
        self._open_kind = kind
        self._open_index = self._index()
        self._open_signed = False
        return self._open_index

    def _emit(self, **data: Any) -> list[JSON]:
        self._open_message = True
        return [_chunk(data)]

    def _end_message(self, finish: str | None, usage: Usage | None) -> list[JSON]:
        metadata: dict[str, Any] = {}
        if finish is not None:
            metadata["finish_reason"] = str(finish)
        if self._model is not None:
            metadata["model_name"] = self._model
        out = [
            _chunk(
                {
                    "id": self._id,
                    "response_metadata": metadata,
                    "usage_metadata": None if usage is None else usage_metadata(usage),
                    "chunk_position": "last",
                }
            )
        ]
        self._open_message = False
        self._next = 0
        self._close_part()
        self._calls = {}
        self._last_call = None
        self._last_hosted = -1
        self._reasoning_items = {}
        self._usage = None
        self._id = self._model = None
        self._pending_finish = False
        return out

    # feeding

    def feed(self, result: AgentResponseResult) -> list[JSON]:
        out: list[JSON] = []
        if result.id:
            self._id = result.id
        if result.model:
            self._model = result.model
        if result.finish_reason:
            self._finish = result.finish_reason
            self._pending_finish = True
        for content in result.contents:
            out.extend(self._content(content))
        for event in result.events:
            if isinstance(event, events.Custom) and isinstance(event.payload, dict):
                out.extend(self._custom(event.event_type, event.payload))
        return out

    def _text(self, kind: str, delta: str) -> list[JSON]:
        if self._open_kind != kind:
            self._start(kind)
        key = "text" if kind == _TEXT else "reasoning"
        return self._emit(content=[{"type": kind, key: delta, "index": self._open_index}])

    def _call(self, call_id: str, name: str, args: str | None = None) -> list[JSON]:
        call = self._calls.get(call_id)
        if call is not None:
            return []
        self._close_part()
        call = _Call(call_id, name, self._index())
        self._calls[call_id] = call
        self._names[call_id] = name
        self._last_call = call
        text = args or ""
        return self._emit(
            content=[
                {
                    "type": "tool_call_chunk",
                    "id": call_id,
                    "name": name,
                    "args": text,
                    "index": call.index,
                }
            ],
            tool_call_chunks=[
                {
                    "name": name,
                    "args": text,
                    "id": call_id,
                    "index": call.index,
                    "type": "tool_call_chunk",
                }
            ],
        )

    def _content(self, content: contents.Content) -> list[JSON]:
        if isinstance(content, contents.Text):
            return self._text(_TEXT, content.delta)
        if isinstance(content, contents.Reasoning):
            return self._text(_REASONING, content.delta)
        if isinstance(content, contents.ToolCallStart):
            return self._call(content.call_id, content.name)
        if isinstance(content, contents.ToolCallArgs):
            call = self._calls.get(content.call_id)
            if call is None:
                return []
            return self._emit(
                content=[
                    {"type": "tool_call_chunk", "args": content.args_delta, "index": call.index}
                ],
                tool_call_chunks=[
                    {
                        "name": None,
                        "args": content.args_delta,
                        "id": None,
                        "index": call.index,
                        "type": "tool_call_chunk",
                    }
                ],
            )
        if isinstance(content, contents.ToolCalling):
            # a call that came whole (no start, no fragments) streams as one chunk
            return self._call(content.call_id, content.name, _args_text(content.arguments))
        if isinstance(content, contents.Usage):
            if self._usage is None or any(
                (
                    content.usage.prompt_tokens,
                    content.usage.completion_tokens,
                    content.usage.total_tokens,
                )
            ):
                self._usage = content.usage
            return []
        if isinstance(content, contents.Error):
            key = NOTICES if content.error_code in NOTICE_CODES else ERRORS
            return self._emit(response_metadata={key: [_error_dict(content)]})
        if isinstance(content, contents.HostedToolCall):
            self._close_part()
            self._last_hosted = index = self._index()
            block: dict[str, Any] = {
                "type": "server_tool_call",
                "id": content.call_id,
                "name": content.name,
                **_hosted_args(content.arguments),
                "index": index,
            }
            if content.item is not None:
                block.setdefault("extras", {})["item"] = content.item
            return self._emit(content=[block])
        if isinstance(content, contents.HostedToolResult):
            self._close_part()
            index = self._index()
            extras: dict[str, Any] = {"name": content.name}
            if content.error is not None:
                extras["error"] = content.error
            if content.item is not None:
                extras["item"] = content.item
            block = {
                "type": "server_tool_result",
                "tool_call_id": content.call_id,
                "status": "error" if content.error is not None else "success",
                "output": content.output,
                "index": index,
                "extras": extras,
            }
            return self._emit(content=[block])
        if isinstance(content, contents.ToolApprovalRequest):
            request = {
                "call_id": content.call_id,
                "name": content.name,
                "arguments": content.arguments,
                "description": content.description,
            }
            return self._emit(response_metadata={APPROVALS: [request]})
        if isinstance(content, contents.RoundFinished):
            usage = content.usage if content.usage is not None else self._usage
            return self._end_message(content.finish_reason, usage)
        if isinstance(content, contents.ToolCalled):
            result, error = content.result, content.error
            text = result if result is not None else error if error is not None else ""
            is_error = result is None and error is not None
            return [
                _tool_message(content.call_id, text, is_error, self._names.get(content.call_id))
            ]
        return []

    def _custom(self, kind: str, payload: dict[str, Any]) -> list[JSON]:
        if kind == "reasoning_signature":
            signature = payload.get("signature")
            if self._open_kind != _REASONING or self._open_signed:
                self._start(_REASONING)
            block = {
                "type": "reasoning",
                "reasoning": "",
                "index": self._open_index,
                "extras": {"signature": signature if isinstance(signature, str) else ""},
            }
            self._close_part()
            return self._emit(content=[block])
        if kind == "part_signature":
            signature = payload.get("signature")
            extras: dict[str, Any] = {"signature": signature if isinstance(signature, str) else ""}
            where = payload.get("part")
            if (
                where == "tool_call"
                and self._last_call is not None
                and ("signature" not in self._last_call.sent)
            ):
                self._last_call.sent["signature"] = True
                return self._emit(
                    content=[
                        {
                            "type": "tool_call_chunk",
                            "args": "",
                            "index": self._last_call.index,
                            "extras": extras,
                        }
                    ]
                )
            if where == "hosted" and self._last_hosted >= 0:
                return self._emit(
                    content=[
                        {"type": "server_tool_call", "index": self._last_hosted, "extras": extras}
                    ]
                )
            if not (where == "text" and self._open_kind == _TEXT and not self._open_signed):
                self._start(_TEXT)
            index = self._open_index
            self._close_part()
            return self._emit(
                content=[{"type": "text", "text": "", "index": index, "extras": extras}]
            )
        if kind == "redacted_reasoning":
            self._close_part()
            data = payload.get("data")
            return self._emit(
                content=[
                    {
                        "type": "reasoning",
                        "reasoning": "",
                        "index": self._index(),
                        "extras": {REDACTED: data if isinstance(data, str) else ""},
                    }
                ]
            )
        if kind == "reasoning_item":
            item_id = payload.get("item_id")
            known = self._reasoning_items.get(item_id) if isinstance(item_id, str) else None
            if known is None:
                index = self._start(_REASONING)
                sent: dict[str, Any] = {}
                if isinstance(item_id, str):
                    self._reasoning_items[item_id] = (index, sent)
            else:
                index, sent = known
                if self._open_kind == _REASONING and self._open_index == index:
                    self._close_part()
            extras = {}
            encrypted = payload.get("encrypted_content")
            if isinstance(encrypted, str) and "encrypted_content" not in sent:
                extras["encrypted_content"] = sent["encrypted_content"] = encrypted
            summary = payload.get("summary")
            if isinstance(summary, list) and summary and "summary" not in sent:
                extras["summary"] = sent["summary"] = [str(s) for s in summary]
            item_block: dict[str, Any] = {
                "type": "reasoning",
                "reasoning": "",
                "index": index,
                "id": item_id if isinstance(item_id, str) else "",
            }
            if extras:
                item_block["extras"] = extras
            return self._emit(content=[item_block])
        if kind in ("tool_call_item", "tool_call_provider_id"):
            call = self._calls.get(str(payload.get("call_id")))
            key = "item_id" if kind == "tool_call_item" else "provider_id"
            value = payload.get(key)
            if call is None or not isinstance(value, str) or key in call.sent:
                return []
            call.sent[key] = value
            return self._emit(
                content=[
                    {
                        "type": "tool_call_chunk",
                        "args": "",
                        "index": call.index,
                        "extras": {key: value},
                    }
                ]
            )
        if kind == "raw_item":
            self._close_part()
            return self._emit(
                content=[
                    {"type": "non_standard", "value": payload.get("item"), "index": self._index()}
                ]
            )
        return []

    def close(self) -> list[JSON]:
        if (
            self._open_message
            or self._pending_finish
            or self._usage is not None
            or (self._id is not None or self._model is not None)
        ):
            return self._end_message(self._finish if self._pending_finish else None, self._usage)
        return []


# -- LangChain -> raf ------------------------------------------------------------------------


class _Reading:
    """A call being read back."""

    __slots__ = ("args", "id", "name")

    def __init__(self, call_id: str, name: str) -> None:
        self.id = call_id
        self.name = name
        self.args: list[str] = []


class Decoder:
    """LangChain's message dicts in (``AIMessageChunk`` s of any chat model, ``AIMessage`` s,
    ``ToolMessage`` s), raf's results out."""

    def __init__(self) -> None:
        self._position = 0
        self._round = 0
        self._held: AgentResponseResult | None = None
        self._calls: dict[Any, _Reading] = {}
        self._failed: set[str] = set()
        self._text_index: Any = None
        self._unused = 0
        self._unused_example = ""

    def _flush(self) -> list[AgentResponseResult]:
        held, self._held = self._held, None
        if held is None:
            return []
        usage = next((c.usage for c in held.contents if isinstance(c, contents.Usage)), None)
        finished = contents.RoundFinished(
            round=self._round, finish_reason=held.finish_reason, usage=usage
        )
        self._round += 1
        return [
            AgentResponseResult(id=held.id, model=held.model, contents=(*held.contents, finished))
        ]

    def feed(self, item: JSON) -> list[AgentResponseResult]:
        position = self._position
        self._position += 1
        if not isinstance(item, Mapping) or not isinstance(item.get("data"), Mapping):
            return [_invalid(position, "not a message dict ({'type': ..., 'data': {...}})")]
        kind, data = item.get("type"), item["data"]
        if kind in (CHUNK, AI):
            out = self._flush()
            try:
                out.extend(self._ai(data, position, last=kind == AI))
            except (TypeError, ValueError, AttributeError, KeyError) as exc:
                out.append(_invalid(position, f"an unreadable {kind}: {exc}"))
            return out
        if kind == TOOL:
            out = self._flush()
            call_id = data.get("tool_call_id")
            if not isinstance(call_id, str | int | float):
                return [*out, _invalid(position, "a tool message without a tool_call_id")]
            text = _content_text(data.get("content"))
            error = data.get("status") == "error"
            called = contents.ToolCalled(
                call_id=str(call_id), result=None if error else text, error=text if error else None
            )
            return [*out, AgentResponseResult(contents=(called,))]
        if isinstance(kind, str):
            self._unused += 1
            self._unused_example = self._unused_example or kind
            return []
        return [_invalid(position, "a message dict without a type")]

    def _ai(
        self, data: Mapping[str, Any], position: int, *, last: bool
    ) -> list[AgentResponseResult]:
        out: list[contents.Content] = []
        custom: list[tuple[int, events.Custom]] = []  # (before content n, event)
        body = data.get("content")
        block_list = body if isinstance(body, list) else []
        if isinstance(body, str) and body:
            out.append(contents.Text(delta=body))
        extra = data.get("additional_kwargs") or {}
        reasoning = extra.get("reasoning_content") if isinstance(extra, Mapping) else None
        if (
            isinstance(reasoning, str)
            and reasoning
            and not any(
                isinstance(b, Mapping) and b.get("type") in ("reasoning", "thinking")
                for b in block_list
            )
        ):
            out.insert(0, contents.Reasoning(delta=reasoning))
        call_chunks = data.get("tool_call_chunks") or []
        if not call_chunks and (data.get("tool_calls") or data.get("invalid_tool_calls")):
            call_chunks = [
                {
                    "id": c.get("id"),
                    "name": c.get("name"),
                    "args": _args_text(c.get("args")) if "args" in c else "",
                    "index": None,
                }
                for c in [*(data.get("tool_calls") or []), *(data.get("invalid_tool_calls") or [])]
            ]
        for block in block_list:
            self._block(block, out, custom)
        for chunk in call_chunks:
            self._call_chunk(chunk, out)
        metadata = _mapping(data.get("response_metadata"))
        for value in metadata.get(NOTICES) or []:
            error = _error_of(value)
            if error is not None:
                out.append(error)
        for value in metadata.get(ERRORS) or []:
            error = _error_of(value)
            if error is not None:
                out.append(error)
                if error.call_id is not None:
                    self._failed.add(error.call_id)
        out.extend(_approvals(metadata))
        results = _interleave(out, custom)
        message_id = data.get("id") if isinstance(data.get("id"), str) else None
        if data.get("chunk_position") == "last" or last:
            ending: list[contents.Content] = []
            for call in self._calls.values():
                ending.append(contents.ToolCallEnd(call_id=call.id))
                if call.id in self._failed:
                    continue
                ok, value = _parse("".join(call.args))
                if ok:
                    ending.append(
                        contents.ToolCalling(call_id=call.id, name=call.name, arguments=value)
                    )
                else:
                    ending.append(
                        contents.Error(
                            error_code=ErrorCode.INVALID_TOOL_ARGUMENTS,
                            call_id=call.id,
                            message=f"the arguments of {call.name!r} are not JSON",
                            raw=value,
                        )
                    )
            usage = usage_of(data.get("usage_metadata"))
            if usage is not None:
                ending.append(contents.Usage(usage=usage))
            finish = _finish_of(metadata, bool(self._calls))
            model = metadata.get("model_name")
            self._held = AgentResponseResult(
                id=message_id if message_id and not message_id.startswith("lc_") else None,
                model=model if isinstance(model, str) and model else None,
                finish_reason=finish,
                contents=tuple(ending),
            )
            self._calls = {}
            self._failed = set()
            self._text_index = None
        return results

    def _block(
        self, block: Any, out: list[contents.Content], custom: list[tuple[int, events.Custom]]
    ) -> None:
        if isinstance(block, str):
            out.append(contents.Text(delta=block))
            return
        if not isinstance(block, Mapping):
            return
        kind = block.get("type")
        extras = _extras(block)
        index = block.get("index")
        if kind == "text":
            text = block.get("text")
            if isinstance(text, str) and (text or "signature" not in extras):
                out.append(contents.Text(delta=text))
                self._text_index = index
            if "signature" in extras:
                part = "text" if index == self._text_index else "empty"
                custom.append(
                    (
                        len(out),
                        events.Custom(
                            event_type="part_signature",
                            payload={"signature": extras["signature"], "part": part},
                        ),
                    )
                )
                self._text_index = None
            return
        if kind in ("reasoning", "thinking"):
            text = block.get("reasoning" if kind == "reasoning" else "thinking")
            if kind == "reasoning" and "summary" in block and not text:
                text = "".join(
                    str(p.get("text") or "")
                    for p in block.get("summary") or []
                    if isinstance(p, Mapping)
                )
            signature = extras.get("signature", block.get("signature"))
            if "id" in block and kind == "reasoning":
                payload: dict[str, Any] = {"item_id": block.get("id") or None}
                if "encrypted_content" in extras:
                    payload["encrypted_content"] = extras["encrypted_content"]
                if "summary" in extras:
                    payload["summary"] = extras["summary"]
                custom.append(
                    (len(out), events.Custom(event_type="reasoning_item", payload=payload))
                )
            if REDACTED in extras:
                custom.append(
                    (
                        len(out),
                        events.Custom(
                            event_type="redacted_reasoning", payload={"data": extras[REDACTED]}
                        ),
                    )
                )
                return
            if isinstance(text, str) and text:
                out.append(contents.Reasoning(delta=text))
            if isinstance(signature, str):
                custom.append(
                    (
                        len(out),
                        events.Custom(
                            event_type="reasoning_signature", payload={"signature": signature}
                        ),
                    )
                )
            return
        if kind == "tool_call_chunk":
            call = self._calls.get(index)
            if call is None:
                return
            for key, event_type in (
                ("item_id", "tool_call_item"),
                ("provider_id", "tool_call_provider_id"),
            ):
                if key in extras:
                    custom.append(
                        (
                            len(out),
                            events.Custom(
                                event_type=event_type,
                                payload={"call_id": call.id, key: extras[key]},
                            ),
                        )
                    )
            if "signature" in extras:
                custom.append(
                    (
                        len(out),
                        events.Custom(
                            event_type="part_signature",
                            payload={"signature": extras["signature"], "part": "tool_call"},
                        ),
                    )
                )
            return
        if kind == "server_tool_call":
            if "id" not in block and "signature" in extras:
                custom.append(
                    (
                        len(out),
                        events.Custom(
                            event_type="part_signature",
                            payload={"signature": extras["signature"], "part": "hosted"},
                        ),
                    )
                )
                return
            out.append(
                contents.HostedToolCall(
                    call_id=str(block.get("id") or ""),
                    name=str(block.get("name") or ""),
                    arguments=_hosted_arguments(block, extras),
                    item=extras.get("item"),
                )
            )
            return
        if kind == "server_tool_result":
            error = extras.get("error")
            out.append(
                contents.HostedToolResult(
                    call_id=str(block.get("tool_call_id") or ""),
                    name=str(extras.get("name") or ""),
                    output=block.get("output"),
                    error=error if isinstance(error, str) else None,
                    item=extras.get("item"),
                )
            )
            return
        if kind == "non_standard":
            redacted = _redacted_thinking(block.get("value"))
            custom.append(
                (
                    len(out),
                    events.Custom(event_type="raw_item", payload={"item": block.get("value")})
                    if redacted is None
                    else events.Custom(event_type="redacted_reasoning", payload={"data": redacted}),
                )
            )

    def _call_chunk(self, chunk: Any, out: list[contents.Content]) -> None:
        if not isinstance(chunk, Mapping):
            return
        index = chunk.get("index")
        key = index if index is not None else ("__none__", len(self._calls))
        call = self._calls.get(key)
        args = chunk.get("args")
        if call is None:
            call = _Reading(str(chunk.get("id") or ""), str(chunk.get("name") or ""))
            self._calls[key] = call
            out.append(contents.ToolCallStart(call_id=call.id, name=call.name))
        if isinstance(args, str) and args:
            call.args.append(args)
            out.append(contents.ToolCallArgs(call_id=call.id, args_delta=args))

    def close(self) -> list[AgentResponseResult]:
        out: list[AgentResponseResult] = []
        if self._calls:  # a stream that ended without its last chunk
            self._ai({"chunk_position": "last"}, self._position, last=True)
        held, self._held = self._held, None
        if held is not None:
            out.append(held)
        if self._unused:
            out.append(
                AgentResponseResult(
                    contents=(
                        contents.Error(
                            error_code=ErrorCode.UNRECOGNISED_CHUNKS,
                            message=f"{self._unused} message(s) of no kind raf reads were skipped, "
                            f"e.g. {self._unused_example!r}",
                        ),
                    )
                )
            )
        return out


def _interleave(
    out: list[contents.Content], custom: list[tuple[int, events.Custom]]
) -> list[AgentResponseResult]:
    """Contents and the events that come between them, in order, as results."""
    if not custom:
        return [AgentResponseResult(contents=tuple(out))] if out else []
    results: list[AgentResponseResult] = []
    start = 0
    for at, event in custom:
        if at > start:
            results.append(AgentResponseResult(contents=tuple(out[start:at])))
            start = at
        results.append(AgentResponseResult(events=(event,)))
    if start < len(out):
        results.append(AgentResponseResult(contents=tuple(out[start:])))
    return results


def _invalid(position: int, what: str) -> AgentResponseResult:
    return AgentResponseResult(
        contents=(
            contents.Error(error_code=ErrorCode.INVALID_CHUNK, message=f"item {position}: {what}"),
        )
    )


def _content_text(content: Any) -> str:
    """The text of a message's ``content``: the string, or the text of its text blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part if isinstance(part, str) else str(part.get("text") or "")
            for part in content
            if isinstance(part, str) or (isinstance(part, Mapping) and part.get("type") == "text")
        )
    return ""


def _finish_of(metadata: Mapping[str, Any], has_calls: bool) -> str | None:
    for key in FINISH_KEYS:
        value = metadata.get(key)
        if isinstance(value, str) and value:
            return value
    status = metadata.get("status")
    if status == STATUS_COMPLETED:
        return FinishReason.TOOL_CALLS if has_calls else FinishReason.STOP
    if isinstance(status, str) and status:
        return status
    return None


# -- whole messages --------------------------------------------------------------------------


def _message_blocks(
    message: ChatMessage, errors: Iterable[contents.Error]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A transcript message's blocks as v1 content blocks, and its invalid tool calls."""
    failed = {e.call_id: e for e in errors if e.call_id is not None}
    called = {call.id for call in message.tool_calls or ()}
    out: list[dict[str, Any]] = []
    invalid: list[dict[str, Any]] = []
    for block in message.blocks:
        if isinstance(block, blocks.Text):
            text: dict[str, Any] = {"type": "text", "text": block.text}
            if block.signature is not None:
                text["extras"] = {"signature": block.signature}
            out.append(text)
        elif isinstance(block, blocks.Reasoning):
            reasoning: dict[str, Any] = {"type": "reasoning", "reasoning": block.text}
            if block.item_id is not None:
                reasoning["id"] = block.item_id
            extras = {
                k: v
                for k, v in (
                    ("signature", block.signature),
                    (REDACTED, block.redacted),
                    ("encrypted_content", block.encrypted_content),
                    ("summary", list(block.summary) or None),
                )
                if v is not None
            }
            if extras:
                reasoning["extras"] = extras
            out.append(reasoning)
        elif isinstance(block, blocks.ToolCall):
            extras = {
                k: v
                for k, v in (("signature", block.signature), ("item_id", block.item_id))
                if v is not None
            }
            if block.id in called:
                call: dict[str, Any] = {
                    "type": "tool_call",
                    "id": block.id,
                    "name": block.name,
                    "args": block.arguments,
                }
                if extras:
                    call["extras"] = extras
                out.append(call)
            else:
                error = failed.get(block.id)
                raw = (
                    block.arguments
                    if isinstance(block.arguments, str)
                    else (None if block.arguments is None else _args_text(block.arguments))
                )
                invalid.append(
                    {
                        "type": "invalid_tool_call",
                        "id": block.id,
                        "name": block.name,
                        "args": raw,
                        "error": None if error is None else error.message,
                    }
                )
                # in its place among the blocks, with what else the call had
                out.append({**invalid[-1], **({"extras": extras} if extras else {})})
        elif isinstance(block, blocks.HostedTool):
            hosted: dict[str, Any] = {
                "type": "server_tool_call",
                "id": block.id,
                "name": block.name,
                **_hosted_args(block.arguments),
            }
            extras = {
                k: v
                for k, v in (("signature", block.signature), ("items", block.item))
                if v is not None
            }
            if extras:
                hosted["extras"] = {**hosted.get("extras", {}), **extras}
            out.append(hosted)
            if block.output is not None or block.error is not None:
                result: dict[str, Any] = {
                    "type": "server_tool_result",
                    "tool_call_id": block.id,
                    "status": "error" if block.error is not None else "success",
                    "output": block.output,
                }
                if block.error is not None:
                    result["extras"] = {"error": block.error}
                out.append(result)
        elif isinstance(block, blocks.Raw):
            out.append({"type": "non_standard", "value": block.value})
    return out, invalid


def _ai_message(
    *,
    content: list[dict[str, Any]],
    message: ChatMessage | None,
    invalid: list[dict[str, Any]],
    metadata: dict[str, Any],
    usage: Usage | None,
    message_id: str | None,
) -> JSON:
    tool_calls = [
        {"name": call.name, "args": call.arguments, "id": call.id, "type": "tool_call"}
        for call in (message.tool_calls or () if message is not None else ())
    ]
    return {
        "type": AI,
        "data": {
            "content": content,
            "additional_kwargs": {},
            "response_metadata": {"output_version": "v1", **metadata},
            "type": AI,
            "name": None,
            "id": message_id,
            "tool_calls": tool_calls,
            "invalid_tool_calls": invalid,
            "usage_metadata": None if usage is None else usage_metadata(usage),
        },
    }


def aggregate(response: AgentResponse) -> list[JSON]:
    """``response`` as LangChain's messages (``messages_to_dict`` form): one ``AIMessage`` per
    model round (its content blocks, ``tool_calls``, ``invalid_tool_calls`` with the raw text,
    ``usage_metadata``, ``finish_reason`` and ``model_name``), each followed by the
    ``ToolMessage`` s answering its calls, as an agent run's state holds them. A run that
    stopped without calling the model again (``awaiting_approval``, ``max_rounds``) ends with
    an empty ``AIMessage`` that says so."""
    out: list[JSON] = []
    rounds: list[Round] = list(response.rounds) or [
        Round(finish_reason=response.finish_reason, usage=response.usage)
    ]
    assistants = [m for m in response.turn_transcript if m.role == MessageRole.ASSISTANT]
    stop = bool(response.rounds) and rounds[-1].finish_reason != response.finish_reason
    loose = response.errors or response.notices or response.approval_requests
    if (
        not assistants
        and not response.rounds
        and (response.id or response.model or response.finish_reason or response.usage or loose)
    ):
        assistants = [ChatMessage(role=MessageRole.ASSISTANT, content="")]
    count = 0
    total = len(assistants) + (1 if stop else 0)
    for message in response.turn_transcript or tuple(assistants):
        if message.role == MessageRole.TOOL:
            block = message.blocks[0] if message.blocks else None
            is_error = isinstance(block, blocks.ToolResult) and block.is_error
            name = block.name if isinstance(block, blocks.ToolResult) else None
            out.append(_tool_message(message.tool_call_id or "", message.content, is_error, name))
            continue
        if message.role != MessageRole.ASSISTANT:
            continue
        count += 1
        this = rounds[min(count - 1, len(rounds) - 1)]
        final = count == total
        content, invalid = _message_blocks(message, response.errors)
        metadata: dict[str, Any] = {}
        if this.finish_reason is not None:
            metadata["finish_reason"] = str(this.finish_reason)
        if final:
            metadata.update(_loose(response))
        out.append(
            _ai_message(
                content=content,
                message=message,
                invalid=invalid,
                metadata=metadata,
                usage=this.usage,
                message_id=response.id if final else None,
            )
        )
    if stop:
        metadata = {"finish_reason": str(response.finish_reason)} if response.finish_reason else {}
        metadata.update(_loose(response))
        out.append(
            _ai_message(
                content=[], message=None, invalid=[], metadata=metadata, usage=None, message_id=None
            )
        )
    return out


def _loose(response: AgentResponse) -> dict[str, Any]:
    metadata: dict[str, Any] = {}
    if response.model is not None:
        metadata["model_name"] = response.model
    if response.errors:
        metadata[ERRORS] = [_error_dict(e) for e in response.errors]
    if response.notices:
        metadata[NOTICES] = [_error_dict(e) for e in response.notices]
    if response.approval_requests:
        metadata[APPROVALS] = [
            {
                "call_id": a.call_id,
                "name": a.name,
                "arguments": a.arguments,
                "description": a.description,
            }
            for a in response.approval_requests
        ]
    return metadata


def _as_dict(message: Any) -> dict[str, Any]:
    """A LangChain message as its ``model_dump()`` dict (object, dump or ``messages_to_dict``
    entry)."""
    if isinstance(message, Mapping):
        if isinstance(message.get("data"), Mapping) and "content" not in message:
            return dict(message["data"])
        return dict(message)
    dump = getattr(message, "model_dump", None)
    if callable(dump):
        data: dict[str, Any] = dump()
        return data
    return {
        name: getattr(message, name, None)
        for name in (
            "content",
            "additional_kwargs",
            "response_metadata",
            "id",
            "tool_calls",
            "invalid_tool_calls",
            "usage_metadata",
            "tool_call_chunks",
        )
    }


def from_ai_message(message: Any) -> AgentResponse:
    """An ``AIMessage`` (or added-up ``AIMessageChunk``) as raf's response: the text of its
    text blocks (or its string content), its reasoning (``reasoning`` blocks, else
    ``additional_kwargs.reasoning_content``), ``tool_calls``, ``invalid_tool_calls`` as errors
    with the raw arguments, ``usage_metadata``, the finish reason of its
    ``response_metadata`` (``finish_reason``, ``stop_reason``, or the Responses ``status``)
    and ``model_name``; the blocks in the order of its content. ``message`` is the object
    itself (read through ``model_dump()``, and its ``content_blocks``: LangChain's
    translation of a provider's own blocks), or its dict."""
    data = _as_dict(message)
    body = data.get("content")
    source: list[Any] = body if isinstance(body, list) else []
    if not isinstance(message, Mapping):
        try:
            source = list(message.content_blocks)
        except Exception:  # a message LangChain cannot translate: its own content is read
            source = body if isinstance(body, list) else []
    metadata = _mapping(data.get("response_metadata"))
    loose: list[contents.Content] = []
    failed: dict[str, contents.Error] = {}
    for key in (NOTICES, ERRORS):
        for value in metadata.get(key) or []:
            error = _error_of(value)
            if error is not None:
                loose.append(error)
                if key == ERRORS and error.call_id is not None:
                    failed[error.call_id] = error
    loose.extend(_approvals(metadata))
    text = _content_text(body)
    in_order = "".join(
        str(b.get("text") or "")
        for b in source
        if isinstance(b, Mapping) and b.get("type") == "text"
    )
    found: list[contents.Content | events.Custom] = []
    started: set[str] = set()
    for block in source:
        if not isinstance(block, Mapping):
            continue
        if in_order != text and block.get("type") == "text":
            continue
        _whole_block(block, found, started)
    if in_order != text and text:
        found.append(contents.Text(delta=text))
    if not any(isinstance(c, contents.Reasoning) for c in found):
        extra = data.get("additional_kwargs") or {}
        reasoning = extra.get("reasoning_content") if isinstance(extra, Mapping) else None
        if isinstance(reasoning, str) and reasoning:
            found.insert(0, contents.Reasoning(delta=reasoning))
    for call in _mappings(data.get("tool_calls")):
        call_id, name = str(call.get("id") or ""), str(call.get("name") or "")
        if call_id not in started:
            started.add(call_id)
            found.append(contents.ToolCallStart(call_id=call_id, name=name))
        if call_id not in failed:
            found.append(
                contents.ToolCalling(call_id=call_id, name=name, arguments=call.get("args"))
            )
    for call in _mappings(data.get("invalid_tool_calls")):
        call_id, name = str(call.get("id") or ""), str(call.get("name") or "")
        if call_id not in started:
            started.add(call_id)
            found.append(contents.ToolCallStart(call_id=call_id, name=name))
        if call_id in failed:
            continue
        raw = call.get("args")
        found.append(
            contents.Error(
                error_code=ErrorCode.INVALID_TOOL_ARGUMENTS,
                call_id=call_id,
                message=f"invalid tool call {call.get('name')!r} ({call.get('id')}): "
                f"{call.get('error') or 'arguments are not JSON'}",
                raw=raw if isinstance(raw, str) else None if raw is None else _args_text(raw),
            )
        )
    results = [
        AgentResponseResult(events=(c,))
        if isinstance(c, events.Custom)
        else AgentResponseResult(contents=(c,))
        for c in [*found, *loose]
    ]
    usage = usage_of(data.get("usage_metadata"))
    model = metadata.get("model_name")
    message_id = data.get("id")
    results.append(
        AgentResponseResult(
            id=message_id if isinstance(message_id, str) and message_id else None,
            model=model if isinstance(model, str) and model else None,
            finish_reason=_finish_of(metadata, bool(data.get("tool_calls"))),
            contents=() if usage is None else (contents.Usage(usage=usage),),
        )
    )
    return collect_agent_response(results)


def _custom(kind: str, **payload: Any) -> events.Custom:
    return events.Custom(event_type=kind, payload=payload)


def _whole_block(
    block: Mapping[str, Any], out: list[contents.Content | events.Custom], started: set[str]
) -> None:
    """One content block of a whole message as raf's contents and events, in order."""
    kind = block.get("type")
    extras = _extras(block)
    signature = extras.get("signature")
    if kind == "text":
        text = str(block.get("text") or "")
        if text or not isinstance(signature, str):
            out.append(contents.Text(delta=text))
        if isinstance(signature, str):
            out.append(
                _custom("part_signature", signature=signature, part="text" if text else "empty")
            )
    elif kind in ("reasoning", "thinking"):
        if REDACTED in extras:
            out.append(_custom("redacted_reasoning", data=extras[REDACTED]))
            return
        reasoning = block.get("reasoning" if kind == "reasoning" else "thinking")
        if kind == "thinking" and not isinstance(signature, str):
            signature = block.get("signature")
        item: dict[str, Any] | None = None
        if block.get("id") and kind == "reasoning":
            item = {"item_id": block["id"]}
            for key in ("encrypted_content", "summary"):
                if key in extras:
                    item[key] = extras[key]
            out.append(_custom("reasoning_item", **item))
        if isinstance(reasoning, str) and reasoning:
            out.append(contents.Reasoning(delta=reasoning))
        if isinstance(signature, str):
            out.append(_custom("reasoning_signature", signature=signature))
        elif item is not None:
            out.append(_custom("reasoning_item", item_id=item["item_id"]))
    elif kind in ("tool_call", "tool_call_chunk", "invalid_tool_call"):
        call_id = str(block.get("id") or "")
        if call_id in started:
            return
        started.add(call_id)
        out.append(contents.ToolCallStart(call_id=call_id, name=str(block.get("name") or "")))
        if "item_id" in extras:
            out.append(_custom("tool_call_item", call_id=call_id, item_id=extras["item_id"]))
        if isinstance(signature, str):
            out.append(_custom("part_signature", signature=signature, part="tool_call"))
    elif kind == "server_tool_call":
        call_id, name = str(block.get("id") or ""), str(block.get("name") or "")
        out.append(
            contents.HostedToolCall(
                call_id=call_id,
                name=name,
                arguments=_hosted_arguments(block, extras),
                item=extras.get("item"),
            )
        )
        items = extras.get("items")  # a whole message's: the call's and its results' items
        out.extend(
            contents.HostedToolResult(call_id=call_id, name=name, item=item)
            for item in (items if isinstance(items, list) else [])
        )
        if isinstance(signature, str):
            out.append(_custom("part_signature", signature=signature, part="hosted"))
    elif kind == "server_tool_result":
        error = extras.get("error")
        out.append(
            contents.HostedToolResult(
                call_id=str(block.get("tool_call_id") or ""),
                name=str(extras.get("name") or ""),
                output=block.get("output"),
                error=error if isinstance(error, str) else None,
                item=extras.get("item"),
            )
        )
    elif kind == "non_standard":
        redacted = _redacted_thinking(block.get("value"))
        if redacted is not None:
            out.append(_custom("redacted_reasoning", data=redacted))
        else:
            out.append(_custom("raw_item", item=block.get("value")))


# -- LangChain's v3 stream events ------------------------------------------------------------

_DELTA_KEYS: Final = {"text": ("text-delta", "text"), "reasoning": ("reasoning-delta", "reasoning")}
_HEAVY: Final = frozenset({"args", "data", "output", "transcript", "value"})


def _skeleton(block: dict[str, Any]) -> dict[str, Any]:
    kind = block.get("type", "text")
    if kind in _DELTA_KEYS:
        key = _DELTA_KEYS[kind][1]
        skel = {k: v for k, v in block.items() if k not in {key, "index", "annotations"}}
        skel[key] = ""
        return skel
    if kind == "tool_call_chunk":
        skel = {
            "type": "tool_call_chunk",
            "id": block.get("id"),
            "name": block.get("name"),
            "args": "",
        }
        if block.get("index") is not None:
            skel["index"] = block["index"]
        return skel
    skel = {k: v for k, v in block.items() if k not in _HEAVY}
    if kind in ("tool_call", "server_tool_call"):
        skel["args"] = {}
    elif kind == "non_standard":
        skel["value"] = {}
    return skel


def _delta(block: dict[str, Any]) -> dict[str, Any] | None:
    kind = block.get("type")
    if kind in _DELTA_KEYS:
        name, key = _DELTA_KEYS[kind]
        return {"type": name, key: block[key]} if block.get(key) else None
    if kind == "tool_call_chunk":
        return {"type": "tool-call-delta", "args": block["args"]} if block.get("args") else None
    return None


def _accumulate(state: dict[str, Any], block: dict[str, Any]) -> None:
    kind, other = state.get("type"), block.get("type")
    if kind in _DELTA_KEYS and other == kind:
        key = _DELTA_KEYS[kind][1]
        state[key] = state.get(key, "") + block.get(key, "")
        for k, v in block.items():
            if k in {"type", key} or v is None:
                continue
            if k == "extras" and isinstance(v, dict):
                state["extras"] = {**(state.get("extras") or {}), **v}
            else:
                state[k] = v
    elif kind == "tool_call_chunk" and other == kind:
        state["args"] = (state.get("args") or "") + (block.get("args") or "")
        for k in ("id", "name"):
            if block.get(k) is not None:
                state[k] = block[k]
        extras = block.get("extras")  # kept (LangChain's bridge drops a later chunk's)
        if isinstance(extras, dict):
            state["extras"] = {**(state.get("extras") or {}), **extras}
    else:
        state.clear()
        state.update(block)


def _finalize(block: dict[str, Any]) -> dict[str, Any]:
    if block.get("type") != "tool_call_chunk":
        return block
    extras = {
        k: v
        for k, v in block.items()
        if k not in {"type", "id", "name", "args", "index"} and v is not None
    }
    raw = block.get("args") or "{}"
    ok, value = _parse(raw)
    if not ok:
        return {
            "type": "invalid_tool_call",
            "id": block.get("id"),
            "name": block.get("name"),
            "args": raw,
            "error": "Failed to parse tool call arguments as JSON",
            **extras,
        }
    return {
        "type": "tool_call",
        "id": block.get("id") or "",
        "name": block.get("name") or "",
        "args": value,
        **extras,
    }


def _add_usage(total: dict[str, Any] | None, usage: Mapping[str, Any]) -> dict[str, Any]:
    new = total if total is not None else {}
    for key in ("input_tokens", "output_tokens", "total_tokens"):
        if key in usage:
            new[key] = new.get(key, 0) + usage[key]
    for key in ("input_token_details", "output_token_details"):
        if usage.get(key):
            new[key] = {**new.get(key, {}), **usage[key]}
    return new


def _message_events(chunks: list[dict[str, Any]]) -> list[JSON]:
    out: list[JSON] = []
    states: dict[Any, tuple[int, dict[str, Any]]] = {}
    usage: dict[str, Any] | None = None
    metadata: dict[str, Any] = {}
    for n, data in enumerate(chunks):
        meta = data.get("response_metadata") or {}
        metadata.update(meta)
        if n == 0:
            start: dict[str, Any] = {
                "event": "message-start",
                "role": "ai",
                "id": data.get("id") or "",
            }
            hints = {
                k: meta[v]
                for k, v in (("provider", "model_provider"), ("model", "model_name"))
                if v in meta
            }
            if hints:
                start["metadata"] = hints
            out.append(start)
        out.extend(
            {"event": "error", "message": str(e.get("message")), "code": str(e.get("error_code"))}
            for e in meta.get(ERRORS) or []
        )
        for i, raw in enumerate(data.get("content") or []):
            block = dict(raw)
            key = block.get("index", ("__lc_no_index__", block.get("type"), i))
            if key not in states:
                states[key] = (len(states), dict(block))
                out.append(
                    {
                        "event": "content-block-start",
                        "index": states[key][0],
                        "content": _skeleton(block),
                    }
                )
            else:
                _accumulate(states[key][1], block)
            delta = _delta(block)
            if delta is not None:
                out.append(
                    {"event": "content-block-delta", "index": states[key][0], "delta": delta}
                )
        if data.get("usage_metadata"):
            usage = _add_usage(usage, data["usage_metadata"])
    for wire, state in states.values():
        out.append({"event": "content-block-finish", "index": wire, "content": _finalize(state)})
    finish: dict[str, Any] = {"event": "message-finish"}
    if usage:
        finish["usage"] = usage
    if metadata:
        finish["metadata"] = metadata
    out.append(finish)
    return out


def v3_events(results: Iterable[AgentResponseResult]) -> list[JSON]:
    """LangChain's v3 stream events of ``results`` (the ``stream_events(version="v3")``
    protocol, as ``langchain_core``'s compat bridge makes them of the chunks): for each
    ``AIMessage`` (each model round of an agent run) ``message-start``, a
    ``content-block-start``, ``-delta`` s and ``-finish`` per block, and ``message-finish``
    with the usage and metadata; each of raf's errors is an ``error`` event where it
    happened."""
    out: list[JSON] = []
    message: list[dict[str, Any]] = []
    for item in encode_all(MODEL, results):
        if item.get("type") != CHUNK:
            continue
        message.append(item["data"])
        if item["data"].get("chunk_position") == "last":
            out.extend(_message_events(message))
            message = []
    if message:
        out.extend(_message_events(message))
    return out


def objects(items: Iterable[JSON]) -> list[Any]:
    """The items as LangChain's own messages (``messages_from_dict``; imports
    ``langchain_core``)."""
    from langchain_core.messages import messages_from_dict  # noqa: PLC0415

    return list(messages_from_dict(list(items)))


# -- what a plain LangChain consumer reads ---------------------------------------------------

LANGCHAIN_EXTRAS: Final[Mapping[str, frozenset[str]]] = {
    "text": frozenset({"signature"}),
    "reasoning": frozenset({"signature", "encrypted_content", REDACTED}),
    "tool_call_chunk": frozenset({"signature", "item_id"}),
    "tool_call": frozenset({"signature", "item_id"}),
    "invalid_tool_call": frozenset({"signature", "item_id"}),
    "server_tool_call": frozenset({"signature"}),
}
"""The ``extras`` keys raf writes that are LangChain's own, by block type: the ones its
provider packages write and read (``signature``: langchain-anthropic's thinking and
langchain-google-genai's thought signatures; ``encrypted_content`` and a call's ``item_id``:
the Responses items; ``redacted_content``: Bedrock Converse's redacted reasoning). Every
other key raf writes in ``extras`` (a reasoning item's ``summary``, a call's
``provider_id``, a hosted call's ``item``, ``items`` and non-object ``arguments``, a hosted
result's ``name``, ``error`` and ``item``) is raf's own."""


_EMPTY: Final = frozenset({"type", "index", "text", "reasoning", "args"})
"""The keys of a block that, all empty, leave it saying nothing (a chunk raf sent only for
its extras)."""


def _native_block(block: Any) -> Any:
    """``block`` without the ``extras`` keys only raf writes; ``None`` when nothing else was
    in it."""
    if not isinstance(block, Mapping) or not isinstance(block.get("extras"), Mapping):
        return block
    own = LANGCHAIN_EXTRAS.get(str(block.get("type")), frozenset())
    extras = {k: v for k, v in block["extras"].items() if k in own}
    out = {k: v for k, v in block.items() if k != "extras"}
    if extras:
        out["extras"] = extras
    elif set(out) <= _EMPTY and not any(out.get(k) for k in ("text", "reasoning", "args")):
        return None
    return out


def native(item: JSON) -> JSON | None:
    """``item`` as a consumer that knows only LangChain reads it: without raf's keys of
    ``response_metadata`` (``raf_errors``, ``raf_notices``, ``raf_approval_requests``) and the
    ``extras`` keys of its blocks that only raf writes (:data:`LANGCHAIN_EXTRAS`); ``None`` for
    a chunk that carried nothing but those."""
    if not isinstance(item, Mapping) or item.get("type") not in (CHUNK, AI):
        return item
    data = item.get("data")
    if not isinstance(data, Mapping):
        return item
    metadata = _mapping(data.get("response_metadata"))
    kept = {k: v for k, v in metadata.items() if not str(k).startswith("raf_")}
    body = data.get("content")
    content = body
    if isinstance(body, list):
        content = [n for n in (_native_block(b) for b in body) if n is not None]
    out = {**data, "response_metadata": kept, "content": content}
    if (
        item.get("type") == CHUNK
        and (len(kept) < len(metadata) or content != body)
        and not content
        and not data.get("tool_call_chunks")
        and not data.get("usage_metadata")
        and data.get("chunk_position") != "last"
        and set(kept) <= {"output_version"}
    ):
        return None
    return {**item, "data": out}


# -- the table -------------------------------------------------------------------------------

_BLOCK = "turn_transcript[].blocks[]."

ROWS: Final = (
    Row("id", "`AIMessage.id`"),
    Row("model", "`response_metadata.model_name`"),
    Row("text", "`text` content blocks (`AIMessage.text`)"),
    Row("reasoning_text", "`reasoning` content blocks"),
    Row("tool_calls[].id", "`tool_call_chunks[].id`, `tool_calls[].id`"),
    Row("tool_calls[].name", "`tool_call_chunks[].name`, `tool_calls[].name`"),
    Row("tool_calls[].arguments", "`tool_call_chunks[].args` (text), `tool_calls[].args`"),
    Row("hosted_tool_calls[].id", "`server_tool_call` block `id`"),
    Row("hosted_tool_calls[].name", "`server_tool_call` block `name`"),
    Row(
        "hosted_tool_calls[].arguments",
        "`server_tool_call` block `args` (an object); arguments that are not one (none, or text) "
        "only in raf's `extras.arguments`, `args` then being `{}`",
        extension=True,
    ),
    Row("hosted_tool_calls[].output", "`server_tool_result` block `output`"),
    Row(
        "hosted_tool_calls[].error",
        "`server_tool_result` block `status: error` (that it failed); the error itself only in "
        "raf's `extras.error`",
        extension=True,
    ),
    Row(
        "approval_requests",
        "`response_metadata.raf_approval_requests` (LangChain's messages have no pending approval)",
        extension=True,
    ),
    Row("tool_messages[].content", "`ToolMessage.content`"),
    Row("tool_messages[].tool_call_id", "`ToolMessage.tool_call_id`"),
    Row("tool_messages[].blocks[].is_error", "`ToolMessage.status`"),
    Row("tool_messages[].blocks[].name", "`ToolMessage.name`"),
    Row("turn_transcript[].role", "`AIMessage` / `ToolMessage`"),
    Row("turn_transcript[].content", "the `text` blocks; `ToolMessage.content`"),
    Row("turn_transcript[].tool_calls", "`tool_calls`"),
    Row("turn_transcript[].tool_call_id", "`ToolMessage.tool_call_id`"),
    Row(_BLOCK + "type", "the content block's `type`"),
    Row(_BLOCK + "text", "`text` / `reasoning` block text"),
    Row(_BLOCK + "signature", "the block's `extras.signature`"),
    Row(_BLOCK + "redacted", "`reasoning` block `extras.redacted_content`"),
    Row(_BLOCK + "encrypted_content", "`reasoning` block `extras.encrypted_content`"),
    Row(
        _BLOCK + "summary",
        "`reasoning` block raf's `extras.summary` (the parts; their text is the block's "
        "`reasoning`, LangChain's own form being one block per part)",
        extension=True,
    ),
    Row(_BLOCK + "item_id", "`reasoning` block `id`; a call's `extras.item_id`"),
    Row(_BLOCK + "id", "`tool_call` / `server_tool_call` block `id`"),
    Row(_BLOCK + "name", "`tool_call` / `server_tool_call` block `name`"),
    Row(
        _BLOCK + "arguments",
        "`tool_call` block `args`; `invalid_tool_calls[].args` (the raw text); a hosted call's "
        "arguments that are not an object only in raf's `extras.arguments`",
        extension=True,
    ),
    Row(_BLOCK + "output", "`server_tool_result` block `output`"),
    Row(
        _BLOCK + "error",
        "`server_tool_result` block `status: error`; the error itself in raf's `extras.error`",
        extension=True,
    ),
    Row(
        _BLOCK + "item",
        "`server_tool_call` / `server_tool_result` block raf's `extras.item` (the provider's item)",
        extension=True,
    ),
    Row(_BLOCK + "value", "`non_standard` block `value`"),
    Row(_BLOCK + "call_id", "`ToolMessage.tool_call_id`"),
    Row(_BLOCK + "content", "`ToolMessage.content`"),
    Row(_BLOCK + "is_error", "`ToolMessage.status`"),
    Row("finish_reason", "`response_metadata.finish_reason`"),
    Row("usage.prompt_tokens", "`usage_metadata.input_tokens`"),
    Row("usage.completion_tokens", "`usage_metadata.output_tokens`"),
    Row("usage.total_tokens", "`usage_metadata.total_tokens`"),
    Row("usage.prompt_cache_hit_tokens", "`usage_metadata.input_token_details.cache_read`"),
    Row(
        "usage.prompt_cache_miss_tokens",
        "`usage_metadata.input_token_details.cache_miss` (not one of LangChain's named details)",
    ),
    Row("usage.reasoning_tokens", "`usage_metadata.output_token_details.reasoning`"),
    Row(
        "errors[].error_code",
        "`response_metadata.raf_errors[].error_code` (invalid arguments: also LangChain's "
        "`invalid_tool_calls`, read as `invalid_tool_arguments`)",
        extension=True,
    ),
    Row(
        "errors[].message",
        "`response_metadata.raf_errors[].message`; `aggregate`'s `invalid_tool_calls[].error` "
        "(those LangChain makes adding chunks up have none)",
        extension=True,
    ),
    Row(
        "errors[].call_id",
        "`response_metadata.raf_errors[].call_id`; `invalid_tool_calls[].id`",
        extension=True,
    ),
    Row(
        "errors[].raw",
        "`response_metadata.raf_errors[].raw`; `invalid_tool_calls[].args`",
        extension=True,
    ),
    Row("notices", "`response_metadata.raf_notices`", extension=True),
    Row("rounds[].finish_reason", "each round's `AIMessage`: `response_metadata.finish_reason`"),
    Row("rounds[].usage", "each round's `AIMessage`: `usage_metadata`"),
)

MODEL: Final = Model(
    name="langchain",
    title="LangChain",
    validator="langchain-core",
    encoder=Encoder,
    decoder=Decoder,
    rows=ROWS,
    native=native,
    aggregate=aggregate,
)
