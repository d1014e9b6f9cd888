""":class:`ServerSentEvent`, the frame of every framing; import it from :mod:`raf.framing.sse`.

It is defined in this module, which is never compiled, because the compiled build
(docs/compiled.md) cannot define a ``msgspec.Struct``: mypyc replaces the annotations of the
classes it compiles (``int | None`` becomes ``type``), and msgspec reads its field types from
them.
"""

from __future__ import annotations

import msgspec

__all__ = ["ServerSentEvent"]


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
