"""What raf did not read of each cassette of a conformance run, for the reports.

Each cassette is read once, whatever the number of its cases (chunkings, interactions):
:func:`unread_by_cassette` reads the file a case names, measures every response against its
format's field table (:func:`raf.cassettes.inventory.unread`) and merges the interactions.
A cassette that cannot be read is left out (its cases say why).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

from raf.cassettes.coding import BodyNotDecoded
from raf.cassettes.inventory import Unread, merge, unread
from raf.cassettes.persister import load
from raf.conformance.runner import CaseResult
from raf.errors import RafError

__all__ = ["CassetteUnread", "noteworthy", "unread_by_cassette"]


@dataclass(frozen=True)
class CassetteUnread:
    """What raf did not read of one cassette (every response of it, merged)."""

    dialect: str
    scenario: str
    cassette: str
    unread: Unread

    @property
    def name(self) -> str:
        return f"{self.dialect}/{self.scenario}"


_CACHE: dict[tuple[str, str, int, int], Unread] = {}
_CACHE_SIZE = 4096


def _of_file(path: str, dialect: str) -> Unread | None:
    try:
        stat = os.stat(path)
    except (OSError, ValueError):
        return None
    key = (path, dialect, stat.st_mtime_ns, stat.st_size)
    found = _CACHE.get(key)
    if found is not None:
        return found
    try:
        cassette = load(path)
    except (RafError, OSError, ValueError):
        return None
    parts = []
    for interaction in cassette.interactions:
        response = interaction.response
        if not 200 <= response.status < 300:
            continue
        try:
            parts.append(unread(dialect, response.content()))
        except BodyNotDecoded:
            continue
    result = merge(parts)
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.clear()
    _CACHE[key] = result
    return result


def unread_by_cassette(results: Iterable[CaseResult]) -> list[CassetteUnread]:
    """One entry per cassette the results name, in the order first met."""
    out: dict[tuple[str, str], CassetteUnread] = {}
    for result in results:
        key = (result.cassette, result.dialect)
        if not result.cassette or key in out:
            continue
        found = _of_file(result.cassette, result.dialect)
        if found is not None:
            scenario = result.scenario.split("#", 1)[0]
            out[key] = CassetteUnread(result.dialect, scenario, result.cassette, found)
    return list(out.values())


def noteworthy(entries: Iterable[CassetteUnread]) -> list[CassetteUnread]:
    """The cassettes with an event type raf does not recognise or a field it does not know
    (skipped event types and known fields are what raf leaves aside on purpose)."""
    return [e for e in entries if e.unread.unrecognised_events or e.unread.unknown_fields]
