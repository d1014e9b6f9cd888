"""The JUnit XML report of a conformance run (``raf conform --junit FILE``), as CI systems
read it: one ``testsuite`` per dialect, one ``testcase`` per case (``classname``
``raf.<dialect>.<scenario>``, ``name`` the case id), with ``failure`` (the reason, then the
diff and the implementation's stderr), ``error`` or ``skipped`` elements."""

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
    if result.status == "skip":
        ET.SubElement(case, "skipped", message=_clean(result.reason))
    elif result.status in ("fail", "error"):
        tag = "failure" if result.status == "fail" else "error"
        element = ET.SubElement(case, tag, message=_clean(result.reason))
        body = result.diff or result.reason
        if result.stderr.strip():
            body += "\n\n--- stderr ---\n" + result.stderr
        element.text = _clean(body)


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
            failures=str(sum(r.status == "fail" for r in results)),
            errors=str(sum(r.status == "error" for r in results)),
            skipped=str(sum(r.status == "skip" for r in results)),
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
