"""docs/fuzzing.md's table is the catalogue's, and ``python -m raf.quirks`` rewrites exactly
that table, in exactly the files it is given."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from raf.quirks import BEGIN, END, catalogue, main, render, table
from tests.quirks.support import DOC, ROOT


def test_the_documented_table_is_the_catalogue() -> None:
    assert DOC.is_file(), "docs/fuzzing.md is missing"
    text = DOC.read_text(encoding="utf-8")
    assert render(text) == text, "run: python -m raf.quirks docs/fuzzing.md"


def test_the_table_has_a_row_per_quirk_with_links() -> None:
    rendered = table(catalogue())
    rows = [line for line in rendered.splitlines() if line.startswith("| `")]
    assert [row.split("`")[1] for row in rows] == list(catalogue())
    row = next(r for r in rows if r.startswith("| `index_always_zero`"))
    assert "[ollama/ollama#15457](https://github.com/ollama/ollama/issues/15457)" in row
    assert (
        "[openai_chat/index_always_zero_distinct_ids]"
        "(../cassettes/openai_chat/index_always_zero_distinct_ids.yaml)" in row
    )


STALE = f"# Fuzzing\n\nBefore.\n\n{BEGIN}\n| old | table |\n{END}\n\nAfter.\n"


def test_the_command_rewrites_only_the_block_of_the_given_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc, other = tmp_path / "fuzzing.md", tmp_path / "other.md"
    doc.write_text(STALE, encoding="utf-8")
    other.write_text(STALE, encoding="utf-8")
    assert main(["--check", str(doc)]) == 1
    assert "not current" in capsys.readouterr().out
    assert doc.read_text(encoding="utf-8") == STALE
    assert main([str(doc)]) == 0
    text = doc.read_text(encoding="utf-8")
    assert text.startswith(f"# Fuzzing\n\nBefore.\n\n{BEGIN}\n| quirk |")
    assert text.endswith(f"|\n{END}\n\nAfter.\n")
    assert "| old | table |" not in text
    assert main(["--check", str(doc)]) == 0
    assert main([str(doc)]) == 0  # current: left alone
    assert other.read_text(encoding="utf-8") == STALE
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fuzzing.md", "other.md"]


@pytest.mark.parametrize(
    "text",
    [
        "# Fuzzing\n\nNo table here.\n",
        f"{BEGIN}\nunterminated\n",
        f"{BEGIN}\n{END}\n{BEGIN}\n{END}\n",
    ],
)
def test_a_file_without_one_block_is_refused_and_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    doc = tmp_path / "fuzzing.md"
    doc.write_text(text, encoding="utf-8")
    assert main([str(doc)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {doc}: ")
    assert err.count("\n") == 1
    assert BEGIN in err
    assert doc.read_text(encoding="utf-8") == text


def test_usage_errors_and_missing_files_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([]) == 2
    assert main(["--force", "x.md"]) == 2
    assert main([str(tmp_path / "missing.md")]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines[:2] == ["usage: python -m raf.quirks [--check] FILE..."] * 2
    assert lines[2].startswith(f"error: {tmp_path / 'missing.md'}: ")
    assert len(lines) == 3


def test_python_dash_m_runs_the_command(tmp_path: Path) -> None:
    doc = tmp_path / "fuzzing.md"
    doc.write_text(STALE, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "raf.quirks", "--check", str(doc)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr == ""
