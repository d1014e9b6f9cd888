"""What a dialect is: a sans-IO map from :class:`ServerSentEvent` to updates. No IO."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, runtime_checkable

from raf.model.updates import AgentResponseUpdate
from raf.sse import ServerSentEvent

__all__ = ["Dialect"]


@runtime_checkable
class Dialect(Protocol):
    """Turns the events of one wire format into ``AgentResponseUpdate`` values.

    A dialect holds the state of one stream. It never raises on bad input: problems become
    ``updates.Error`` values and the stream goes on.
    """

    name: str
    """The wire format's name, e.g. ``"openai_chat"``."""

    @property
    def done(self) -> bool:
        """The stream's end marker was seen; the caller should stop reading."""
        ...

    def feed(self, event: ServerSentEvent) -> list[AgentResponseUpdate]:
        """Map one event to the updates it carries (possibly none)."""
        ...

    def feed_events(self, events: Iterable[ServerSentEvent]) -> list[AgentResponseUpdate]:
        """Map several events at once (what the pipeline calls: one call per network chunk).

        Must equal concatenating ``feed(e)`` for each event; events after the end marker are
        ignored.
        """
        ...

    def close(self, *, truncated: bool = False) -> list[AgentResponseUpdate]:
        """End of the stream: report truncation if the format's end marker is missing.

        Args:
            truncated: the SSE decoder discarded an unfinished line or block.
        """
        ...
