"""The field tables of the built-in formats as Markdown, for the documentation.

    python -m raf.cassettes.unread_doc docs/recording.md           # rewrites the block
    python -m raf.cassettes.unread_doc --check docs/recording.md   # exit 1 when stale

The block sits between ``<!-- unread: tables -->`` and ``<!-- /unread -->``; it is written
from :func:`raf.cassettes.inventory.field_table` of each format (``raf/formats/*/fields.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from raf import formats
from raf.cassettes.inventory import field_table
from raf.formats.fields import EventFields
from raf.shared.doc_block import DocBlock, rewrite_files

__all__ = ["BEGIN", "END", "doc_tables", "main", "render_doc"]

BLOCK: Final = DocBlock("unread: tables", "the field tables")
"""The generated tables' place in a document."""
BEGIN: Final = BLOCK.begin
END: Final = BLOCK.end


def _paths(paths: Iterable[str]) -> str:
    return ", ".join(f"`{p}`" for p in paths) or "—"


def _type_label(kind: str | None) -> str:
    return "`None` (the usual event)" if kind is None else f"`{kind}`"


def doc_tables(names: Sequence[str] | None = None) -> str:
    """The field tables of the built-in formats (or of ``names``) as Markdown: per format,
    how its event types are told, the types it skips, and per event type what raf reads,
    reads whole and leaves aside on purpose."""
    out: list[str] = []
    for name in names if names is not None else formats.names():
        table = field_table(name)
        if table is None:
            continue
        out.append(f"#### `{name}`\n")
        out.append(f"Event types: {table.note}.")
        skipped = sorted(table.skipped) + [f"{p}*" for p in table.skipped_prefixes]
        if skipped:
            out.append(f" Skipped on purpose: {_paths(skipped)} (when not read below).")
        out.append("\n\n| event type | raf reads | raf reads whole | documented, left aside |\n")
        out.append("|---|---|---|---|\n")
        rows: dict[EventFields, list[str | None]] = {}
        for kind, spec in table.events.items():
            rows.setdefault(spec, []).append(kind)
        for spec, kinds in rows.items():
            label = ", ".join(_type_label(k) for k in kinds)
            if spec.whole_event:
                out.append(f"| {label} | the whole event | — | — |\n")
                continue
            out.append(
                f"| {label} | {_paths(spec.read)} | {_paths(spec.whole)} | {_paths(spec.known)} |\n"
            )
        out.append("\n")
    return "".join(out)


def render_doc(text: str) -> str:
    """``text`` with its block (between ``<!-- unread: tables -->`` and ``<!-- /unread -->``)
    rendered afresh from the field tables.

    Raises:
        ValueError: ``text`` has no such block, or more than one.
    """
    return BLOCK.fill(text, doc_tables())


def main(argv: Sequence[str] | None = None) -> int:
    """Rewrite the field tables of each file in ``argv`` (``--check``: only say whether they
    are current). Exit 0 when done (or current), 1 when ``--check`` found stale tables, 2 for
    a usage error or a file without the block (left as it was)."""
    return rewrite_files(
        argv, module="raf.cassettes.unread_doc", what=BLOCK.what, render=render_doc
    )


if __name__ == "__main__":
    raise SystemExit(main())
