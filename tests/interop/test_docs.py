"""docs/interop.md's tables are what the models' rows and the verifier's rules say."""

from __future__ import annotations

from raf.interop import names
from raf.interop.tables import render
from tests.interop.support import ROOT

DOC = ROOT / "docs" / "interop.md"


def test_every_model_has_its_table_in_the_document() -> None:
    text = DOC.read_text(encoding="utf-8")
    for name in names():
        assert f"<!-- rows: {name} -->" in text, f"docs/interop.md has no table for {name}"
    assert "<!-- agui: rules -->" in text


def test_the_tables_are_what_the_rows_say() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert render(text) == text, "run: python -m raf.interop.tables docs/interop.md"
