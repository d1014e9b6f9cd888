"""The kits: raf's protocol for a program in another language, one file to copy beside it.

``node``: ``raf-kit.mjs``, a dependency-free ES module (Node.js 20 or later) that speaks
raf-conformance/1 for an adapter module (docs/protocol.md, "Node.js: the kit")::

    raf kit node                      # writes ./raf-kit.mjs (never over a file: --force)
    raf kit node --output lib/raf-kit.mjs
    raf kit node --output -           # prints it
    python -m raf.kit node ...        # the same

The kit is package data (``raf/kit/node/raf-kit.mjs``); :func:`text` reads it with
:mod:`importlib.resources`, so it works from a wheel as from a checkout. Nothing here imports
the rest of raf.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import TextIO

__all__ = ["DESCRIPTION", "KITS", "KitExists", "add_arguments", "main", "run", "text", "write"]

KITS = {"node": ("node", "raf-kit.mjs")}
"""Each kit: its folder in this package and its file name (the default output)."""


class KitExists(Exception):
    """The output file is there already and ``force`` was not given."""


def text(kit: str) -> str:
    """The kit ``kit`` (a key of :data:`KITS`), as shipped.

    Raises:
        KeyError: no such kit.
        FileNotFoundError: the file is missing (a broken installation).
    """
    if kit not in KITS:
        raise KeyError(f"no kit {kit!r}: {', '.join(KITS)}")
    folder, name = KITS[kit]
    return resources.files(__name__).joinpath(folder, name).read_text(encoding="utf-8")


def write(kit: str, output: str | Path | None = None, *, force: bool = False) -> Path:
    """Write the kit ``kit`` to ``output`` (default: its file name in the current folder);
    the path written. A file already there is replaced only with ``force``; a folder never.

    Raises:
        KeyError: no such kit.
        KitExists: ``output`` exists and ``force`` is false.
        IsADirectoryError: ``output`` is a folder.
        OSError: writing failed.
    """
    content = text(kit)
    target = Path(output) if output is not None else Path(KITS[kit][1])
    if target.is_dir():
        raise IsADirectoryError(f"{target} is a folder")
    if force:
        target.write_text(content, encoding="utf-8")
    else:
        try:
            with open(target, "x", encoding="utf-8") as handle:  # never over a file
                handle.write(content)
        except FileExistsError:
            raise KitExists(
                f"{target} exists (it is not overwritten; --force replaces it)"
            ) from None
    return target


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m raf.kit node [--output FILE|-] [--force]``: 0 when written or printed, 2
    otherwise (with a one-line ``raf: ...`` message)."""
    parser = argparse.ArgumentParser(prog="python -m raf.kit", description=DESCRIPTION)
    add_arguments(parser)
    args = parser.parse_args(argv)
    if args.output == "-" and sys.stdout is None:
        _say("standard output is closed")
        return 2
    try:
        return run(args.kit, args.output, args.force, sys.stdout)
    except BrokenPipeError:  # `python -m raf.kit node -o - | head`: not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the final flush then succeeds
        os.close(devnull)
        return 0


DESCRIPTION = (
    "Write raf's kit for a language: `node` is raf-kit.mjs, the raf-conformance/1 protocol "
    "for a Node.js adapter in one dependency-free ES module (docs/protocol.md, 'Node.js: the "
    "kit'). Writes ./raf-kit.mjs unless --output says where; --output - prints it."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``raf kit`` and ``python -m raf.kit``."""
    add = parser.add_argument
    add("kit", choices=sorted(KITS), help="the language: node (raf-kit.mjs)")
    add(
        "-o",
        "--output",
        metavar="FILE",
        help="where to write it (default: ./raf-kit.mjs; - prints it on standard output)",
    )
    add("--force", action="store_true", help="replace FILE if it exists")


def run(kit: str, output: str | None, force: bool, out: TextIO) -> int:
    """Write or print the kit; say what was done, or why not in one line: the exit status
    (0, or 2 for an output it cannot write)."""
    try:
        content = text(kit)
    except (KeyError, FileNotFoundError) as exc:
        _say(str(exc).strip("'\""))
        return 2
    if output == "-":
        out.write(content)
        return 0
    where = output if output is not None else KITS[kit][1]
    try:
        target = write(kit, output, force=force)
    except (KitExists, IsADirectoryError) as exc:
        _say(str(exc))
        return 2
    except OSError as exc:
        _say(f"cannot write {where}: {exc.strerror or exc}")
        return 2
    _say(f"wrote {target}")
    return 0


def _say(message: str) -> None:
    """``raf: message`` on the standard error, if there is one that works."""
    if sys.stderr is None:
        return
    try:
        sys.stderr.write(f"raf: {message}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
