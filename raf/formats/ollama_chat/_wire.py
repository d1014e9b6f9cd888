"""The msgspec structs the dialect (:mod:`raf.formats.ollama_chat.dialect`) decodes its usual
lines into, strictly typed; it imports them from here.

They are defined in this module, which is never compiled, because the compiled build
(docs/compiled.md) cannot define a ``msgspec.Struct``: mypyc replaces the annotations of the
classes it compiles (``int | None`` becomes ``type``), and msgspec reads its field types from
them.
"""

from __future__ import annotations

from typing import Any

import msgspec


# The usual line (text, thinking or whole calls, not done), strictly typed: a line that does
# not fit takes the shared path, which names what is wrong.
class _Message(msgspec.Struct, gc=False):
    content: str | None = None
    thinking: str | None = None
    tool_calls: list[Any] | None = None


class _Line(msgspec.Struct, gc=False):
    model: str | None = None
    message: _Message | None = None
    done: bool | None = None
    error: Any = None
