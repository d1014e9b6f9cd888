"""The quirk catalogue: every provider behaviour client libraries get wrong, as data.

The catalogue is one YAML file (``conformance/quirks.yaml``, packaged as
``raf/_bundled/quirks.yaml``); this module reads and checks it, and renders it as the table of
docs/fuzzing.md. ``raf fuzz`` draws streams showing its quirks (:mod:`raf.fuzz.generate`),
cassettes name the quirks they show (``quirks`` in their ``raf`` header), and tests keep the
three in step. No IO beyond reading the file, except in :func:`main`.

    from raf.quirks import catalogue

    quirk = catalogue()["index_always_zero"]
    quirk.formats, quirk.kind, quirk.generators, quirk.cassettes

    python -m raf.quirks docs/fuzzing.md           # rewrites the table between its markers
    python -m raf.quirks --check docs/fuzzing.md   # exit 1 when the table is not current
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import yaml

from raf import formats
from raf.shared.bundled import bundled
from raf.shared.doc_block import DocBlock, rewrite_files

__all__ = [
    "FIELDS",
    "KINDS",
    "Quirk",
    "QuirkCatalogueError",
    "catalogue",
    "load",
    "main",
    "parse",
    "render",
    "table",
]


class QuirkCatalogueError(ValueError):
    """The catalogue file is not valid: the message names the entry and the field."""


KINDS: Final[tuple[str, ...]] = (
    "lost",
    "wrong",
    "unreported",
    "invented",
    "detail",
    "performance",
)
"""What a client that gets a quirk wrong reports, in the severity vocabulary's words
(:mod:`raf.conformance.severity`; ``performance``: the client is right, but slow)."""

FIELDS: Final[tuple[str, ...]] = (
    "id",
    "title",
    "formats",
    "providers",
    "reports",
    "kind",
    "generators",
    "cassettes",
    "wrong",
)
"""The fields of an entry, all required, no other."""

_ID = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")
_CASSETTE = re.compile(r"(?P<format>[a-z0-9][a-z0-9_\-]*)/(?P<scenario>[a-z0-9][a-z0-9_\-]{0,199})")
_REPORT_LINK = re.compile(r"(?P<repo>[A-Za-z0-9][\w.\-]*/[\w.\-]+)#(?P<number>[0-9]+)")


@dataclass(frozen=True)
class Quirk:
    """One provider behaviour clients get wrong.

    Attributes:
        id: its name (cassettes, ``raf fuzz --quirk`` and reports use it).
        title: what the provider does, in one line.
        formats: the wire formats it happens in.
        providers: who has been seen doing it.
        reports: where the client bugs it caused are reported (``owner/repo#N``).
        kind: what a client that gets it wrong reports (:data:`KINDS`).
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
    value = entry[key]
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise QuirkCatalogueError(f"{where}: {key} must be a list of non-empty strings")
    if len(set(value)) != len(value):
        twice = sorted({v for v in value if value.count(v) > 1})
        raise QuirkCatalogueError(f"{where}: {key} lists {', '.join(twice)} twice")
    return tuple(value)


def _text(entry: Mapping[str, Any], key: str, where: str) -> str:
    value = entry[key]
    if not isinstance(value, str) or not value.strip():
        raise QuirkCatalogueError(f"{where}: {key} must be a non-empty string")
    if "\n" in value.strip():
        raise QuirkCatalogueError(f"{where}: {key} must be one line")
    return value.strip()


def _entry(entry: Any, where: str, known_formats: frozenset[str]) -> Quirk:
    """One checked entry; ``where`` names it in every error."""
    if not isinstance(entry, dict):
        raise QuirkCatalogueError(f"{where}: a mapping was expected")
    ident = entry.get("id")
    if isinstance(ident, str):
        where = f"{where} ({ident})"
    unknown = sorted(str(key) for key in entry if key not in FIELDS)
    if unknown:
        raise QuirkCatalogueError(
            f"{where}: unknown field {', '.join(unknown)} (the fields: {', '.join(FIELDS)})"
        )
    missing = [key for key in FIELDS if key not in entry]
    if missing:
        raise QuirkCatalogueError(f"{where}: missing field {', '.join(missing)}")
    ident = _text(entry, "id", where)
    if not _ID.fullmatch(ident):
        raise QuirkCatalogueError(
            f"{where}: id {ident!r} is not snake_case (a-z, 0-9 and single _, a letter first)"
        )
    quirk = Quirk(
        id=ident,
        title=_text(entry, "title", where),
        formats=_strings(entry, "formats", where),
        providers=_strings(entry, "providers", where),
        reports=_strings(entry, "reports", where),
        kind=_text(entry, "kind", where),
        generators=_strings(entry, "generators", where),
        cassettes=_strings(entry, "cassettes", where),
        wrong=_text(entry, "wrong", where),
    )
    if not quirk.formats:
        raise QuirkCatalogueError(f"{where}: formats must name at least one format")
    strange = [name for name in quirk.formats if name not in known_formats]
    if strange:
        raise QuirkCatalogueError(
            f"{where}: formats: unknown format {', '.join(strange)} "
            f"(known: {', '.join(sorted(known_formats))})"
        )
    if quirk.kind not in KINDS:
        raise QuirkCatalogueError(f"{where}: kind: {quirk.kind!r} is not one of {', '.join(KINDS)}")
    outside = [name for name in quirk.generators if name not in quirk.formats]
    if outside:
        raise QuirkCatalogueError(
            f"{where}: generators: {', '.join(outside)} is not one of the quirk's formats"
        )
    for cassette in quirk.cassettes:
        match = _CASSETTE.fullmatch(cassette)
        if match is None:
            raise QuirkCatalogueError(
                f"{where}: cassettes: {cassette!r} is not <format>/<scenario>"
            )
        if match["format"] not in quirk.formats:
            raise QuirkCatalogueError(
                f"{where}: cassettes: {cassette} is of format {match['format']}, "
                "which is not one of the quirk's formats"
            )
    return quirk


def parse(text: str, source: str = "<catalogue>") -> dict[str, Quirk]:
    """The catalogue in ``text`` (read from ``source``), by id, in the file's order.

    Raises:
        QuirkCatalogueError: the text is not a valid catalogue; the message names the source,
            the entry (its position and id) and the field.
    """
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise QuirkCatalogueError(f"{source}: not YAML: {' '.join(str(exc).split())}") from None
    entries = data.get("quirks") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise QuirkCatalogueError(f"{source}: a mapping with a list 'quirks' was expected")
    extra = sorted(str(key) for key in data if key != "quirks")
    if extra:
        raise QuirkCatalogueError(f"{source}: unknown key {', '.join(extra)} (only 'quirks')")
    known = frozenset(formats.names())
    out: dict[str, Quirk] = {}
    for n, entry in enumerate(entries):
        quirk = _entry(entry, f"{source}: quirks[{n}]", known)
        if quirk.id in out:
            raise QuirkCatalogueError(
                f"{source}: quirks[{n}] ({quirk.id}): id {quirk.id!r} is used twice"
            )
        out[quirk.id] = quirk
    return out


def load(path: str | Path) -> dict[str, Quirk]:
    """The catalogue in the file ``path``, by id (see :func:`parse`).

    Raises:
        QuirkCatalogueError: the file cannot be read or is not a valid catalogue (the message
            says where).
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise QuirkCatalogueError(f"{path}: cannot read: {exc}") from None
    return parse(text, str(path))


@functools.cache
def catalogue() -> Mapping[str, Quirk]:
    """The bundled catalogue, by id (read once)."""
    return load(bundled().quirks)


# -- the table of docs/fuzzing.md ------------------------------------------------------------

BLOCK: Final = DocBlock("quirks: table", "the quirk table")
"""The generated table's place in a document."""
BEGIN: Final = BLOCK.begin
END: Final = BLOCK.end


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _report(report: str) -> str:
    match = _REPORT_LINK.fullmatch(report)
    if match is None:
        return _cell(report)
    return f"[{report}](https://github.com/{match['repo']}/issues/{match['number']})"


def _listed(items: Iterable[str], empty: str = "—") -> str:
    shown = ", ".join(items)
    return shown or empty


def table(quirks: Mapping[str, Quirk]) -> str:
    """The catalogue as a Markdown table, one row per quirk in the catalogue's order."""
    lines = [
        "| quirk | what the provider does | formats | seen at | kind | reports "
        "| generated for | cassettes |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for quirk in quirks.values():
        cells = (
            f"`{quirk.id}`",
            _cell(quirk.title),
            _listed(quirk.formats),
            _cell(_listed(quirk.providers)),
            quirk.kind,
            _listed(_report(r) for r in quirk.reports),
            _listed(quirk.generators),
            _listed(f"[{c}](../cassettes/{c}.yaml)" for c in quirk.cassettes),
        )
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def render(text: str, quirks: Mapping[str, Quirk] | None = None) -> str:
    """``text`` with its table (between ``<!-- quirks: table -->`` and ``<!-- /quirks -->``)
    rendered afresh from ``quirks`` (the bundled catalogue by default).

    Raises:
        ValueError: ``text`` has no such block, or more than one.
    """
    return BLOCK.fill(text, table(catalogue() if quirks is None else quirks))


def main(argv: Sequence[str] | None = None) -> int:
    """Rewrite the quirk table of each file in ``argv`` (``--check``: only say whether it is
    current). Exit 0 when done (or current), 1 when ``--check`` found a stale table, 2 for a
    usage error, a file without the block, or a catalogue that does not load; nothing but
    the named files is written, and a file with a problem is left as it was."""
    try:
        quirks = catalogue()
    except QuirkCatalogueError as exc:
        print(f"error: the quirk catalogue: {exc}", file=sys.stderr)
        return 2
    return rewrite_files(
        argv, module="raf.quirks", what=BLOCK.what, render=lambda text: render(text, quirks)
    )


if __name__ == "__main__":
    raise SystemExit(main())
