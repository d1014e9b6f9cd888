"""docs/clients.md publishes the matrix and the tool loops `raf clients` writes: with the
libraries at the versions of tox.ini's ``clients`` environment, a fresh run writes exactly
what is there, in both parts.

This needs every library of the clients extra; without them it skips, and with
``RAF_REQUIRE_CLIENTS=1`` (as ``tox -e clients`` sets, in CI) a missing one fails it.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path

import pytest

from raf.cli import MATRIX_BEGIN, MATRIX_END, main
from raf.cli.clients import LOOPS_BEGIN, LOOPS_END
from raf.client_matrix.outside import node_clients
from raf.clients import TOOL_LOOP_ADAPTERS, adapter, names, tool_loop_adapter

DOC = Path(__file__).resolve().parents[2] / "docs" / "clients.md"


def _between_markers(text: str, begin: str = MATRIX_BEGIN, end: str = MATRIX_END) -> str:
    return text.split(begin, 1)[1].split(end, 1)[0].strip()


def test_the_published_matrix_is_what_raf_clients_writes_today(tmp_path: Path) -> None:
    missing = [name for name in names() if adapter(name).missing() is not None]
    missing += [n for n in TOOL_LOOP_ADAPTERS if tool_loop_adapter(n).missing() is not None]
    missing += [n for n, c in node_clients().items() if c.missing is not None]
    if missing:
        if os.environ.get("RAF_REQUIRE_CLIENTS") == "1":
            pytest.fail(f"the clients extra is required but missing: {', '.join(missing)}")
        pytest.skip(f"not installed: {', '.join(missing)} (tox -e clients runs this)")
    importlib.invalidate_caches()
    written = tmp_path / "clients.md"
    written.write_text(DOC.read_text(encoding="utf-8"), encoding="utf-8")
    assert main(["clients", "--markdown", str(written)]) == 0
    fresh = _between_markers(written.read_text(encoding="utf-8"))
    published = _between_markers(DOC.read_text(encoding="utf-8"))
    assert fresh == published, (
        "docs/clients.md is not what raf clients writes today: run "
        "`raf clients --markdown docs/clients.md` and review the change"
    )
    fresh_loops = _between_markers(written.read_text(encoding="utf-8"), LOOPS_BEGIN, LOOPS_END)
    published_loops = _between_markers(DOC.read_text(encoding="utf-8"), LOOPS_BEGIN, LOOPS_END)
    assert fresh_loops == published_loops, (
        "docs/clients.md's tool loops are not what raf clients writes today: run "
        "`raf clients --markdown docs/clients.md` and review the change"
    )
