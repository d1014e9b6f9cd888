"""``collect_agent_response``: aggregate streamed results into one :class:`AgentResponse`.

:class:`ResponseCollector` is the sans-IO accumulator; :func:`collect_agent_response` and
:func:`acollect_agent_response` drive it over a sync or async iterable (raf-spec 6, with the
differences listed in docs/deviations.md).

Given a ``collector`` of the caller's, they keep the partial response when the run is
interrupted (``task.cancel()``, ``asyncio.timeout``, ``KeyboardInterrupt``): the collector
holds every result that arrived, and when the results come from raf's own drivers
(:func:`raf.pipeline.run`, :func:`raf.pipeline.arun`, :func:`raf.transport.iter_response`,
:func:`raf.transport.aiter_response`) the turn is closed into it as well (a ``cancelled``
error, calls still streaming as ``tool_call_incomplete``), as with
``raf.pipeline.arespond(collector=)``.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Iterable
from typing import Final

from raf._collects_into import CollectsInto
from raf._mypyc import mypyc_attr
from raf.errors import AgentResponseError
from raf.model import blocks, contents, events
from raf.model._base import JSONValue
from raf.model.codes import NOTICE_CODES
from raf.model.messages import (
    ApprovalRequest,
    ChatMessage,
    HostedCall,
    MessageRole,
    MessageSource,
    ToolCall,
)
from raf.model.response import AgentResponse, AgentResponseResult, Round
from raf.model.usage import FinishReason, Usage, add_usage

__all__ = ["ResponseCollector", "acollect_agent_response", "collect_agent_response"]


_TEXT = contents.Text
_COLLECTED = frozenset(
    {
        contents.Reasoning,
        contents.ToolCalling,
        contents.Usage,
        contents.Error,
        contents.HostedToolCall,
        contents.HostedToolResult,
        contents.ToolApprovalRequest,
        contents.ToolCallStart,
        contents.RoundFinished,
        contents.ToolCalled,
    }
)

# The finish reasons the tool loop gives without calling the model again: a run that ends on
# one of them after a tool round has no final model round.
_LOOP_STOPS: Final = frozenset({FinishReason.AWAITING_APPROVAL, FinishReason.MAX_ROUNDS})

# Where a tool message goes in the transcript when its call is of no round of this run (a
# call of an earlier run answered now: a resumed approval): before the run's first message.
_EARLIER = -1

# The kinds of a part of the turn's message (_Part.kind).
_TEXT_PART, _REASONING_PART, _CALL_PART, _HOSTED_PART, _RAW_PART = range(5)

_BLOCK: Final = 256
"""The deltas of the open text (or reasoning) part are joined into one string every ``_BLOCK``
deltas, so that a stream of many tiny deltas holds about one copy of its text, not one object
per delta (each costs some 50 bytes more than its characters)."""


class _Part:
    """One block of the turn's message while it is being built. A text or reasoning part
    holds the range ``start:end`` of the collector's text or reasoning deltas (``end`` is
    ``None`` while the part is open: deltas of its kind go on into it)."""

    __slots__ = (
        "arguments",
        "called",
        "encrypted_content",
        "end",
        "error",
        "id",
        "item_id",
        "items",
        "kind",
        "name",
        "output",
        "redacted",
        "signature",
        "start",
        "summary",
    )

    def __init__(self, kind: int, start: int = 0) -> None:
        self.kind = kind
        self.start = start
        self.end: int | None = None
        self.signature: str | None = None
        self.redacted: str | None = None
        self.encrypted_content: str | None = None
        self.item_id: str | None = None
        self.summary: tuple[str, ...] = ()
        self.id = ""
        self.name = ""
        self.arguments: JSONValue = None
        self.called = False  # the call's arguments are final (ToolCalling or its error)
        self.output: JSONValue = None
        self.error: str | None = None
        self.items: list[JSONValue] = []


def _is_empty(usage: Usage) -> bool:
    return not (usage.prompt_tokens or usage.completion_tokens or usage.total_tokens)


@mypyc_attr(allow_interpreted_subclasses=True)
class ResponseCollector:
    """Accumulates results; :meth:`response` builds the aggregate at any point.

    Rules: ``text`` and ``reasoning_text`` concatenate the Text and Reasoning deltas
    (``reasoning_text`` is ``None`` when empty); ``tool_calls`` come from ToolCalling contents
    in order; ``id``, ``model`` and ``finish_reason`` are the last non-empty values seen;
    ``usage`` is the last Usage content, except that a usage with all counts zero never
    replaces a non-empty one; ``source_agent_id`` is the agent id of the last ToolCalling's
    metadata; ``errors`` lists the Error contents in order, except notices (a code of
    :data:`raf.model.codes.NOTICE_CODES`), which ``notices`` lists. ``hosted_tool_calls`` holds
    one entry per hosted call id, in first-seen order, with the output (or error) of the last
    ``HostedToolResult`` naming it (a result whose call never arrived gets an entry of its
    own, named after the result); ``approval_requests`` lists the ``ToolApprovalRequest``
    contents in order.

    ``turn_transcript`` (raf's deviation from RAF, which leaves it empty) holds the assistant
    message of the turn when anything arrived: its ``blocks`` in stream order (consecutive
    text deltas are one ``Text`` block, reasoning one ``Reasoning`` block until the stream
    ends it; calls where they started; hosted calls with their results; every signature,
    redacted reasoning, reasoning item and provider item id on the block it belongs to), its
    ``content`` the text, its ``tool_calls`` the response's. docs/converter.md, "The turn's
    message", has the rules.

    A run of the tool loop (docs/agent.md) adds ``RoundFinished`` and ``ToolCalled``
    contents. Then ``rounds`` holds one :class:`~raf.model.Round` per ``RoundFinished`` (its
    finish reason and usage, else the last usage the round streamed) and, when the model was
    called again after the last one, the final round (the response's finish reason, the last
    usage since); ``usage`` is the sum of the rounds' usages; ``tool_messages`` holds one tool
    message per ``ToolCalled``, in order; and ``turn_transcript`` is the conversation the loop
    had with the provider: one assistant message per round (its blocks, text and calls),
    each followed by the tool messages answering its calls, then the final round's message.
    A stream without ``RoundFinished`` gives what it always gave (no ``rounds``, the last
    usage, one message).

    Args:
        pending_calls: calls of an earlier run that this run may answer (the calls a resumed
            approval executes, raf-spec 5.7): their tool messages are named after them and
            come first in ``turn_transcript``.
    """

    def __init__(self, *, pending_calls: Iterable[ToolCall] = ()) -> None:
        # The text and reasoning deltas, the open part's older ones joined into blocks: the
        # open part's deltas not yet joined start at *_from, and are joined when the list
        # reaches *_fold (docs/converter.md, "collect_agent_response").
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._text_from = self._reasoning_from = 0
        self._text_fold = self._reasoning_fold = _BLOCK
        self._tool_calls: list[ToolCall] = []
        self._errors: list[contents.Error] = []
        self._hosted: dict[str, HostedCall] = {}
        self._approvals: list[ApprovalRequest] = []
        self._notices: list[contents.Error] = []
        self._id: str | None = None
        self._model: str | None = None
        self._finish: str | None = None
        self._usage: Usage | None = None
        self._source_agent_id: str | None = None
        # The turn's message: its parts in order, the open text or reasoning part, and the
        # call and hosted parts by id.
        self._parts: list[_Part] = []
        self._open: _Part | None = None
        self._calls: dict[str, _Part] = {}
        self._hosted_parts: dict[str, _Part] = {}
        # The tool loop's rounds: each finished round's Round and where it ends (parts, text
        # deltas, tool calls); the calls of the last finished round (its ToolCalled contents
        # follow); the tool messages with the round whose calls they answer; the usage seen
        # since the last round ended; whether anything of a model round came since.
        self._rounds: list[Round] = []
        self._marks: list[tuple[int, int, int]] = []
        self._finished_calls: dict[str, _Part] = {}
        self._tool_messages: list[tuple[int, ChatMessage]] = []
        self._round_usage: Usage | None = None
        self._fresh = False
        self._pending: dict[str, ToolCall] = {}
        self.add_pending_calls(pending_calls)

    def add_pending_calls(self, calls: Iterable[ToolCall]) -> None:
        """Calls of an earlier run this run may answer (the ``pending_calls`` argument)."""
        for call in calls:
            self._pending[call.id] = call

    @property
    def pending_calls(self) -> tuple[ToolCall, ...]:
        """The calls of an earlier run this run may answer."""
        return tuple(self._pending.values())

    def add(self, result: AgentResponseResult) -> None:
        """Take one streamed result into account."""
        if result.id:
            self._id = result.id
            self._fresh = True
        if result.model:
            self._model = result.model
            self._fresh = True
        if result.finish_reason:
            self._finish = result.finish_reason
            if result.finish_reason not in _LOOP_STOPS:
                self._fresh = True
        for content in result.contents:
            kind = type(content)
            if kind is _TEXT:
                open_part = self._open
                if open_part is None or open_part.kind != _TEXT_PART:
                    self._start(_TEXT_PART)
                text = self._text
                text.append(content.delta)  # type: ignore[union-attr]
                if len(text) >= self._text_fold:
                    self._fold_text()
            elif kind in _COLLECTED:
                self._collect(content)
        if result.events:
            for event in result.events:
                if type(event) is events.Custom:
                    self._custom(event)

    def add_text(self, delta: str) -> None:
        """Take a text delta into account (what adding a ``Text`` content does)."""
        open_part = self._open
        if open_part is None or open_part.kind != _TEXT_PART:
            self._start(_TEXT_PART)
        text = self._text
        text.append(delta)
        if len(text) >= self._text_fold:
            self._fold_text()

    def add_reasoning(self, delta: str) -> None:
        """Take a reasoning delta into account (what adding a ``Reasoning`` content does)."""
        open_part = self._open
        if open_part is None or open_part.kind != _REASONING_PART:
            self._start(_REASONING_PART)
        reasoning = self._reasoning
        reasoning.append(delta)
        if len(reasoning) >= self._reasoning_fold:
            self._fold_reasoning()

    def add_text_deltas(self, deltas: list[str]) -> None:
        """:meth:`add_text` for each of ``deltas``, in order."""
        if deltas:
            open_part = self._open
            if open_part is None or open_part.kind != _TEXT_PART:
                self._start(_TEXT_PART)
            text = self._text
            text.extend(deltas)
            if len(text) >= self._text_fold:
                self._fold_text()

    def add_reasoning_deltas(self, deltas: list[str]) -> None:
        """:meth:`add_reasoning` for each of ``deltas``, in order."""
        if deltas:
            open_part = self._open
            if open_part is None or open_part.kind != _REASONING_PART:
                self._start(_REASONING_PART)
            reasoning = self._reasoning
            reasoning.extend(deltas)
            if len(reasoning) >= self._reasoning_fold:
                self._fold_reasoning()

    def _fold_text(self) -> None:
        """Join the open text part's deltas not yet joined into one block."""
        text, start = self._text, self._text_from
        text[start:] = ["".join(text[start:])]
        self._text_from = start + 1
        self._text_fold = start + 1 + _BLOCK

    def _fold_reasoning(self) -> None:
        """Join the open reasoning part's deltas not yet joined into one block."""
        reasoning, start = self._reasoning, self._reasoning_from
        reasoning[start:] = ["".join(reasoning[start:])]
        self._reasoning_from = start + 1
        self._reasoning_fold = start + 1 + _BLOCK

    def add_call_start(self, call_id: str, name: str) -> None:
        """Take the start of a tool call into account (what adding a ``ToolCallStart``
        content does): its place in the turn's message."""
        self._call_part(call_id, name)

    # -- the turn's message ------------------------------------------------------------------

    def _close(self) -> None:
        """End the open text or reasoning part, if any."""
        part = self._open
        if part is not None:
            part.end = len(self._text if part.kind == _TEXT_PART else self._reasoning)
            self._open = None

    def _start(self, kind: int) -> _Part:
        """Open a new text or reasoning part (ending the open one)."""
        self._close()
        if kind == _TEXT_PART:
            start = self._text_from = len(self._text)
            self._text_fold = start + _BLOCK
        else:
            start = len(self._reasoning)
            if kind == _REASONING_PART:
                self._reasoning_from = start
                self._reasoning_fold = start + _BLOCK
        part = _Part(kind, start)
        self._parts.append(part)
        self._open = part
        return part

    def _closed(self, kind: int) -> _Part:
        """A new part of ``kind`` holding no deltas (ending the open one)."""
        part = self._start(kind)
        self._close()
        return part

    def _call_part(self, call_id: str, name: str) -> _Part:
        part = self._calls.get(call_id)
        if part is None:
            part = self._closed(_CALL_PART)
            part.id = call_id
            part.name = name
            self._calls[call_id] = part
        return part

    def _last(self, kind: int) -> _Part | None:
        for part in reversed(self._parts):
            if part.kind == kind:
                return part
        return None

    def _custom(self, event: events.Custom) -> None:
        """The Custom events that carry parts of the turn's message (the converter's)."""
        payload = event.payload
        if not isinstance(payload, dict):
            return
        kind = event.event_type
        if kind == "reasoning_signature":
            signature = _string(payload.get("signature"))
            part = self._open
            if part is None or part.kind != _REASONING_PART or part.signature is not None:
                part = self._start(_REASONING_PART)  # a signed block with no text of its own
            part.signature = signature
            self._close()  # a signature ends its reasoning block
        elif kind == "part_signature":
            self._part_signature(_string(payload.get("signature")), payload.get("part"))
        elif kind == "part_end":
            self._close()  # the producer ended its part: the next text is another block
        elif kind == "redacted_reasoning":
            self._closed(_REASONING_PART).redacted = _string(payload.get("data"))
        elif kind == "reasoning_item":
            self._reasoning_item(payload)
        elif kind == "tool_call_item":
            call = self._calls.get(_string(payload.get("call_id")))
            if call is not None:
                call.item_id = _string(payload.get("item_id"))
        elif kind == "raw_item":
            self._closed(_RAW_PART).output = payload.get("item")
        elif kind == "tool_call_provider_id":
            call = self._calls.get(_string(payload.get("call_id")))
            provider_id = _string(payload.get("provider_id"))
            if call is not None and provider_id:
                call.id = provider_id  # the id the provider knows the call by
                self._calls.setdefault(provider_id, call)

    def _part_signature(self, signature: str, where: object) -> None:
        """A signature on the part just streamed (``updates.PartSignature``)."""
        part: _Part | None = None
        if where == "text":
            open_part = self._open
            if open_part is not None and open_part.kind == _TEXT_PART:
                part = open_part
        elif where == "tool_call":
            part = self._last(_CALL_PART)
        elif where == "hosted":
            part = self._last(_HOSTED_PART)
        if part is None or part.signature is not None:
            part = self._start(_TEXT_PART)  # a part with nothing else: an empty text part
        part.signature = signature
        if part is self._open:
            self._close()  # a signed part ends there: the next text is another part

    def _reasoning_item(self, payload: dict[str, object]) -> None:
        """A reasoning item, when it is added (a new reasoning block, open) and when it is
        done (its data, and the block ends)."""
        item_id = payload.get("item_id")
        part = None
        if isinstance(item_id, str):
            part = next(
                (
                    p
                    for p in reversed(self._parts)
                    if p.kind == _REASONING_PART and p.item_id == item_id
                ),
                None,
            )
        if part is None:
            part = self._start(_REASONING_PART)
            part.item_id = item_id if isinstance(item_id, str) else None
        elif part is self._open:
            self._close()
        encrypted = payload.get("encrypted_content")
        if isinstance(encrypted, str):
            part.encrypted_content = encrypted
        summary = payload.get("summary")
        if isinstance(summary, list) and summary:
            part.summary = tuple(_string(s) for s in summary)

    def _hosted_part(self, call_id: str, name: str) -> _Part:
        part = self._hosted_parts.get(call_id)
        if part is None:
            part = self._closed(_HOSTED_PART)
            part.id = call_id
            part.name = name
            self._hosted_parts[call_id] = part
        return part

    def _message(
        self,
        start: tuple[int, int, int] | None,
        end: tuple[int, int, int] | None,
        whole: tuple[str, str],
    ) -> ChatMessage | None:
        """The assistant message of the turn so far, or of the round between ``start`` and
        ``end`` (parts, text deltas, tool calls); ``None`` when nothing arrived. ``whole``:
        all the text and all the reasoning, joined (a part that holds all of it is given
        that string, not a copy)."""
        parts = self._parts
        texts, reasonings = self._text, self._reasoning
        text, tool_calls = texts, self._tool_calls
        content: str | None = whole[0]
        if start is not None and end is not None:
            parts = parts[start[0] : end[0]]
            text = texts[start[1] : end[1]]
            tool_calls = tool_calls[start[2] : end[2]]
            content = None
        if not parts:
            return None
        out: list[blocks.Block] = []
        for part in parts:
            kind = part.kind
            if kind == _TEXT_PART:
                out.append(
                    blocks.Text(text=_part_text(texts, part, whole[0]), signature=part.signature)
                )
            elif kind == _REASONING_PART:
                out.append(
                    blocks.Reasoning(
                        text=_part_text(reasonings, part, whole[1]),
                        signature=part.signature,
                        redacted=part.redacted,
                        encrypted_content=part.encrypted_content,
                        item_id=part.item_id,
                        summary=part.summary,
                    )
                )
            elif kind == _CALL_PART:
                out.append(
                    blocks.ToolCall(
                        id=part.id,
                        name=part.name,
                        arguments=part.arguments,
                        signature=part.signature,
                        item_id=part.item_id,
                    )
                )
            elif kind == _RAW_PART:
                out.append(blocks.Raw(value=part.output))
            else:
                out.append(
                    blocks.HostedTool(
                        id=part.id,
                        name=part.name,
                        arguments=part.arguments,
                        output=part.output,
                        error=part.error,
                        item=list(part.items) if part.items else None,
                        signature=part.signature,
                    )
                )
        return ChatMessage(
            role=MessageRole.ASSISTANT,
            content="".join(text) if content is None else content,
            tool_calls=tuple(tool_calls) or None,
            blocks=tuple(out),
        )

    def _collect(self, content: contents.Content) -> None:
        if isinstance(content, contents.Reasoning):
            self.add_reasoning(content.delta)
        elif isinstance(content, contents.ToolCallStart):
            self._call_part(content.call_id, content.name)
        elif isinstance(content, contents.ToolCalling):
            self._tool_calls.append(
                ToolCall(id=content.call_id, name=content.name, arguments=content.arguments)
            )
            if content.meta is not None and content.meta.agent_id is not None:
                self._source_agent_id = content.meta.agent_id
            call = self._call_part(content.call_id, content.name)
            call.arguments = content.arguments
            call.called = True
        elif isinstance(content, contents.Usage):
            if self._usage is None or not _is_empty(content.usage):
                self._usage = content.usage
            if self._round_usage is None or not _is_empty(content.usage):
                self._round_usage = content.usage
        elif isinstance(content, contents.Error):
            if content.error_code in NOTICE_CODES:
                self._notices.append(content)
            else:
                self._errors.append(content)
                if content.call_id is not None:
                    failed = self._calls.get(content.call_id)
                    if failed is not None and not failed.called:
                        failed.arguments = content.raw  # the text that arrived, kept
                        failed.called = True
        elif isinstance(content, contents.HostedToolCall):
            part = self._hosted_part(content.call_id, content.name)
            part.name = content.name
            part.arguments = content.arguments
            if content.item is not None:
                part.items.insert(0, content.item)
            known = self._hosted.get(content.call_id)
            self._hosted[content.call_id] = HostedCall(
                id=content.call_id,
                name=content.name,
                arguments=content.arguments,
                output=None if known is None else known.output,
                error=None if known is None else known.error,
            )
        elif isinstance(content, contents.HostedToolResult):
            part = self._hosted_part(content.call_id, content.name)
            part.output = content.output
            part.error = content.error
            if content.item is not None:
                part.items.append(content.item)
            known = self._hosted.get(content.call_id)
            self._hosted[content.call_id] = HostedCall(
                id=content.call_id,
                name=content.name if known is None else known.name,
                arguments=None if known is None else known.arguments,
                output=content.output,
                error=content.error,
            )
        elif isinstance(content, contents.ToolApprovalRequest):
            self._approvals.append(
                ApprovalRequest(
                    call_id=content.call_id,
                    name=content.name,
                    arguments=content.arguments,
                    description=content.description,
                )
            )
        elif isinstance(content, contents.RoundFinished):
            self._round_finished(content)
        elif isinstance(content, contents.ToolCalled):
            self._tool_called(content)

    # -- the tool loop's rounds --------------------------------------------------------------

    def _round_finished(self, content: contents.RoundFinished) -> None:
        """A round of the tool loop ended: its message is complete, the next round's parts,
        calls and usage start afresh."""
        self._close()
        usage = content.usage if content.usage is not None else self._round_usage
        self._rounds.append(Round(finish_reason=content.finish_reason, usage=usage))
        self._marks.append((len(self._parts), len(self._text), len(self._tool_calls)))
        self._finished_calls = self._calls
        self._calls = {}
        self._hosted_parts = {}
        self._round_usage = None
        self._fresh = False

    def _tool_called(self, content: contents.ToolCalled) -> None:
        """The tool message answering a call: its text is the result, else the error (the
        tool loop sets exactly one); it goes after the message of the round that made the
        call."""
        call_id = content.call_id
        part = self._finished_calls.get(call_id)
        if part is not None:
            slot = len(self._marks) - 1
        else:
            part = self._calls.get(call_id)
            slot = len(self._marks) if part is not None else _EARLIER
        pending = self._pending.get(call_id)
        name = None if pending is None else pending.name
        if part is not None:
            call_id, name = part.id, part.name  # the id the provider knows the call by
        result, error = content.result, content.error
        text = result if result is not None else error if error is not None else ""
        block = blocks.ToolResult(
            call_id=call_id, content=text, is_error=result is None and error is not None, name=name
        )
        message = ChatMessage(
            role=MessageRole.TOOL,
            content=text,
            tool_call_id=call_id,
            source=MessageSource.TOOL_RESULT,
            blocks=(block,),
        )
        self._tool_messages.append((slot, message))

    def _transcript(self, whole: tuple[str, str]) -> tuple[ChatMessage, ...]:
        """The turn's messages: one per round, each followed by its tool messages (``whole``:
        all the text and reasoning, joined)."""
        marks, answers = self._marks, self._tool_messages
        if not marks and not answers:
            message = self._message(None, None, whole)
            return () if message is None else (message,)
        by_slot: dict[int, list[ChatMessage]] = {}
        for slot, answer in answers:
            by_slot.setdefault(slot, []).append(answer)
        out = by_slot.get(_EARLIER, [])
        start = (0, 0, 0)
        ends = [*marks, (len(self._parts), len(self._text), len(self._tool_calls))]
        for slot, end in enumerate(ends):
            message = self._message(start, end, whole)
            if message is not None:
                out.append(message)
            out.extend(by_slot.get(slot, ()))
            start = end
        return tuple(out)

    def _final_round(self) -> Round | None:
        """The last model round, when the model was called after the last finished round:
        anything of its turn arrived (a part, a usage, an id or model, the provider's finish
        reason)."""
        if not (
            self._fresh or len(self._parts) > self._marks[-1][0] or self._round_usage is not None
        ):
            return None
        return Round(finish_reason=self._finish, usage=self._round_usage)

    def response(self) -> AgentResponse:
        """The aggregate of everything added so far."""
        text = "".join(self._text)
        reasoning = "".join(self._reasoning)
        usage = self._usage
        rounds: tuple[Round, ...] = ()
        if self._rounds:
            final = self._final_round()
            rounds = (*self._rounds, final) if final is not None else tuple(self._rounds)
            usage = None
            for each in rounds:
                usage = add_usage(usage, each.usage)
        return AgentResponse(
            id=self._id,
            model=self._model,
            text=text,
            reasoning_text=reasoning or None,
            tool_calls=tuple(self._tool_calls),
            hosted_tool_calls=tuple(self._hosted.values()),
            approval_requests=tuple(self._approvals),
            tool_messages=tuple(message for _, message in self._tool_messages),
            turn_transcript=self._transcript((text, reasoning)),
            finish_reason=self._finish,
            usage=usage,
            source_agent_id=self._source_agent_id,
            errors=tuple(self._errors),
            notices=tuple(self._notices),
            rounds=rounds,
        )

    def finish(self, *, raise_on_error: bool) -> AgentResponse:
        """The final response; raises :class:`AgentResponseError` if asked and errors occurred
        (notices are not errors)."""
        response = self.response()
        if raise_on_error and response.errors:
            raise AgentResponseError(response)
        return response


def _part_text(pieces: list[str], part: _Part, whole: str) -> str:
    """The text of a text or reasoning part: ``whole`` when the part holds all ``pieces``."""
    if part.start == 0 and (part.end is None or part.end == len(pieces)):
        return whole
    return "".join(pieces[part.start : part.end])


def _string(value: object) -> str:
    return value if isinstance(value, str) else ""


def _collector(
    results: object, collector: ResponseCollector | None
) -> tuple[ResponseCollector, bool]:
    """The collector to use, and whether ``results`` add themselves to it."""
    if collector is None:
        collector = ResponseCollector()
    return collector, isinstance(results, CollectsInto) and results.collect_into(collector)


def collect_agent_response(
    results: Iterable[AgentResponseResult],
    *,
    raise_on_error: bool = False,
    collector: ResponseCollector | None = None,
) -> AgentResponse:
    """Aggregate a stream of results into one response.

    Args:
        results: the results of a run, e.g. ``raf.pipeline.run(chunks)``.
        raise_on_error: after reading the whole stream, raise :class:`AgentResponseError` if
            it reported any error; the exception's ``response`` holds everything that arrived.
        collector: where the results are collected (default: a new one). Pass your own to
            read the partial response after ``KeyboardInterrupt``: it holds every result that
            arrived, and when ``results`` come from raf's drivers (``run``,
            ``iter_response``) the turn is closed into it (``cancelled``, calls still
            streaming as ``tool_call_incomplete``) before the interrupt propagates.

    Raises:
        AgentResponseError: with ``raise_on_error`` when errors were reported, and always when
            iterating ``results`` raised (e.g. the connection dropped); ``response`` then holds
            what was collected before, and ``__cause__`` the original exception.
    """
    collector, added = _collector(results, collector)
    try:
        if added:
            for _ in results:
                pass
        else:
            for result in results:
                collector.add(result)
    except Exception as exc:
        raise AgentResponseError(collector.response(), cause=exc) from exc
    return collector.finish(raise_on_error=raise_on_error)


async def acollect_agent_response(
    results: AsyncIterable[AgentResponseResult],
    *,
    raise_on_error: bool = False,
    collector: ResponseCollector | None = None,
) -> AgentResponse:
    """Async twin of :func:`collect_agent_response`. With ``collector``, a cancellation
    (``task.cancel()``, ``asyncio.timeout``) leaves the partial response in it, the turn
    closed when ``results`` come from ``arun`` or ``aiter_response``, and the
    ``CancelledError`` propagates unchanged."""
    collector, added = _collector(results, collector)
    try:
        if added:
            async for _ in results:
                pass
        else:
            async for result in results:
                collector.add(result)
    except Exception as exc:
        raise AgentResponseError(collector.response(), cause=exc) from exc
    return collector.finish(raise_on_error=raise_on_error)
