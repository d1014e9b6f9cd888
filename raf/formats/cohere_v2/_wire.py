"""The msgspec structs the dialect (:mod:`raf.formats.cohere_v2.dialect`) decodes its usual
events into, strictly typed; it imports them from here.

They are defined in this module, which is never compiled, because the compiled build
(docs/compiled.md) cannot define a ``msgspec.Struct``: mypyc replaces the annotations of the
classes it compiles (``int | None`` becomes ``type``), and msgspec reads its field types from
them.
"""

from __future__ import annotations

import msgspec

__all__ = [
    "_Usual",
    "_UsualCall",
    "_UsualContent",
    "_UsualDelta",
    "_UsualFunction",
    "_UsualMessage",
]


class _UsualContent(msgspec.Struct):
    text: str | None = None
    thinking: str | None = None


class _UsualFunction(msgspec.Struct):
    arguments: str


class _UsualCall(msgspec.Struct):
    function: _UsualFunction


class _UsualMessage(msgspec.Struct):
    content: _UsualContent | None = None
    tool_calls: _UsualCall | None = None


class _UsualDelta(msgspec.Struct):
    message: _UsualMessage


class _Usual(msgspec.Struct):
    """The usual event, a ``content-delta`` or a ``tool-call-delta``, strictly typed: a field
    of another type fails the decode, and the event takes the shared path, which names it."""

    type: str
    index: int
    delta: _UsualDelta
