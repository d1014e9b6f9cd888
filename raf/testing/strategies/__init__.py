"""Hypothesis strategies for LLM streams, with their ground truth: one module per wire format.

Each format's strategies live in its package (:attr:`raf.formats.Format.strategies`,
``raf/formats/<name>/strategies.py``) and are importable from here under the format's name,
for every registered format. Each has a ``streams(...)`` strategy that draws what a correct
client must end with (an :class:`~raf.model.AgentResponse`) and a stream that carries it the
way real servers do: the format's payloads, its framing, and network chunking. Feed
``stream.chunks`` to any parser and compare its result with ``stream.response``::

    from hypothesis import given
    from raf.testing.strategies import openai_chat

    @given(openai_chat.streams(profile="ollama"))
    def test_my_parser(stream):
        assert my_parser(stream.chunks).text == stream.response.text

The layers the formats share are ``common`` and ``sse`` (:mod:`raf.formats._strategies.common`,
:mod:`raf.formats._strategies.sse`). The names of the Chat Completions module are also
importable from here, as before the other formats.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType

from raf import formats
from raf.formats._strategies import common, sse
from raf.formats._strategies.common import (
    GeneratedStream,
    json_arguments,
    json_values,
    network_chunkings,
)
from raf.formats._strategies.sse import sse_framing
from raf.formats.openai_chat.strategies import (
    PROFILES,
    Profile,
    chat_completion_chunks,
    profiles,
    responses,
    streams,
)

__all__ = [
    "PROFILES",
    "GeneratedStream",
    "Profile",
    "chat_completion_chunks",
    "json_arguments",
    "json_values",
    "network_chunkings",
    "profiles",
    "responses",
    "sse_framing",
    "streams",
]

_BROKEN: dict[str, str] = {}
"""Formats whose strategies module could not be imported, with why."""


def _add(name: str, module: ModuleType) -> None:
    """``module`` as ``raf.testing.strategies.<name>``, attribute and importable path."""
    globals()[name] = module
    sys.modules.setdefault(f"{__name__}.{name}", module)


_add("common", common)
_add("sse", sse)
for _name in formats.names():
    _format = formats.find(_name)
    if _format is None or _format.strategies is None:
        continue
    try:
        _add(_name, importlib.import_module(_format.strategies))
    except Exception as exc:  # a broken third-party format must not break the others
        _BROKEN[_name] = f"{_format.strategies}: {type(exc).__name__}: {exc}"


def __getattr__(name: str) -> ModuleType:
    if name in _BROKEN:
        raise AttributeError(
            f"the strategies of format {name!r} could not be imported: {_BROKEN[name]}"
        )
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
