"""The msgspec structs the dialect (:mod:`raf.formats.openai_chat.dialect`) decodes its usual
payloads into, strictly typed; it imports them from here.

They are defined in this module, which is never compiled, because the compiled build
(docs/compiled.md) cannot define a ``msgspec.Struct``: mypyc replaces the annotations of the
classes it compiles (``int | None`` becomes ``type``), and msgspec reads its field types from
them.
"""

from __future__ import annotations

from typing import Any

import msgspec


# The chunk shape raf reads, strictly typed: the decoder checks the types in C and skips the
# keys raf does not read, which is faster than a generic decode. A chunk that does not fit
# (a field of an unexpected type) is decoded generically and salvaged field by field
# (``_salvage``), so one odd field costs an error report, not the whole chunk.
class _Function(msgspec.Struct, gc=False):
    name: str | None = None
    arguments: str | None = None


class _ToolCall(msgspec.Struct, gc=False):
    index: int | None = None
    id: str | None = None
    function: _Function | None = None


class _Delta(msgspec.Struct, gc=False):
    content: str | list[Any] | None = None
    reasoning_content: str | None = None
    reasoning: str | None = None
    tool_calls: list[_ToolCall] | None = None
    reasoning_details: list[Any] | None = None  # OpenRouter's (signatures, encrypted data)


class _Choice(msgspec.Struct, gc=False):
    index: int | None = None
    delta: _Delta | None = None
    finish_reason: str | None = None
    text: Any = None  # a legacy Completions choice (no delta): not read, see _is_chunk


class _Groq(msgspec.Struct, gc=False):
    usage: dict[str, Any] | None = None


class _Chunk(msgspec.Struct, gc=False):
    id: str | None = None
    object: str | None = None
    model: str | None = None
    choices: list[_Choice] | None = None
    usage: dict[str, Any] | None = None
    error: Any = None
    x_groq: _Groq | None = None
