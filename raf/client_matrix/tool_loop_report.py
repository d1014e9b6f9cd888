"""The tool-loop section of the real-client matrix as files: JSON for tools, Markdown for
docs/clients.md ("Tool loops"). No network.

JSON (the ``tool_loops`` member of ``raf clients --json``)::

    {"clients": [{"name": "openai-loop", "version": "3.57.0", "dialects": ["openai_chat"],
                  "language": "Python", "library": "openai"}],
     "chunkings": ["whole", "random"],
     "cells": [{"client": "openai-loop", "scenario": "two_tools", "dialect": "openai_chat",
                "ok": false, "status": "fail",
                "response": {"status": "pass", "reason": "", "kinds": [], "details": []},
                "requests": {"status": "fail", "reason": "wrong: rule chat.x", ...},
                "rules": ["chat.x"], "sent": 4, "raised": null, "skip": ""}]}

``clients`` as in the stream matrix (:func:`raf.client_matrix.report.client_json`: with each
column's ``language`` and ``library``).

Markdown: per dialect, a table whose rows are the recordings and whose columns are the tool
loops (name and version), grouped by language as in the stream matrix, each cell
``response / requests``; then the totals per client and the paragraph saying how each loop
is driven, with its language.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from raf.client_matrix.report import Column, by_language, client_json, language_label, not_run
from raf.client_matrix.tool_loops import LoopCell

__all__ = ["tool_loops_json", "tool_loops_markdown"]


def tool_loops_json(
    columns: Sequence[Column], cells: Sequence[LoopCell], chunkings: Sequence[str]
) -> dict[str, Any]:
    """The tool-loop section as JSON builtins (the module docstring)."""
    return {
        "clients": [client_json(c) for c in columns],
        "chunkings": list(chunkings),
        "cells": [cell.to_builtins() for cell in cells],
    }


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def tool_loops_markdown(
    columns: Sequence[Column], cells: Sequence[LoopCell], chunkings: Sequence[str]
) -> str:
    """The tool-loop section as Markdown tables, one per dialect."""
    by_key = {(c.client, c.dialect, c.scenario): c for c in cells}
    columns = by_language(columns)
    dialects = sorted({d for c in columns for d in c.dialects})
    lines = [
        f"Chunkings: {', '.join(chunkings)}. A cell is `response / requests`: the verdict on "
        "the final answer the library hands its user (as in the stream matrix: `✓`, `◐`, or "
        "`✗` with the kinds of what differs) and the verdict on every request its loop sent "
        "(`✓`, or `✗` with the request rules broken, by id, the places where a request "
        "differs from the recorded one, and `lost`/`invented` requests when the loop sent "
        "fewer or more than the recording has); `-` when the recording is not the library's.",
        "",
    ]
    for dialect in dialects:
        present = [c for c in columns if dialect in c.dialects and c.missing is None]
        if not present:
            continue
        scenarios = sorted({c.scenario for c in cells if c.dialect == dialect})
        if not scenarios:
            continue
        lines.append(f"### {dialect} tool loops")
        lines.append("")
        lines.append("| recording | " + " | ".join(f"{c.name} {c.version}" for c in present) + " |")
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
            totals.append(f"{column.name}: {passed}/{judged}")
        lines.append("Passed (both levels): " + ", ".join(totals) + ".")
        lines.append("")
    described = [c for c in columns if c.how and c.missing is None]
    if described:
        lines.append("### How each tool loop is driven")
        lines.append("")
        lines.append(
            "| client | language | library | the library's loop, as its documentation shows it |"
        )
        lines.append("|---|---|---|---|")
        lines += [
            f"| {c.name} {c.version} | {language_label(c.language)} | {_escape(c.library)} "
            f"| {_escape(c.how)} |"
            for c in described
        ]
        lines.append("")
    lines += not_run(columns)
    return "\n".join(lines)
