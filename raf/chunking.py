"""Network chunkings: the ways a byte stream can be cut into reads. Pure functions, no IO.

A chunking is named by a string, so the conformance runner, the CLI and tests can share the
same list:

* ``whole``: one chunk;
* ``bytes``: one byte per chunk;
* ``fixed-N``: chunks of N bytes (e.g. ``fixed-7``, ``fixed-4096``);
* ``random`` / ``random-S``: chunks of 1-64 bytes cut at seeded random points (seed S, 0 by
  default), the same cut for the same seed;
* ``utf8``: a cut inside every multi-byte UTF-8 character (and nowhere else);
* ``crlf``: a cut between the CR and the LF of every CRLF (and nowhere else);
* ``eventstream``: for an AWS event stream (``application/vnd.amazon.eventstream``), cuts
  at the structure of every message: 1, 4, 8 and 11 bytes in (inside and between the prelude's
  lengths and CRC), 12 (after the prelude), 12 plus the header block, and 4 and 1 bytes before
  its end (before and inside the message CRC). Messages are found by their lengths alone
  (no CRC is checked); from a length that cannot be a message on, the rest is one piece. On
  a body that is no event stream it is ``whole``. Not in :data:`STANDARD_CHUNKINGS`: the
  conformance suite adds it to the cases of event stream bodies.

Every chunking concatenates back to the input; the pipeline's output must not depend on
which is used.
"""

from __future__ import annotations

import random

__all__ = ["EVENTSTREAM", "STANDARD_CHUNKINGS", "check_chunking", "chunk", "eventstream_cuts"]

STANDARD_CHUNKINGS = ("whole", "bytes", "fixed-7", "random", "utf8", "crlf")
"""The chunkings ``raf conform`` and the snapshot tests use."""

EVENTSTREAM = "eventstream"
"""The chunking that cuts AWS event stream messages at their structure."""


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
    if kind == EVENTSTREAM and not argument:
        return _cut(data, eventstream_cuts(data))
    raise ValueError(
        f"unknown chunking {name!r}; use whole, bytes, fixed-N, random, random-SEED, utf8, "
        "crlf or eventstream"
    )


def eventstream_cuts(data: bytes) -> list[int]:
    """Where the ``eventstream`` chunking cuts ``data``: the structure of each message, read
    from its lengths, in increasing order."""
    cuts: list[int] = []
    at = 0
    while len(data) - at >= 12:
        total = int.from_bytes(data[at : at + 4], "big")
        headers = int.from_bytes(data[at + 4 : at + 8], "big")
        if total < 16 or headers > total - 16 or at + total > len(data):
            break
        inside = {1, 4, 8, 11, 12, 12 + headers, total - 4, total - 1, total}
        cuts.extend(at + n for n in sorted(inside))
        at += total
    return [c for c in cuts if 0 < c < len(data)]


def _cut(data: bytes, positions: list[int]) -> list[bytes]:
    out, start = [], 0
    for position in positions:
        out.append(data[start:position])
        start = position
    out.append(data[start:])
    return [piece for piece in out if piece]
