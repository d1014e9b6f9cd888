"""Deliberately broken converters, each with a bug real client libraries shipped. The power
tests check that raf's properties catch every one of them.

Each is built on the converter's public API only: it rewrites the updates it is given before
the reference converter sees them, or rewrites the contents the reference returns
(:meth:`~raf.converter.AgentResponseConverter.results`, which ``consume`` and the pipeline go
through, and :meth:`~raf.converter.AgentResponseConverter.finalize`), with the public update
and content types. So a change inside raf's converter cannot quietly take a bug out of one."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import msgspec

from raf.collect import ResponseCollector
from raf.converter import AgentResponseConverter
from raf.model import AgentResponseResult, contents, updates
from raf.model.updates import AgentResponseUpdate
from raf.model.usage import Usage


class PublicMutant(AgentResponseConverter):
    """A converter changed through its public methods: :meth:`convert` maps one update to
    its results (the reference's, by default), :meth:`results` converts a batch update by
    update through it, and :meth:`collect` adds each result of :meth:`results` to the
    collector (what the converter's documentation says it does)."""

    def convert(self, update: AgentResponseUpdate) -> list[AgentResponseResult]:
        return super().results((update,))

    def results(self, batch: Iterable[AgentResponseUpdate]) -> list[AgentResponseResult]:
        return [result for update in batch for result in self.convert(update)]

    def collect(
        self,
        batch: Iterable[AgentResponseUpdate | updates.DeltaBatch],
        collector: ResponseCollector,
    ) -> None:
        assert self.streaming_contents, "a broken converter streams (respond(converter=...))"
        for result in self.results(batch):  # type: ignore[arg-type]  # no DeltaBatch then
            collector.add(result)


def _with_contents(
    result: AgentResponseResult, kept: Iterable[contents.Content]
) -> AgentResponseResult:
    return msgspec.structs.replace(result, contents=tuple(kept))


class IndexOnly(PublicMutant):
    """Keys tool calls by their index only (openai-python's accumulate_delta, litellm #7621):
    parallel calls that a server numbers 0, 0, 0 collapse into one. A fragment at an index
    whose call has an id (a name) already loses its own id (name), so it joins that call."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._ids: set[int | None] = set()  # the indices whose call has an id
        self._names: set[int | None] = set()  # ... and a name

    def convert(self, update: AgentResponseUpdate) -> list[AgentResponseResult]:
        if isinstance(update, updates.ToolCallDelta):
            # A fragment without an index goes to the latest call, whatever its id and name.
            index = update.index
            if index in self._ids or (index is None and self._ids):
                update = msgspec.structs.replace(update, id=None)
            if index in self._names or (index is None and self._names):
                update = msgspec.structs.replace(update, name=None)
            if update.id is not None:
                self._ids.add(index)
            if update.name is not None:
                self._names.add(index)
        return super().convert(update)

    def finalize(
        self,
        finish_reason: str | None = None,
        usage: Usage | None = None,
        *,
        interrupted: bool = False,
    ) -> AgentResponseResult:
        self._ids.clear()
        self._names.clear()
        return super().finalize(finish_reason, usage, interrupted=interrupted)


class ConcatenatingNames(PublicMutant):
    """Appends a name repeated on a later delta (peers #41: ``read_fileread_file``): a name
    on a fragment of a call that already has one is added to the call's name, which the call
    is made with."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._call_of: dict[tuple[int | None, str | None], str] = {}  # (index, id) -> call
        self._names: dict[str, str] = {}  # call id -> its name so far

    def convert(self, update: AgentResponseUpdate) -> list[AgentResponseResult]:
        produced = super().convert(update)
        if not isinstance(update, updates.ToolCallDelta):
            return produced
        keys = [(update.index, update.id), (update.index, None)]
        started = [
            content
            for result in produced
            for content in result.contents
            if isinstance(content, contents.ToolCallStart)
        ]
        if started:  # the fragment named a new call
            for key in keys:
                self._call_of[key] = started[-1].call_id
            self._names[started[-1].call_id] = started[-1].name
        elif update.name is not None:  # a name again: the bug
            call = next((self._call_of[key] for key in keys if key in self._call_of), None)
            if call is not None:
                self._names[call] += update.name
        return produced

    def finalize(
        self,
        finish_reason: str | None = None,
        usage: Usage | None = None,
        *,
        interrupted: bool = False,
    ) -> AgentResponseResult:
        final = super().finalize(finish_reason, usage, interrupted=interrupted)
        renamed = [
            msgspec.structs.replace(content, name=self._names[content.call_id])
            if isinstance(content, contents.ToolCalling) and content.call_id in self._names
            else content
            for content in final.contents
        ]
        self._call_of.clear()
        self._names.clear()
        return _with_contents(final, renamed)


_CLOSERS = ("", '"', "}", '"}', "]}", '"]}', "}}", '"}}', "]}}", "null}", '":null}')


def _lenient(text: str) -> Any:
    """Parse a JSON prefix by closing what is open, as partial-JSON helpers do."""
    for closer in _CLOSERS:
        try:
            return json.loads(text + closer)
        except ValueError:
            continue
    raise ValueError(text)


class LenientEarly(PublicMutant):
    """Re-parses the arguments after every fragment with a lenient parser and calls the tool
    as soon as they parse (vercel/ai #13137, langchain #39275): truncated arguments look
    complete. The early ``ToolCalling`` is added to the result of the fragment, and what the
    reference makes of that call at the end (its ``ToolCalling``, or the error of arguments
    that turned out wrong or cut) is dropped."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._names: dict[str, str] = {}  # call id -> name, for the calls started
        self._text: dict[str, str] = {}  # call id -> its argument text so far
        self._ended: set[str] = set()
        self._called_early: set[str] = set()

    def convert(self, update: AgentResponseUpdate) -> list[AgentResponseResult]:
        out = []
        for result in super().convert(update):
            added: list[contents.Content] = []
            for content in result.contents:
                if isinstance(content, contents.ToolCallStart):
                    self._names[content.call_id] = content.name
                elif isinstance(content, contents.ToolCallArgs):
                    call = content.call_id
                    self._text[call] = self._text.get(call, "") + content.args_delta
                    added += self._early(call)
                elif isinstance(content, contents.ToolCallEnd):
                    self._ended.add(content.call_id)
            out.append(_with_contents(result, [*result.contents, *added]))
        return out

    def _early(self, call: str) -> list[contents.Content]:
        if call not in self._names or call in self._ended or call in self._called_early:
            return []
        try:
            arguments = _lenient(self._text[call])
        except ValueError:
            return []
        if not isinstance(arguments, dict):
            return []
        self._called_early.add(call)
        return [contents.ToolCalling(call_id=call, name=self._names[call], arguments=arguments)]

    def finalize(
        self,
        finish_reason: str | None = None,
        usage: Usage | None = None,
        *,
        interrupted: bool = False,
    ) -> AgentResponseResult:
        final = super().finalize(finish_reason, usage, interrupted=interrupted)
        kept = [
            content
            for content in final.contents
            # called already, with what had arrived
            if not (
                isinstance(content, contents.ToolCalling | contents.Error)
                and content.call_id in self._called_early
            )
        ]
        for state in (self._names, self._text):
            state.clear()
        self._ended.clear()
        self._called_early.clear()
        return _with_contents(final, kept)


VARIANTS: dict[str, type[AgentResponseConverter]] = {
    "index_only": IndexOnly,
    "concatenating_names": ConcatenatingNames,
    "lenient_early": LenientEarly,
}
