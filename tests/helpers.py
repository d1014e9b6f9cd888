"""Shared test drivers: feed a byte stream to a sans-IO object under different chunkings."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TypeVar

from raf.chunking import chunk

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
        positions = range(len(data) + 1)
    else:
        step = len(data) // limit
        special = {i for i, b in enumerate(data) if b in (0x0A, 0x0D) or b >= 0x80}
        positions = sorted({*range(0, len(data) + 1, step), *special, *(i + 1 for i in special)})
    for i in positions:
        yield [data[:i], data[i:]]
