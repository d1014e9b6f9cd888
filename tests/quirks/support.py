"""What the quirk tests share: the repository's folders and the catalogue's cassettes."""

from __future__ import annotations

from pathlib import Path

from raf.cassettes import load

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = ROOT / "conformance" / "quirks.yaml"
CASSETTES = ROOT / "cassettes"
DOC = ROOT / "docs" / "fuzzing.md"
PEERS = ROOT.parent / "shared" / "research" / "peers.md"


def cassette_quirks() -> dict[str, tuple[str, ...]]:
    """Every bundled cassette (``<format>/<scenario>``) and the quirks its header names."""
    out: dict[str, tuple[str, ...]] = {}
    for path in sorted(CASSETTES.glob("*/*.yaml")):
        info = load(path).info
        assert info is not None, path
        out[f"{path.parent.name}/{path.stem}"] = info.quirks
    return out
