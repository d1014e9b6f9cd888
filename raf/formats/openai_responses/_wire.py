"""The msgspec structs the dialect (:mod:`raf.formats.openai_responses.dialect`) decodes its usual
payloads into, strictly typed; it imports them from here.

They are defined in this module, which is never compiled, because the compiled build
(docs/compiled.md) cannot define a ``msgspec.Struct``: mypyc replaces the annotations of the
classes it compiles (``int | None`` becomes ``type``), and msgspec reads its field types from
them.
"""

from __future__ import annotations

from typing import Any

import msgspec


class _Delta(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """The usual events (:data:`_DELTAS`: text, refusal, reasoning and argument fragments),
    exactly: every field they carry known and typed, so that reading one gives what the
    shared path gives (an unknown field, which the shared path decodes and may report on,
    sends the event there)."""

    type: str
    delta: str | None = None
    item_id: str | None = None
    output_index: int | None = None
    content_index: int | None = None
    summary_index: int | None = None
    sequence_number: int | None = None
    logprobs: Any = None
    obfuscation: str | None = None
