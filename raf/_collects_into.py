""":class:`CollectsInto`, the protocol of results that collect themselves; import it from
:mod:`raf.collect`.

It is defined in this module, which is never compiled, because the compiled build
(docs/compiled.md) cannot define a runtime-checkable protocol: mypyc compiles a protocol into
a native trait, which ``typing.runtime_checkable`` refuses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from raf.collect import ResponseCollector

__all__ = ["CollectsInto"]


@runtime_checkable
class CollectsInto(Protocol):
    """Results that can add themselves to a collector as they are produced, and close the
    turn into it when interrupted (:class:`raf.pipeline.Driver`)."""

    def collect_into(self, collector: ResponseCollector) -> bool:
        """Whether the results now go to ``collector`` by themselves."""
        ...
