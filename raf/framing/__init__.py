"""Framing: the first step of the pipeline, bytes in, frames out. Sans-IO.

A framing splits a response body into the frames a dialect reads, each a
:class:`ServerSentEvent` (for JSON framings only ``data`` is set):

===================  =================================================  ===========================
name                 what                                               class
===================  =================================================  ===========================
``sse``              Server-Sent Events (HTML Living Standard 9.2.6)    :class:`SSEDecoder`
``json_array``       one streamed JSON array, one frame per element     :class:`JSONArrayDecoder`
``json_lines``       one JSON value per line (NDJSON)                   :class:`JSONLinesDecoder`
``aws_eventstream``  AWS's binary event stream (one frame per message)  :class:`EventStreamDecoder`
``auto``             chosen from the first byte of the body             :class:`AutoFraming`
===================  =================================================  ===========================

A dialect names the framing it expects (``Dialect.framing``); :class:`raf.pipeline.UpdateDecoder`
creates it with :func:`create`, and accepts another one for servers that frame a format
differently. Every framing has the same small interface (:class:`Framing`).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import ClassVar, Literal, Protocol, cast, runtime_checkable

from raf.errors import DialectError
from raf.framing.aws_eventstream import EventStreamDecoder
from raf.framing.json_values import JSONArrayDecoder, JSONLinesDecoder
from raf.framing.sse import DataRun, EventOrRun, ServerSentEvent, SSEDecoder
from raf.limits import DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_LINE_BYTES

__all__ = [
    "AutoFraming",
    "DataRun",
    "EventOrRun",
    "EventStreamDecoder",
    "Framing",
    "FramingAccelerator",
    "JSONArrayDecoder",
    "JSONLinesDecoder",
    "RunFraming",
    "SSEDecoder",
    "ServerSentEvent",
    "create",
    "names",
    "runs_of",
]

FramingAccelerator = Literal["feed_runs"]
"""The name of an optional method of a framing."""


@runtime_checkable
class Framing(Protocol):
    """Bytes in, frames out, for one body.

    ``feed`` may raise :class:`raf.errors.SSELimitExceeded` (with the frames decoded before
    the limit in ``exc.events``) and nothing else on any input, except ``aws_eventstream``,
    which may also raise :class:`raf.errors.EventStreamError` (a corrupt stream; an
    :class:`raf.errors.SSEError` with ``events`` as well); ``close`` ends the body
    and sets ``truncated`` when it ended inside a frame (which is then discarded).

    ``accelerators`` names the optional methods it offers: ``feed_runs`` (:class:`RunFraming`)
    or none. The pipeline uses a declared ``feed_runs`` when the dialect reads runs
    (``feed_frames``), through :func:`runs_of`.
    """

    truncated: bool
    accelerators: ClassVar[frozenset[FramingAccelerator]]

    def feed(self, data: bytes) -> list[ServerSentEvent]: ...

    def close(self) -> list[ServerSentEvent]: ...


@runtime_checkable
class RunFraming(Protocol):
    """Accelerator ``feed_runs(data)``: ``feed``, with runs of usual frames given as one
    :class:`DataRun` each (their data still bytes)."""

    def feed_runs(self, data: bytes) -> list[EventOrRun]: ...


def runs_of(framing: Framing) -> Callable[[bytes], list[EventOrRun]] | None:
    """The framing's ``feed_runs`` if it declares it, else ``None``."""
    if "feed_runs" in framing.accelerators:
        return cast(RunFraming, framing).feed_runs
    return None


_WHITESPACE = b" \t\r\n"
_PRELUDE = 12


def _is_prelude(body: bytes) -> bool:
    """Whether ``body`` starts with an AWS event stream prelude whose CRC matches."""
    return zlib.crc32(body[:8]) == int.from_bytes(body[8:12], "big")
_BOM = b"\xef\xbb\xbf"


class AutoFraming:
    """Chooses the framing from the first byte of the body that is not whitespace (after an
    optional BOM): ``[`` is a JSON array, ``{`` JSON lines, anything else Server-Sent Events;
    a body whose very first byte is NUL is an AWS event stream when its first 12 bytes are a
    prelude with a matching CRC (Server-Sent Events otherwise), and when it ends before 12
    bytes (a cut event stream). Bytes are held until the choice is made, then replayed into
    the chosen framing.

    Attributes:
        chosen: the name of the chosen framing, or ``None`` while undecided.
    """

    accelerators: ClassVar[frozenset[FramingAccelerator]] = frozenset({"feed_runs"})

    def __init__(
        self,
        *,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
    ) -> None:
        self._limits = {"max_line_bytes": max_line_bytes, "max_event_bytes": max_event_bytes}
        self._held = bytearray()
        self._inner: Framing | None = None
        self.chosen: str | None = None
        self.truncated = False

    def feed(self, data: bytes) -> list[ServerSentEvent]:
        if self._inner is not None:
            return self._inner.feed(data)
        self._held += data
        body = bytes(self._held)
        if body[:1] == b"\x00":
            # No text format starts with NUL; an AWS event stream does (its first message is
            # shorter than 16 MiB). Its prelude CRC, once held, confirms it.
            if len(body) < _PRELUDE:
                return []
            name = "aws_eventstream" if _is_prelude(body) else "sse"
            return self._choose(name, body)
        if len(body) < len(_BOM) and _BOM.startswith(body):
            return []  # maybe a BOM, split across feeds
        start = len(_BOM) if body.startswith(_BOM) else 0
        rest = body[start:].lstrip(_WHITESPACE)
        if not rest:
            if len(self._held) > self._limits["max_line_bytes"]:
                return self._choose("sse", body)  # whitespace without end: let SSE limit it
            return []
        first = rest[:1]
        name = "json_array" if first == b"[" else "json_lines" if first == b"{" else "sse"
        return self._choose(name, body)

    def feed_runs(self, data: bytes) -> list[EventOrRun]:
        """:meth:`feed`, with runs (:class:`DataRun`) where the chosen framing makes them."""
        inner = self._inner
        if inner is None:
            return list(self.feed(data))
        feed_runs = runs_of(inner)
        if feed_runs is None:
            return list(inner.feed(data))
        return feed_runs(data)

    def _choose(self, name: str, body: bytes) -> list[ServerSentEvent]:
        self.chosen = name
        self._held = bytearray()
        self._inner = create(name, **self._limits)
        return self._inner.feed(body)

    def close(self) -> list[ServerSentEvent]:
        if self._inner is None:
            held = bytes(self._held)
            # Fewer than 12 bytes starting with NUL: the start of an event stream, cut short.
            self._choose("aws_eventstream" if held[:1] == b"\x00" else "sse", held)
        assert self._inner is not None
        events = self._inner.close()
        self.truncated = self._inner.truncated
        return events


_FRAMINGS: dict[str, Callable[..., Framing]] = {
    "sse": SSEDecoder,
    "json_array": JSONArrayDecoder,
    "json_lines": JSONLinesDecoder,
    "aws_eventstream": EventStreamDecoder,
    "auto": AutoFraming,
}


def names() -> list[str]:
    """The framing names, sorted."""
    return sorted(_FRAMINGS)


def create(
    name: str,
    *,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
) -> Framing:
    """A new framing for one body.

    Raises:
        DialectError: the name is unknown; the message lists the known names.
    """
    try:
        factory = _FRAMINGS[name]
    except KeyError:
        raise DialectError(
            f"unknown framing {name!r}; known framings: {', '.join(names())}"
        ) from None
    return factory(max_line_bytes=max_line_bytes, max_event_bytes=max_event_bytes)
