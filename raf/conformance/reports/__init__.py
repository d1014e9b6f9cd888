"""Reports of a conformance run that other programs read: JSON, JUnit XML and a
self-contained HTML page. Each module renders a :class:`raf.conformance.runner.RunReport`
to text and writes it to a file."""

from raf.conformance.reports.html_report import render_html, write_html
from raf.conformance.reports.json_report import render_json, write_json
from raf.conformance.reports.junit_report import render_junit, write_junit

__all__ = ["render_html", "render_json", "render_junit", "write_html", "write_json", "write_junit"]
