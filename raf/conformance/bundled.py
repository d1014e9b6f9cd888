"""Where the bundled suite is: the cassettes, goldens and schemas raf ships. Reads nothing.

The repository holds one copy, in ``cassettes/`` and ``conformance/``; the wheel packages
them as ``raf/_bundled/{cassettes,goldens,schema}`` (``pyproject.toml``), so
``pip install raf && raf conform`` works from any folder. In a checkout (or an editable
install) the repository's own folders are used.

    from raf.conformance.bundled import bundled

    suite = bundled()
    suite.cassettes  # Path of the cassette folder (<dialect>/<scenario>.yaml)
    suite.goldens    # Path of the golden folder (<dialect>/<scenario>.json)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["BundledSuite", "bundled"]

_PACKAGE = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class BundledSuite:
    """The folders of the bundled suite."""

    cassettes: Path
    goldens: Path
    schema: Path


def bundled() -> BundledSuite:
    """The bundled suite's folders: inside the installed package, else the repository's.

    Raises:
        FileNotFoundError: neither exists (a broken installation).
    """
    packaged = _PACKAGE / "_bundled"
    if (packaged / "cassettes").is_dir():
        return BundledSuite(packaged / "cassettes", packaged / "goldens", packaged / "schema")
    repository = _PACKAGE.parent
    if (repository / "cassettes").is_dir() and (repository / "conformance" / "goldens").is_dir():
        return BundledSuite(
            repository / "cassettes",
            repository / "conformance" / "goldens",
            repository / "conformance" / "schema",
        )
    raise FileNotFoundError(f"the bundled cassettes are missing from {packaged} (reinstall raf)")
