"""The JSON report of a conformance run (``raf conform --json FILE``).

One object: the protocol, the implementation's name and version, the level and transport,
when it started and how long it took, whether and why it stopped early, the policy (which
severities fail, and every kind's severity), the baseline and its stale entries, the count of
each status, and one entry per case::

    {"protocol": "raf-conformance/1",
     "implementation": {"name": "example-node", "version": "1.0"},
     "level": "response", "transport": "chunks", "started": "2026-12-01T09:00:00Z",
     "seconds": 3.2, "planned": 582, "stopped": "", "fatal": "",
     "policy": {"fail_on": "error", "severities": {"lost": "error", ..., "detail": "notice"}},
     "baseline": "known.yaml", "stale": [{"entry": {...}, "chunkings": ["bytes"]}],
     "summary": {"pass": 212, "fail": 4, "known": 0, "skip": 0, "error": 0, "notices": 3},
     "cases": [{"id": "openai_chat/plain_text#0@bytes", "scenario": "plain_text",
                "dialect": "openai_chat", "interaction": 0, "chunking": "bytes",
                "level": "response", "status": "pass", "ok": true, "reason": "",
                "diff": "", "stderr": "", "seconds": 0.004, "not_run": false,
                "reading": "", "stale": [],
                "differences": [{"where": "usage.reasoning_tokens",
                                 "field": "usage.reasoning_tokens", "level": "response",
                                 "kind": "detail", "severity": "notice", "fails": false,
                                 "known": false, "expected": "...", "actual": "0"}]}, ...],
     "cassettes": [{"dialect": "openai_chat", "scenario": "plain_text",
                    "cassette": "cassettes/openai_chat/plain_text.yaml",
                    "unread": {"events": [{"type": "new.thing", "count": 1, "first": 3,
                                           "why": "unrecognised"}],
                               "fields": [{"path": "created", "event_type": null,
                                           "count": 12, "known": true}]}}, ...]}

``ok`` is true for a passed, known or skipped case with no stale baseline entry; ``reason`` is
one line naming the first failing difference, ``diff`` every difference; ``differences`` has
each with its kind and severity (docs/conformance.md). ``cassettes`` has, for each cassette
the cases came from, what raf did not read of its responses
(:meth:`raf.cassettes.inventory.Unread.to_json`: event types it did not read, ``unrecognised``
or ``skipped``, and fields it left aside, ``known`` or not), read once per cassette.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from raf.conformance.baseline import Entry
from raf.conformance.reports.unread import unread_by_cassette
from raf.conformance.runner import Difference, RunReport
from raf.conformance.severity import KINDS
from raf.model.canonical import encode_json

__all__ = ["render_json", "report_document", "write_json"]


def _entry(entry: Entry) -> dict[str, Any]:
    return {
        "format": entry.format,
        "scenario": entry.scenario,
        "level": entry.level,
        "field": entry.field,
        "kind": entry.kind,
        "interaction": entry.interaction,
        "chunkings": list(entry.chunkings),
        "reason": entry.reason,
    }


def _difference(difference: Difference) -> dict[str, Any]:
    m = difference.mismatch
    return {
        "where": m.where,
        "field": m.key,
        "level": m.level,
        "kind": m.kind,
        "severity": difference.severity,
        "fails": difference.fails,
        "known": difference.known,
        "expected": m.expected,
        "actual": m.actual,
    }


def report_document(report: RunReport) -> dict[str, Any]:
    """The report as JSON builtins."""
    policy = report.policy
    return {
        "protocol": report.protocol,
        "implementation": {"name": report.implementation, "version": report.version},
        "level": report.level,
        "transport": report.transport,
        "started": report.started,
        "seconds": round(report.seconds, 3),
        "planned": report.planned,
        "stopped": report.stopped,
        "fatal": report.fatal,
        "policy": {
            "fail_on": policy.fail_on,
            "severities": {kind: policy.severity(kind) for kind in KINDS},
        },
        "baseline": report.baseline.source if report.baseline is not None else None,
        "stale": [
            {"entry": _entry(item.entry), "chunkings": list(item.chunkings)}
            for item in report.stale()
        ],
        "summary": {**report.counts(), "notices": report.notices()},
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
                "not_run": r.not_run,
                "reading": r.reading,
                "stale": [_entry(e) for e in r.stale],
                "differences": [_difference(d) for d in r.differences],
            }
            for r in report.results
        ],
        "cassettes": [
            {
                "dialect": entry.dialect,
                "scenario": entry.scenario,
                "cassette": entry.cassette,
                "unread": entry.unread.to_json(),
            }
            for entry in unread_by_cassette(report.results)
        ],
    }


def render_json(report: RunReport) -> str:
    """The report's JSON text (indented, UTF-8, ending with a newline)."""
    return encode_json(report_document(report), indent=2) + "\n"


def write_json(report: RunReport, path: str | os.PathLike[str]) -> None:
    """Write the JSON report to ``path``."""
    Path(path).write_text(render_json(report), encoding="utf-8")
