"""The request journal of ``raf serve``: every request received, scrubbed. No network.

Each entry holds a sequence number (``seq``, from 1), the time, the method, path and query,
the request headers, the body (its first :data:`MAX_BODY_BYTES` bytes), the case it named,
the run (``/r/<run>``), the interaction answered and how it was matched
(:mod:`raf.serve.rounds`), the status sent, the :mod:`request check
<raf.serve.request_check>`, the request rules broken (``rules``: ``[{rule, field,
message}]``, :mod:`raf.serve.verdicts`) and how the response ended. Every string of an entry
is scrubbed by the rules of docs/secrets.md before it is kept: secret headers redacted
(``authorization``, ``x-api-key``...), credential query parameters redacted by name
(``key=``, ``api_key=``, ``access_token=``...), and tokens of a known shape and JSON members
named as credentials removed wherever they are, the request check's mismatch lines and the
rules' messages included.

The journal keeps in memory the newest entries within :data:`MAX_ENTRIES` entries and
:data:`MAX_BYTES` bytes (each entry counted as its JSON line); :meth:`Journal.page` reads
them in pages of at most :data:`PAGE_ENTRIES` entries and :data:`PAGE_BYTES` bytes, which is
what ``GET /_raf/journal?since=SEQ&limit=N`` returns. With a file, every entry is also
appended to it as one JSON line, when its response has ended.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from pathlib import Path
from typing import IO, Any, Final

import msgspec

from raf.cassettes.scrub import scrub_headers, scrub_text, scrub_uri
from raf.limits import (
    SERVE_JOURNAL_BODY_BYTES,
    SERVE_JOURNAL_BYTES,
    SERVE_JOURNAL_ENTRIES,
    SERVE_JOURNAL_PAGE_BYTES,
    SERVE_JOURNAL_PAGE_ENTRIES,
)

__all__ = [
    "DEFAULT_SIZE",
    "MAX_BODY_BYTES",
    "MAX_BYTES",
    "MAX_ENTRIES",
    "PAGE_BYTES",
    "PAGE_ENTRIES",
    "Journal",
    "Page",
    "scrub_query",
]

MAX_ENTRIES: Final = SERVE_JOURNAL_ENTRIES
DEFAULT_SIZE: Final = MAX_ENTRIES
MAX_BYTES: Final = SERVE_JOURNAL_BYTES
MAX_BODY_BYTES: Final = SERVE_JOURNAL_BODY_BYTES
PAGE_ENTRIES: Final = SERVE_JOURNAL_PAGE_ENTRIES
PAGE_BYTES: Final = SERVE_JOURNAL_PAGE_BYTES

SCRUB_MARGIN: Final = 8 * 1024
"""Bytes of a body read past the cut before scrubbing, so that a secret the cut falls in is
removed whole rather than kept as a prefix too short to be recognised."""

_encode = msgspec.json.Encoder().encode


class Page(msgspec.Struct, frozen=True):
    """One page of the journal: ``entries`` (oldest first), the ``since`` of the next page
    (``next_since``: the last ``seq`` returned) and whether newer entries remain (``more``)."""

    entries: list[dict[str, Any]]
    next_since: int
    more: bool


def scrub_query(query: str) -> str:
    """A raw query string (without its ``?``) with credential parameters' values redacted by
    name and secrets of a known shape removed (the rules of a request URI's query)."""
    return scrub_uri("?" + query)[1:] if query else ""


def _kept_body(body: bytes) -> str:
    """The first :data:`MAX_BODY_BYTES` bytes of ``body`` as text, scrubbed before it is cut
    (and cut at a character boundary)."""
    text = scrub_text(body[: MAX_BODY_BYTES + SCRUB_MARGIN].decode("utf-8", "replace"))
    encoded = text.encode()
    if len(encoded) <= MAX_BODY_BYTES:
        return text
    return encoded[:MAX_BODY_BYTES].decode("utf-8", "ignore")  # drops a cut last character


_SCRUB_DEPTH: Final = 8
"""How deep the fields of an entry are scrubbed (the request check's builtins are two levels
deep, the rules broken ``[{rule, field, message}]`` two); deeper values are kept as their
scrubbed text."""


def _scrubbed(value: Any, depth: int = 0) -> Any:
    """A field of an entry with every string in it scrubbed, at every level of its lists and
    mappings (keys included)."""
    if isinstance(value, str):
        return scrub_text(value)
    if isinstance(value, list | tuple | dict) and depth >= _SCRUB_DEPTH:
        return scrub_text(str(value))
    if isinstance(value, list | tuple):
        return [_scrubbed(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {
            (scrub_text(k) if isinstance(k, str) else k): _scrubbed(v, depth + 1)
            for k, v in value.items()
        }
    return value


class Journal:
    """Entries in order; thread-safe (the server writes, a test reads)."""

    def __init__(
        self, size: int = MAX_ENTRIES, file: Path | None = None, *, max_bytes: int = MAX_BYTES
    ) -> None:
        self._entries: deque[dict[str, Any]] = deque()
        self._sizes: dict[int, int] = {}
        self._bytes = 0
        self._size = size
        self._max_bytes = max_bytes
        self._lock = threading.Lock()
        self._count = 0
        self._file: IO[bytes] | None = file.open("ab") if file is not None else None

    def record(
        self, *, method: str, path: str, query: str, headers: list[tuple[str, str]], body: bytes
    ) -> dict[str, Any]:
        """A new entry for a request (completed later with :meth:`update` and
        :meth:`finish`). ``query`` is the raw (percent-encoded) query string."""
        grouped: dict[str, list[str]] = {}
        for name, value in headers:
            grouped.setdefault(name.lower(), []).append(value)
        entry: dict[str, Any] = {
            "seq": 0,
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "method": scrub_text(method),
            "path": scrub_text(path),
            "query": scrub_query(query),
            "headers": {k: ", ".join(v) for k, v in scrub_headers(grouped).items()},
            "body": _kept_body(body),
            "body_bytes": len(body),
            "case": None,
            "run": None,
            "interaction": None,
            "matched": None,
            "rules": None,
            "status": None,
            "check": None,
            "outcome": "pending",
            "bytes_sent": 0,
        }
        size = len(_encode(entry))
        with self._lock:
            self._count += 1
            entry["seq"] = self._count
            self._entries.append(entry)
            self._sizes[self._count] = 0
            self._resized(entry, size)
        return entry

    def update(self, entry: dict[str, Any], **fields: Any) -> None:
        """Set fields of ``entry`` (scrubbed: every string in them)."""
        scrubbed = {name: _scrubbed(value) for name, value in fields.items()}
        with self._lock:
            entry.update(scrubbed)

    def finish(self, entry: dict[str, Any], **fields: Any) -> None:
        """Complete ``entry`` (status, outcome...) and append it to the file."""
        scrubbed = {name: _scrubbed(value) for name, value in fields.items()}
        with self._lock:
            entry.update(scrubbed)
            line = _encode(entry)
            self._resized(entry, len(line) + 1)
            if self._file is not None:
                self._file.write(line + b"\n")
                self._file.flush()

    def _resized(self, entry: dict[str, Any], size: int) -> None:
        """Account ``entry``'s new size (if it is still kept) and forget the oldest entries
        past the limits (never the newest). The lock is held."""
        seq = entry["seq"]
        if seq not in self._sizes:
            return  # forgotten already (or cleared)
        self._bytes += size - self._sizes.get(seq, 0)
        self._sizes[seq] = size
        while len(self._entries) > 1 and (
            len(self._entries) > self._size or self._bytes > self._max_bytes
        ):
            old = self._entries.popleft()
            self._bytes -= self._sizes.pop(old["seq"], 0)

    def entries(self) -> list[dict[str, Any]]:
        """A copy of the entries kept, oldest first."""
        with self._lock:
            return [dict(e) for e in self._entries]

    @property
    def count(self) -> int:
        """Requests recorded so far (including those no longer kept)."""
        with self._lock:
            return self._count

    @property
    def kept_bytes(self) -> int:
        """The size of the entries kept, as JSON lines."""
        with self._lock:
            return self._bytes

    def since(self, count: int) -> list[dict[str, Any]]:
        """The entries recorded after the first ``count`` (those still kept)."""
        with self._lock:
            return [dict(e) for e in self._entries if e["seq"] > count]

    def page(
        self, since: int = 0, limit: int = PAGE_ENTRIES, *, max_bytes: int = PAGE_BYTES
    ) -> Page:
        """The kept entries after ``seq`` ``since``, oldest first: at most ``limit`` of them
        and, past the first, at most ``max_bytes`` bytes of them as JSON lines."""
        out: list[dict[str, Any]] = []
        total = 0
        more = False
        with self._lock:
            for entry in self._entries:
                if entry["seq"] <= since:
                    continue
                size = self._sizes.get(entry["seq"], 0)
                if out and (len(out) >= limit or total + size > max_bytes):
                    more = True
                    break
                out.append(dict(entry))
                total += size
        next_since = out[-1]["seq"] if out else since
        return Page(out, next_since, more)

    def page_json(
        self, since: int = 0, limit: int = PAGE_ENTRIES, *, max_bytes: int = PAGE_BYTES
    ) -> bytes:
        """:meth:`page` as the JSON body of ``GET /_raf/journal`` (UTF-8, each entry encoded
        once; a thread may call it while the server records)."""
        return _encode(self.page(since, limit, max_bytes=max_bytes))

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._sizes.clear()
            self._bytes = 0

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None
