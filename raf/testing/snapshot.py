"""A syrupy extension that stores raf goldens: one JSON file per cassette, in the format of
:mod:`raf.conformance.goldens`, under ``conformance/goldens/<dialect>/<scenario>.json``.

Use it with ``snapshot.use_extension(golden_extension(folder))`` and compare a
:class:`raf.conformance.Golden` with ``snapshot(name="<dialect>/<scenario>")``. Update the
files with ``pytest --snapshot-update`` and review the diff (docs/cassettes.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from syrupy.data import Snapshot, SnapshotCollection
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode
from syrupy.location import PyTestLocation
from syrupy.types import SnapshotIndex

from raf.conformance import goldens
from raf.conformance.goldens import Golden

__all__ = ["GoldenExtension", "golden_extension"]


class GoldenExtension(SingleFileSnapshotExtension):
    """Stores :class:`Golden` values; anything else is refused (no silent ``repr``)."""

    _write_mode = WriteMode.TEXT
    file_extension = "json"
    goldens_dir: ClassVar[Path] = Path("conformance/goldens")

    def serialize(self, data: Any, **_: Any) -> str:
        if not isinstance(data, Golden):
            raise TypeError(f"GoldenExtension stores raf Golden values, not {type(data).__name__}")
        return goldens.dumps(data)

    @classmethod
    def get_snapshot_name(cls, *, test_location: PyTestLocation, index: SnapshotIndex = 0) -> str:
        name = str(index)
        dialect, _, scenario = name.partition("/")
        goldens.golden_path(cls.goldens_dir, dialect, scenario)  # validates both parts
        return name

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        return str(cls.goldens_dir)

    def read_snapshot_collection(self, *, snapshot_location: str) -> SnapshotCollection:
        # The snapshot is named "<dialect>/<scenario>", after its place under goldens_dir.
        relative = Path(snapshot_location).relative_to(self.goldens_dir).with_suffix("")
        collection = SnapshotCollection(location=snapshot_location)
        collection.add(Snapshot(name=relative.as_posix()))
        return collection


def golden_extension(folder: Path) -> type[GoldenExtension]:
    """A :class:`GoldenExtension` storing its files under ``folder``."""
    return type("GoldenExtensionAt", (GoldenExtension,), {"goldens_dir": Path(folder)})
