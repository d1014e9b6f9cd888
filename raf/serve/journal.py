"""The request journal of ``raf serve``: every request received, scrubbed. No network.

Each entry holds the time, the method, path and query, the request headers with every secret
redacted (the rules of docs/secrets.md: ``authorization``, ``x-api-key``... and any token of
a known shape), the body (its first :data:`MAX_BODY_CHARS` characters, scrubbed too), the
case it named, the interaction answered, the status sent, the :mod:`request check
<raf.serve.request_check>` and how the response ended. ``GET /_raf/journal`` returns the
entries kept in memory (the last ``size``); with a file, every entry is also appended to it
as one JSON line, when its response has ended.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from pathlib import Path
from typing import IO, Any, Final

import msgspec

from raf.cassettes.scrub import scrub_headers, scrub_text
from raf.limits import SERVE_JOURNAL_BODY_CHARS, SERVE_JOURNAL_ENTRIES

__all__ = ["DEFAULT_SIZE", "MAX_BODY_CHARS", "Journal"]

DEFAULT_SIZE: Final = SERVE_JOURNAL_ENTRIES
MAX_BODY_CHARS: Final = SERVE_JOURNAL_BODY_CHARS


class Journal:
    """Entries in order; thread-safe (the server writes, a test reads)."""

    def __init__(self, size: int = DEFAULT_SIZE, file: Path | None = None) -> None:
        self._entries: deque[dict[str, Any]] = deque(maxlen=size)
        self._lock = threading.Lock()
        self._count = 0
        self._file: IO[bytes] | None = file.open("ab") if file is not None else None

    def record(
        self, *, method: str, path: str, query: str, headers: list[tuple[str, str]], body: bytes
    ) -> dict[str, Any]:
        """A new entry for a request (completed later with :meth:`finish`)."""
        grouped: dict[str, list[str]] = {}
        for name, value in headers:
            grouped.setdefault(name.lower(), []).append(value)
        text = body[: MAX_BODY_CHARS * 4].decode("utf-8", "replace")[:MAX_BODY_CHARS]
        with self._lock:
            self._count += 1
            entry: dict[str, Any] = {
                "seq": self._count,
                "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "method": method,
                "path": scrub_text(path),
                "query": scrub_text(query),
                "headers": {k: ", ".join(v) for k, v in scrub_headers(grouped).items()},
                "body": scrub_text(text),
                "body_bytes": len(body),
                "case": None,
                "interaction": None,
                "status": None,
                "check": None,
                "outcome": "pending",
                "bytes_sent": 0,
            }
            self._entries.append(entry)
        return entry

    def finish(self, entry: dict[str, Any], **fields: Any) -> None:
        """Complete ``entry`` (status, outcome...) and append it to the file."""
        with self._lock:
            entry.update(fields)
            if self._file is not None:
                self._file.write(msgspec.json.encode(entry) + b"\n")
                self._file.flush()

    def entries(self) -> list[dict[str, Any]]:
        """A copy of the entries kept, oldest first."""
        with self._lock:
            return [dict(e) for e in self._entries]

    @property
    def count(self) -> int:
        """Requests recorded so far (including those no longer kept)."""
        with self._lock:
            return self._count

    def since(self, count: int) -> list[dict[str, Any]]:
        """The entries recorded after the first ``count`` (those still kept)."""
        with self._lock:
            return [dict(e) for e in self._entries if e["seq"] > count]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None
