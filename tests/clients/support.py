"""What the client-library tests share: the rule for a library that is not installed.

The libraries are the clients extra, kept out of the test install: without one, its tests
skip, saying so; with ``RAF_REQUIRE_CLIENTS=1`` (``tox -e clients``, which CI runs) a
missing one fails them instead, so CI never passes by skipping.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import pytest

from raf.cassettes.tool_loops import tool_loop_specs
from raf.client_matrix.outside import Session, node_clients, run_outside, run_outside_loops
from raf.client_matrix.run import Cell, merge
from raf.client_matrix.tool_loops import LoopCell, merge_loops
from raf.shared.bundled import bundled


def require(*modules: str) -> None:
    """Skip unless every module imports; with RAF_REQUIRE_CLIENTS=1 a missing one fails."""
    for module in modules:
        library(module)


def library(module: str, *, module_level: bool = False) -> ModuleType:
    """``module`` imported, or the skip (the failure, with RAF_REQUIRE_CLIENTS=1) that says
    it is missing; ``module_level`` for a test module that needs it to import at all."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        if os.environ.get("RAF_REQUIRE_CLIENTS") == "1":
            pytest.fail(f"{module} is required (RAF_REQUIRE_CLIENTS=1) but missing: {exc}")
        pytest.skip(
            f"{module} is not installed (tox -e clients runs this)", allow_module_level=module_level
        )


def node_session_or_skip(name: str, server: Any, *, loop: bool = False) -> Session:
    """The Node.js adapter ``name`` started on ``server`` (for tool loops: ``loop``, the
    server of the tool-loop recordings), or the skip (the failure, with
    RAF_REQUIRE_CLIENTS=1) that says Node.js or the npm libraries are missing."""
    client = node_clients()[name]
    if client.missing is not None:
        if os.environ.get("RAF_REQUIRE_CLIENTS") == "1":
            pytest.fail(f"{name} is required (RAF_REQUIRE_CLIENTS=1): {client.missing}")
        pytest.skip(f"{name}: {client.missing} (tox -e clients runs this)")
    session = Session.open(client, server, timeout=60.0 if loop else 20.0)
    if session.missing is not None:
        pytest.fail(f"{name} did not start: {session.missing}")
    return session


def node_cells(
    name: str, server: Any, *select: str, chunkings: Sequence[str] = ("whole", "random")
) -> dict[str, Cell]:
    """The Node.js adapter ``name``'s cells (merged over ``chunkings``) on the bundled
    scenarios matching ``select`` (all when none), by scenario."""
    folders = bundled()
    with node_session_or_skip(name, server) as session:
        cells = run_outside(
            session,
            cassettes=folders.cassettes,
            goldens=folders.goldens,
            chunkings=chunkings,
            select=select,
        )
    return {cell.scenario: cell for cell in merge(cells)}


def node_loop_cells(
    name: str, server: Any, *select: str, chunkings: Sequence[str] = ("whole",)
) -> dict[str, LoopCell]:
    """The Node.js tool-loop adapter ``name``'s cells (merged over ``chunkings``) on the
    bundled tool-loop recordings matching ``select``, by scenario; ``server`` serves
    ``bundled().tool_loops``."""
    folder = bundled().tool_loops
    specs = list(tool_loop_specs(folder))
    with node_session_or_skip(name, server, loop=True) as session:
        cells = run_outside_loops(
            session, folder=folder, specs=specs, chunkings=chunkings, select=select
        )
    return {cell.scenario: cell for cell in merge_loops(cells)}


def details(cell: Cell) -> str:
    """Every difference of ``cell``, one a line."""
    return "\n".join(cell.details)


def assert_fails_with(cell: Cell, *fragments: str) -> None:
    """The cell fails, and its details say each of ``fragments``."""
    assert cell.status == "fail"
    for fragment in fragments:
        assert fragment in details(cell)
