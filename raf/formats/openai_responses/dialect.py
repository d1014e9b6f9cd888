"""``openai_responses``: Responses API streams (OpenAI ``/v1/responses``, Azure, OpenRouter,
DeepSeek, Bedrock mantle, vLLM, LiteLLM and other servers) -> updates. Sans-IO.

The rules are in docs/dialects.md (``openai_responses``); in short:

* Lifecycle events (``response.created``, ``.queued``, ``.in_progress``) give
  ``ResponseMetadata``; the terminal events give ``Finish`` (``response.completed``: ``stop``,
  ``tool_calls`` when the response started a client call, ``awaiting_approval`` when it asked
  for an approval and started no client call; ``response.incomplete``: its
  ``incomplete_details.reason``) with the usage, or ``provider_error`` (``response.failed``).
  A top-level ``error`` event is ``provider_error``.
* Text (``output_text``, ``refusal``) and reasoning (``reasoning_summary_text``,
  ``reasoning_text``; parts joined with a blank line) come from the delta events; a ``.done``
  event delivers its text only when no delta did, and one that disagrees with the deltas is a
  ``protocol_notice`` (the deltas win: they are what was streamed).
* A ``reasoning`` item gives ``ReasoningItem`` (its id and ``encrypted_content``) when it is
  added and again when it is done (with its summary texts); a ``compaction`` item gives
  ``RawItem`` (the done item whole).
* Client tool calls (``function_call``, ``custom_tool_call``, client ``tool_search_call``,
  ``computer_call``, ``local_shell_call``, a ``shell_call`` without a hosted environment,
  ``apply_patch_call``) become ``ToolCallStart`` (then ``ToolCallItem`` when the item's id
  differs)/``Args``/``End`` under the item's ``call_id``;
  argument fragments are routed by ``item_id`` (several calls may be open at once). Tools the
  server ran (:data:`HOSTED_CALLS`, a ``shell_call`` in OpenAI's container, any other
  ``*_call``) give ``HostedToolCall`` at their ``output_item.done``, with a
  ``HostedToolResult`` when the item carries its output; output items (``shell_call_output``,
  any other ``*_output``) give ``HostedToolResult``. ``mcp_approval_request`` gives
  ``ToolApprovalRequest``.
* Harmless server differences are notices (``protocol_notice``, once per item): item ids that
  rotate between events at the same ``output_index`` (events are routed by the index, the id
  of ``added`` is kept), a ``call_id`` that changes between ``added`` and ``done`` (the one of
  ``added`` is kept: the call was started under it).
* Server slips are ``protocol_violation`` and never lose what arrived: an ``output_index``
  collision, events for items never added (except in a resumed stream, which starts
  mid-response), a reused ``call_id``, a ``sequence_number`` that does not increase,
  arguments whose ``.done`` differs from their deltas.
* Event types of the format (``response.*``, and Codex's ``codex.*``) that the dialect does
  not read are skipped; other payloads are counted as unrecognised (``unrecognised_chunks``,
  or ``unrecognised_format`` when none was recognised).
* ``[DONE]`` ends reading; without a terminal event before it the response is truncated.
  Events after a terminal event are read; a new ``response.created`` starts the next response
  of a concatenated body, read as the same turn.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from raf import safe_json
from raf._mypyc import mypyc_attr
from raf.dialects.base import Frame, JSONEventDialect
from raf.dialects.tables import UsageTable, finish_reason
from raf.errors import raw_excerpt
from raf.formats.openai_responses._wire import _Delta
from raf.framing.sse import DataRun, ServerSentEvent
from raf.limits import DEFAULT_MAX_JSON_DEPTH, DEFAULT_MAX_RAW_CHARS
from raf.model import updates
from raf.model.codes import ErrorCode
from raf.model.updates import AgentResponseUpdate, DeltaBatch
from raf.model.usage import Usage

__all__ = [
    "CLIENT_ITEM_FIELDS",
    "FINISH_REASONS",
    "HOSTED_CALLS",
    "HOSTED_RESULTS",
    "USAGE",
    "OpenAIResponsesDialect",
    "parse_usage",
]

DONE = "[DONE]"

USAGE = UsageTable(
    prompt_tokens=(("input_tokens",), ("prompt_tokens",)),
    completion_tokens=(("output_tokens",), ("completion_tokens",)),
    total_tokens=(("total_tokens",),),
    cache_hit=(("input_tokens_details.cached_tokens",), ("prompt_tokens_details.cached_tokens",)),
    reasoning=(
        ("output_tokens_details.reasoning_tokens",),
        ("completion_tokens_details.reasoning_tokens",),
        ("reasoning_tokens",),
    ),
)
"""The Response object's ``usage`` (docs/dialects.md)."""

FINISH_REASONS: dict[str, str] = {
    "max_output_tokens": "length",
    "content_filter": "content_filter",
}
"""``response.incomplete``'s ``incomplete_details.reason`` -> raf; ``response.completed`` is
``stop`` or ``tool_calls``; other reasons are kept verbatim (none at all: ``incomplete``)."""

CLIENT_ITEM_FIELDS: dict[str, str] = {
    "tool_search_call": "arguments",
    "computer_call": "action",
    "local_shell_call": "action",
    "shell_call": "action",
    "apply_patch_call": "operation",
}
"""Client-executed items that arrive whole (no argument deltas): item type -> the field whose
compact JSON is the call's arguments. ``tool_search_call`` only with ``execution: client``;
``shell_call`` only without a hosted ``environment`` (none, or ``{"type": "local"}``)."""

HOSTED_CALLS: dict[str, tuple[str | None, str | None]] = {
    "web_search_call": ("action", None),
    "file_search_call": ("queries", "results"),
    "code_interpreter_call": ("code", "outputs"),
    "image_generation_call": (None, "result"),
    "mcp_call": ("arguments", "output"),
    "mcp_list_tools": (None, "tools"),
    "tool_search_call": ("arguments", None),
    "shell_call": ("action", None),
}
"""Items of tools the server runs itself: item type -> the field holding the call's arguments
and the field holding its output (``None``: the item has none). A ``HostedToolCall`` at
``output_item.done``, then a ``HostedToolResult`` when the output field (or ``error``) holds
something. ``shell_call`` and ``tool_search_call`` are hosted only when the client does
not run them (:data:`CLIENT_ITEM_FIELDS`); any other ``*_call`` type
not known as a client call is hosted, without arguments or output fields."""

HOSTED_RESULTS: dict[str, str] = {
    "shell_call_output": "output",
    "local_shell_call_output": "output",
    "tool_search_output": "tools",
}
"""Output items of a hosted call (``call_id`` names it; without one, the last hosted call of
the response whose item held no output): item type -> the field holding the output. Any
other ``*_output`` type is a result whose output is its ``output`` field."""

_STREAMED_CALLS = frozenset({"function_call", "custom_tool_call"})
_FUNCTION = frozenset({"function_call"})
_CUSTOM = frozenset({"custom_tool_call"})
_SEPARATOR = "\n\n"
_VIOLATION = ErrorCode.PROTOCOL_VIOLATION
_NOTICE = ErrorCode.PROTOCOL_NOTICE
_encode = msgspec.json.encode


def parse_usage(raw: Mapping[str, Any]) -> Usage:
    """Build :class:`Usage` from a Response's usage object, by :data:`USAGE`."""
    return USAGE.parse(raw)


def _escape(text: str) -> str:
    """``text`` as the inside of a JSON string (without the quotes)."""
    try:
        return _encode(text).decode()[1:-1]
    except (msgspec.EncodeError, UnicodeError):  # pragma: no cover - lone surrogates
        return msgspec.json.encode(text.encode("utf-8", "replace").decode()).decode()[1:-1]


def _compact(value: Any) -> str:
    """A JSON value as compact text (strings as they are: servers that send arguments as a
    JSON string already)."""
    if isinstance(value, str):
        return value
    return _encode(value).decode()


def _is_client_call(kind: str | None, obj: dict[str, Any]) -> bool:
    """Whether an item is a call the client must run (docs/dialects.md, "Items")."""
    if kind in _STREAMED_CALLS:
        return True
    if kind not in CLIENT_ITEM_FIELDS:
        return False
    if kind == "tool_search_call":
        return obj.get("execution") == "client"
    if kind == "shell_call":
        environment = obj.get("environment")
        return not isinstance(environment, dict) or environment.get("type") in (None, "local")
    return True


_decode_delta = msgspec.json.Decoder(_Delta).decode
_DecodeErrors = (msgspec.ValidationError, msgspec.DecodeError)

_ARGUMENTS = "arguments"
_DELTAS: dict[str, tuple[str, bool]] = {
    "response.output_text.delta": ("text", False),
    "response.refusal.delta": ("refusal", False),
    "response.reasoning_summary_text.delta": ("summary", True),
    "response.reasoning_text.delta": ("reasoning", False),
    "response.function_call_arguments.delta": (_ARGUMENTS, False),
}
"""The usual events read by the fast paths (:meth:`OpenAIResponsesDialect.usual`,
:meth:`OpenAIResponsesDialect.feed_run`): event type -> the channel of its text (as
:meth:`OpenAIResponsesDialect._part` keys it, or ``arguments``), and whether the part's index
is ``summary_index`` (else ``content_index``)."""
_TEXT_CHANNELS = frozenset({"text", "refusal"})
_HOLD = 512
"""The most deltas a batch left open across runs gathers before it is handed on (as the Chat
Completions dialect's)."""
_ToolCallArgs = updates.ToolCallArgs


class _Item:
    """What the dialect knows of one output item."""

    __slots__ = (
        "args",
        "call_id",
        "done",
        "id",
        "index",
        "kind",
        "name",
        "opened",
        "raw_call_id",
        "rotated",
    )

    def __init__(self, kind: str | None, item_id: str | None, index: int | None) -> None:
        self.kind = kind
        self.id = item_id
        self.index = index
        self.call_id: str | None = None  # the id the call is reported under (client calls)
        self.raw_call_id: str | None = None  # the call_id the server sent
        self.name: str | None = None  # set once ToolCallStart was emitted
        self.args: list[str] = []  # the argument (or custom input) text that arrived
        self.opened = False  # custom_tool_call: '{"input":"' emitted
        self.done = False
        self.rotated = False  # a notice said its id rotates (once per item)


@mypyc_attr(allow_interpreted_subclasses=True)
class OpenAIResponsesDialect(JSONEventDialect):
    """Sans-IO state of one Responses API stream. See the module docstring for the rules.

    Args:
        max_json_depth: deepest nesting accepted in a payload (``json_too_deep`` past it).
        max_raw_chars: longest ``raw`` excerpt an error keeps of an offending payload.
    """

    name = "openai_responses"
    end_markers = frozenset({DONE})
    framing = "sse"
    payload_name = "Responses API event"
    sniff = (
        rb'"type"\s*:\s*"response\.(created|queued|in_progress|output_item\.added)"',
        rb"event:\s*response\.(created|queued|in_progress)",
    )
    truncation_message = (
        "stream ended before response.completed, response.incomplete or response.failed"
    )
    ignored_prefixes = ("response.", "codex.")

    def __init__(
        self,
        *,
        max_json_depth: int = DEFAULT_MAX_JSON_DEPTH,
        max_raw_chars: int = DEFAULT_MAX_RAW_CHARS,
    ) -> None:
        # (Named, not **limits: the compiled build passes **limits on wrongly.)
        super().__init__(max_json_depth=max_json_depth, max_raw_chars=max_raw_chars)
        self._items: dict[str, _Item] = {}
        self._slots: dict[int, _Item] = {}  # output_index -> item, current response
        self._parts: dict[tuple[str, str, int], list[str]] = {}
        self._reported: set[str] = set()  # unknown item ids already reported
        self._orphans: dict[str, list[str]] = {}  # item_id -> argument text, item never added
        self._call_ids: dict[str, int] = {}  # call id -> times used in this body
        self._response_call_ids: set[str] = set()
        self._response_has_call = False
        self._response_has_approval = False
        self._unanswered: str | None = None  # the last hosted call without its output yet
        self._started = False  # response.created seen (else: a resumed stream)
        self._seq: int | None = None
        self._last_reasoning: tuple[str, str, int] | None = None
        self._held: DeltaBatch | None = None  # the batch left open across runs (feed_run)

    # -- framing-level hooks ---------------------------------------------------------------

    def end_marker_is_clean(self) -> bool:
        """``[DONE]`` ends the stream cleanly only after a terminal event (or a provider
        error); before one, reading stops and ``close`` reports the truncation."""
        return self.finished or self.provider_error

    def decode(self, frame: Frame) -> tuple[str, Any] | None:
        decoded = super().decode(frame)
        if decoded is not None:
            kind, payload = decoded
            seq = payload.get("sequence_number")
            if type(seq) is int:
                last = self._seq
                if kind != "response.created" and last is not None and seq <= last:
                    self._violation(frame, f"sequence_number {seq} after {last}")
                self._seq = seq
        return decoded

    def at_close(self, out: list[AgentResponseUpdate]) -> None:
        self._report_orphans(out)

    def usual(self, event: ServerSentEvent, out: list[AgentResponseUpdate]) -> bool:
        """The usual events (a text, refusal, reasoning or argument fragment, :class:`_Delta`),
        mapped as their handlers map them, when its ``item_id`` names an item that was added
        (of type ``function_call``, for arguments) and its ``sequence_number`` increases or
        is absent. Any other frame returns ``False`` having done nothing, and takes the shared
        path."""
        read = self.typed_usual(event, _decode_delta)
        return read is not None and self._delta(read, out)

    def _delta(self, read: _Delta, out: list[AgentResponseUpdate]) -> bool:
        """:meth:`usual` on a decoded event."""
        route = _DELTAS.get(read.type)
        if route is None:
            return False
        channel, by_summary = route
        item = self._items.get(read.item_id or "")
        if item is None or (
            channel == _ARGUMENTS and (item.kind != "function_call" or item.call_id is None)
        ):
            return False
        seq = read.sequence_number
        if seq is not None:
            last = self._seq
            if last is not None and seq <= last:
                return False  # the shared path reports it
            self._seq = seq
        self.fast_stats["typed"] += 1
        delta = read.delta
        if delta:
            if channel == _ARGUMENTS:
                self._args(item, delta, out)
            else:
                index = read.summary_index if by_summary else read.content_index
                self._part(channel, item.id or "", index or 0, delta, out)
        return True

    def feed_run(self, run: DataRun, frame: Frame, batch: bool) -> bool:
        """A run's usual events (see :meth:`usual`) are read straight from bytes by a typed
        decoder and mapped as their handlers map them; every other payload takes the shared
        path, in its place. With ``batch``, their text, reasoning and argument fragments are
        gathered into one :class:`DeltaBatch` (arguments by the call's id), left open across
        runs (up to 512 deltas) until a payload of another kind, an event outside a run, the
        end of the stream or :meth:`flush`; reasoning after text hands the batch so far on
        first (a batch gives its reasoning before its text)."""
        out: list[Any] = frame.out
        held = self._held
        if held is not None:
            self._held = None
            if not batch:
                out.append(held)
                held = None
        if held is None:
            reasoning: list[str] = []
            text: list[str] = []
            arguments: dict[int | str, list[str]] = {}
            order: list[int | str] = []
        else:  # the batch the last runs left open: this run goes on with it
            reasoning, text, arguments, order = (
                held.reasoning,
                held.text,
                held.arguments,
                held.order,
            )
        payloads = run.payloads
        names = run.names
        items = self._items
        parts = self._parts
        depth = self.max_json_depth
        short = 2 * depth + 1
        typed = 0
        last_seq = self._seq  # (kept here, and in self._seq around the shared path)
        # The route of the last usual event (its type and item, and the text part it went
        # to), taken again by the events that follow while they name the same. Forgotten
        # when an event takes the shared path, whose handlers may change what it points to.
        r_name: str | None = None
        r_item_id: str | None = None
        r_channel = ""
        r_summary = False
        r_owner = ""
        r_call = ""
        r_args: list[str] = []
        r_index: int | None = None
        r_key = ("", "", 0)
        r_kept: list[str] = []
        try:
            for position, payload in enumerate(payloads):
                name = "message" if names is None else names[position]
                try:
                    read: _Delta | None = None
                    # (What the shared path would check first: no deeper than the limit,
                    # which a payload with fewer brackets cannot be.)
                    if (names is None or name == r_name or name in _DELTAS) and (
                        len(payload) <= short or payload.count(b"{") + payload.count(b"[") <= depth
                    ):
                        try:
                            read = _decode_delta(payload)
                        except _DecodeErrors:
                            read = None
                    if read is not None and (names is None or read.type == name):
                        seq = read.sequence_number
                        if seq is None or last_seq is None or seq > last_seq:
                            kind = read.type
                            item_id = read.item_id
                            channel = r_channel
                            if kind != r_name or item_id != r_item_id:
                                channel = ""
                                route = _DELTAS.get(kind)
                                item = None if route is None else items.get(item_id or "")
                                if route is not None and item is not None:
                                    channel = route[0]
                                    call_id = item.call_id
                                    if channel == _ARGUMENTS and (
                                        item.kind != "function_call" or call_id is None
                                    ):
                                        channel = ""
                                    else:
                                        r_name, r_item_id = kind, item_id
                                        r_channel, r_summary = channel, route[1]
                                        r_owner, r_call, r_args = (
                                            item.id or "",
                                            call_id or "",
                                            item.args,
                                        )
                                        r_index = None
                            if channel:
                                typed += 1
                                if seq is not None:
                                    last_seq = seq
                                delta = read.delta
                                if not delta:
                                    continue
                                if channel == _ARGUMENTS:
                                    r_args.append(delta)
                                    if batch:
                                        pieces = arguments.get(r_call)
                                        if pieces is None:
                                            arguments[r_call] = [delta]
                                        else:
                                            pieces.append(delta)
                                        order.append(r_call)
                                    else:
                                        out.append(_ToolCallArgs(id=r_call, args_delta=delta))
                                    continue
                                index = (
                                    read.summary_index if r_summary else read.content_index
                                ) or 0
                                if index != r_index:
                                    r_index = index
                                    r_key = (channel, r_owner, index)
                                    kept = parts.get(r_key)
                                    if kept is None:
                                        kept = parts[r_key] = []
                                    r_kept = kept
                                r_kept.append(delta)
                                if not batch:
                                    self._emit(channel, r_key, delta, out)
                                elif channel in _TEXT_CHANNELS:
                                    text.append(delta)
                                else:
                                    if text:
                                        # Reasoning after text: the batch so far first.
                                        out.append(
                                            DeltaBatch(
                                                reasoning=reasoning,
                                                text=text,
                                                arguments=arguments,
                                                order=order,
                                            )
                                        )
                                        reasoning, text, arguments, order = [], [], {}, []
                                    other = self._last_reasoning
                                    if other is not None and other != r_key:
                                        reasoning.append(_SEPARATOR)
                                    self._last_reasoning = r_key
                                    reasoning.append(delta)
                                continue
                    # The shared path, after what was gathered before it.
                    if reasoning or text or order:
                        out.append(
                            DeltaBatch(
                                reasoning=reasoning, text=text, arguments=arguments, order=order
                            )
                        )
                        reasoning, text, arguments, order = [], [], {}, []
                    r_name = r_item_id = None
                    r_channel = ""
                    self._seq = last_seq
                    event = ServerSentEvent(
                        event=name, data=payload.decode("utf-8", "replace"), id=run.id
                    )
                    ended = self.feed_event(event, frame)
                    last_seq = self._seq
                    if ended:
                        return True
                except Exception as exc:  # a bug in raf: report it, skip the event, go on
                    r_name = r_item_id = None
                    r_channel = ""
                    out.append(self.internal_error(exc, payload.decode("utf-8", "replace")))
        finally:
            self._seq = last_seq
            if typed:
                self.recognised = True
                stats = self.fast_stats
                stats["typed"] += typed
                if batch:
                    stats["batched"] += typed
            if reasoning or text or order:
                batched = DeltaBatch(
                    reasoning=reasoning, text=text, arguments=arguments, order=order
                )
                if len(order) + len(text) + len(reasoning) < _HOLD and not self._done:
                    self._held = batched  # left open for the next run (flush() hands it on)
                else:
                    out.append(batched)
        return False

    def flush(self) -> list[Any]:
        """The batch left open by the last runs, if any (see :meth:`feed_run`)."""
        held, self._held = self._held, None
        return [] if held is None else [held]

    # -- helpers -----------------------------------------------------------------------------

    def _violation(self, frame: Frame, message: str) -> None:
        frame.out.append(self.error(_VIOLATION, message, frame.data))

    def _notice(self, frame: Frame, message: str) -> None:
        frame.out.append(self.error(_NOTICE, message, frame.data))

    def _rotated(self, item: _Item, item_id: str | None, frame: Frame, where: str) -> None:
        """An event at ``item``'s ``output_index`` named it ``item_id``: one notice per item."""
        if not item.rotated:
            item.rotated = True
            self._notice(
                frame,
                f"item id {item_id!r} at {where} differs from {item.id!r} added at "
                f"output_index {item.index} (ids rotate; events are routed by output_index)",
            )

    def _report_orphans(self, out: list[AgentResponseUpdate]) -> None:
        for item_id, pieces in self._orphans.items():
            text = "".join(pieces)
            out.append(
                updates.Error(
                    error_code=_VIOLATION,
                    message=f"arguments for item {item_id!r}, which was never added, were "
                    f"never claimed by its output_item.done ({len(text)} characters)",
                    raw=raw_excerpt(text, self.max_raw_chars),
                )
            )
        self._orphans.clear()

    def _find(
        self, payload: dict[str, Any], frame: Frame, kinds: frozenset[str] | None
    ) -> tuple[_Item | None, str | None]:
        """The item an event names (docs: "Routing an event to its item"), and the item id
        as sent. ``kinds``: the item types the event belongs to (``None``: any)."""
        item_id = frame.str(payload, "item_id") or None
        index = frame.int(payload, "output_index")
        event_type = payload.get("type")
        if item_id is not None:
            item = self._items.get(item_id)
            if item is not None:
                if kinds is None or item.kind in kinds:
                    return item, item_id
                if item_id not in self._reported:
                    self._reported.add(item_id)
                    self._violation(
                        frame, f"{event_type} for item {item_id!r} of type {item.kind!r}"
                    )
                return None, item_id
            slot = self._slots.get(index) if index is not None else None
            if slot is not None and not slot.done and (kinds is None or slot.kind in kinds):
                self._rotated(slot, item_id, frame, str(event_type))
                return slot, item_id
        else:
            slot = self._slots.get(index) if index is not None else None
            if slot is not None and (kinds is None or slot.kind in kinds):
                return slot, None
        key = item_id or ""
        if self._started and key not in self._reported:
            self._reported.add(key)
            self._violation(frame, f"{event_type} for an item never added (item_id {item_id!r})")
        return None, item_id

    def _emit(self, channel: str, key: tuple[str, str, int], text: str, out: list[Any]) -> None:
        if channel in {"text", "refusal"}:
            out.append(updates.TextDelta(delta=text))
            return
        if self._last_reasoning is not None and self._last_reasoning != key:
            out.append(updates.ReasoningDelta(delta=_SEPARATOR))
        self._last_reasoning = key
        out.append(updates.ReasoningDelta(delta=text))

    def _start_call(self, item: _Item, name: str, out: list[Any]) -> None:
        assert item.call_id is not None
        item.name = name
        out.append(updates.ToolCallStart(id=item.call_id, name=name))
        if item.id is not None and item.id != item.call_id:
            out.append(updates.ToolCallItem(call_id=item.call_id, item_id=item.id))

    def _args(self, item: _Item, text: str, out: list[Any]) -> None:
        """Argument text (function_call) that arrived for a call."""
        if text:
            item.args.append(text)
            assert item.call_id is not None
            out.append(updates.ToolCallArgs(id=item.call_id, args_delta=text))

    def _custom_input(self, item: _Item, text: str, out: list[Any]) -> None:
        """Input text of a custom tool call, as the inside of ``{"input": ...}``."""
        if text:
            item.args.append(text)
            assert item.call_id is not None
            prefix = "" if item.opened else '{"input":"'
            item.opened = True
            out.append(updates.ToolCallArgs(id=item.call_id, args_delta=prefix + _escape(text)))

    def _resumed_tail(self, arrived: str, text: str) -> bool:
        """A resumed stream saw only the end of the text: the done text ending with what
        arrived is what it should be."""
        return not self._started and text.endswith(arrived)

    def _compare(self, item: _Item, text: str | None, frame: Frame, what: str) -> None:
        """A done event's text for a call whose text arrived already: the same, or a
        violation (what arrived stands)."""
        if text is None:
            return
        joined = "".join(item.args)
        item.args = [joined]
        if joined != text and not self._resumed_tail(joined, text):
            self._violation(frame, f"{what} differs from the text that arrived before")

    def _new_item(
        self,
        obj: dict[str, Any],
        frame: Frame,
        index: int | None,
        out: list[Any],
        *,
        at_done: bool = False,
    ) -> _Item:
        kind = frame.str(obj, "type", "item.")
        item_id = frame.str(obj, "id", "item.") or None
        item = _Item(kind, item_id, index)
        if item_id is not None:
            self._items[item_id] = item
        if index is not None:
            self._slots[index] = item
        if not _is_client_call(kind, obj):
            return item
        raw_call_id = frame.str(obj, "call_id", "item.") or None
        item.raw_call_id = raw_call_id
        base = raw_call_id or item_id or f"output_{index}"
        used = self._call_ids.get(base, 0)
        call_id = base
        if used:
            call_id = f"{base}#{used + 1}"
            if base in self._response_call_ids:
                self._violation(
                    frame, f"call_id {base!r} reused in one response; reported as {call_id!r}"
                )
        self._call_ids[base] = used + 1
        self._response_call_ids.add(base)
        item.call_id = call_id
        self._response_has_call = True
        if kind in _STREAMED_CALLS:
            name = frame.str(obj, "name", "item.") or None
        else:
            assert kind is not None
            name = kind[: -len("_call")]
        if name is not None:
            self._start_call(item, name, out)
        if kind == "function_call" and not at_done:
            arguments = obj.get("arguments")
            if arguments is not None and not isinstance(arguments, str):
                arguments = _compact(arguments)
            if arguments:
                self._args(item, arguments, out)
        return item

    # -- handlers ------------------------------------------------------------------------------

    def _response(self, payload: dict[str, Any], frame: Frame) -> dict[str, Any]:
        response = frame.dict(payload, "response") or {}
        self.metadata(
            frame.str(response, "id", "response."),
            frame.str(response, "model", "response."),
            frame.out,
        )
        return response

    def _usage(self, response: dict[str, Any], frame: Frame) -> Usage | None:
        raw = frame.dict(response, "usage", "response.")
        if raw is None or not USAGE.has_any(raw):
            return None
        return USAGE.parse(raw)

    def _created(self, payload: dict[str, Any], frame: Frame) -> None:
        if self._started and not self.finished:
            self._violation(frame, "response.created before the previous response ended")
        self._slots.clear()
        self._response_call_ids.clear()
        self._response_has_call = False
        self._response_has_approval = False
        self._unanswered = None
        self._started = True
        self.finished = False
        self._response(payload, frame)

    def _lifecycle(self, payload: dict[str, Any], frame: Frame) -> None:
        self._response(payload, frame)

    def _completed(self, payload: dict[str, Any], frame: Frame) -> None:
        response = self._response(payload, frame)
        reason = (
            "tool_calls"
            if self._response_has_call
            else "awaiting_approval"
            if self._response_has_approval
            else "stop"
        )
        frame.out.append(
            updates.Finish(
                finish_reason=finish_reason(FINISH_REASONS, reason),
                usage=self._usage(response, frame),
            )
        )
        self.finished = True

    def _incomplete(self, payload: dict[str, Any], frame: Frame) -> None:
        response = self._response(payload, frame)
        details = frame.dict(response, "incomplete_details", "response.")
        reason = (
            None
            if details is None
            else frame.str(details, "reason", "response.incomplete_details.")
        )
        frame.out.append(
            updates.Finish(
                finish_reason=finish_reason(FINISH_REASONS, reason or "incomplete"),
                usage=self._usage(response, frame),
            )
        )
        self.finished = True

    def _failed(self, payload: dict[str, Any], frame: Frame) -> None:
        response = self._response(payload, frame)
        error = response.get("error")
        if error is None or error in ("", {}):
            error = {"message": "response failed without an error object"}
        frame.out.append(self.provider_error_update(error, frame.data, "in response.failed"))
        usage = self._usage(response, frame)
        if usage is not None:
            frame.out.append(updates.Usage(usage=usage))
        self.finished = True

    def _error(self, payload: dict[str, Any], frame: Frame) -> None:
        error = payload.get("error")
        if not isinstance(error, dict | str) or not error:
            error = payload
        frame.out.append(self.provider_error_update(error, frame.data))

    def _item_added(self, payload: dict[str, Any], frame: Frame) -> None:
        obj = frame.dict(payload, "item")
        if obj is None:
            return
        index = frame.int(payload, "output_index")
        item_id = frame.str(obj, "id", "item.") or None
        if item_id is not None and item_id in self._items:
            self._violation(frame, f"item {item_id!r} added twice")
            return
        if index is not None:
            other = self._slots.get(index)
            if other is not None:
                self._violation(
                    frame,
                    f"output_index collision: {index} already holds item {other.id!r}",
                )
        item = self._new_item(obj, frame, index, frame.out)
        if item.kind == "reasoning":
            self._reasoning_item(item, obj, frame, done=False)

    def _reasoning_item(
        self, item: _Item, obj: dict[str, Any], frame: Frame, *, done: bool
    ) -> None:
        """A reasoning item's ``ReasoningItem``, when it is added and when it is done (then
        with the texts of its summary parts), if it carries an id, encrypted content or a
        summary."""
        encrypted = frame.str(obj, "encrypted_content", "item.") or None
        summary: list[str] = []
        if done:
            for part in frame.list(obj, "summary", "item.") or ():
                text = part.get("text") if isinstance(part, dict) else None
                if isinstance(text, str):
                    summary.append(text)
        item_id = item.id if item.id is not None or not done else frame.str(obj, "id", "item.")
        if item_id or encrypted is not None or summary:
            frame.out.append(
                updates.ReasoningItem(
                    item_id=item_id or None, encrypted_content=encrypted, summary=tuple(summary)
                )
            )

    def _item_done(self, payload: dict[str, Any], frame: Frame) -> None:
        obj = frame.dict(payload, "item")
        if obj is None:
            return
        out = frame.out
        index = frame.int(payload, "output_index")
        item_id = frame.str(obj, "id", "item.") or None
        item = self._items.get(item_id) if item_id is not None else None
        if item is None and index is not None:
            slot = self._slots.get(index)
            if slot is not None and not slot.done:
                if item_id is not None or slot.id is not None:
                    self._rotated(slot, item_id, frame, "output_item.done")
                item = slot
        if item is None:
            if self._started:
                self._violation(frame, "output_item.done for an item never added")
            item = self._new_item(obj, frame, index, out, at_done=True)
            if item.call_id is not None and item.kind == "function_call":
                buffered = self._orphans.pop(item_id or "", None)
                if buffered:
                    self._args(item, "".join(buffered), out)
        if item.done:
            return
        item.done = True
        kind = item.kind
        if kind == "mcp_approval_request":
            self._approval(obj, frame)
            return
        if kind == "reasoning":
            self._reasoning_item(item, obj, frame, done=True)
            return
        if kind == "compaction":
            out.append(updates.RawItem(item=obj))
            return
        if item.call_id is None:
            self._hosted(kind, obj, index, frame)
            return
        raw_call_id = frame.str(obj, "call_id", "item.") or None
        if (
            item.raw_call_id is not None
            and raw_call_id is not None
            and raw_call_id != item.raw_call_id
        ):
            self._notice(
                frame,
                f"call_id changed from {item.raw_call_id!r} at added to {raw_call_id!r} at "
                f"done; the call keeps {item.call_id!r}",
            )
        if kind in _STREAMED_CALLS:
            name = frame.str(obj, "name", "item.") or None
            if item.name is None:
                if name is not None:
                    self._start_call(item, name, out)
            elif name is not None and name != item.name:
                self._violation(frame, f"name changed from {item.name!r} at added to {name!r}")
        if kind == "function_call":
            arguments = obj.get("arguments")
            if arguments is not None and not isinstance(arguments, str):
                arguments = _compact(arguments)
            if not item.args:
                if arguments:
                    self._args(item, arguments, out)
            else:
                self._compare(item, arguments, frame, "output_item.done arguments")
        elif kind == "custom_tool_call":
            text = frame.str(obj, "input", "item.")
            if not item.args:
                if text:
                    self._custom_input(item, text, out)
            else:
                self._compare(item, text, frame, "output_item.done input")
            out.append(
                updates.ToolCallArgs(
                    id=item.call_id, args_delta='"}' if item.opened else '{"input":""}'
                )
            )
        else:
            field = CLIENT_ITEM_FIELDS.get(kind or "")
            value = obj.get(field) if field is not None else None
            if value is not None:
                text = _compact(value)
                if text:
                    item.args.append(text)
                    out.append(updates.ToolCallArgs(id=item.call_id, args_delta=text))
        out.append(updates.ToolCallEnd(id=item.call_id))

    def _decoded(self, raw: Any) -> Any:
        """A JSON value sent as a JSON string (``arguments``) decoded, else as it is (the
        text itself when it is not JSON)."""
        if not isinstance(raw, str):
            return raw
        try:
            return safe_json.decode_strict(raw, max_depth=self.max_json_depth)
        except safe_json.UnusableJSON:
            return raw

    def _hosted(
        self, kind: str | None, obj: dict[str, Any], index: int | None, frame: Frame
    ) -> None:
        """The updates of a done item that is not a client call: a tool the server ran
        (:data:`HOSTED_CALLS`), or its output (:data:`HOSTED_RESULTS`). Other items (messages,
        reasoning, compaction) give nothing here."""
        if kind is None:
            return
        out = frame.out
        error = obj.get("error")
        error_text = None if error is None else _compact(error)
        fields = HOSTED_CALLS.get(kind)
        if fields is not None or (kind.endswith("_call") and kind not in _STREAMED_CALLS):
            arguments_field, output_field = fields or (None, None)
            call_id = (
                frame.str(obj, "call_id", "item.")
                or frame.str(obj, "id", "item.")
                or f"output_{index}"
            )
            name = frame.str(obj, "name", "item.") if kind == "mcp_call" else None
            lifted = {arguments_field, output_field, "error"}
            out.append(
                updates.HostedToolCall(
                    call_id=call_id,
                    name=name or kind.removesuffix("_call"),
                    arguments=None
                    if arguments_field is None
                    else self._decoded(obj.get(arguments_field)),
                    item={k: v for k, v in obj.items() if k not in lifted},
                )
            )
            output = None if output_field is None else obj.get(output_field)
            self._unanswered = call_id
            if output is not None or error_text is not None:
                self._unanswered = None
                out.append(
                    updates.HostedToolResult(
                        call_id=call_id, name=kind, output=output, error=error_text
                    )
                )
            return
        output_field = HOSTED_RESULTS.get(kind) or ("output" if kind.endswith("_output") else None)
        if output_field is None:
            return
        answers = frame.str(obj, "call_id", "item.") or self._unanswered
        self._unanswered = None
        out.append(
            updates.HostedToolResult(
                call_id=answers or frame.str(obj, "id", "item.") or f"output_{index}",
                name=kind,
                output=obj.get(output_field),
                error=error_text,
                item={k: v for k, v in obj.items() if k not in {output_field, "error"}},
            )
        )

    def _approval(self, obj: dict[str, Any], frame: Frame) -> None:
        name = frame.str(obj, "name", "item.") or ""
        raw = obj.get("arguments")
        arguments: Any
        if raw is None:
            arguments = {}
        elif isinstance(raw, str):
            try:
                arguments = safe_json.decode_strict(raw, max_depth=self.max_json_depth)
            except safe_json.UnusableJSON:
                arguments = raw
        else:
            arguments = raw
        self._response_has_approval = True
        frame.out.append(
            updates.ToolApprovalRequest(
                call_id=frame.str(obj, "id", "item.") or "",
                name=name,
                arguments=arguments,
                description=frame.str(obj, "server_label", "item.") or "",
            )
        )

    def _text(self, payload: dict[str, Any], frame: Frame, channel: str, index_key: str) -> None:
        delta = frame.str(payload, "delta")
        item, item_id = self._find(payload, frame, None)
        if not delta:
            return
        owner = (item.id if item is not None else item_id) or ""
        self._part(channel, owner, frame.int(payload, index_key) or 0, delta, frame.out)

    def _part(self, channel: str, owner: str, index: int, delta: str, out: list[Any]) -> None:
        """A delta of the text part (``channel``, item ``owner``, ``index``): kept for its
        ``.done`` and emitted."""
        key = (channel, owner, index)
        pieces = self._parts.get(key)
        if pieces is None:
            self._parts[key] = [delta]
        else:
            pieces.append(delta)
        self._emit(channel, key, delta, out)

    def _text_done(
        self, payload: dict[str, Any], frame: Frame, channel: str, index_key: str, field: str
    ) -> None:
        text = frame.str(payload, field)
        item, item_id = self._find(payload, frame, None)
        key = (
            channel,
            (item.id if item is not None else item_id) or "",
            frame.int(payload, index_key) or 0,
        )
        pieces = self._parts.get(key)
        if pieces is None:
            if text:
                self._parts[key] = [text]
                self._emit(channel, key, text, frame.out)
            return
        joined = "".join(pieces)
        self._parts[key] = [joined]
        if text is not None and joined != text and not self._resumed_tail(joined, text):
            self._notice(
                frame,
                f"{payload.get('type')} text differs from its deltas, which are kept "
                f"({len(joined)} characters streamed, {len(text)} in the done event)",
            )

    def _output_text(self, payload: dict[str, Any], frame: Frame) -> None:
        self._text(payload, frame, "text", "content_index")

    def _output_text_done(self, payload: dict[str, Any], frame: Frame) -> None:
        self._text_done(payload, frame, "text", "content_index", "text")

    def _refusal(self, payload: dict[str, Any], frame: Frame) -> None:
        self._text(payload, frame, "refusal", "content_index")

    def _refusal_done(self, payload: dict[str, Any], frame: Frame) -> None:
        self._text_done(payload, frame, "refusal", "content_index", "refusal")

    def _summary(self, payload: dict[str, Any], frame: Frame) -> None:
        self._text(payload, frame, "summary", "summary_index")

    def _summary_done(self, payload: dict[str, Any], frame: Frame) -> None:
        self._text_done(payload, frame, "summary", "summary_index", "text")

    def _reasoning(self, payload: dict[str, Any], frame: Frame) -> None:
        self._text(payload, frame, "reasoning", "content_index")

    def _reasoning_done(self, payload: dict[str, Any], frame: Frame) -> None:
        self._text_done(payload, frame, "reasoning", "content_index", "text")

    def _arguments(self, payload: dict[str, Any], frame: Frame) -> None:
        delta = frame.str(payload, "delta")
        item, item_id = self._find(payload, frame, _FUNCTION)
        if not delta:
            return
        if item is None:
            self._orphans.setdefault(item_id or "", []).append(delta)
        else:
            self._args(item, delta, frame.out)

    def _arguments_done(self, payload: dict[str, Any], frame: Frame) -> None:
        arguments = frame.str(payload, "arguments")
        item, item_id = self._find(payload, frame, _FUNCTION)
        if item is None:
            buffered = self._orphans.get(item_id or "")
            if buffered is None:
                if arguments:
                    self._orphans[item_id or ""] = [arguments]
            elif arguments is not None and "".join(buffered) != arguments:
                self._violation(frame, "function_call_arguments.done differs from its deltas")
            return
        if not item.args:
            if arguments:
                self._args(item, arguments, frame.out)
        else:
            self._compare(item, arguments, frame, "function_call_arguments.done")

    def _custom_delta(self, payload: dict[str, Any], frame: Frame) -> None:
        delta = frame.str(payload, "delta")
        item, _ = self._find(payload, frame, _CUSTOM)
        if item is not None and delta:
            self._custom_input(item, delta, frame.out)

    def _custom_done(self, payload: dict[str, Any], frame: Frame) -> None:
        text = frame.str(payload, "input")
        item, _ = self._find(payload, frame, _CUSTOM)
        if item is None:
            return
        if not item.args:
            if text:
                self._custom_input(item, text, frame.out)
        else:
            self._compare(item, text, frame, "custom_tool_call_input.done")


# Set after the class: a compiled class body cannot name its own methods (docs/compiled.md).
OpenAIResponsesDialect.handlers = {
    "response.created": OpenAIResponsesDialect._created,
    "response.queued": OpenAIResponsesDialect._lifecycle,
    "response.in_progress": OpenAIResponsesDialect._lifecycle,
    "response.completed": OpenAIResponsesDialect._completed,
    "response.incomplete": OpenAIResponsesDialect._incomplete,
    "response.failed": OpenAIResponsesDialect._failed,
    "error": OpenAIResponsesDialect._error,
    "response.output_item.added": OpenAIResponsesDialect._item_added,
    "response.output_item.done": OpenAIResponsesDialect._item_done,
    "response.output_text.delta": OpenAIResponsesDialect._output_text,
    "response.output_text.done": OpenAIResponsesDialect._output_text_done,
    "response.refusal.delta": OpenAIResponsesDialect._refusal,
    "response.refusal.done": OpenAIResponsesDialect._refusal_done,
    "response.reasoning_summary_text.delta": OpenAIResponsesDialect._summary,
    "response.reasoning_summary_text.done": OpenAIResponsesDialect._summary_done,
    "response.reasoning_text.delta": OpenAIResponsesDialect._reasoning,
    "response.reasoning_text.done": OpenAIResponsesDialect._reasoning_done,
    "response.function_call_arguments.delta": OpenAIResponsesDialect._arguments,
    "response.function_call_arguments.done": OpenAIResponsesDialect._arguments_done,
    "response.custom_tool_call_input.delta": OpenAIResponsesDialect._custom_delta,
    "response.custom_tool_call_input.done": OpenAIResponsesDialect._custom_done,
}
