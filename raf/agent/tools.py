"""Tools the client runs (RAF's ``ITool``, ``ToolResult``): what the tool loop offers the
model and executes when the model calls it.

A tool has a ``name``, a ``description``, the JSON Schema of its arguments (``parameters``),
whether a person must approve each call (``requires_approval``), and runs with the parsed
arguments, synchronously (:meth:`Tool.invoke`) or not (:meth:`Tool.ainvoke`), returning a
:class:`ToolResult` (sent to the model as its JSON text, as RAF does) or a ``str`` (sent as it
is: the tool's own text, what most frameworks send). A tool that fails for its own reasons
returns ``ToolResult.failure(...)`` (the model sees it as the call's result); one that raises
is reported to the model as a framework error (docs/agent.md, "Error texts").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, runtime_checkable

import msgspec

from raf.model._base import JSONValue, Record

__all__ = ["Tool", "ToolResult"]


class ToolResult(Record, frozen=True, kw_only=True):
    """What a tool returns (raf-spec 1.8): ``ok``, and ``data`` on success or ``error`` (and
    optionally ``data``) on failure. Its JSON text, the tool message the model reads, has the
    keys in the order ``ok``, ``data``, ``error`` and leaves out the ones that are ``None``:
    ``{"ok":true,"data":{"temp":21}}``."""

    ok: bool
    data: JSONValue = None
    error: str | None = None

    @classmethod
    def success(cls, data: JSONValue = None) -> ToolResult:
        """A successful result carrying ``data``."""
        return cls(ok=True, data=data)

    @classmethod
    def failure(cls, message: str, data: JSONValue = None) -> ToolResult:
        """A failed result (RAF's ``error`` / ``error_with_data``; renamed because ``error``
        is also the field): the model reads ``message`` as the call's result."""
        return cls(ok=False, data=data, error=message)

    def to_json(self) -> str:
        """The JSON text the model reads."""
        value: dict[str, JSONValue] = {"ok": self.ok}
        if self.data is not None:
            value["data"] = self.data
        if self.error is not None:
            value["error"] = self.error
        return msgspec.json.encode(value).decode()


@runtime_checkable
class Tool(Protocol):
    """A tool the client runs (RAF's ``ITool``)."""

    @property
    def name(self) -> str:
        """The name the model calls it by."""
        ...

    @property
    def description(self) -> str:
        """What it does, for the model."""
        ...

    @property
    def parameters(self) -> Mapping[str, JSONValue]:
        """The JSON Schema of its arguments (an object schema)."""
        ...

    @property
    def requires_approval(self) -> bool:
        """Whether each call waits for a person's approval (RAF's default: no)."""
        ...

    def invoke(self, arguments: JSONValue) -> ToolResult | str:
        """Run with the parsed arguments (called from a worker thread by the sync loop)."""
        ...

    async def ainvoke(self, arguments: JSONValue) -> ToolResult | str:
        """Run with the parsed arguments (the async loop)."""
        ...
