"""The catalogue and the cassettes agree: each cassette the catalogue lists names the quirk
in its header and the other way round; lint and show speak of the quirks."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from raf.cassettes import Cassette, Interaction, Request, Response, ScenarioInfo, load, save
from raf.cassettes.lint import lint_file
from raf.cassettes.show import render
from raf.quirks import catalogue
from tests.quirks.support import cassette_quirks


def test_the_catalogue_lists_only_bundled_cassettes() -> None:
    bundled = cassette_quirks()
    missing = [
        (q.id, name) for q in catalogue().values() for name in q.cassettes if name not in bundled
    ]
    assert missing == []


def test_each_listed_cassette_names_the_quirk() -> None:
    headers = cassette_quirks()
    unnamed = [
        (q.id, name)
        for q in catalogue().values()
        for name in q.cassettes
        if q.id not in headers.get(name, ())
    ]
    assert unnamed == [], "(quirk, cassette) pairs the cassette's raf.quirks does not name"


def test_each_quirk_a_cassette_names_lists_the_cassette() -> None:
    quirks = catalogue()
    unlisted = [
        (name, ident)
        for name, idents in cassette_quirks().items()
        for ident in idents
        if ident not in quirks or name not in quirks[ident].cassettes
    ]
    assert unlisted == [], "(cassette, quirk) pairs the catalogue does not list"


def test_most_bundled_cassettes_show_a_quirk() -> None:
    headers = cassette_quirks()
    assert sum(bool(q) for q in headers.values()) >= len(headers) * 3 // 4


def cassette(tmp_path: Path, quirks: tuple[str, ...], dialect: str = "openai_chat") -> Path:
    body = b'data: {"choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\ndata: [DONE]\n\n'
    return save(
        Cassette(
            interactions=[
                Interaction(
                    request=Request(uri="https://api.openai.com/v1/chat/completions"),
                    response=Response(headers={"content-type": ["text/event-stream"]}, body=body),
                )
            ],
            info=ScenarioInfo(scenario="tagged", dialect=dialect, quirks=quirks),
        ),
        tmp_path / "tagged.yaml",
    )


def test_the_quirks_round_trip_through_a_saved_cassette(tmp_path: Path) -> None:
    path = cassette(tmp_path, ("leading_bom", "truncated"))
    assert "quirks:\n  - leading_bom\n  - truncated\n" in path.read_text(encoding="utf-8")
    info = load(path).info
    assert info is not None
    assert info.quirks == ("leading_bom", "truncated")


def test_lint_reports_an_unknown_quirk_at_its_place(tmp_path: Path) -> None:
    path = cassette(tmp_path, ("leading_bom", "leading_bomb"))
    errors = [f for f in lint_file(path) if f.severity == "error"]
    assert [(f.where, f.line > 0) for f in errors] == [("raf.quirks[1]", True)]
    assert "unknown quirk 'leading_bomb'" in errors[0].message


def test_lint_warns_of_a_quirk_of_another_format(tmp_path: Path) -> None:
    path = cassette(tmp_path, ("json_array_body",))
    findings = [f for f in lint_file(path) if "quirk" in f.message]
    assert [(f.severity, f.where) for f in findings] == [("warning", "raf.quirks[0]")]
    assert "gemini" in findings[0].message


def test_lint_accepts_catalogued_quirks(tmp_path: Path) -> None:
    path = cassette(tmp_path, ("leading_bom", "truncated"))
    assert [f for f in lint_file(path) if "quirk" in f.message] == []


def test_show_lists_each_quirk_with_what_the_provider_does(tmp_path: Path) -> None:
    out = io.StringIO()
    render(Console(file=out, width=200), load(cassette(tmp_path, ("leading_bom", "nope"))))
    text = out.getvalue()
    assert f"quirk leading_bom: {catalogue()['leading_bom'].title}" in text
    assert "quirk nope: not in the quirk catalogue" in text
