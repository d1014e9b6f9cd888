"""The real-client matrix as files: JSON for tools, Markdown for docs/clients.md. No network.

JSON::

    {"clients": [{"name": "openai", "version": "3.57.0", "dialects": ["openai_chat"],
                  "language": "Python", "library": "openai"},
                 {"name": "openai-node", "version": "6.49.0", "dialects": ["openai_chat"],
                  "language": "Node.js", "library": "openai"},
                 {"name": "mine", "version": "0.1.0", "dialects": [...],
                  "language": "", "library": "", "missing": "cannot start ..."}, ...],
     "chunkings": ["whole", "random"],
     "cells": [{"client": "openai", "scenario": "leading_bom", "dialect": "openai_chat",
                "ok": false, "status": "fail", "kinds": ["lost"], "reason": "lost: text",
                "details": ["text: expected ..., got ..."], "raised": null,
                "request": []}, ...]}

``language`` is the language of the client's library (``Python``, ``Node.js``), empty for a
program given with ``raf clients --impl``; ``library`` its package (the pip distribution, the
npm package its hello names; empty when a program names none); ``missing``, only for a
column that did not run, says why.

Markdown: per dialect, a table whose rows are the scenarios and whose columns are the
clients (name and version), grouped by language (:func:`by_language`: Python, then Node.js,
then the programs), each cell ``✓``, ``◐`` with the notices, ``✗`` with the kinds of what
differs, or ``-`` (not reported by the library); then the totals per client; then how each
client is read (its language and the paragraph its adapter gives). The same matrix as one
HTML page: :mod:`raf.client_matrix.html_report`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from raf.client_matrix.run import Cell

__all__ = [
    "LANGUAGES",
    "Column",
    "by_language",
    "client_json",
    "language_label",
    "matrix_json",
    "matrix_markdown",
    "not_run",
    "write_json",
    "write_markdown",
]

LANGUAGES = ("Python", "Node.js")
"""The languages of the libraries raf drives, in the matrix's order; the programs given
with ``raf clients --impl`` come after them."""


@dataclass(frozen=True)
class Column:
    """One client of the matrix."""

    name: str
    version: str
    dialects: tuple[str, ...]
    missing: str | None = None
    how: str = ""
    language: str = "Python"
    """The language of the library (``Python``, ``Node.js``); empty for a program given
    with ``raf clients --impl``."""
    library: str = ""
    """The library's package (the pip distribution, the npm package); empty when a program
    names none."""


def by_language(columns: Sequence[Column]) -> list[Column]:
    """``columns`` grouped by language (:data:`LANGUAGES`, then the programs), each group in
    its given order."""
    rank = {language: n for n, language in enumerate(LANGUAGES)}
    return sorted(columns, key=lambda c: rank.get(c.language, len(LANGUAGES)))


def language_label(language: str) -> str:
    """How a report names a column's language (``program`` for one given with ``--impl``)."""
    return language or "program"


def client_json(column: Column) -> dict[str, Any]:
    """One column as JSON builtins (a member of ``clients``)."""
    return {
        "name": column.name,
        "version": column.version,
        "dialects": list(column.dialects),
        "language": column.language,
        "library": column.library,
    } | ({"missing": column.missing} if column.missing else {})


def matrix_json(
    columns: Sequence[Column], cells: Sequence[Cell], chunkings: Sequence[str]
) -> dict[str, Any]:
    """The matrix as JSON builtins (the module docstring)."""
    return {
        "clients": [client_json(c) for c in columns],
        "chunkings": list(chunkings),
        "cells": [
            {
                "client": cell.client,
                "scenario": cell.scenario,
                "dialect": cell.dialect,
                "ok": cell.ok,
                "status": cell.status,
                "kinds": cell.kinds,
                "reason": cell.reason,
                "details": cell.details,
                "raised": cell.raised,
                "request": cell.request,
            }
            for cell in cells
        ],
    }


def write_json(
    path: Path, columns: Sequence[Column], cells: Sequence[Cell], chunkings: Sequence[str]
) -> None:
    document = matrix_json(columns, cells, chunkings)
    path.write_bytes(msgspec.json.format(msgspec.json.encode(document), indent=2) + b"\n")


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def matrix_markdown(
    columns: Sequence[Column], cells: Sequence[Cell], chunkings: Sequence[str]
) -> str:
    """The matrix as Markdown tables, one per dialect."""
    by_key = {(c.client, c.dialect, c.scenario): c for c in cells}
    columns = by_language(columns)
    dialects = list(dict.fromkeys(d for c in columns for d in c.dialects))
    lines = [
        f"Chunkings: {', '.join(chunkings)}. A cell is `✓` (passed), `◐` (passed with "
        "notices only: a form correct clients legitimately differ in), `✗` (failed) with the "
        "kinds of what differs from the reviewed expectation (`lost`, `wrong`, `unreported`, "
        "`invented`, `detail`: docs/conformance.md), or `-` (the library does not report "
        "what the case needs, or never receives such a response).",
        "",
    ]
    for dialect in dialects:
        present = [c for c in columns if dialect in c.dialects and c.missing is None]
        if not present:
            continue
        scenarios = sorted({c.scenario for c in cells if c.dialect == dialect})
        if not scenarios:
            continue
        lines.append(f"### {dialect}")
        lines.append("")
        lines.append("| scenario | " + " | ".join(f"{c.name} {c.version}" for c in present) + " |")
        lines.append("|---|" + "---|" * len(present))
        for scenario in scenarios:
            row = []
            for column in present:
                cell = by_key.get((column.name, dialect, scenario))
                if cell is None:
                    row.append("")
                elif cell.status == "fail":
                    row.append("**" + _escape(cell.mark) + "**")
                else:
                    row.append(_escape(cell.mark))
            lines.append(f"| {scenario} | " + " | ".join(row) + " |")
        lines.append("")
        totals = []
        for column in present:
            mine = [c for c in cells if c.client == column.name and c.dialect == dialect]
            passed = sum(c.status in ("pass", "notice") for c in mine)
            judged = sum(c.status != "skip" for c in mine)
            noticed = sum(c.status == "notice" for c in mine)
            totals.append(
                f"{column.name}: {passed}/{judged}" + (f" ({noticed} ◐)" if noticed else "")
            )
        lines.append("Passed: " + ", ".join(totals) + ".")
        lines.append("")
    described = [c for c in columns if c.how and c.missing is None]
    if described:
        lines.append("### How each client is read")
        lines.append("")
        lines.append("| client | language | library | what its user reads (what is compared) |")
        lines.append("|---|---|---|---|")
        lines += [
            f"| {c.name} {c.version} | {language_label(c.language)} | {_escape(c.library)} "
            f"| {_escape(c.how)} |"
            for c in described
        ]
        lines.append("")
    lines += not_run(columns)
    return "\n".join(lines)


def not_run(columns: Sequence[Column]) -> list[str]:
    """The line naming the columns that did not run, and why (none: no lines)."""
    missing = [c for c in columns if c.missing]
    if not missing:
        return []
    return [
        "Not run: " + "; ".join(f"{c.name} ({_escape(c.missing or '')})" for c in missing) + ".",
        "",
    ]


def write_markdown(
    path: Path, columns: Sequence[Column], cells: Sequence[Cell], chunkings: Sequence[str]
) -> None:
    path.write_text(matrix_markdown(columns, cells, chunkings), encoding="utf-8")
