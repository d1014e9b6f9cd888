"""The JSON report of a conformance run (``raf conform --json FILE``).

One object: the protocol, the implementation's name and version, the level, when it started
and how long it took, the count of each status, and one entry per case::

    {"protocol": "raf-conformance/1",
     "implementation": {"name": "example-node", "version": "1.0"},
     "level": "response", "started": "2026-12-01T09:00:00Z", "seconds": 3.2,
     "summary": {"pass": 212, "fail": 4, "skip": 0, "error": 0},
     "cases": [{"id": "openai_chat/plain_text#0@bytes", "scenario": "plain_text",
                "dialect": "openai_chat", "interaction": 0, "chunking": "bytes",
                "level": "response", "status": "pass", "ok": true, "reason": "",
                "diff": "", "stderr": "", "seconds": 0.004}, ...]}

``ok`` is true for a passed or skipped case; ``reason`` is one line naming the first field
that differs, ``diff`` every difference.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from raf.conformance.runner import RunReport
from raf.model.canonical import encode_json

__all__ = ["render_json", "report_document", "write_json"]


def report_document(report: RunReport) -> dict[str, Any]:
    """The report as JSON builtins."""
    return {
        "protocol": report.protocol,
        "implementation": {"name": report.implementation, "version": report.version},
        "level": report.level,
        "started": report.started,
        "seconds": round(report.seconds, 3),
        "summary": report.counts(),
        "cases": [
            {
                "id": r.id,
                "scenario": r.scenario,
                "dialect": r.dialect,
                "interaction": r.interaction,
                "chunking": r.chunking,
                "level": r.level,
                "status": r.status,
                "ok": r.ok,
                "reason": r.reason,
                "diff": r.diff,
                "stderr": r.stderr,
                "seconds": round(r.seconds, 4),
            }
            for r in report.results
        ],
    }


def render_json(report: RunReport) -> str:
    """The report's JSON text (indented, UTF-8, ending with a newline)."""
    return encode_json(report_document(report), indent=2) + "\n"


def write_json(report: RunReport, path: str | os.PathLike[str]) -> None:
    """Write the JSON report to ``path``."""
    Path(path).write_text(render_json(report), encoding="utf-8")
