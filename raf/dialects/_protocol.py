"""The protocol of a dialect and of its optional accelerators; import them from
:mod:`raf.dialects.base`.

They are defined in this module, which is never compiled, because the compiled build
(docs/compiled.md) cannot define a runtime-checkable protocol: mypyc compiles a protocol into
a native trait, which ``typing.runtime_checkable`` refuses.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar, Literal, Protocol, runtime_checkable

from raf.framing.sse import EventOrRun, ServerSentEvent
from raf.model.updates import AgentResponseUpdate, DeltaBatch

__all__ = [
    "ACCELERATORS",
    "Accelerated",
    "Accelerator",
    "Dialect",
    "EventFeeder",
    "Flusher",
    "FrameFeeder",
]


@runtime_checkable
class Dialect(Protocol):
    """Turns the frames of one wire format into ``AgentResponseUpdate`` values.

    A dialect holds the state of one stream. It never raises on bad input: problems become
    ``updates.Error`` values and the stream goes on. A dialect may also offer accelerators
    (:data:`ACCELERATORS`), which it declares (:class:`Accelerated`); the pipeline uses the
    declared ones and no others.
    """

    @property
    def name(self) -> str:
        """The wire format's name, e.g. ``"openai_chat"`` (a class attribute will do)."""
        ...

    @property
    def framing(self) -> str:
        """The framing its frames come from (:mod:`raf.framing`): ``"sse"``, ``"json_array"``,
        ``"json_lines"`` or ``"auto"`` (a class attribute will do)."""
        ...

    @property
    def done(self) -> bool:
        """The stream's end marker was seen; the caller should stop reading."""
        ...

    def feed(self, event: ServerSentEvent) -> list[AgentResponseUpdate]:
        """Map one frame to the updates it carries (possibly none)."""
        ...

    def close(self, *, truncated: bool = False) -> list[AgentResponseUpdate]:
        """End of the stream: report truncation if the format's end is missing.

        Args:
            truncated: the framing discarded an unfinished frame.
        """
        ...


Accelerator = Literal["feed_events", "feed_frames", "flush"]
"""The name of an optional method of a dialect, one of :data:`ACCELERATORS`."""

ACCELERATORS: tuple[Accelerator, ...] = ("feed_events", "feed_frames", "flush")
"""The optional methods of a dialect, each the protocol of the same name below."""


@runtime_checkable
class EventFeeder(Protocol):
    """Accelerator ``feed_events``: several frames at once, the same as ``feed`` on each
    (frames after the end marker are not read); one call per network chunk is cheaper."""

    def feed_events(self, events: Iterable[ServerSentEvent]) -> list[AgentResponseUpdate]: ...


@runtime_checkable
class FrameFeeder(Protocol):
    """Accelerator ``feed_frames``: frames that may include runs (:class:`DataRun`, from a
    framing's ``feed_runs``), each run the same as ``feed`` on each of ``run.events()``; with
    ``batch`` a run's usual deltas may come as one :class:`DeltaBatch`, possibly held back."""

    def feed_frames(
        self, frames: Iterable[EventOrRun], batch: bool = False
    ) -> list[AgentResponseUpdate | DeltaBatch]: ...


@runtime_checkable
class Flusher(Protocol):
    """Accelerator ``flush``: what ``feed_frames`` held back, handed on now (the pipeline
    calls it before any update of its own)."""

    def flush(self) -> list[Any]: ...


@runtime_checkable
class Accelerated(Protocol):
    """A dialect that declares its accelerators: ``accelerators`` names the optional methods
    it offers (a subset of :data:`ACCELERATORS`). A dialect without the attribute offers none.
    """

    accelerators: ClassVar[frozenset[Accelerator]]
