"""The events of :class:`raf.args_parser.StreamingArgsParser`; import them from there.

They are defined in this module, which is never compiled, because the compiled build
(docs/compiled.md) cannot define a ``msgspec.Struct``: mypyc replaces the annotations of the
classes it compiles (``Any`` becomes ``type``), and msgspec reads its field types from them.
"""

from __future__ import annotations

from typing import Any

import msgspec

__all__ = ["ArgsEvent", "ArgsParsed", "ArgsProgress"]


class ArgsParsed(msgspec.Struct, frozen=True, gc=False):
    """The value of top-level argument ``name`` is complete."""

    name: str
    value: Any


class ArgsProgress(msgspec.Struct, frozen=True, gc=False):
    """More of the still-open string argument ``name`` was decoded.

    ``value`` is the text decoded since the previous progress of this argument; ``received``
    is the number of characters of the value decoded so far.
    """

    name: str
    received: int
    value: str


ArgsEvent = ArgsParsed | ArgsProgress
