"""The cassettes ``raf serve`` answers with, by dialect and scenario, and the order in which
a multi-interaction cassette is answered. Reads cassette files; no network.

A cassette is found by its place: ``<folder>/<dialect>/<scenario>.yaml`` (the layout ``raf
cassette import`` writes and the bundled suite uses). Files are read on first use and kept,
so starting the server costs a directory listing, not a parse of every cassette.

Order: the n-th request to the same case (the same path prefix, ``/r/<run>`` included, and
the same ``x-raf-session`` header when a client sends one) has turn ``n``; a request that
answers no recorded call gets interaction ``n`` modulo the number of interactions (among
those that follow no call, when it answers nothing), so a load test may repeat a case
forever. A follow-up that answers recorded calls gets the round after them whatever its
turn (:mod:`raf.serve.rounds`). ``/i/<n>`` in the path pins an interaction;
``POST /_raf/reset`` starts every order again.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from raf.cassettes.format import Cassette, is_file_name
from raf.cassettes.lint import cassette_files
from raf.cassettes.persister import load as load_cassette
from raf.errors import CassetteError
from raf.limits import SERVE_MAX_ORDERS

__all__ = ["MAX_ORDERS", "Catalog", "Entry", "Order"]

MAX_ORDERS: Final = SERVE_MAX_ORDERS


@dataclass(frozen=True)
class Entry:
    """One served cassette."""

    dialect: str
    scenario: str
    path: Path


class Catalog:
    """Every cassette under ``folders``, by ``(dialect, scenario)``. The first folder that
    has a case wins."""

    def __init__(self, folders: Iterable[Path]) -> None:
        self.folders = [Path(f) for f in folders]
        self._entries: dict[tuple[str, str], Entry] = {}
        for path in cassette_files(self.folders):
            dialect, scenario = path.parent.name, path.stem
            if is_file_name(dialect) and is_file_name(scenario):
                self._entries.setdefault((dialect, scenario), Entry(dialect, scenario, path))
        self._loaded: dict[Path, Cassette | CassetteError] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def entries(self) -> list[Entry]:
        """Every case, sorted by dialect and scenario."""
        return [self._entries[key] for key in sorted(self._entries)]

    def find(self, dialect: str, scenario: str) -> Entry | None:
        return self._entries.get((dialect, scenario))

    def load(self, entry: Entry) -> Cassette | CassetteError:
        """The cassette of ``entry`` (read once), or why it cannot be read."""
        with self._lock:
            cached = self._loaded.get(entry.path)
        if cached is not None:
            return cached
        try:
            loaded: Cassette | CassetteError = load_cassette(entry.path)
        except CassetteError as exc:
            loaded = exc
        with self._lock:
            self._loaded[entry.path] = loaded
        return loaded

    def suggestions(self, dialect: str, scenario: str) -> list[str]:
        """Names close to an unknown ``dialect/scenario`` (for the 404 message)."""
        import difflib  # noqa: PLC0415 - only for unknown names

        names = [f"{d}/{s}" for d, s in sorted(self._entries)]
        return difflib.get_close_matches(f"{dialect}/{scenario}", names, n=3, cutoff=0.6)


class Order:
    """The next interaction of each case (see the module docstring). Thread-safe."""

    def __init__(self, limit: int = MAX_ORDERS) -> None:
        self._next: OrderedDict[tuple[str, str], int] = OrderedDict()
        self._limit = limit
        self._lock = threading.Lock()

    def take(self, prefix: str, session: str, count: int) -> tuple[int, int]:
        """The next request to ``prefix`` in ``session``: its number (0 for the first) and
        its interaction (the number modulo ``count``)."""
        key = (prefix, session)
        with self._lock:
            n = self._next.pop(key, 0)
            self._next[key] = n + 1
            while len(self._next) > self._limit:
                self._next.popitem(last=False)
        return n, (n % count if count else 0)

    def reset(self) -> None:
        with self._lock:
            self._next.clear()
