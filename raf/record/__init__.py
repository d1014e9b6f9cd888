"""``raf record``: a recording proxy in front of a provider. Each request is forwarded,
each network read streamed back to the client as it arrives, and the exchange saved as a
cassette that keeps the reads and their timing, scrubbed of secrets before anything touches
the disk (docs/recording.md).

* :mod:`raf.cassettes.recorder`: the bookkeeping (names, fingerprints, modes, the
  interaction), sans-IO;
* :mod:`raf.record.proxy`: :class:`RecordingProxy`, the aiohttp server in a thread.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["RecordingProxy"]

if TYPE_CHECKING:  # pragma: no cover
    from raf.record.proxy import RecordingProxy


def __getattr__(name: str) -> Any:
    if name == "RecordingProxy":  # aiohttp is imported only when a proxy is wanted
        from raf.record.proxy import RecordingProxy  # noqa: PLC0415

        return RecordingProxy
    raise AttributeError(name)
