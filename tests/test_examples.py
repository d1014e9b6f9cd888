"""``python -m raf.examples``: the tour's files written into a folder, never over a file."""

from __future__ import annotations

from pathlib import Path

import pytest

from raf import examples

ROOT = Path(__file__).resolve().parents[1]


def test_every_file_of_the_tour_is_shipped_and_is_the_repository_s() -> None:
    kit = ROOT / "raf" / "kit" / "node" / "raf-kit.mjs"  # the Node client's, beside it
    for name in examples.TOUR:
        repository = kit if name == "clients/node/raf-kit.mjs" else ROOT / "examples" / name
        assert examples.path(name).read_bytes() == repository.read_bytes()
    with pytest.raises(KeyError, match="not one of the tour's files"):
        examples.path("../pyproject.toml")


def test_it_writes_the_files_then_finds_them_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert examples.main([]) == 0
    assert capsys.readouterr().out.splitlines() == [f"wrote examples/{n}" for n in examples.TOUR]
    for name in examples.TOUR:
        assert (tmp_path / "examples" / name).read_bytes() == examples.path(name).read_bytes()
    assert examples.main([]) == 0
    assert capsys.readouterr().out == f"{len(examples.TOUR)} file(s) already there, unchanged\n"
    assert examples.main(["elsewhere/deeper"]) == 0
    assert (tmp_path / "elsewhere" / "deeper" / "clients" / "node" / "client.js").is_file()
    assert (tmp_path / "elsewhere" / "deeper" / "clients" / "node" / "raf-kit.mjs").is_file()


def test_it_never_overwrites_and_writes_nothing_when_it_refuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = tmp_path / "my_parser.py"
    mine.write_text("my own parser\n")
    assert examples.main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert (
        err == f"raf: {mine} exists with other content (it is not overwritten); nothing written\n"
    )
    assert mine.read_text() == "my own parser\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["my_parser.py"]


@pytest.mark.parametrize("where", ["folder", "clients"])
def test_links_and_files_in_the_way_are_refused(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = tmp_path / "out"
    if where == "folder":
        target.symlink_to(elsewhere)
        problem = "is a symbolic link (links are not followed)"
    else:
        target.mkdir()
        (target / "clients").write_text("")
        problem = "exists and is not a folder"
    assert examples.main([str(target)]) == 2
    assert problem in capsys.readouterr().err
    assert list(elsewhere.iterdir()) == []


def test_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert examples.main(["--help"]) == 0
    assert capsys.readouterr().out.startswith("usage: python -m raf.examples [FOLDER]")
    assert examples.main(["a", "b"]) == 2
    assert examples.main(["--force"]) == 2
    assert capsys.readouterr().err.count("raf: usage: ") == 2
