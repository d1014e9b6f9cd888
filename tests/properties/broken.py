"""Deliberately broken converters, each with a bug real client libraries shipped. The power
tests check that raf's properties catch every one of them."""

from __future__ import annotations

import json
from typing import Any

from raf.converter import AgentResponseConverter, CallState, Step, _Call
from raf.model import contents
from raf.model.contents import Content


class IndexOnly(AgentResponseConverter):
    """Keys tool calls by their index only (openai-python's accumulate_delta, litellm #7621):
    parallel calls that a server numbers 0, 0, 0 collapse into one."""

    def _route(
        self, index: int | None, pid: str | None, name: str | None, out: list[Content]
    ) -> _Call | None:
        existing = self._by_index.get(index) if index is not None else self._current
        if existing is not None and existing.state is CallState.OPEN:
            return existing
        return self._new_call(index, pid, out)


class ConcatenatingNames(AgentResponseConverter):
    """Appends a name repeated on a later delta (peers #41: ``read_fileread_file``)."""

    def _set_name(self, call: _Call, name: str, out: list[Content]) -> None:
        if call.name is not None:  # the call has started
            call.name += name
            return
        super()._set_name(call, name, out)


_CLOSERS = ("", '"', "}", '"}', "]}", '"]}', "}}", '"}}', "]}}", "null}", '":null}')


def _lenient(text: str) -> Any:
    """Parse a JSON prefix by closing what is open, as partial-JSON helpers do."""
    for closer in _CLOSERS:
        try:
            return json.loads(text + closer)
        except ValueError:
            continue
    raise ValueError(text)


class LenientEarly(AgentResponseConverter):
    """Re-parses the arguments after every fragment with a lenient parser and calls the tool
    as soon as they parse (vercel/ai #13137, langchain #39275): truncated arguments look
    complete."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._called_early: set[int] = set()

    def _add_args(self, call: _Call, delta: str, out: list[Content]) -> None:
        super()._add_args(call, delta, out)
        if (
            call.name is not None
            and call.state is CallState.OPEN
            and call.ordinal not in self._called_early
        ):
            try:
                arguments = _lenient(call.text())
            except ValueError:
                return
            if isinstance(arguments, dict):
                self._called_early.add(call.ordinal)
                out.append(
                    contents.ToolCalling(
                        call_id=call.reported_id, name=call.name, arguments=arguments
                    )
                )

    def _calling(self, call: _Call, *, streaming: bool = False) -> list[Content]:
        if call.ordinal in self._called_early:  # called already, with what had arrived
            call.move(Step.CALL)
            return []
        return super()._calling(call, streaming=streaming)


VARIANTS = {
    "index_only": IndexOnly,
    "concatenating_names": ConcatenatingNames,
    "lenient_early": LenientEarly,
}
