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
member's value: the member's key occurs once in the payload, literally (``"key":``, then the
token), and neither the prefix nor the suffix holds a backslash, so no key elsewhere is
spelt with escapes; the token cut out must decode to the value the full decode gave. The
string between prefix and suffix of a later payload is checked by decoding it as one JSON
string (with optional whitespace around, which is allowed there): anything else, invalid
UTF-8 included, is not a match.
"""

from __future__ import annotations

import re
from typing import Generic, TypeVar

import msgspec

__all__ = ["Templates", "cut"]

T = TypeVar("T")

_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_decode_string = msgspec.json.Decoder(str).decode
_ERRORS = (msgspec.ValidationError, msgspec.DecodeError)


class Templates(Generic[T]):
    """The templates of one stream, each with a tag (what the string is, for the caller).

    A lookup tries the template the last match used, then the others in the order they were
    made (a prefix comparison each: a stream has a template per call streaming at once and one
    for text), then decodes the one string.

    Args:
        limit: the most templates kept; :meth:`add` refuses more.
    """

    def __init__(self, limit: int = 8) -> None:
        self.limit = limit
        self._entries: list[tuple[bytes, bytes, T]] = []  # (prefix, suffix, tag)
        self._last: tuple[bytes, bytes, T] | None = None

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        """Forget every template."""
        self._entries.clear()
        self._last = None

    def add(self, payload: bytes, key: str, value: str, tag: T) -> bool:
        """Keep the template of ``payload`` around the value of its member ``key``, which the
        full decode found to be ``value`` (see :func:`cut`); ``False`` if it was not kept
        (no certain cut, or the limit is reached)."""
        if len(self._entries) >= self.limit:
            return False
        parts = cut(payload, key, value)
        if parts is None:
            return False
        entry = (parts[0], parts[1], tag)
        self._entries.append(entry)
        self._last = entry
        return True

    def match(self, payload: bytes) -> tuple[str, T] | None:
        """The string ``payload`` holds in a template's place, with the template's tag, or
        ``None`` if it matches none (it is not prefix, one JSON string token, suffix)."""
        entry = self._last
        if entry is None or not payload.startswith(entry[0]):
            for entry in self._entries:  # the entry is read after the break
                if payload.startswith(entry[0]):
                    self._last = entry
                    break
            else:
                return None
        prefix, suffix, tag = entry
        end = len(payload) - len(suffix)
        if end < len(prefix) + 2 or not payload.endswith(suffix):
            return None
        try:
            return _decode_string(payload[len(prefix) : end]), tag
        except _ERRORS:
            return None


def cut(payload: bytes, key: str, value: str) -> tuple[bytes, bytes] | None:
    """``payload`` split around the string token of its member ``key``, which the full
    decode found to be ``value``: the bytes before the token and the bytes after it; ``None``
    where the cut would not be certain (see the module docstring)."""
    literal = b'"' + key.encode() + b'":'
    if payload.count(literal) != 1:
        return None
    start = payload.index(literal) + len(literal)
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
