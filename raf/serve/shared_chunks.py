"""The chunks of a recorded body, cut once and shared by every response that sends them. No IO.

The body cut is the one a client reads (:meth:`raf.cassettes.format.Response.content`:
decoded when it was recorded compressed). Cutting a body by a chunking makes a copy of it in
pieces; made per request, N clients of a large cassette would hold N copies while their
responses are in progress (more when they do not read). Here the pieces of an interaction
under a chunking are kept, most recently used first, while the copies kept stay under a budget
in bytes; a body larger than the budget is cut (and decoded) per request, as before. Every
chunking is deterministic (``random`` has a fixed seed), so a shared cut is the cut each
request would have made.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Final

from raf.cassettes.format import Interaction
from raf.chunking import chunk
from raf.limits import SERVE_SHARED_CHUNKS_BYTES

__all__ = ["SharedChunks"]

_PIECE_COST: Final = 100
"""Bytes counted for each piece beyond its content (the bytes object and its place in the
list), so that a body cut into single bytes is not counted as small."""

Cut = tuple[list[bytes], list[float] | None]
"""The pieces, and the recorded seconds before each (``recorded`` with a timing only)."""


class SharedChunks:
    """The cuts of recorded bodies, bounded by ``budget`` bytes (see the module docstring).
    Not thread-safe: the server's event loop is its only user."""

    def __init__(self, budget: int = SERVE_SHARED_CHUNKS_BYTES) -> None:
        self.budget = budget
        self._cuts: OrderedDict[tuple[int, str], tuple[Interaction, Cut, int]] = OrderedDict()
        self._held = 0

    @property
    def held(self) -> int:
        """Bytes counted for the cuts kept."""
        return self._held

    def cut(self, interaction: Interaction, name: str) -> Cut:
        """The body of ``interaction`` as a client reads it (decoded from its
        ``content-encoding``) cut by ``name`` (a chunking, or ``recorded``: its recorded
        reads when it has a timing, else ``whole``).

        Raises:
            BodyNotDecoded: the body has a ``content-encoding`` and does not decode (nothing
                is kept for it).
        """
        key = (id(interaction), name)
        kept = self._cuts.get(key)
        if kept is not None and kept[0] is interaction:
            self._cuts.move_to_end(key)
            return kept[1]
        made = _cut(interaction, name)
        cost = sum(len(piece) for piece in made[0]) + _PIECE_COST * len(made[0])
        if cost > self.budget:
            return made
        if kept is not None:  # another interaction where a forgotten one was
            self._forget(key)
        while self._held + cost > self.budget and self._cuts:
            self._forget(next(iter(self._cuts)))
        self._cuts[key] = (interaction, made, cost)
        self._held += cost
        return made

    def _forget(self, key: tuple[int, str]) -> None:
        _, _, cost = self._cuts.pop(key)
        self._held -= cost


def _cut(interaction: Interaction, name: str) -> Cut:
    if name == "recorded":
        timed = interaction.timed_chunks()
        if timed is not None:
            return timed
        name = "whole"
    return chunk(interaction.response.content(), name), None
