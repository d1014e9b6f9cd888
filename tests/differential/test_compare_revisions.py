"""The differential tool refuses what would make its answer meaningless: a folder that is not
a raf checkout, and comparing a tree with itself (which an empty ``--old`` did, silently)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.differential.compare_revisions import main


@pytest.mark.parametrize("old", ["", ".", "missing", "a file", "empty folder"])
def test_a_meaningless_old_tree_is_a_usage_error(
    old: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    if old == "missing":
        old = str(tmp_path / "missing")
    elif old == "a file":
        (tmp_path / "file").write_bytes(b"\x00garbage")
        old = str(tmp_path / "file")
    elif old == "empty folder":
        old = str(tmp_path)
    with pytest.raises(SystemExit) as stopped:
        main(["--old", old, "--no-cassettes", "--fuzz", "0"])
    assert stopped.value.code == 2
    message = capsys.readouterr().err.strip().splitlines()[-1]
    assert "same folder" in message or "is not a checkout of raf" in message
    assert "Traceback" not in message
