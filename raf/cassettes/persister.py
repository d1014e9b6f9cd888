"""Read and write cassette files. The only module of ``raf.cassettes`` that writes files.

Reads are bounded (:func:`raf.cassettes.files.read_limited`: regular files of at most
:data:`raf.limits.MAX_CASSETTE_BYTES`) and the text goes through the safety scan of
:func:`raf.cassettes.serializer.loads`. Writes are atomic (a temporary file in the same
folder, then ``os.replace``), and scrub secrets unless told not to. Errors are typed and never
swallowed: a file that is not a cassette raises :class:`CassetteFormatError`, a missing one
:class:`CassetteNotFound`.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from raf.cassettes.files import read_limited
from raf.cassettes.format import Cassette
from raf.cassettes.scrub import scrub_cassette
from raf.cassettes.serializer import dumps, loads
from raf.errors import CassetteFormatError, CassetteNotFound, FileRefused
from raf.limits import MAX_CASSETTE_BYTES

__all__ = ["load", "save"]


def load(path: str | os.PathLike[str]) -> Cassette:
    """Read a cassette file.

    Raises:
        CassetteNotFound: no such file (also a ``FileNotFoundError``).
        CassetteFormatError: the file is not a regular file, is larger than
            ``MAX_CASSETTE_BYTES``, cannot be read, is refused by the YAML safety scan
            (anchors, aliases, tags, depth, size), or is not a cassette (also a
            ``ValueError``); the message names the file and the place.
    """
    source = str(path)
    try:
        text = read_limited(path, MAX_CASSETTE_BYTES)
    except FileNotFoundError:
        raise CassetteNotFound(source) from None
    except FileRefused as exc:
        raise CassetteFormatError(source, exc.reason) from exc
    return Cassette.from_dict(loads(text, source=source), source=source)


def save(cassette: Cassette, path: str | os.PathLike[str], *, scrub: bool = True) -> Path:
    """Write a cassette file atomically; by default secrets are scrubbed first.

    Returns:
        The path written.
    """
    target = Path(path)
    if scrub:
        cassette = scrub_cassette(cassette)
    text = dumps(cassette.to_dict())
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.chmod(temporary, 0o666 & ~_umask())  # mkstemp makes it private; a cassette is not
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
