"""``--dialect auto``: which wire format a body speaks, judged from its first bytes. No IO.

Every format declares byte patterns that mark it (:attr:`raf.formats.Format.sniff`, regular
expressions over the raw body); the dialect whose pattern matches earliest in the first
:data:`SNIFF_BYTES` bytes wins. Matching is on bytes, so a body split anywhere is judged the
same once enough of it arrived. A body that matches no pattern is read as :data:`FALLBACK`,
framed as its first byte says (``auto`` framing: an SSE body, JSON lines or a JSON array).

Formats raf recognises but does not read (legacy Completions, Cohere v2, Assistants runs,
Writer, Bedrock events, Ollama's /api/generate, JSON-RPC) are a table,
:data:`raf.dialects.unread.UNREAD_FORMATS`: :func:`unread` names the one a body is in, and
the fallback dialect, finding no chunk it recognises, ends the stream with
``unrecognised_format`` naming it.
"""

from __future__ import annotations

import re
from functools import cache

from raf import dialects, formats
from raf.dialects.base import JSONEventDialect
from raf.dialects.unread import UnreadFormat, guess
from raf.errors import DialectError

__all__ = ["AUTO", "FALLBACK", "SNIFF_BYTES", "sniff", "unread"]

AUTO = "auto"
"""The dialect name that asks for sniffing."""

FALLBACK = "openai_chat"
"""The dialect of a body that matches no pattern (the most common format)."""

SNIFF_BYTES = 8192
"""How much of a body is held, at most, before deciding."""


@cache
def _patterns(known: tuple[str, ...]) -> tuple[tuple[str, re.Pattern[bytes]], ...]:
    out: list[tuple[str, re.Pattern[bytes]]] = []
    for name in known:
        # A format's descriptor declares its patterns (Format.sniff); a dialect registered
        # without a format (the raf.dialects entry point group) declares them as the class
        # attribute JSONEventDialect.sniff; any other is never sniffed.
        found = formats.find(name)
        markers: tuple[bytes, ...] = ()
        if found is not None:
            markers = found.sniff
        else:
            try:
                factory = dialects.factory(name)
            except DialectError:  # a dialect that cannot load cannot be sniffed
                continue
            if isinstance(factory, type) and issubclass(factory, JSONEventDialect):
                markers = factory.sniff
        out.extend((name, re.compile(marker)) for marker in markers)
    return tuple(out)


def sniff(body: bytes) -> str | None:
    """The name of the dialect whose marker occurs earliest in ``body`` (its first
    :data:`SNIFF_BYTES` bytes), or ``None`` when none does."""
    head = body[:SNIFF_BYTES]
    best: tuple[int, str] | None = None
    for name, pattern in _patterns(tuple(dialects.names())):
        match = pattern.search(head)
        if match is not None and (best is None or match.start() < best[0]):
            best = (match.start(), name)
    return None if best is None else best[1]


def unread(body: bytes) -> UnreadFormat | None:
    """The format raf recognises but does not read that ``body`` (its first
    :data:`SNIFF_BYTES` bytes) is in, or ``None``; only meaningful when :func:`sniff` found
    no dialect's format."""
    return guess(body[:SNIFF_BYTES])
