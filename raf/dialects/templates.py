"""Payloads that differ from one already decoded only in one string value. No IO.

Most chunks of a stream are byte for byte the previous chunk with another piece of text in
one place: the same id, model, fingerprint and nesting around a different ``"content"`` or
``"arguments"`` string. A template is such a payload cut around that string (:func:`cut`),
made from a payload that was decoded in full (:class:`Templates` keeps a stream's). A
payload that starts with the template's prefix and ends with its suffix, with a JSON string
token in between, then decodes to the same value with that string replaced, so only the
string needs decoding.

Why that holds: a JSON string token can stand wherever another one stands without changing
how the rest of the document parses. The cut is made only where the token is certainly the
member's value: the member's key occurs once in the payload, literally (``"key":``, then
optional JSON whitespace, then the token: servers that serialise with a space after the colon,
as Python's ``json`` and many others do by default, cut as well, the whitespace part of the
prefix), and neither the prefix nor the suffix holds a backslash, so no key elsewhere is
spelt with escapes; the token cut out must decode to the value the full decode gave. The
string between prefix and suffix of a later payload is checked by decoding it as one JSON
string (with optional whitespace around, which is allowed there): anything else, invalid
UTF-8 included, is not a match.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Generic, TypeVar

import msgspec

__all__ = ["Templates", "cut"]

T = TypeVar("T")

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_SPACES = (b" ", b"\t", b"\r", b"\n")
_decode_string = msgspec.json.Decoder(str).decode
_ERRORS = (msgspec.ValidationError, msgspec.DecodeError)


_Entry = tuple[bytes, bytes, T, int, int, int]
"""A template: prefix, suffix, tag, then the prefix's length, the suffix's, and the length of
the shortest payload that matches (prefix, ``""``, suffix)."""


class Templates(Generic[T]):
    """The templates of one stream, each with a tag (what the string is, for the caller).

    With one template a lookup compares the payload's start with its prefix; with several,
    only with those whose prefix has the payload's byte at the first offset where the prefixes
    differ (a stream has a template per call streaming at once, which differ in the call's
    index, and one for text). Then it decodes the one string.

    Args:
        limit: the most templates kept; :meth:`add` refuses more.
        tries: the most payloads :meth:`add` tries to cut without success before it stops
            trying (a stream whose chunks cannot be cut costs nothing more then).
    """

    def __init__(self, limit: int = 8, tries: int = 32) -> None:
        self.limit = limit
        self.tries = tries
        self._entries: list[_Entry[T]] = []
        self._failed = 0
        self.hits = 0
        """Payloads :meth:`match` read (counted, for tests and benchmarks)."""
        self._only: _Entry[T] | None = None  # the one template, when there is one
        # With several: the first byte where the prefixes differ, and the entries by their
        # byte there.
        self._offset = -1
        self._table: dict[int, list[_Entry[T]]] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        """Forget every template."""
        self._entries.clear()
        self._only = None
        self._offset = -1
        self._table = {}

    def matcher(self) -> Callable[[bytes], tuple[str, T] | None] | None:
        """:meth:`match`, or ``None`` when no payload can match any more: there is no
        template and :meth:`add` has stopped trying (a caller then skips the lookup)."""
        if not self._entries and self._failed >= self.tries:
            return None
        return self.match

    def add(self, payload: bytes, key: str, value: str, tag: T) -> bool:
        """Keep the template of ``payload`` around the value of its member ``key``, which the
        full decode found to be ``value`` (see :func:`cut`); ``False`` if it was not kept
        (no certain cut, the limit is reached, or too many cuts failed)."""
        if len(self._entries) >= self.limit or self._failed >= self.tries:
            return False
        parts = cut(payload, key, value)
        if parts is None:
            self._failed += 1
            return False
        prefix, suffix = parts
        entries = self._entries
        entries.append(
            (prefix, suffix, tag, len(prefix), len(suffix), len(prefix) + len(suffix) + 2)
        )
        if len(entries) == 1:
            self._only = entries[0]
            return True
        self._only = None
        # Index the prefixes by their byte at the first offset where they differ (0 if one
        # is the start of all the others: then every lookup compares them all).
        prefixes = [entry[0] for entry in entries]
        first = prefixes[0]
        self._offset = next(
            (
                i
                for i in range(min(map(len, prefixes)))
                if any(other[i] != first[i] for other in prefixes)
            ),
            0,
        )
        table: dict[int, list[_Entry[T]]] = {}
        for entry in entries:
            table.setdefault(entry[0][self._offset], []).append(entry)
        self._table = table
        return True

    def match(self, payload: bytes) -> tuple[str, T] | None:
        """The string ``payload`` holds in a template's place, with the template's tag, or
        ``None`` if it matches none (it is not prefix, one JSON string token, suffix)."""
        entry = self._only
        if entry is None:
            offset = self._offset
            if offset < 0 or len(payload) <= offset:
                return None
            for entry in self._table.get(payload[offset], ()):  # read after the break
                if payload.startswith(entry[0]):
                    break
            else:
                return None
        elif not payload.startswith(entry[0]):
            return None
        _, suffix, tag, start, tail, shortest = entry
        if len(payload) < shortest or not payload.endswith(suffix):
            return None
        try:
            value = _decode_string(payload[start : len(payload) - tail])
        except _ERRORS:
            return None
        self.hits += 1
        return value, tag


def cut(payload: bytes, key: str, value: str) -> tuple[bytes, bytes] | None:
    """``payload`` split around the string token of its member ``key``, which the full
    decode found to be ``value``: the bytes before the token and the bytes after it; ``None``
    where the cut would not be certain (see the module docstring)."""
    literal = b'"' + key.encode() + b'":'
    if payload.count(literal) != 1:
        return None
    start = payload.index(literal) + len(literal)
    # JSON whitespace between the colon and the token stays in the prefix.
    while payload[start : start + 1] in _SPACES:
        start += 1
    token = _STRING.match(payload, start)
    if token is None:
        return None
    prefix, suffix = payload[:start], payload[token.end() :]
    if b"\\" in prefix or b"\\" in suffix or not suffix:
        return None
    try:
        if _decode_string(token.group()) != value:
            return None
    except _ERRORS:
        return None
    return prefix, suffix
