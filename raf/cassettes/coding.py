"""Content codings of recorded bodies: decode a ``content-encoding: gzip``, ``deflate`` or
``br`` body to read it, and encode it again the same way once it was changed. No IO.

A body recorded as it came off the wire (vcrpy keeps it so, as ``!!binary``) is compressed
whenever the server compressed it, and a secret inside it is invisible to a scan of its
bytes; :mod:`raf.cassettes.secrets` and :mod:`raf.cassettes.scrub` read it through
:func:`decode` and write it back through :func:`encode`.

* ``gzip`` (and ``x-gzip``): one or more gzip members; written again as one member with the
  first member's modification time, so that a body scrubbed twice is the same bytes;
* ``deflate``: the zlib format HTTP specifies, or the raw deflate some servers send instead;
  written again in the format it came in;
* ``br``: brotli, read with the ``brotli`` package (``pip install 'raf[brotli]'``); without
  it a ``br`` body is :class:`BodyNotDecoded`, never skipped;
* ``identity`` is no coding; several codings (``gzip, br``) are undone last first.

A body that does not decode (corrupt, truncated, data after its end, an unknown coding) is
:class:`BodyNotDecoded`; so is one that decodes to more than
:data:`raf.limits.MAX_DECODED_BODY_BYTES`, which keeps a small compressed body from expanding
without bound.
"""

from __future__ import annotations

import gzip
import struct
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from raf.errors import CassetteError
from raf.limits import MAX_DECODED_BODY_BYTES

__all__ = [
    "CODINGS",
    "BodyNotDecoded",
    "Decoded",
    "codings",
    "content_encoding",
    "decode",
    "encode",
]

CODINGS = ("gzip", "x-gzip", "deflate", "br", "identity")
"""The content codings raf reads."""


class BodyNotDecoded(CassetteError, ValueError):
    """A body whose content coding cannot be undone; the message says why. A
    :class:`~raf.errors.CassetteError`: a cassette whose body does not decode cannot be
    replayed."""


@dataclass(frozen=True)
class _Step:
    coding: str  # "gzip", "deflate" or "br"
    raw: bool = False  # deflate: raw deflate rather than the zlib format
    mtime: int = 0  # gzip: the first member's modification time


@dataclass(frozen=True)
class Decoded:
    """A decoded body, and how to encode a changed version of it the same way."""

    body: bytes
    steps: tuple[_Step, ...]
    """The codings as applied, first to last."""


def content_encoding(headers: Any) -> str | None:
    """The ``content-encoding`` of a message's headers (a mapping of names to a value or a
    list of values, any case), several header lines joined with ``, ``; ``None`` when the
    headers have none."""
    if not isinstance(headers, Mapping):
        return None
    values: list[str] = []
    for name, value in headers.items():
        if isinstance(name, str) and name.lower() == "content-encoding":
            values += (str(v) for v in (value if isinstance(value, list) else [value]))
    return ", ".join(values) if values else None


def codings(header: str | None) -> list[str]:
    """The codings a ``content-encoding`` value names, in the order they were applied,
    lower-case, without ``identity``."""
    if not header:
        return []
    names = (name.strip().lower() for name in header.split(","))
    return [name for name in names if name and name != "identity"]


def decode(body: bytes, header: str | None, *, limit: int = MAX_DECODED_BODY_BYTES) -> Decoded:
    """``body`` with the codings of ``header`` (a ``content-encoding`` value) undone.

    Raises:
        BodyNotDecoded: a coding raf does not read (or ``br`` without the ``brotli``
            package), data that is not valid for its coding, truncated, followed by other
            bytes, or more than ``limit`` bytes once decoded.
    """
    steps: list[_Step] = []
    for coding in reversed(codings(header)):
        if coding in ("gzip", "x-gzip"):
            mtime = struct.unpack("<I", body[4:8])[0] if len(body) >= 8 else 0
            body = _inflate(body, 31, limit, "gzip")
            steps.append(_Step("gzip", mtime=mtime))
        elif coding == "deflate":
            body, raw = _undeflate(body, limit)
            steps.append(_Step("deflate", raw=raw))
        elif coding == "br":
            body = _unbrotli(body, limit)
            steps.append(_Step("br"))
        else:
            raise BodyNotDecoded(
                f"raf does not read content-encoding {coding!r} (it reads gzip, deflate, br)"
            )
    return Decoded(body, tuple(reversed(steps)))


def encode(body: bytes, decoded: Decoded) -> bytes:
    """``body`` (a changed version of ``decoded.body``) coded as the original was."""
    for step in decoded.steps:
        if step.coding == "gzip":
            body = gzip.compress(body, mtime=step.mtime)
        elif step.coding == "deflate":
            packer = zlib.compressobj(wbits=-15 if step.raw else 15)
            body = packer.compress(body) + packer.flush()
        else:
            body = _brotli().compress(body)
    return body


def _zlib_header(data: bytes) -> bool:
    """Whether ``data`` starts as the zlib format does (deflate, a valid check value)."""
    return len(data) >= 2 and data[0] & 0x0F == 8 and (data[0] << 8 | data[1]) % 31 == 0


def _undeflate(data: bytes, limit: int) -> tuple[bytes, bool]:
    """Undo deflate, in the zlib format or raw; whether it was raw."""
    if not _zlib_header(data):
        return _inflate(data, -15, limit, "deflate"), True
    try:
        return _inflate(data, 15, limit, "deflate"), False
    except BodyNotDecoded as exc:
        try:  # raw deflate whose first bytes happen to read as a zlib header
            return _inflate(data, -15, limit, "deflate"), True
        except BodyNotDecoded:
            raise exc from None


def _inflate(data: bytes, wbits: int, limit: int, name: str) -> bytes:
    """Undo gzip (``wbits`` 31: every member) or deflate (15: zlib format, -15: raw)."""
    out = bytearray()
    rest = data
    while True:
        unpacker = zlib.decompressobj(wbits)
        try:
            out += unpacker.decompress(rest, limit + 1 - len(out))
        except zlib.error as exc:
            if rest is not data:  # after a complete gzip member
                raise BodyNotDecoded(f"{len(rest)} bytes after the end of the gzip data") from None
            raise BodyNotDecoded(f"not valid {name} data ({exc})") from None
        if len(out) > limit or unpacker.unconsumed_tail:
            raise BodyNotDecoded(f"it decodes to more than {limit:,} bytes")
        if not unpacker.eof:
            raise BodyNotDecoded(f"the {name} data is truncated")
        rest = unpacker.unused_data
        if not rest:
            return bytes(out)
        if wbits != 31:
            raise BodyNotDecoded(f"{len(rest)} bytes follow the end of the {name} data")


def _brotli() -> Any:
    try:
        import brotli  # noqa: PLC0415  (optional: the raf[brotli] extra)
    except ImportError:
        raise BodyNotDecoded(
            "content-encoding br needs the brotli package (pip install 'raf[brotli]')"
        ) from None
    return brotli


def _unbrotli(data: bytes, limit: int) -> bytes:
    brotli = _brotli()
    unpacker = brotli.Decompressor()
    try:
        out: bytes = unpacker.process(data, output_buffer_limit=limit + 1)
    except TypeError:  # brotli before 1.2 cannot bound its output
        raise BodyNotDecoded(
            "content-encoding br needs brotli 1.2 or later (pip install 'raf[brotli]')"
        ) from None
    except brotli.error as exc:
        raise BodyNotDecoded(f"not valid br data ({exc})") from None
    if len(out) > limit:
        raise BodyNotDecoded(f"it decodes to more than {limit:,} bytes")
    if not unpacker.is_finished():
        raise BodyNotDecoded("the br data is truncated")
    return out
