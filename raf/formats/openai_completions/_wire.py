"""The msgspec structs the dialect (:mod:`raf.formats.openai_completions.dialect`) decodes its
usual chunk into, strictly typed; it imports them from here.

They are defined in this module, which is never compiled, because the compiled build
(docs/compiled.md) cannot define a ``msgspec.Struct``: mypyc replaces the annotations of the
classes it compiles (``int | None`` becomes ``type``), and msgspec reads its field types from
them.
"""

from __future__ import annotations

from typing import Any

import msgspec


# The usual chunk (one choice with text, no finish, no usage, no error), strictly typed: the
# fields the handler reads, each of the type it reads without a problem; the others skipped.
class _Choice(msgspec.Struct, gc=False):
    text: str | None = None
    index: int | None = None
    finish_reason: str | None = None


class _Chunk(msgspec.Struct, gc=False):
    id: str | None = None
    object: str | None = None
    model: str | None = None
    choices: list[_Choice] | None = None
    usage: Any = None
    error: Any = None
