"""Shared test drivers: feed a byte stream to a sans-IO object under different chunkings."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from raf import dialects
from raf.chunking import chunk
from raf.model import updates
from raf.pipeline import UpdateDecoder

T = TypeVar("T")

CHUNKINGS = ("whole", "bytewise", "random")


def split(data: bytes, how: str) -> list[bytes]:
    """Cut ``data`` the way a network might: ``whole``, ``bytewise`` or ``random``."""
    return chunk(data, {"bytewise": "bytes", "random": "random-1"}.get(how, how))


def feed_all(
    feed: Callable[[bytes], list[T]], close: Callable[[], list[T]], chunks: list[bytes]
) -> list[T]:
    """Everything ``feed`` returns over ``chunks``, then what ``close`` returns."""
    out: list[T] = []
    for piece in chunks:
        out.extend(feed(piece))
    out.extend(close())
    return out


def every_split_point(data: bytes, *, limit: int = 600) -> Iterator[list[bytes]]:
    """``data`` cut in two at every position (including the ends).

    Longer inputs are cut at ``limit`` evenly spread positions plus every position next to a
    CR, an LF or a non-ASCII byte, where chunk boundaries matter.
    """
    if len(data) <= limit:
        positions: range | list[int] = range(len(data) + 1)
    else:
        step = len(data) // limit
        special = {i for i, b in enumerate(data) if b in (0x0A, 0x0D) or b >= 0x80}
        positions = sorted({*range(0, len(data) + 1, step), *special, *(i + 1 for i in special)})
    for i in positions:
        yield [data[:i], data[i:]]


def read_with_and_without_usual(dialect: str, body: bytes) -> tuple[list[Any], list[Any]]:
    """The updates of ``body`` read by ``dialect`` as usual, and with its ``usual`` fast
    path switched off (every event through ``feed_event``, the shared path).

    (Switched off in a subclass: a compiled dialect's attributes cannot be set from outside.)
    """

    def read(fast: bool) -> list[Any]:
        created = dialects.create(dialect)
        if not fast:

            class Shared(type(created)):  # type: ignore[misc]
                usual = None

            created = Shared()
        decoder = UpdateDecoder(created)
        return feed_all(decoder.feed, decoder.close, [body])

    return read(True), read(False)


def taken_by_usual(dialect: Any, body: bytes) -> list[str]:
    """The data of the events of ``body`` that the ``usual`` fast path of a dialect like
    ``dialect`` (a fresh one of its class) took."""
    taken: list[str] = []

    class Watching(type(dialect)):  # type: ignore[misc]
        def usual(self, event: Any, out: list[Any]) -> bool:
            took: bool = super().usual(event, out)
            if took:
                taken.append(event.data)
            return took

    decoder = UpdateDecoder(Watching())
    feed_all(decoder.feed, decoder.close, [body])
    return taken


def is_argument_fragment(update: object) -> bool:
    """An argument fragment (a ``ToolCallArgs``, or a ``ToolCallDelta`` with no id and no
    name): what a ``DeltaBatch`` keeps in its ``order``, which may stand elsewhere among the
    batch's texts once the batch is expanded (reasoning, text, then the fragments)."""
    if isinstance(update, updates.ToolCallArgs):
        return True
    return isinstance(update, updates.ToolCallDelta) and update.id is None and update.name is None


def in_batch_order(expanded: list[Any], events: list[Any]) -> None:
    """Assert that the expanded batches of a run stand for its events' updates in their
    order: every update but the argument fragments in the order it came (the texts and the
    reasoning among them), and the fragments in the order they came."""
    assert [u for u in expanded if not is_argument_fragment(u)] == [
        u for u in events if not is_argument_fragment(u)
    ]
    assert [u for u in expanded if is_argument_fragment(u)] == [
        u for u in events if is_argument_fragment(u)
    ]
