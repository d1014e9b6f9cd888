"""Where the bundled suite is: the cassettes, goldens and schemas raf ships. Reads nothing.

The repository holds one copy, in ``cassettes/`` and ``conformance/``; the wheel packages
them as ``raf/_bundled/{cassettes,goldens,schema,tool_loops}`` (``pyproject.toml``), so
``pip install raf && raf conform`` works from any folder. In a checkout (or an editable
install) the repository's own folders are used. Below every shell: ``raf serve`` serves
these cassettes by default, ``raf conform`` judges against these goldens.

    from raf.shared.bundled import bundled  # also raf.conformance.bundled (docs/conformance.md)

    suite = bundled()
    suite.cassettes  # Path of the cassette folder (<dialect>/<scenario>.yaml)
    suite.goldens    # Path of the golden folder (<dialect>/<scenario>.json)
    suite.tool_loops  # Path of the agent's multi-round recordings (<format>/<scenario>.yaml)
    suite.tool_loop_scenarios  # Path of the scenarios that replay them (docs/agent.md)
    suite.quirks  # Path of the quirk catalogue (raf.quirks, docs/fuzzing.md)
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

__all__ = ["BundledSuite", "bundled", "owned_by_raf"]

_PACKAGE = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class BundledSuite:
    """The folders of the bundled suite. ``tool_loops`` holds the agent's multi-round
    recordings (the ``tool_loop`` cases of ``raf conform --transport http``) and
    ``tool_loop_scenarios`` the file of the agent scenarios that replay them and the bundled
    follow-up recordings (``raf chat``, docs/agent.md)."""

    cassettes: Path
    goldens: Path
    schema: Path
    tool_loops: Path
    tool_loop_scenarios: Path
    quirks: Path
    """The quirk catalogue (:mod:`raf.quirks`)."""


def bundled() -> BundledSuite:
    """The bundled suite's folders: inside the installed package, else the repository's.

    Raises:
        FileNotFoundError: neither exists (a broken installation).
    """
    packaged = _PACKAGE / "_bundled"
    if (packaged / "cassettes").is_dir():
        return BundledSuite(
            packaged / "cassettes",
            packaged / "goldens",
            packaged / "schema",
            packaged / "tool_loops",
            packaged / "tool_loop_scenarios.yaml",
            packaged / "quirks.yaml",
        )
    repository = _PACKAGE.parent
    if (repository / "cassettes").is_dir() and (repository / "conformance" / "goldens").is_dir():
        return BundledSuite(
            repository / "cassettes",
            repository / "conformance" / "goldens",
            repository / "conformance" / "schema",
            repository / "conformance" / "tool_loops",
            repository / "conformance" / "tool_loop_scenarios.yaml",
            repository / "conformance" / "quirks.yaml",
        )
    raise FileNotFoundError(f"the bundled cassettes are missing from {packaged} (reinstall raf)")


def owned_by_raf(path: str | Path) -> str | None:
    """Why no command may write ``path``, or ``None``: it is inside the installed ``raf``
    package (the bundled suite included), or inside the bundled goldens wherever they are (a
    clone's ``conformance/goldens`` too: raf's own goldens change only through ``pytest
    tests/test_goldens.py --snapshot-update``, after review, docs/cassettes.md). Links are
    resolved first, so a link into the package is refused too."""
    target = Path(path).resolve()
    owned = [("the installed raf package", _PACKAGE)]
    with contextlib.suppress(FileNotFoundError):
        owned.append(("raf's bundled goldens", bundled().goldens))
    for what, folder in owned:
        root = folder.resolve()
        if target == root or root in target.parents:
            return f"{path} is inside {what} ({root}): raf never writes there"
    return None
