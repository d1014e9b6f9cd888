"""The shared corpus of real recorded streams (``../shared/corpus``), imported with raf's own
importer. Read-only; tests that use it skip cleanly when it is absent (set ``RAF_CORPUS`` to
point elsewhere)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from raf.cassettes.importers import guess_dialect, import_file, is_event_stream
from raf.dialects import names

ROOT = Path(
    os.environ.get("RAF_CORPUS") or Path(__file__).resolve().parents[2] / "shared" / "corpus"
)


@dataclass(frozen=True)
class RecordedStream:
    """One streamed response of a recorded cassette."""

    path: Path
    index: int
    uri: str
    body: bytes

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(ROOT)}#{self.index}"

    @property
    def wire_format(self) -> str:
        return guess_dialect(self.uri)

    @property
    def dialect(self) -> str | None:
        """The raf dialect for this stream, or None while raf has none for its format."""
        return self.wire_format if self.wire_format in names() else None


def recorded_streams() -> list[RecordedStream]:
    """Every ``text/event-stream`` response in the corpus, imported by raf, in path order."""
    if not ROOT.is_dir():
        return []
    out = []
    for path in sorted(ROOT.rglob("*.yaml")):
        cassette = import_file(path)
        for index, interaction in enumerate(cassette.interactions):
            if is_event_stream(interaction):
                out.append(
                    RecordedStream(path, index, interaction.request.uri, interaction.response.body)
                )
    return out
