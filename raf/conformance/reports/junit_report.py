"""The JUnit XML report of a conformance run (``raf conform --junit FILE``), as CI systems
read it: one ``testsuite`` per dialect, one ``testcase`` per case (``classname``
``raf.<dialect>.<scenario>``, ``name`` the case id), with ``failure`` (the reason, each
difference with its kind and severity, the diff and the implementation's stderr; also a case
with a stale baseline entry), ``error`` or ``skipped`` elements (a known failure is skipped,
``type="known"``, as pytest writes an xfail); a case that passed with notices lists them in
``system-out``."""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

from raf.conformance.runner import CaseResult, RunReport

__all__ = ["render_junit", "write_junit"]

# Characters XML 1.0 cannot hold, even escaped.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def _clean(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def _testcase(suite: ET.Element, result: CaseResult) -> None:
    case = ET.SubElement(
        suite,
        "testcase",
        classname=_clean(f"raf.{result.dialect}.{result.scenario}"),
        name=_clean(result.id),
        time=f"{result.seconds:.4f}",
    )
    lines = [
        f"{d.mismatch.kind} ({d.severity}{', known' if d.known else ''}): {d.mismatch.summary()}"
        for d in result.differences
    ]
    if result.status == "skip":
        ET.SubElement(case, "skipped", message=_clean(result.reason))
    elif result.status == "known" and not result.stale:
        # As pytest writes an xfail: skipped, with the reason.
        element = ET.SubElement(
            case, "skipped", type="known", message=_clean("known failure: " + result.reason)
        )
        element.text = _clean("\n".join(lines))
    elif result.status in ("fail", "error") or result.stale:
        tag = "error" if result.status == "error" else "failure"
        element = ET.SubElement(case, tag, message=_clean(result.reason))
        body = "\n".join(lines) + "\n\n" if lines else ""
        body += result.diff or result.reason
        if result.stale:
            body += "\n\nbaseline entries that no longer fail here (remove them): " + "; ".join(
                e.label() for e in result.stale
            )
        if result.stderr.strip():
            body += "\n\n--- stderr ---\n" + result.stderr
        element.text = _clean(body)
    elif result.notices:
        out = ET.SubElement(case, "system-out")
        out.text = _clean("notices (they do not fail the case):\n" + "\n".join(lines))


def render_junit(report: RunReport) -> str:
    """The report as JUnit XML text."""
    root = ET.Element("testsuites", name=_clean(f"raf conform: {report.implementation}"))
    by_dialect: dict[str, list[CaseResult]] = defaultdict(list)
    for result in report.results:
        by_dialect[result.dialect].append(result)
    for dialect, results in by_dialect.items():
        suite = ET.SubElement(
            root,
            "testsuite",
            name=_clean(f"raf.{dialect}"),
            tests=str(len(results)),
            failures=str(
                sum(r.status == "fail" or (bool(r.stale) and r.status != "error") for r in results)
            ),
            errors=str(sum(r.status == "error" for r in results)),
            skipped=str(
                sum(r.status == "skip" or (r.status == "known" and not r.stale) for r in results)
            ),
            time=f"{sum(r.seconds for r in results):.3f}",
            timestamp=report.started,
        )
        properties = ET.SubElement(suite, "properties")
        for name, value in (
            ("protocol", report.protocol),
            ("implementation", report.implementation),
            ("version", report.version),
            ("level", report.level),
        ):
            ET.SubElement(properties, "property", name=name, value=_clean(value))
        for result in results:
            _testcase(suite, result)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def write_junit(report: RunReport, path: str | os.PathLike[str]) -> None:
    """Write the JUnit XML report to ``path``."""
    Path(path).write_text(render_junit(report), encoding="utf-8")
