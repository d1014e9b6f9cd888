"""The request-side bugs of earlier releases (conformance/client_history.yaml): the file is
well formed, and ``raf clients --history`` shows each bug, the rule failing on the release
that had it and passing on the one with the fix, as docs/clients.md publishes.

Running the releases needs pip and the package index: it runs with ``RAF_REQUIRE_CLIENTS=1``
(``tox -e clients``, CI), its environments kept under ``.tox/raf-history`` between runs.
"""

from __future__ import annotations

import os
from pathlib import Path

import msgspec
import pytest

from raf.cli import main
from raf.cli.clients import HISTORY_BEGIN, HISTORY_END
from raf.client_matrix.history import HistoryError, history_file, load_history

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "clients.md"


def test_every_entry_names_a_tool_loop_a_recording_a_rule_and_exact_releases() -> None:
    bugs = load_history()
    assert bugs, f"{history_file()} lists no bug"
    for bug in bugs:
        assert bug.broken[0].split("==")[0] == bug.fixed[0].split("==")[0], bug.id


def test_a_loose_pin_is_refused(tmp_path: Path) -> None:
    text = history_file().read_text(encoding="utf-8").replace("==", ">=", 1)
    loose = tmp_path / "client_history.yaml"
    loose.write_text(text, encoding="utf-8")
    with pytest.raises(HistoryError, match="not pinned exactly"):
        load_history(loose)


def test_each_bug_fails_its_rule_before_the_fix_and_passes_after(tmp_path: Path) -> None:
    if os.environ.get("RAF_REQUIRE_CLIENTS") != "1":
        pytest.skip("installs earlier releases with pip (tox -e clients runs this)")
    cache = ROOT / ".tox" / "raf-history"
    cache.mkdir(parents=True, exist_ok=True)
    written = tmp_path / "history.json"
    markdown = tmp_path / "clients.md"
    markdown.write_text(DOC.read_text(encoding="utf-8"), encoding="utf-8")
    status = main(
        ["clients", "--history", str(cache), "--json", str(written), "--markdown", str(markdown)]
    )
    results = msgspec.json.decode(written.read_bytes())["history"]
    assert [r["id"] for r in results] == [b.id for b in load_history()]
    for result in results:
        assert result["rule"] in result["broken"]["rules"], result
        assert result["rule"] not in result["fixed"]["rules"], result
        assert result["shown"], result
    assert status == 0
    fresh = markdown.read_text(encoding="utf-8").split(HISTORY_BEGIN, 1)[1].split(HISTORY_END)[0]
    published = DOC.read_text(encoding="utf-8").split(HISTORY_BEGIN, 1)[1].split(HISTORY_END)[0]
    assert fresh == published, (
        "docs/clients.md's history table is not what raf clients --history writes: run "
        "`raf clients --history .tox/raf-history --markdown docs/clients.md`"
    )
