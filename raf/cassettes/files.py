"""Reading untrusted files, bounded: the one place cassettes, recordings and goldens are read.

A path given to raf may name anything: a folder, ``/dev/zero``, a FIFO that blocks whoever
opens it, a link to one of those, a link loop, or a sparse file of many gigabytes.
:func:`read_limited` reads regular files only, and at most ``limit + 1`` bytes of them: it
looks at the file with ``stat`` first (following links, so a link counts as what it points
to), never opens anything that is not a regular file, and checks again on the open file.
:func:`find_files` lists the regular files under folders without opening any.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from raf.errors import FileRefused

__all__ = ["find_files", "is_regular_file", "read_limited"]

_BLOCK = 1024 * 1024

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode: int) -> str:
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a file"  # pragma: no cover - every kind of file is listed above


def _reason(exc: Exception) -> str:
    return (exc.strerror if isinstance(exc, OSError) else None) or str(exc)


def _check(name: str, info: os.stat_result, limit: int) -> None:
    if not stat.S_ISREG(info.st_mode):
        raise FileRefused(name, f"not a regular file ({_kind(info.st_mode)})")
    if info.st_size > limit:
        raise FileRefused(name, f"{info.st_size:,} bytes, more than the limit of {limit:,}")


def read_limited(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of the regular file ``path``, refused when it holds more than ``limit``.

    Nothing that is not a regular file is opened (a FIFO would block, ``/dev/zero`` never
    ends); a file that grows while it is read is refused once it passes the limit, and at
    most ``limit + 1`` bytes are ever read.

    Raises:
        FileNotFoundError: there is no such file (or it is a link to nothing).
        FileRefused: not a regular file, larger than ``limit``, or the system refused to
            open or read it (permissions, a link loop...); the message says which.
    """
    name = os.fspath(path)
    try:
        info = os.stat(name)
    except FileNotFoundError:
        raise
    except (OSError, ValueError) as exc:  # a link loop, no permission, a NUL in the name...
        raise FileRefused(name, f"cannot read: {_reason(exc)}") from exc
    _check(name, info, limit)
    try:
        # O_NONBLOCK: should the path be swapped for a FIFO after the stat, opening it does
        # not block (and the fstat below refuses it).
        fd = os.open(name, os.O_RDONLY | os.O_CLOEXEC | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise FileRefused(name, f"cannot read: {_reason(exc)}") from exc
    blocks: list[bytes] = []
    size = 0
    try:
        _check(name, os.fstat(fd), limit)
        while size <= limit:
            block = os.read(fd, min(_BLOCK, limit + 1 - size))
            if not block:
                break
            blocks.append(block)
            size += len(block)
    except OSError as exc:
        raise FileRefused(name, f"cannot read: {_reason(exc)}") from exc
    finally:
        os.close(fd)
    if size > limit:
        raise FileRefused(name, f"grew past the limit of {limit:,} bytes while it was read")
    return b"".join(blocks)


def is_regular_file(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a regular file, or a link to one (without opening it)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):  # missing, a link loop, a name with a NUL...
        return False


def find_files(paths: Iterable[str | os.PathLike[str]], suffixes: Iterable[str]) -> list[Path]:
    """The files ``paths`` name: each folder is searched recursively for regular files whose
    suffix (case-insensitive) is one of ``suffixes``, sorted; any other path is returned as
    it is, whatever it is, so that its reader reports what is wrong with it.

    Inside a folder, anything that is not a regular file is skipped without being opened: a
    folder is searched (whatever its name, ``x.yaml`` included), and FIFOs, devices, sockets
    and broken or looping links are left out. Links to folders are not followed.
    """
    wanted = tuple(s.lower() for s in suffixes)
    out: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            out.extend(
                sorted(
                    p for p in path.rglob("*") if p.suffix.lower() in wanted and is_regular_file(p)
                )
            )
        else:
            out.append(path)
    return out
