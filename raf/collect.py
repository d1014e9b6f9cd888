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
from typing import Protocol, runtime_checkable

from raf.errors import AgentResponseError
from raf.model import contents
from raf.model.codes import NOTICE_CODES
from raf.model.messages import ApprovalRequest, HostedCall, ToolCall
from raf.model.response import AgentResponse, AgentResponseResult
from raf.model.usage import Usage

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
    }
)


def _is_empty(usage: Usage) -> bool:
    return not (usage.prompt_tokens or usage.completion_tokens or usage.total_tokens)


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
    contents in order. ``tool_messages`` and ``turn_transcript`` stay empty (they belong to
    the tool loop).
    """

    def __init__(self) -> None:
        self._text: list[str] = []
        self._reasoning: list[str] = []
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

    def add(self, result: AgentResponseResult) -> None:
        """Take one streamed result into account."""
        if result.id:
            self._id = result.id
        if result.model:
            self._model = result.model
        if result.finish_reason:
            self._finish = result.finish_reason
        for content in result.contents:
            kind = type(content)
            if kind is _TEXT:
                self._text.append(content.delta)  # type: ignore[union-attr]
            elif kind in _COLLECTED:
                self._collect(content)

    def add_text(self, delta: str) -> None:
        """Take a text delta into account (what adding a ``Text`` content does)."""
        self._text.append(delta)

    def add_reasoning(self, delta: str) -> None:
        """Take a reasoning delta into account (what adding a ``Reasoning`` content does)."""
        self._reasoning.append(delta)

    def add_text_deltas(self, deltas: list[str]) -> None:
        """:meth:`add_text` for each of ``deltas``, in order."""
        self._text.extend(deltas)

    def add_reasoning_deltas(self, deltas: list[str]) -> None:
        """:meth:`add_reasoning` for each of ``deltas``, in order."""
        self._reasoning.extend(deltas)

    def _collect(self, content: contents.Content) -> None:
        if isinstance(content, contents.Reasoning):
            self._reasoning.append(content.delta)
        elif isinstance(content, contents.ToolCalling):
            self._tool_calls.append(
                ToolCall(id=content.call_id, name=content.name, arguments=content.arguments)
            )
            if content.meta is not None and content.meta.agent_id is not None:
                self._source_agent_id = content.meta.agent_id
        elif isinstance(content, contents.Usage):
            if self._usage is None or not _is_empty(content.usage):
                self._usage = content.usage
        elif isinstance(content, contents.Error):
            if content.error_code in NOTICE_CODES:
                self._notices.append(content)
            else:
                self._errors.append(content)
        elif isinstance(content, contents.HostedToolCall):
            known = self._hosted.get(content.call_id)
            self._hosted[content.call_id] = HostedCall(
                id=content.call_id,
                name=content.name,
                arguments=content.arguments,
                output=None if known is None else known.output,
                error=None if known is None else known.error,
            )
        elif isinstance(content, contents.HostedToolResult):
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

    def response(self) -> AgentResponse:
        """The aggregate of everything added so far."""
        reasoning = "".join(self._reasoning)
        return AgentResponse(
            id=self._id,
            model=self._model,
            text="".join(self._text),
            reasoning_text=reasoning or None,
            tool_calls=tuple(self._tool_calls),
            hosted_tool_calls=tuple(self._hosted.values()),
            approval_requests=tuple(self._approvals),
            finish_reason=self._finish,
            usage=self._usage,
            source_agent_id=self._source_agent_id,
            errors=tuple(self._errors),
            notices=tuple(self._notices),
        )

    def finish(self, *, raise_on_error: bool) -> AgentResponse:
        """The final response; raises :class:`AgentResponseError` if asked and errors occurred
        (notices are not errors)."""
        response = self.response()
        if raise_on_error and response.errors:
            raise AgentResponseError(response)
        return response


@runtime_checkable
class CollectsInto(Protocol):
    """Results that can add themselves to a collector as they are produced, and close the
    turn into it when interrupted (:class:`raf.pipeline.Driver`)."""

    def collect_into(self, collector: ResponseCollector) -> bool:
        """Whether the results now go to ``collector`` by themselves."""
        ...


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
