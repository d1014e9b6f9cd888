"""The cache of ``raf conform --lf`` and ``--ff``: which cases failed the last time, per
implementation. Files only; what to do with them is the command's.

Like pytest's cache, it lives in a folder of the current directory (``.raf_cache``, or
``--cache-dir``), tagged so that backup and version-control tools leave it alone
(``CACHEDIR.TAG``, a ``.gitignore`` of ``*``), and it is only ever written inside that
folder. A cache that cannot be read is an empty one; one that cannot be written is a
warning, never a failure of the run.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path

__all__ = ["DEFAULT_CACHE_DIR", "LastFailed"]

DEFAULT_CACHE_DIR = ".raf_cache"

_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by raf conform.\n"
    "# For information about cache directory tags, see https://bford.info/cachedir/\n"
)
_MAX_BYTES = 16 * 1024 * 1024


class LastFailed:
    """The ids of the cases that failed in the last runs of one implementation (``key``:
    what identifies it: its command, level and transport)."""

    def __init__(self, folder: Path, key: str) -> None:
        self.folder = folder
        digest = hashlib.sha256(key.encode("utf-8", "replace")).hexdigest()[:16]
        self.path = folder / "conform" / f"lastfailed-{digest}.json"

    def read(self) -> set[str]:
        """The failed case ids (empty when there is no cache or it cannot be read)."""
        try:
            if not self.path.is_file() or self.path.stat().st_size > _MAX_BYTES:
                return set()
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return set()
        if not isinstance(data, list):
            return set()
        return {item for item in data if isinstance(item, str)}

    def update(self, failed: Iterable[str], ran: Iterable[str]) -> None:
        """Record a run: the cases of ``ran`` are forgotten, then those of ``failed`` added
        (cases not run this time keep what was known of them).

        Raises:
            OSError: the cache cannot be written.
        """
        known = self.read() - set(ran) | set(failed)
        self._prepare()
        temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            temporary.write_text(json.dumps(sorted(known), indent=0), encoding="utf-8")
            os.replace(temporary, self.path)
        finally:
            temporary.unlink(missing_ok=True)

    def _prepare(self) -> None:
        if self.folder.is_symlink():
            raise OSError(f"{self.folder} is a symbolic link (links are not followed)")
        fresh = not self.folder.exists()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if fresh:
            (self.folder / "CACHEDIR.TAG").write_text(_TAG, encoding="utf-8")
            (self.folder / ".gitignore").write_text(
                "# Created by raf conform automatically.\n*\n", encoding="utf-8"
            )
