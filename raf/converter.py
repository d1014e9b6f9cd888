"""``AgentResponseConverter``: updates in, contents and events out (raf-spec 3). Sans-IO.

``consume(update)`` returns the contents and events one update produces; ``finalize(...)``
closes the turn and returns the last :class:`AgentResponseResult`. The rules, and where they
differ from RAF, are in docs/converter.md; the short form:

* **Call identity.** A legacy ``ToolCallDelta`` is routed by its provider id when that id is
  known; else by its index (an explicit id binds to its index; the same index with a new,
  different id or a different tool name starts a new call, for servers that send index 0 for
  every parallel call); a delta with neither goes to the most recent open call. A repeated id
  or name is a no-op, never concatenated. Explicit ``ToolCallStart``/``Args``/``End`` updates
  are routed by id, and both kinds may describe the same call without duplicate starts or ends.
* **Stable call ids.** A call's ``call_id`` is fixed when its name becomes known (that is when
  ``ToolCallStart`` is emitted): the provider's id if one arrived by then, else
  ``__tc_<n>`` where ``n`` counts the calls of this converter from 0 in first-seen order. An id
  that arrives later is bound to the same call (later fragments carrying it still find it) and
  reported once as a ``Custom`` event ``tool_call_provider_id``; the call is never split.
* **Nothing dropped.** Argument fragments that arrive before the name are kept and emitted
  (as one ``ToolCallArgs``) and parsed once the name is known.
* **Finalize.** ``ToolCallEnd`` for every started call not yet ended, then for every call in
  first-seen order either ``ToolCalling`` with the arguments parsed strictly as one JSON
  document (empty text means ``{}``) or an ``Error`` content (``invalid_tool_arguments``,
  ``invalid_tool_call``, ``json_too_deep``) that names the call and keeps the raw text. This
  happens whatever the finish reason. A call reported executed (``ToolCalled``) gets its End
  and ToolCalling first and is not finalized again.
* **Interrupted turns.** When the stream ended abnormally (``finalize(interrupted=True)``: it
  was truncated, the connection dropped, the run was cancelled) and no finish reason arrived, a
  call that was not explicitly ended and whose arguments are not one complete JSON document
  (empty arguments included) was still streaming: it gets ``tool_call_incomplete`` with the
  text that arrived, never a ``ToolCalling`` with made-up arguments.
* **Never raises on input.** An unexpected failure while converting one update becomes an
  ``internal_error`` content and the update is skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from enum import Enum
from typing import Any, Final

from raf import safe_json
from raf._mypyc import mypyc_attr
from raf.args_parser import ArgsParsed, StreamingArgsParser
from raf.collect import ResponseCollector
from raf.errors import StateError, excerpt, internal_error_message
from raf.limits import (
    DEFAULT_MAX_ARGUMENTS_CHARS,
    DEFAULT_MAX_JSON_DEPTH,
    DEFAULT_MAX_TOOL_CALLS,
    DEFAULT_MAX_TOTAL_ARGUMENTS_CHARS,
    check_json_depth,
)
from raf.model import contents, events, updates
from raf.model.codes import ErrorCode
from raf.model.contents import Content
from raf.model.events import Event
from raf.model.metadata import ResponseMetadata
from raf.model.response import AgentResponseResult
from raf.model.updates import AgentResponseUpdate
from raf.model.usage import FinishReason, Usage

__all__ = [
    "DEFAULT_MAX_ARGUMENTS_CHARS",
    "DEFAULT_MAX_TOOL_CALLS",
    "DEFAULT_MAX_TOTAL_ARGUMENTS_CHARS",
    "AgentResponseConverter",
    "synthetic_call_id",
]

_BLOCK = 256

_JSON_WHITESPACE = " \t\r\n"


# Hot-path aliases (module globals are cheaper to reach than module attributes).
_Text = contents.Text
_ToolCallArgs = contents.ToolCallArgs
_ToolCallArgsParsed = contents.ToolCallArgsParsed
_ToolCallArgsProgress = contents.ToolCallArgsProgress


def synthetic_call_id(ordinal: int) -> str:
    """The call id raf gives a call the provider sent no id for: ``__tc_<ordinal>``."""
    return f"__tc_{ordinal}"


def _utcnow() -> datetime:
    return datetime.now(UTC)


class CallState(Enum):
    """Where one tool call is in its life; the allowed moves are :data:`_MOVES`.

    Whether the call has started (``ToolCallStart`` emitted) is not a state of its own: it is
    whether its name is known (``_Call.name``), which is set once and at the same moment.
    """

    OPEN = "open"
    """Arguments may still arrive: kept until the name is known, then emitted and parsed."""
    ENDED = "ended"
    """``ToolCallEnd`` emitted, or an explicit end seen (possibly before the name: naming the
    call later still starts it, but it is never ended again). Routing by index or recency
    skips it."""
    CALLED = "called"
    """``ToolCalling`` (or the error saying why there is none) emitted, or the call was
    reported executed: it is never finalized again."""


class Step(Enum):
    """What can happen to a call (the columns of the state table)."""

    END = "end"  # an explicit end, an executed call, or the end of the turn
    CALL = "call"  # its ToolCalling (or error) was emitted


_OPEN, _ENDED, _CALLED = CallState.OPEN, CallState.ENDED, CallState.CALLED

_MOVES: dict[tuple[CallState, Step], CallState] = {
    (CallState.OPEN, Step.END): CallState.ENDED,
    (CallState.ENDED, Step.END): CallState.ENDED,  # a repeated end is a no-op
    (CallState.CALLED, Step.END): CallState.CALLED,  # an end after the call: a no-op
    (CallState.OPEN, Step.CALL): CallState.CALLED,  # the end of a turn, for a call never named
    (CallState.ENDED, Step.CALL): CallState.CALLED,
}
"""The allowed transitions; any other is a bug in raf (reported as ``internal_error``)."""


class _Call:
    """Everything known about one tool call."""

    __slots__ = (
        "args",
        "blocks",
        "call_id",
        "index",
        "name",
        "ordinal",
        "overflow",
        "parser",
        "provider_id",
        "size",
        "state",
    )

    def __init__(self, ordinal: int, index: int | None, provider_id: str | None) -> None:
        self.ordinal = ordinal
        self.index = index
        self.provider_id = provider_id
        self.state = CallState.OPEN
        self.call_id: str | None = None  # fixed when the call starts (its name arrives)
        self.name: str | None = None
        # The argument text so far: recent fragments, and older ones joined into blocks of
        # _BLOCK fragments, so that memory is about one copy of the text even when every
        # fragment is one character long.
        self.args: list[str] = []
        self.blocks: list[str] = []
        self.size = 0
        self.parser: StreamingArgsParser | None = None
        # The arguments passed a size limit and are dropped. Not a state: a dropped call still
        # starts and ends; it only never gets a ToolCalling.
        self.overflow = False

    def move(self, step: Step) -> None:
        """Take ``step`` by the state table."""
        to = _MOVES.get((self.state, step))
        if to is None:
            raise StateError(
                f"tool call {self.reported_id}: no move {step.value!r} from {self.state.value!r}"
            )
        self.state = to

    def text(self) -> str:
        """The whole argument text received so far."""
        blocks = self.blocks
        if not blocks:
            return "".join(self.args)
        blocks.extend(self.args)  # one join: the pieces and the text, never a third copy
        self.args = []
        return "".join(blocks)

    @property
    def reported_id(self) -> str:
        return self.call_id or self.provider_id or synthetic_call_id(self.ordinal)


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled build: subclasses may override methods
class AgentResponseConverter:
    """Turns the updates of one agent run into contents, events and results.

    Args:
        agent_id: put in every content's metadata.
        executor_id: put in every content's metadata.
        properties: the run options' properties, put in every content's metadata (shared by
            all contents, not copied per content: treat it as read-only).
        clock: returns the timestamp of each update's contents (default: UTC now).
        max_arguments_chars: limit of one call's argument text; past it the call gets an
            ``Error`` content (``tool_arguments_too_large``), its further fragments are
            dropped and it produces no ``ToolCalling``.
        max_total_arguments_chars: limit of the argument text of all the calls of one turn
            together; the call whose fragment passes it is dropped as for
            ``max_arguments_chars``.
        max_tool_calls: limit of calls per turn; further new calls are reported once
            (``too_many_tool_calls``) and dropped.
        max_json_depth: deepest nesting accepted in one call's arguments (``json_too_deep``
            past it).
        streaming_contents: ``False`` makes an aggregate-only converter, for callers that
            want the :class:`~raf.model.AgentResponse` and nothing streamed (``respond()``):
            it leaves out the contents the aggregate does not need
            (``ToolCallStart``, ``ToolCallArgs``, ``ToolCallArgsParsed``,
            ``ToolCallArgsProgress``, ``ToolCallEnd``) and runs no incremental argument
            parser; :meth:`collect` then puts text, reasoning and each call's start
            (``add_call_start``) straight into the collector.
            Every other content, every event, the final calls and errors are the same
            (docs/converter.md, "Aggregate-only").
        join_fragments: ``True`` converts consecutive argument fragments of one call within
            one batch (one network read in ``run()``) as one: one ``ToolCallArgs`` holding
            their text, parsed at once, in one result. Faster on long arguments; the results
            then depend on how the body was read (docs/converter.md, "Joined fragments").
    """

    def __init__(
        self,
        *,
        agent_id: str | None = None,
        executor_id: str | None = None,
        properties: Mapping[str, Any] | None = None,
        clock: Callable[[], datetime] = _utcnow,
        max_arguments_chars: int = DEFAULT_MAX_ARGUMENTS_CHARS,
        max_total_arguments_chars: int = DEFAULT_MAX_TOTAL_ARGUMENTS_CHARS,
        max_tool_calls: int = DEFAULT_MAX_TOOL_CALLS,
        max_json_depth: int = DEFAULT_MAX_JSON_DEPTH,
        streaming_contents: bool = True,
        join_fragments: bool = False,
    ) -> None:
        if min(max_arguments_chars, max_total_arguments_chars, max_tool_calls) < 1:
            raise ValueError("limits must be positive")
        check_json_depth(max_json_depth)
        self.agent_id = agent_id
        self.executor_id = executor_id
        self.properties: dict[str, Any] = dict(properties or {})
        self.clock = clock
        self.max_arguments_chars = max_arguments_chars
        self.max_total_arguments_chars = max_total_arguments_chars
        self.max_tool_calls = max_tool_calls
        self.max_json_depth = max_json_depth
        self.streaming_contents = streaming_contents
        self.join_fragments = join_fragments
        self._total_arguments = 0
        self.model_id: str | None = None
        self._response_id: str | None = None
        self._response_model: str | None = None
        self._ordinal = 0
        self._calls: list[_Call] = []
        self._by_id: dict[str, _Call] = {}
        self._by_index: dict[int, _Call] = {}
        self._current: _Call | None = None
        self._too_many_reported = False
        # The metadata of the current batch of updates (see ``results``).
        self._meta: ResponseMetadata | None = None
        # Where ``collect`` puts text and reasoning (aggregate-only, during one call).
        self._sink: ResponseCollector | None = None
        self.finish_reason: str | None = None
        """The last finish reason the updates carried (what ``results`` passes to finalize)."""
        # The dispatch tables of this class: the module's, or a subclass's own (_tables_of).
        self._streaming_table, self._collect_table = _tables_of(type(self))

    # -- public API ----------------------------------------------------------------------

    def consume(self, update: AgentResponseUpdate) -> tuple[list[Content], list[Event]]:
        """The contents and events ``update`` produces (both possibly empty)."""
        produced = self.results((update,))
        if not produced:
            return [], []
        return list(produced[0].contents), list(produced[0].events)

    def results(self, batch: Iterable[AgentResponseUpdate]) -> list[AgentResponseResult]:
        """Convert updates the way an agent run does (raf-spec 3.6): one result per update that
        produced contents or events, in order; updates that produce nothing yield none.

        The updates of one call are treated as arriving together (e.g. from one network
        chunk): their contents share one metadata object, with one timestamp. The finish
        reason they carry is kept in :attr:`finish_reason` for :meth:`finalize`.

        With ``join_fragments``, consecutive argument fragments of one call in ``batch`` are
        converted as one update (docs/converter.md, "Joined fragments").
        """
        if self.join_fragments:
            batch = _joined(batch)
        return self._convert(batch, self._streaming_table)

    def collect(
        self,
        batch: Iterable[AgentResponseUpdate | updates.DeltaBatch],
        collector: ResponseCollector,
    ) -> None:
        """Fold a batch of updates into ``collector``: what adding every result of
        ``results(batch)`` to it does. An aggregate-only converter (``streaming_contents=False``)
        hands text and reasoning to the collector directly, building no content for them."""
        if self.streaming_contents:
            handlers = self._streaming_table
            if self.join_fragments:
                batch = _joined(batch)  # type: ignore[arg-type]  # no DeltaBatch when streaming
        else:
            handlers = self._collect_table
            self._sink = collector
        # Each result goes to the collector as soon as it is produced, so that it comes in
        # stream order with the texts handed over directly (the turn's message is ordered).
        self._convert(batch, handlers, collector.add)
        self._sink = None

    def _convert(
        self,
        batch: Iterable[AgentResponseUpdate | updates.DeltaBatch],
        handlers: dict[type, _Handler],
        add: Callable[[AgentResponseResult], None] | None = None,
    ) -> list[AgentResponseResult]:
        """The results of ``batch``; with ``add``, each is passed to it as it is produced
        instead (and none is returned)."""
        out: list[AgentResponseResult] = []
        self._meta = None
        for update in batch:
            try:
                kind = type(update)
                handler = handlers.get(kind) or _handler_for(kind, handlers)
                produced = handler(self, update)
            except Exception as exc:  # a bug in raf: report it, skip the update, go on
                produced = _Result(contents=(self._internal_error(exc, "an update"),))
                if isinstance(update, updates.DeltaBatch):
                    # A batch stands for many updates: convert them one by one instead, so
                    # that a bug in the batch path costs one error, not the batch's deltas
                    # (a batch that cannot even be expanded is skipped, as one update).
                    out.append(produced)
                    try:
                        expanded = update.updates()
                    except Exception:
                        produced = None
                    else:
                        produced = self._convert(expanded, self._unbatched(handlers))
            if produced is not None:
                if isinstance(produced, list):  # a DeltaBatch produced several results
                    out.extend(produced)
                else:
                    out.append(produced)
            if add is not None and out:
                for result in out:
                    add(result)
                out = []
        return out

    def _unbatched(self, handlers: dict[type, _Handler]) -> dict[type, _Handler]:
        """The table a failed batch's updates are converted with, which cannot fail on a
        batch again (a subclass's own tables expand every batch as the streaming path does)."""
        if handlers is _COLLECT_HANDLERS:
            return _UNBATCHED_COLLECT
        return self._streaming_table

    def _internal_error(self, exc: Exception, where: str) -> contents.Error:
        return contents.Error(
            error_code=ErrorCode.INTERNAL_ERROR,
            message=internal_error_message(exc, where),
            meta=self._metadata(),
        )

    # -- one handler per kind of update (raf-spec 3.3, with the deviations in docs/) -------
    # Each returns the update's result, or None when it produced nothing.

    def _on_text(self, update: updates.TextDelta) -> AgentResponseResult | None:
        if not update.delta:
            return None
        return _Result(contents=(_Text(delta=update.delta, meta=self._meta or self._metadata()),))

    def _collect_text(self, update: updates.TextDelta) -> None:
        if update.delta:
            self._sink.add_text(update.delta)  # type: ignore[union-attr]  # set by collect()

    def _collect_reasoning(self, update: updates.ReasoningDelta) -> None:
        if update.delta:
            self._sink.add_reasoning(update.delta)  # type: ignore[union-attr]  # set by collect()

    def _on_delta_batch(self, batch: updates.DeltaBatch) -> list[AgentResponseResult]:
        return self._convert(batch.updates(), self._streaming_table)

    def _collect_delta_batch(self, batch: updates.DeltaBatch) -> list[AgentResponseResult] | None:
        """Aggregate-only: the texts to the collector, and every call's fragments (by index or
        by id) added to it at once when each call is started and open and no limit can be passed;
        otherwise the fragments go one by one, in the order they came, as usual."""
        sink: ResponseCollector = self._sink  # type: ignore[assignment]  # set by collect()
        order = batch.order
        # Where every fragment goes is found before anything is folded in: should that fail
        # (a bug of raf), the batch's updates are converted again one by one, none twice.
        ready: list[tuple[_Call, list[str], int]] = []
        current: _Call | None = None
        grand = 0
        if order:
            by_index = self._by_index
            by_id = self._by_id
            max_call = self.max_arguments_chars
            for key, pieces in batch.arguments.items():
                call = by_id.get(key) if isinstance(key, str) else by_index.get(key)
                if call is None or call.state is not _OPEN or call.name is None or call.overflow:
                    break
                added = sum(map(len, pieces))
                if call.size + added > max_call:
                    break
                grand += added
                ready.append((call, pieces, added))
            else:
                if self._total_arguments + grand <= self.max_total_arguments_chars:
                    last = order[-1]
                    current = by_id[last] if isinstance(last, str) else by_index[last]
        if batch.reasoning:
            sink.add_reasoning_deltas(batch.reasoning)
        if batch.text:
            sink.add_text_deltas(batch.text)
        if not order:
            return None
        if current is not None:
            for call, pieces, added in ready:
                call.size += added
                args = call.args
                args.extend(pieces)
                if len(args) >= _BLOCK:
                    call.blocks.append("".join(args))
                    call.args = []
            self._total_arguments += grand
            self._current = current
            return None
        return self._convert(
            updates.DeltaBatch(
                reasoning=[], text=[], arguments=batch.arguments, order=order
            ).updates(),
            _COLLECT_HANDLERS,
        )

    def _on_reasoning(self, update: updates.ReasoningDelta) -> AgentResponseResult | None:
        if not update.delta:
            return None
        return _Result(contents=(contents.Reasoning(delta=update.delta, meta=self._metadata()),))

    def _on_reasoning_signature(
        self, update: updates.ReasoningSignature
    ) -> AgentResponseResult | None:
        event = events.Custom(
            event_type="reasoning_signature",
            payload={"signature": update.signature},
            meta=self._metadata(),
        )
        return _Result(events=(event,))

    def _custom(self, event_type: str, payload: dict[str, Any]) -> AgentResponseResult:
        return _Result(
            events=(events.Custom(event_type=event_type, payload=payload, meta=self._metadata()),)
        )

    def _on_part_signature(self, update: updates.PartSignature) -> AgentResponseResult | None:
        """A Custom event ``part_signature`` (docs/converter.md, "The turn's message")."""
        return self._custom("part_signature", {"signature": update.signature, "part": update.part})

    def _on_redacted_reasoning(
        self, update: updates.RedactedReasoning
    ) -> AgentResponseResult | None:
        """A Custom event ``redacted_reasoning``."""
        return self._custom("redacted_reasoning", {"data": update.data})

    def _on_reasoning_item(self, update: updates.ReasoningItem) -> AgentResponseResult | None:
        """A Custom event ``reasoning_item``."""
        return self._custom(
            "reasoning_item",
            {
                "item_id": update.item_id,
                "encrypted_content": update.encrypted_content,
                "summary": list(update.summary),
            },
        )

    def _on_tool_call_item(self, update: updates.ToolCallItem) -> AgentResponseResult | None:
        """A Custom event ``tool_call_item``, naming the call by the id the converter reports
        it under."""
        call = self._by_id.get(update.call_id)
        call_id = call.reported_id if call is not None else update.call_id
        return self._custom("tool_call_item", {"call_id": call_id, "item_id": update.item_id})

    def _on_raw_item(self, update: updates.RawItem) -> AgentResponseResult | None:
        """A Custom event ``raw_item``."""
        return self._custom("raw_item", {"item": update.item})

    def _on_tool_call_delta(self, update: updates.ToolCallDelta) -> AgentResponseResult | None:
        out: list[Content] = []
        if update.id is None and update.name is None:
            # The usual fragment: more arguments of the call its index (or recency) names.
            index = update.index
            call = self._current if index is None else self._by_index.get(index)
            if call is not None and call.state is _OPEN and call.name is not None:
                self._current = call
                self._add_args(call, update.arguments_delta, out)
                return _Result(contents=tuple(out)) if out else None
        evs: list[Event] = []
        self._tool_call_delta(update, out, evs)
        return _result(out, evs)

    def _on_tool_call_start(self, update: updates.ToolCallStart) -> AgentResponseResult | None:
        out: list[Content] = []
        call = self._call_for_id(update.id, out)
        if call is not None:
            self._current = call
            self._set_name(call, update.name, out)
        return _result(out)

    def _on_tool_call_args(self, update: updates.ToolCallArgs) -> AgentResponseResult | None:
        out: list[Content] = []
        call = self._call_for_id(update.id, out)
        if call is not None:
            self._current = call
            self._add_args(call, update.args_delta, out)
        return _result(out)

    def _on_tool_call_end(self, update: updates.ToolCallEnd) -> AgentResponseResult | None:
        out: list[Content] = []
        call = self._by_id.get(update.id)
        if call is not None:
            self._end(call, out)
        return _result(out)

    def _on_tool_called(self, update: updates.ToolCalled) -> AgentResponseResult | None:
        out: list[Content] = []
        call = self._by_id.get(update.id)
        if call is not None and call.state is not _CALLED:
            self._end(call, out)
            out.extend(self._calling(call))
        if call is not None:
            # The call is over: an id of it that comes again names another call (a reused
            # id), never this one, whose text and parser are gone.
            by_id = self._by_id
            for known in [key for key, value in by_id.items() if value is call]:
                del by_id[known]
        out.append(
            contents.ToolCalled(
                call_id=call.reported_id if call is not None else update.id,
                result=update.result,
                error=update.error,
                meta=self._metadata(),
            )
        )
        return _result(out)

    def _on_approval_request(
        self, update: updates.ToolApprovalRequest
    ) -> AgentResponseResult | None:
        """A content of its own, never display text in the answer (docs/deviations.md)."""
        request = contents.ToolApprovalRequest(
            call_id=update.call_id,
            name=update.name,
            arguments=update.arguments,
            description=update.description,
            meta=self._metadata(),
        )
        return _Result(contents=(request,))

    def _on_hosted_call(self, update: updates.HostedToolCall) -> AgentResponseResult | None:
        """A tool the provider ran: passed on, never a client call (no lifecycle, no
        ``ToolCalling``)."""
        call = contents.HostedToolCall(
            call_id=update.call_id,
            name=update.name,
            arguments=update.arguments,
            item=update.item,
            meta=self._metadata(),
        )
        return _Result(contents=(call,))

    def _on_hosted_result(self, update: updates.HostedToolResult) -> AgentResponseResult | None:
        result = contents.HostedToolResult(
            call_id=update.call_id,
            name=update.name,
            output=update.output,
            error=update.error,
            item=update.item,
            meta=self._metadata(),
        )
        return _Result(contents=(result,))

    def _on_usage(self, update: updates.Usage) -> AgentResponseResult | None:
        return _Result(contents=(contents.Usage(usage=update.usage, meta=self._metadata()),))

    def _on_finish(self, update: updates.Finish) -> AgentResponseResult | None:
        self.finish_reason = update.finish_reason  # the last one wins
        if update.usage is None:
            return None
        return _Result(contents=(contents.Usage(usage=update.usage, meta=self._metadata()),))

    def _on_round_finished(self, update: updates.RoundFinished) -> AgentResponseResult | None:
        """The tool loop ended a round: its calls are closed as at the end of a turn (End, then
        ToolCalling or the call's error), the round's id and model go on the result, and the
        call state starts afresh for the next round (docs/agent.md)."""
        closed = self.finalize(update.finish_reason)
        mark = contents.RoundFinished(
            round=update.round,
            finish_reason=update.finish_reason,
            usage=update.usage,
            meta=self._metadata(),
        )
        return AgentResponseResult(
            id=closed.id, model=closed.model, contents=(*closed.contents, mark)
        )

    def _on_error(self, update: updates.Error) -> AgentResponseResult | None:
        error = contents.Error(
            error_code=update.error_code,
            message=update.message,
            raw=update.raw,
            meta=self._metadata(),
        )
        return _Result(contents=(error,))

    def _on_metadata(self, update: updates.ResponseMetadata) -> AgentResponseResult | None:
        if update.id is not None:
            self._response_id = update.id
        model = update.model
        if model is not None:
            # Every turn's (and round's) result names its model, also when it is the model of
            # the turn before: finalize forgot the response's model, not the contents' one.
            self._response_model = model
            if model != self.model_id:
                self.model_id = model
                self._meta = None  # later contents carry the new model id
        return None

    def finalize(
        self,
        finish_reason: str | None = None,
        usage: Usage | None = None,
        *,
        interrupted: bool = False,
    ) -> AgentResponseResult:
        """Close the turn: end open calls, emit the complete calls, return the last result.

        Args:
            finish_reason: the turn's finish reason (``None`` when the stream gave none).
            usage: ignored (usage was already emitted from the ``Usage``/``Finish`` updates);
                accepted for RAF's signature.
            interrupted: the stream ended abnormally (truncated, a transport error, a
                cancellation). Without a finish reason, calls that were still streaming then
                get ``tool_call_incomplete`` instead of ``ToolCalling`` (module docstring).

        Returns:
            A result with the response id and model seen in the stream, the finish reason,
            and the ``ToolCallEnd`` contents followed by the ``ToolCalling`` (or error)
            contents, each group in first-seen order. The converter is then ready for the
            next turn (call ordinals keep counting, so synthetic ids stay unique).
        """
        del usage
        self._meta = None
        if finish_reason is not None:
            self.finish_reason = finish_reason
        out: list[Content] = []
        # Calls still streaming when an interrupted turn ended: never explicitly ended.
        streaming = (
            {call.ordinal for call in self._calls if call.state is _OPEN}
            if interrupted and self.finish_reason is None
            else set()
        )
        for call in self._calls:
            if call.state is _OPEN and call.name is not None:
                try:
                    self._end(call, out)
                except Exception as exc:  # a bug in raf: report it and go on
                    out.append(self._internal_error(exc, "ending a tool call"))
        for call in self._calls:
            if call.state is not _CALLED:
                try:
                    out.extend(self._calling(call, streaming=call.ordinal in streaming))
                except Exception as exc:  # a bug in raf: report it and go on
                    out.append(self._internal_error(exc, "finishing a tool call"))
            call.args = []  # the turn is over: its text is never read again, only its value
        result = AgentResponseResult(
            id=self._response_id,
            model=self._response_model,
            finish_reason=finish_reason,
            contents=tuple(out),
        )
        self._response_id = self._response_model = None
        self._calls = []
        self._by_id = {}
        self._by_index = {}
        self._current = None
        self._too_many_reported = False
        self._total_arguments = 0
        self.finish_reason = None
        return result

    # -- tool calls ----------------------------------------------------------------------

    def _metadata(self) -> ResponseMetadata:
        """The metadata of the current update's contents (of the whole batch in ``results``)."""
        meta = self._meta
        if meta is None:
            meta = self._meta = ResponseMetadata(
                agent_id=self.agent_id,
                model_id=self.model_id,
                executor_id=self.executor_id,
                timestamp=self.clock(),
                properties=self.properties,
            )
        return meta

    def _new_call(
        self, index: int | None, provider_id: str | None, out: list[Content]
    ) -> _Call | None:
        if len(self._calls) >= self.max_tool_calls:
            if not self._too_many_reported:
                self._too_many_reported = True
                out.append(
                    contents.Error(
                        error_code=ErrorCode.TOO_MANY_TOOL_CALLS,
                        message=f"more than {self.max_tool_calls} tool calls in one turn; "
                        "further calls are dropped (raise max_tool_calls if legitimate)",
                        meta=self._metadata(),
                    )
                )
            return None
        call = _Call(self._ordinal, index, provider_id)
        self._ordinal += 1
        self._calls.append(call)
        if provider_id is not None:
            self._by_id[provider_id] = call
        if index is not None:
            self._by_index[index] = call
        return call

    def _call_for_id(self, call_id: str, out: list[Content]) -> _Call | None:
        call = self._by_id.get(call_id)
        return call if call is not None else self._new_call(None, call_id, out)

    def _route(
        self, index: int | None, pid: str | None, name: str | None, out: list[Content]
    ) -> _Call | None:
        """Find (or create) the call a legacy delta belongs to. See the module docstring."""
        if pid is not None:
            call = self._by_id.get(pid)
            if call is not None:
                if index is not None:
                    self._by_index[index] = call
                return call
            if index is not None:
                existing = self._by_index.get(index)
                if (
                    existing is not None
                    and existing.state is _OPEN
                    and existing.provider_id is None
                    and (name is None or existing.name in (None, name))
                ):
                    return existing  # the first id of a call known so far by index only
            return self._new_call(index, pid, out)
        existing = self._by_index.get(index) if index is not None else self._current
        if existing is None or existing.state is not _OPEN:
            return self._new_call(index, None, out)
        if name is not None and existing.name is not None and name != existing.name:
            return self._new_call(index, None, out)  # same slot, another tool: a new call
        return existing

    def _tool_call_delta(
        self, update: updates.ToolCallDelta, out: list[Content], evs: list[Event]
    ) -> None:
        pid = update.id
        call = self._route(update.index, pid, update.name, out)
        if call is None:
            return
        self._current = call
        if pid is not None and pid not in self._by_id:
            self._by_id[pid] = call
            if call.provider_id is None:
                call.provider_id = pid
                if call.name is not None:
                    # The call already has its id; keep it and say which id the provider gave.
                    evs.append(
                        events.Custom(
                            event_type="tool_call_provider_id",
                            payload={"call_id": call.call_id, "provider_id": pid},
                            meta=self._metadata(),
                        )
                    )
        if update.name is not None:
            self._set_name(call, update.name, out)
        if update.arguments_delta:
            self._add_args(call, update.arguments_delta, out)

    def _set_name(self, call: _Call, name: str, out: list[Content]) -> None:
        if call.name is not None:
            return  # a repeated (or conflicting) name never renames or restarts a call
        call.name = name  # the call starts (whatever its state: see CallState.ENDED)
        call.call_id = call.provider_id or synthetic_call_id(call.ordinal)
        self._by_id.setdefault(call.call_id, call)
        if self.streaming_contents:
            call.parser = StreamingArgsParser(max_depth=self.max_json_depth)
            out.append(
                contents.ToolCallStart(call_id=call.call_id, name=name, meta=self._metadata())
            )
        elif self._sink is not None:
            self._sink.add_call_start(call.call_id, name)  # its place in the turn's message
        if call.size:  # fragments that came before the name: emit and parse them now
            text = call.text()
            call.args = []
            call.blocks = []
            self._total_arguments -= call.size  # counted again as they are added back
            call.size = 0
            self._add_args(call, text, out)

    def _add_args(self, call: _Call, delta: str, out: list[Content]) -> None:
        """Account for an argument fragment; emit and parse it if the call has started."""
        if not delta or call.overflow:
            return
        size = call.size + len(delta)
        total = self._total_arguments + len(delta)
        if size > self.max_arguments_chars or total > self.max_total_arguments_chars:
            self._overflow(call, out, total=size <= self.max_arguments_chars)
            return
        call.size = size
        self._total_arguments = total
        args = call.args
        args.append(delta)
        if len(args) >= _BLOCK:
            call.blocks.append("".join(args))
            call.args = []
        if call.name is None or not self.streaming_contents:
            return  # kept until the name arrives (or only kept: aggregate-only)
        call_id: str = call.call_id  # type: ignore[assignment]  # set when the call started
        meta = self._meta or self._metadata()
        out.append(_ToolCallArgs(call_id=call_id, args_delta=delta, meta=meta))
        for event in call.parser.feed(delta):  # type: ignore[union-attr]
            if type(event) is ArgsParsed:
                out.append(
                    _ToolCallArgsParsed(
                        call_id=call_id, name=event.name, value=event.value, meta=meta
                    )
                )
            else:
                out.append(
                    _ToolCallArgsProgress(
                        call_id=call_id,
                        name=event.name,
                        received=event.received,  # type: ignore[union-attr]
                        value=event.value,
                        meta=meta,
                    )
                )

    def _overflow(self, call: _Call, out: list[Content], *, total: bool) -> None:
        call.overflow = True
        self._total_arguments -= call.size
        call.args = []
        call.blocks = []
        call.size = 0
        call.parser = None
        limit, option = (
            (self.max_total_arguments_chars, "max_total_arguments_chars")
            if total
            else (self.max_arguments_chars, "max_arguments_chars")
        )
        what = "the arguments of this turn's calls" if total else "its arguments"
        out.append(
            contents.Error(
                error_code=ErrorCode.TOOL_ARGUMENTS_TOO_LARGE,
                message=f"tool call {call.reported_id}: {what} passed {limit:,} characters; "
                f"the call is dropped (raise {option} if legitimate)",
                call_id=call.reported_id,
                meta=self._metadata(),
            )
        )

    def _end(self, call: _Call, out: list[Content]) -> None:
        if call.state is _OPEN and call.name is not None and self.streaming_contents:
            out.append(contents.ToolCallEnd(call_id=call.reported_id, meta=self._metadata()))
        call.move(Step.END)

    def _calling(self, call: _Call, *, streaming: bool = False) -> list[Content]:
        """The ``ToolCalling`` of a complete call, or the error saying why there is none.

        ``streaming``: the call was still streaming when an interrupted turn ended.
        """
        call.move(Step.CALL)
        call.parser = None
        if call.overflow:
            return []  # already reported when the limit was passed
        call_id = call.reported_id
        text = call.text()
        call.blocks = []  # the pieces are let go before decoding: one copy of the text
        call.args = [text] if text else []
        arguments: Any = {}
        failure: safe_json.UnusableJSON | None = None
        blank = not text.strip(_JSON_WHITESPACE)  # no arguments: {}
        if not blank:
            try:
                arguments = safe_json.decode_strict(text, max_depth=self.max_json_depth)
            except safe_json.UnusableJSON as exc:
                failure = exc
        if streaming and (
            (failure is not None and failure.code != ErrorCode.JSON_TOO_DEEP) or blank
        ):
            what = "no arguments had arrived" if blank else "its arguments are incomplete"
            name = f" ({call.name})" if call.name is not None else ""
            return [
                self._call_error(
                    call,
                    ErrorCode.TOOL_CALL_INCOMPLETE,
                    f"tool call {call_id}{name} was still streaming when the stream ended; "
                    f"{what}: received {len(text)} characters: {excerpt(text)}",
                    text,
                )
            ]
        if call.name is None:
            return [
                self._call_error(
                    call,
                    ErrorCode.INVALID_TOOL_CALL,
                    f"tool call {call_id} never received a name; "
                    f"its {len(text)} characters of arguments: {excerpt(text)}",
                    text,
                )
            ]
        if failure is not None and failure.code == ErrorCode.JSON_TOO_DEEP:
            return [
                self._call_error(
                    call,
                    ErrorCode.JSON_TOO_DEEP,
                    f"arguments of tool call {call_id} ({call.name}) {failure.detail}; "
                    f"received {len(text)} characters: {excerpt(text)}",
                    text,
                )
            ]
        if failure is not None:
            hint = ""
            if self.finish_reason == FinishReason.LENGTH:
                hint = " (the response was cut by finish_reason 'length')"
            elif self.finish_reason is None:
                hint = " (the stream ended without a finish reason)"
            return [
                self._call_error(
                    call,
                    ErrorCode.INVALID_TOOL_ARGUMENTS,
                    f"arguments of tool call {call_id} ({call.name}) are not one "
                    f"JSON document{hint}: {failure.reason}; received {len(text)} characters: "
                    f"{excerpt(text)}",
                    text,
                )
            ]
        return [
            contents.ToolCalling(
                call_id=call_id, name=call.name, arguments=arguments, meta=self._metadata()
            )
        ]

    def _call_error(self, call: _Call, code: str, message: str, raw: str) -> contents.Error:
        return contents.Error(
            error_code=code,
            message=message,
            call_id=call.reported_id,
            raw=raw,
            meta=self._metadata(),
        )


_Result = AgentResponseResult
_Handler = Callable[
    [AgentResponseConverter, Any], AgentResponseResult | list[AgentResponseResult] | None
]


def _result(out: list[Content], evs: list[Event] | None = None) -> AgentResponseResult | None:
    """The result of an update's contents and events, or None when it produced nothing."""
    if evs:
        return _Result(contents=tuple(out), events=tuple(evs))
    return _Result(contents=tuple(out)) if out else None


def _ignore(converter: AgentResponseConverter, update: Any) -> None:
    """An update of a kind the converter does not know: it produces nothing."""
    del converter, update


_HANDLERS: dict[type, _Handler] = {
    updates.TextDelta: AgentResponseConverter._on_text,
    updates.ReasoningDelta: AgentResponseConverter._on_reasoning,
    updates.ReasoningSignature: AgentResponseConverter._on_reasoning_signature,
    updates.ToolCallDelta: AgentResponseConverter._on_tool_call_delta,
    updates.ToolCallStart: AgentResponseConverter._on_tool_call_start,
    updates.ToolCallArgs: AgentResponseConverter._on_tool_call_args,
    updates.ToolCallEnd: AgentResponseConverter._on_tool_call_end,
    updates.ToolCalled: AgentResponseConverter._on_tool_called,
    updates.ToolApprovalRequest: AgentResponseConverter._on_approval_request,
    updates.HostedToolCall: AgentResponseConverter._on_hosted_call,
    updates.HostedToolResult: AgentResponseConverter._on_hosted_result,
    updates.PartSignature: AgentResponseConverter._on_part_signature,
    updates.RedactedReasoning: AgentResponseConverter._on_redacted_reasoning,
    updates.ReasoningItem: AgentResponseConverter._on_reasoning_item,
    updates.ToolCallItem: AgentResponseConverter._on_tool_call_item,
    updates.RawItem: AgentResponseConverter._on_raw_item,
    updates.Usage: AgentResponseConverter._on_usage,
    updates.Finish: AgentResponseConverter._on_finish,
    updates.RoundFinished: AgentResponseConverter._on_round_finished,
    updates.Error: AgentResponseConverter._on_error,
    updates.ResponseMetadata: AgentResponseConverter._on_metadata,
    updates.DeltaBatch: AgentResponseConverter._on_delta_batch,
}
"""The handler of each kind of update (the dispatch table of ``results``)."""


_COLLECT_HANDLERS: dict[type, _Handler] = {
    **_HANDLERS,
    updates.TextDelta: AgentResponseConverter._collect_text,
    updates.ReasoningDelta: AgentResponseConverter._collect_reasoning,
    updates.DeltaBatch: AgentResponseConverter._collect_delta_batch,
}
"""The dispatch table of an aggregate-only converter's ``collect``."""


_UNBATCHED_COLLECT: dict[type, _Handler] = {**_COLLECT_HANDLERS, updates.DeltaBatch: _ignore}
"""The table an aggregate-only converter's failed batch's updates are converted with (they
hold no batch; a streaming converter's go through ``_HANDLERS``)."""

_BYPASSED: Final = ("_add_args", "_route")
"""Helpers of the streaming handlers that the aggregate-only ones skip (a batch's fragments
are added to their calls at once)."""

_CLASS_TABLES: dict[type, tuple[dict[type, _Handler], dict[type, _Handler]]] = {}


def _tables_of(
    cls: type[AgentResponseConverter],
) -> tuple[dict[type, _Handler], dict[type, _Handler]]:
    """The streaming and aggregate-only dispatch tables of a converter class.

    The module's own tables for :class:`AgentResponseConverter` and for a subclass that
    overrides none of their handlers nor a helper the aggregate-only ones skip
    (:data:`_BYPASSED`). Otherwise the subclass's handlers in their place, and its
    aggregate-only mode reads every update through them (a batch update by update): slower,
    but every override is called as in streaming.
    """
    tables = _CLASS_TABLES.get(cls)
    if tables is not None:
        return tables
    base = AgentResponseConverter
    names = {handler.__name__ for handler in (*_HANDLERS.values(), *_COLLECT_HANDLERS.values())}
    if all(getattr(cls, name) is getattr(base, name) for name in (*names, *_BYPASSED)):
        tables = (_HANDLERS, _COLLECT_HANDLERS)
    else:
        own = {kind: getattr(cls, handler.__name__) for kind, handler in _HANDLERS.items()}
        tables = (own, own)
    _CLASS_TABLES[cls] = tables
    return tables


def _handler_for(kind: type, handlers: dict[type, _Handler]) -> _Handler:
    """The handler of a subclass of an update kind (that of its nearest registered base), or
    one that ignores it; remembered in ``handlers``."""
    handler = next((handlers[base] for base in kind.__mro__ if base in handlers), _ignore)
    handlers[kind] = handler
    return handler


_Delta = updates.ToolCallDelta
_Args = updates.ToolCallArgs


def _joined(batch: Iterable[AgentResponseUpdate]) -> list[AgentResponseUpdate]:
    """``batch`` with each run of consecutive argument fragments of one call made one update:
    ``ToolCallDelta`` values with only arguments (no id, no name) and the same index (or none),
    or ``ToolCallArgs`` values with the same id; their texts joined, in order."""
    out: list[AgentResponseUpdate] = []
    pieces: list[str] = []
    # The first fragment of the run being gathered (one of the two, or neither).
    delta_head: updates.ToolCallDelta | None = None
    args_head: updates.ToolCallArgs | None = None
    for update in batch:
        kind = type(update)
        if kind is _Delta:
            delta: updates.ToolCallDelta = update  # type: ignore[assignment]
            if delta.id is None and delta.name is None:
                if delta_head is not None and delta_head.index == delta.index:
                    pieces.append(delta.arguments_delta)
                    continue
                if delta_head is not None or args_head is not None:
                    out.append(_run_of(delta_head, args_head, pieces))
                delta_head, args_head, pieces = delta, None, [delta.arguments_delta]
                continue
        elif kind is _Args:
            args: updates.ToolCallArgs = update  # type: ignore[assignment]
            if args_head is not None and args_head.id == args.id:
                pieces.append(args.args_delta)
                continue
            if delta_head is not None or args_head is not None:
                out.append(_run_of(delta_head, args_head, pieces))
            delta_head, args_head, pieces = None, args, [args.args_delta]
            continue
        if delta_head is not None or args_head is not None:
            out.append(_run_of(delta_head, args_head, pieces))
            delta_head = args_head = None
        out.append(update)
    if delta_head is not None or args_head is not None:
        out.append(_run_of(delta_head, args_head, pieces))
    return out


def _run_of(
    delta: updates.ToolCallDelta | None, args: updates.ToolCallArgs | None, pieces: list[str]
) -> AgentResponseUpdate:
    """The one update a run of fragments stands for, that starts with ``delta`` or ``args``."""
    if delta is not None:
        if len(pieces) == 1:
            return delta
        return _Delta(index=delta.index, arguments_delta="".join(pieces))
    assert args is not None
    if len(pieces) == 1:
        return args
    return _Args(id=args.id, args_delta="".join(pieces))
