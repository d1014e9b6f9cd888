"""The conformance reports say what raf did not read of each cassette: the JSON report's
``cassettes[].unread``, and a "Not read by raf" section in the terminal and HTML reports for
event types and fields raf does not know. Each cassette is read once, whatever the number of
its cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console

from raf.cassettes import persister
from raf.conformance.report import print_summary
from raf.conformance.reports import render_html, render_json
from raf.conformance.reports import unread as unread_module
from raf.conformance.runner import CaseResult, RunReport
from raf.shared.bundled import bundled

_BASE = "anthropic_messages/data_only_events_without_event_names"


def _recording(tmp_path: Path) -> Path:
    """A bundled cassette with a new event type (twice) and a new field."""
    cassette = persister.load(bundled().cassettes / f"{_BASE}.yaml")
    response = cassette.interactions[0].response
    new = b'event: content_block_flourish\ndata: {"type":"content_block_flourish"}\n\n'
    response.body = (
        new
        + new
        + response.content().replace(
            b'"type":"content_block_stop"', b'"type":"content_block_stop","flourish":1'
        )
    )
    cassette.interactions[0].timing = None
    return persister.save(cassette, tmp_path / "flourish.yaml")


def _report(*cassettes: Path) -> RunReport:
    report = RunReport(implementation="x", version="1", level="response")
    for path in cassettes:
        for chunking in ("whole", "bytes", "random"):
            report.results.append(
                CaseResult(
                    f"anthropic_messages/{path.stem}#0@{chunking}",
                    path.stem,
                    "anthropic_messages",
                    "response",
                    "pass",
                    0,
                    chunking,
                    cassette=str(path),
                )
            )
    return report


def test_the_json_report_has_what_raf_did_not_read_per_cassette(tmp_path: Path) -> None:
    path = _recording(tmp_path)
    plain = bundled().cassettes / f"{_BASE}.yaml"
    document = json.loads(render_json(_report(path, plain)))
    by_scenario = {c["scenario"]: c for c in document["cassettes"]}
    assert set(by_scenario) == {"flourish", plain.stem}
    flourish = by_scenario["flourish"]
    assert flourish["dialect"] == "anthropic_messages"
    assert flourish["cassette"] == str(path)
    assert flourish["unread"]["events"] == [
        {"type": "content_block_flourish", "count": 2, "first": 0, "why": "unrecognised"}
    ]
    assert {
        "path": "flourish",
        "event_type": "content_block_stop",
        "count": 1,
        "known": False,
    } in flourish["unread"]["fields"]
    assert by_scenario[plain.stem]["unread"]["events"] == []
    assert all(f["known"] for f in by_scenario[plain.stem]["unread"]["fields"])


def test_the_terminal_report_names_new_event_types_and_fields(tmp_path: Path) -> None:
    console = Console(record=True, width=300, color_system=None)
    print_summary(console, _report(_recording(tmp_path), bundled().cassettes / f"{_BASE}.yaml"))
    text = console.export_text()
    section = text.split("Not read by raf", 1)[1]
    assert (
        "anthropic_messages/flourish: event type content_block_flourish (2), field flourish (1)"
        in section
    )
    assert _BASE.split("/")[1] not in section  # only known fields: not listed


def test_the_terminal_report_says_nothing_when_raf_knows_everything() -> None:
    console = Console(record=True, width=300, color_system=None)
    print_summary(console, _report(bundled().cassettes / f"{_BASE}.yaml"))
    assert "Not read by raf" not in console.export_text()


def test_the_html_report_has_a_row_per_cassette_with_something_new(tmp_path: Path) -> None:
    page = render_html(_report(_recording(tmp_path), bundled().cassettes / f"{_BASE}.yaml"))
    section = page.split('<section id="not-read"', 1)[1].split("</section>", 1)[0]
    assert "Not read by raf (1 of 2 cassettes)" in section
    assert 'data-scenario="flourish" data-unrecognised="1" data-unknown="1"' in section
    assert "content_block_flourish (2)" in section
    assert "flourish in content_block_stop (1)" in section


def test_each_cassette_is_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _recording(tmp_path)
    loads: list[str] = []
    real = persister.load  # what raf.conformance.reports.unread reads cassettes with

    def counting(file: str) -> object:
        loads.append(str(file))
        return real(file)

    monkeypatch.setattr(unread_module, "load", counting)
    monkeypatch.setattr(unread_module, "_CACHE", {})
    report = _report(path)
    assert len(report.results) == 3
    render_json(report)
    render_html(report)
    assert loads == [str(path)]


def test_a_cassette_that_cannot_be_read_is_left_out(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("interactions: [", encoding="utf-8")
    document = json.loads(render_json(_report(broken, tmp_path / "missing.yaml")))
    assert document["cassettes"] == []
