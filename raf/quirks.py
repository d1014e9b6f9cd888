"""The quirk catalogue: every provider behaviour client libraries get wrong, as data.

The catalogue is one YAML file (``conformance/quirks.yaml``, packaged as
``raf/_bundled/quirks.yaml``); this module reads and checks it. ``raf fuzz`` draws streams
showing its quirks (:mod:`raf.fuzz.generate`), cassettes name the quirks they show (``quirks``
in their ``raf`` header), and docs/fuzzing.md's table is rendered from it. No IO beyond
reading the file.

    from raf.quirks import catalogue

    quirk = catalogue()["index_always_zero"]
    quirk.formats, quirk.kind, quirk.generators, quirk.cassettes
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from raf.shared.bundled import bundled

__all__ = ["Quirk", "QuirkCatalogueError", "catalogue", "load"]


class QuirkCatalogueError(ValueError):
    """The catalogue file is not valid: the message names the entry and the field."""


@dataclass(frozen=True)
class Quirk:
    """One provider behaviour clients get wrong.

    Attributes:
        id: its name (cassettes, ``raf fuzz --quirk`` and reports use it).
        title: what the provider does, in one line.
        formats: the wire formats it happens in.
        providers: who has been seen doing it.
        reports: where the client bugs it caused are reported.
        kind: what a client that gets it wrong does, in the severity vocabulary
            (:data:`raf.conformance.severity.KINDS`).
        generators: the formats ``raf fuzz`` can generate it for.
        cassettes: the bundled cassettes that show it (``<format>/<scenario>``).
        wrong: what a client that gets it wrong does, in a sentence.
    """

    id: str
    title: str
    formats: tuple[str, ...]
    providers: tuple[str, ...]
    reports: tuple[str, ...]
    kind: str
    generators: tuple[str, ...]
    cassettes: tuple[str, ...]
    wrong: str


def _strings(entry: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = entry.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise QuirkCatalogueError(f"{where}: {key} must be a list of strings")
    return tuple(value)


def _text(entry: Mapping[str, Any], key: str, where: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value:
        raise QuirkCatalogueError(f"{where}: {key} must be a non-empty string")
    return value


def load(path: str | Path) -> dict[str, Quirk]:
    """The catalogue in ``path``, by id.

    Raises:
        QuirkCatalogueError: the file is not a valid catalogue (the message says where).
    """
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise QuirkCatalogueError(f"{path}: {exc}") from None
    entries = data.get("quirks") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise QuirkCatalogueError(f"{path}: a mapping with a list 'quirks' was expected")
    out: dict[str, Quirk] = {}
    for n, entry in enumerate(entries):
        where = f"{path}: quirks[{n}]"
        if not isinstance(entry, dict):
            raise QuirkCatalogueError(f"{where}: a mapping was expected")
        quirk = Quirk(
            id=_text(entry, "id", where),
            title=_text(entry, "title", where),
            formats=_strings(entry, "formats", where),
            providers=_strings(entry, "providers", where),
            reports=_strings(entry, "reports", where),
            kind=_text(entry, "kind", where),
            generators=_strings(entry, "generators", where),
            cassettes=_strings(entry, "cassettes", where),
            wrong=_text(entry, "wrong", where),
        )
        if quirk.id in out:
            raise QuirkCatalogueError(f"{where}: id {quirk.id!r} is used twice")
        out[quirk.id] = quirk
    return out


@functools.cache
def catalogue() -> Mapping[str, Quirk]:
    """The bundled catalogue, by id (read once)."""
    return load(bundled().quirks)
