"""The msgspec structs the dialect (:mod:`raf.formats.anthropic_messages.dialect`) decodes its usual
payloads into, strictly typed; it imports them from here.

They are defined in this module, which is never compiled, because the compiled build
(docs/compiled.md) cannot define a ``msgspec.Struct``: mypyc replaces the annotations of the
classes it compiles (``int | None`` becomes ``type``), and msgspec reads its field types from
them.
"""

from __future__ import annotations

import msgspec


class _DeltaBody(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    type: str
    text: str | None = None
    thinking: str | None = None
    partial_json: str | None = None


class _Delta(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """The usual event, a ``content_block_delta``, exactly: every field known and typed, so
    that reading it gives what the shared path gives (an unknown field, which the shared
    path decodes and may report on, sends the event there)."""

    type: str
    index: int
    delta: _DeltaBody
