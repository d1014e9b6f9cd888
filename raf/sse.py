"""The Server-Sent Events decoder, at its historical import path: see :mod:`raf.framing.sse`."""

from raf.framing.sse import (
    DEFAULT_MAX_EVENT_BYTES,
    DEFAULT_MAX_LINE_BYTES,
    ServerSentEvent,
    SSEDecoder,
)

__all__ = ["DEFAULT_MAX_EVENT_BYTES", "DEFAULT_MAX_LINE_BYTES", "SSEDecoder", "ServerSentEvent"]
