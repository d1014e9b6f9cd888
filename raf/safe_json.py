"""JSON text from the network, decoded within limits and without ever raising stray errors.
Sans-IO.

A provider's payload (or a model's tool-call arguments) can be anything. The JSON library
raf uses (msgspec) is fast and strict, and fails in three ways that must not escape the
pipeline: malformed text (``DecodeError``), numbers it cannot represent (``ValidationError``:
``1e400``, an integer of 5,000 digits), and nesting deeper than the interpreter's stack
(``RecursionError``). This module turns all three into one typed :class:`UnusableJSON`
(with the error code the pipeline reports) and, where the rest of the document can be kept,
repairs it instead:

* nesting is measured first by :func:`too_deep`, a linear scan that does not recurse, against
  a configurable limit (``max_json_depth``, :data:`raf.limits.DEFAULT_MAX_JSON_DEPTH`); the
  interpreter's recursion limit is never relied on (a ``RecursionError`` that happens anyway,
  e.g. under a very deep caller stack, is reported as ``json_too_deep`` too);
* a number out of range is read as ``null`` and named in :attr:`Decoded.repairs`;
* a lone UTF-16 surrogate escape (``"\\ud800"``; a high surrogate at the end of one chunk and
  its low half in the next is a real server bug) is read as U+FFFD and named too;
* a text that is not Unicode (a lone surrogate character in a ``str`` built by hand) is not
  JSON (``sse_parse_error``), as it is for msgspec.

A long text given to :func:`decode_strict` (a tool call's arguments) is read by the standard
library's ``json`` when it reads the text as msgspec would, to keep the heap small: msgspec holds
a UTF-8 copy of a non-ASCII text and a scratch copy of each string with escapes, about 3.4 bytes
per character of a long string argument at its peak, against about 0.1 for ``json`` (the value
itself aside). Whatever ``json`` could read otherwise (numbers out of range, ``NaN``, surrogate
escapes, malformed text) goes to msgspec, which stays the one authority on what a text means.

Everything here is linear in the length of the text.
"""

from __future__ import annotations

import json
import math
import re
import sys
from typing import Any, Final

import msgspec

from raf.errors import excerpt
from raf.limits import DEFAULT_MAX_JSON_DEPTH
from raf.model.codes import ErrorCode

__all__ = [
    "Decoded",
    "UnusableJSON",
    "check_depth",
    "decode",
    "decode_strict",
    "depth_detail",
    "too_deep",
]

_decode_any = msgspec.json.Decoder().decode

# Strings (skipped as a whole, escapes included) and the four brackets.
_STRUCTURE: Final = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.S)
# Strings (kept as they are) and numbers.
_NUMBER_OR_STRING: Final = re.compile(
    r'"[^"\\]*(?:\\.[^"\\]*)*"|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?', re.S
)
# Escapes, consumed pairwise so that an escaped backslash is never read as the start of one:
# a surrogate pair, a lone surrogate, or any other escape.
_ESCAPE: Final = re.compile(
    r"\\(?:u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|u[dD][89a-fA-F][0-9a-fA-F]{2}|.)",
    re.S,
)
# A surrogate escape, paired or not: a text holding one is left to msgspec.
_SURROGATE_ESCAPE: Final = re.compile(r"\\u[dD][89a-fA-F]")
_OPEN: Final = frozenset("[{")
_SAFE_NUMBER_LENGTH: Final = 18  # shorter numbers without an exponent always fit
_STACK_DETAIL: Final = "nests deeper than the interpreter's stack allows (lower max_json_depth)"
_MSGSPEC_MAX_DIGITS: Final = 4300  # msgspec's cap on an integer, below the interpreter's limit
LEAN_FROM: Final = 16_384
_PIECE: Final = 8192
"""The length (characters) from which :func:`decode_strict` tries ``json`` first."""


class UnusableJSON(Exception):
    """The text cannot be used as JSON; ``code`` is the error code to report
    (``sse_parse_error`` or ``json_too_deep``) and ``detail`` says why, as a predicate to
    put after the name of the document ("is not JSON (...)", "nests deeper than ...")."""

    def __init__(self, code: ErrorCode, detail: str, reason: str = "") -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.reason = reason or detail
        """The JSON library's own words, when it gave a reason."""


class Decoded(msgspec.Struct, frozen=True, gc=False):
    """A decoded document, and the repairs that were needed to decode it (empty when none)."""

    value: Any
    repairs: tuple[str, ...] = ()


class _NotLean(Exception):
    """``json`` might read the text otherwise than msgspec: msgspec decides."""


def _finite(token: str) -> float:
    value = float(token)
    if value in (math.inf, -math.inf):  # msgspec: "Number out of range"
        raise _NotLean
    return value


def _not_json(token: str) -> Any:  # NaN, Infinity, -Infinity
    raise _NotLean


_decode_lean = json.JSONDecoder(parse_float=_finite, parse_constant=_not_json).decode


def _lean(text: str) -> Any:
    """``text`` decoded by ``json`` as msgspec decodes it, or :class:`_NotLean`.

    What the two libraries read differently, each ruled out: numbers out of range (msgspec
    refuses them, ``json`` reads infinity), ``NaN`` and ``Infinity`` (not JSON), surrogate
    escapes (msgspec refuses a lone one, ``json`` keeps it), lone surrogate characters
    (msgspec cannot encode them) and integers longer than msgspec's cap of 4,300 digits when
    the interpreter's own limit (``sys.set_int_max_str_digits``, which both obey) is higher.
    Everything else reads the same: whitespace, duplicate keys (the last wins, at the first
    one's place), ``-0``, float rounding (both exact). tests/test_safe_json.py checks it.
    """
    if "\\" in text and _SURROGATE_ESCAPE.search(text):
        raise _NotLean
    if not text.isascii():  # a lone surrogate cannot be encoded: piece by piece, to stay lean
        try:
            for start in range(0, len(text), _PIECE):
                text[start : start + _PIECE].encode()
        except UnicodeEncodeError:
            raise _NotLean from None
    if not 0 < sys.get_int_max_str_digits() <= _MSGSPEC_MAX_DIGITS:
        raise _NotLean  # json would read integers that msgspec refuses
    try:
        return _decode_lean(text)
    except (ValueError, RecursionError):  # JSONDecodeError, an integer too long
        raise _NotLean from None


def too_deep(text: str, limit: int) -> bool:
    """Whether ``text`` nests arrays and objects more than ``limit`` deep.

    Counting brackets is enough for nearly every payload (a document with at most ``limit``
    of them cannot be deeper), so the scan that skips string contents only runs on text with
    many brackets. Never recurses; linear in the length of the text.
    """
    if text.count("{") + text.count("[") <= limit:
        return False
    depth = 0
    for match in _STRUCTURE.finditer(text):
        c = text[match.start()]
        if c in _OPEN:
            depth += 1
            if depth > limit:
                return True
        elif c != '"':
            depth -= 1
    return False


def check_depth(text: str, limit: int) -> None:
    """Raise :class:`UnusableJSON` (``json_too_deep``) when ``text`` nests past ``limit``."""
    if too_deep(text, limit):
        raise UnusableJSON(ErrorCode.JSON_TOO_DEEP, depth_detail(limit))


def depth_detail(limit: int) -> str:
    """How an error message says that a document nests past ``limit``."""
    return f"nests deeper than {limit} levels (raise max_json_depth if legitimate)"


def decode(text: str, *, max_depth: int = DEFAULT_MAX_JSON_DEPTH) -> Decoded:
    """Decode ``text`` as one JSON document, repairing what can be repaired.

    Raises:
        UnusableJSON: the text is too deep (``json_too_deep``) or not JSON even after the
            repairs (``sse_parse_error``).
    """
    check_depth(text, max_depth)
    repairs: list[str] = []
    for _ in range(3):  # at most: surrogates repaired, then numbers repaired, then decoded
        try:
            return Decoded(_decode_any(text), tuple(repairs))
        except msgspec.ValidationError:  # only numbers out of range reach this generically
            repaired, found = _repair_numbers(text)
            if not found:
                break
            text = repaired
            repairs.extend(found)
        except msgspec.DecodeError as exc:
            repaired, found = _repair_surrogates(text) if "\\u" in text else (text, [])
            if not found:
                raise UnusableJSON(
                    ErrorCode.SSE_PARSE_ERROR, f"is not JSON ({exc})", reason=str(exc)
                ) from None
            text = repaired
            repairs.extend(found)
        except UnicodeEncodeError as exc:
            raise _not_unicode(exc) from None
        except RecursionError:
            raise UnusableJSON(ErrorCode.JSON_TOO_DEEP, _STACK_DETAIL) from None
    raise UnusableJSON(ErrorCode.SSE_PARSE_ERROR, "is not JSON (a value is out of range)")


def decode_strict(text: str, *, max_depth: int = DEFAULT_MAX_JSON_DEPTH) -> Any:
    """Decode ``text`` as one JSON document exactly as it is, without repairs (what the
    arguments of a tool call must be).

    Raises:
        UnusableJSON: too deep (``json_too_deep``), or not JSON, or a number out of range
            (``sse_parse_error``; ``reason`` has the JSON library's message).
    """
    check_depth(text, max_depth)
    if len(text) >= LEAN_FROM:
        try:
            return _lean(text)
        except _NotLean:
            pass
    try:
        return _decode_any(text)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise UnusableJSON(
            ErrorCode.SSE_PARSE_ERROR, f"is not JSON ({exc})", reason=str(exc)
        ) from None
    except UnicodeEncodeError as exc:
        raise _not_unicode(exc) from None
    except RecursionError:
        raise UnusableJSON(ErrorCode.JSON_TOO_DEEP, _STACK_DETAIL) from None


def _not_unicode(exc: UnicodeEncodeError) -> UnusableJSON:
    """The error of a text holding a lone surrogate character, which msgspec cannot read."""
    reason = f"character {exc.start} is a lone surrogate, not Unicode text"
    return UnusableJSON(ErrorCode.SSE_PARSE_ERROR, f"is not JSON ({reason})", reason=reason)


def _repair_numbers(text: str) -> tuple[str, list[str]]:
    """Every number msgspec cannot represent replaced by ``null``."""
    found: list[str] = []

    def replace(match: re.Match[str]) -> str:
        token = match.group()
        if token[0] == '"' or (len(token) <= _SAFE_NUMBER_LENGTH and "e" not in token.lower()):
            return token
        try:
            _decode_any(token)
        except msgspec.ValidationError:
            found.append(f"number {excerpt(token, 40)} out of range, read as null")
            return "null"
        except msgspec.DecodeError:  # pragma: no cover - the pattern only matches numbers
            return token
        return token

    return _NUMBER_OR_STRING.sub(replace, text), found


def _repair_surrogates(text: str) -> tuple[str, list[str]]:
    """Every lone surrogate escape replaced by ``\\ufffd``."""
    found: list[str] = []

    def replace(match: re.Match[str]) -> str:
        escape = match.group()
        if len(escape) == 6:  # a lone surrogate (a pair is 12 long, other escapes 2)
            found.append(f"lone surrogate {escape} read as U+FFFD")
            return "\\ufffd"
        return escape

    return _ESCAPE.sub(replace, text), found
