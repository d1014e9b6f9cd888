""":class:`ServerSentEvent`, the frame of every framing; import it from :mod:`raf.framing.sse`.

It is defined in this module, which is never compiled, because the compiled build
(docs/compiled.md) cannot define a ``msgspec.Struct``: mypyc replaces the annotations of the
classes it compiles (``int | None`` becomes ``type``), and msgspec reads its field types from
them.
"""

from __future__ import annotations

from typing import TypeAlias

import msgspec

__all__ = ["DataRun", "EventOrRun", "ServerSentEvent"]


class ServerSentEvent(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One dispatched event.

    Attributes:
        event: the event type, ``"message"`` when the block had no ``event`` field.
        data: the data lines joined with LF.
        id: the last event ID string at dispatch (``""`` if none was ever set).
        retry: the reconnection time set by a valid ``retry`` field in this event's own
            block, else ``None``.
    """

    event: str = "message"
    data: str = ""
    id: str = ""
    retry: int | None = None


class DataRun(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """Consecutive events of the usual shape, their data still UTF-8 bytes.

    What :meth:`raf.framing.sse.SSEDecoder.feed_runs` gives for a run of one-line
    ``data: ...`` blocks, instead of one :class:`ServerSentEvent` per block: the payloads are
    slices of the body, so a dialect can decode them straight from bytes. It stands for
    exactly the events of :meth:`events`: each of type ``message``, with the data decoded
    from UTF-8 (invalid bytes as U+FFFD), this ``id`` and no ``retry``. No payload holds a
    CR or an LF.

    A run of two-line blocks (``event: <type>`` then ``data: ...``, the usual shape of
    Anthropic's and the Responses API's streams) has ``names``: the type of each event, in
    the order of ``payloads``; a run of one-line blocks has none (each event's type is
    ``message``).

    Attributes:
        payloads: each event's data, as bytes.
        id: the last event ID string, the same for all of them.
        names: each event's type (``event:`` field, never empty), or ``None``: all ``message``.
    """

    payloads: list[bytes]
    id: str = ""
    names: list[str] | None = None

    def events(self) -> list[ServerSentEvent]:
        """The events the run stands for."""
        event_id = self.id
        names = self.names
        if names is None:
            return [
                ServerSentEvent(event="message", data=p.decode("utf-8", "replace"), id=event_id)
                for p in self.payloads
            ]
        return [
            ServerSentEvent(event=name, data=p.decode("utf-8", "replace"), id=event_id)
            for name, p in zip(names, self.payloads, strict=True)
        ]


EventOrRun: TypeAlias = ServerSentEvent | DataRun
"""What :meth:`raf.framing.sse.SSEDecoder.feed_runs` returns a list of."""
