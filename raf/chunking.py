"""Network chunkings: the ways a byte stream can be cut into reads. Pure functions, no IO.

A chunking is named by a string, so the conformance runner, the CLI and tests can share the
same list:

* ``whole``: one chunk;
* ``bytes``: one byte per chunk;
* ``fixed-N``: chunks of N bytes (e.g. ``fixed-7``, ``fixed-4096``);
* ``random`` / ``random-S``: chunks of 1-64 bytes cut at seeded random points (seed S, 0 by
  default), the same cut for the same seed;
* ``utf8``: a cut inside every multi-byte UTF-8 character (and nowhere else);
* ``crlf``: a cut between the CR and the LF of every CRLF (and nowhere else).

Every chunking concatenates back to the input; the pipeline's output must not depend on
which is used.
"""

from __future__ import annotations

import random

__all__ = ["STANDARD_CHUNKINGS", "check_chunking", "chunk"]

STANDARD_CHUNKINGS = ("whole", "bytes", "fixed-7", "random", "utf8", "crlf")
"""The chunkings ``raf conform`` and the snapshot tests use."""


def check_chunking(name: str) -> str:
    """Return ``name`` if it names a chunking, else raise ``ValueError`` listing the choices."""
    chunk(b"", name)
    return name


def chunk(data: bytes, name: str) -> list[bytes]:
    """Cut ``data`` the way the chunking ``name`` says (see the module docstring)."""
    kind, _, argument = name.partition("-")
    if kind == "whole" and not argument:
        return [data] if data else []
    if kind == "bytes" and not argument:
        return [data[i : i + 1] for i in range(len(data))]
    if kind == "fixed" and argument.isdigit() and int(argument) > 0:
        size = int(argument)
        return [data[i : i + size] for i in range(0, len(data), size)]
    if kind == "random" and (not argument or argument.isdigit()):
        rng = random.Random(int(argument or 0))
        out, i = [], 0
        while i < len(data):
            n = rng.randint(1, 64)
            out.append(data[i : i + n])
            i += n
        return out
    if kind == "utf8" and not argument:
        # A continuation byte (10xxxxxx) is always inside a character: cut before it.
        return _cut(data, [i for i in range(1, len(data)) if data[i] & 0xC0 == 0x80])
    if kind == "crlf" and not argument:
        return _cut(data, [i + 1 for i in range(len(data) - 1) if data[i : i + 2] == b"\r\n"])
    raise ValueError(
        f"unknown chunking {name!r}; use whole, bytes, fixed-N, random, random-SEED, utf8 or crlf"
    )


def _cut(data: bytes, positions: list[int]) -> list[bytes]:
    out, start = [], 0
    for position in positions:
        out.append(data[start:position])
        start = position
    out.append(data[start:])
    return [piece for piece in out if piece]
