"""The files the README's tour uses, shipped inside the package, and a command that writes
them into a folder, so that the tour runs as written after ``pip install raf``::

    python -m raf.examples            # writes ./examples/openai_chat_parallel_tools.sse ...
    python -m raf.examples DIR        # into DIR instead

The repository holds one copy, in ``examples/``; the wheel packages the files of
:data:`TOUR` as ``raf/_bundled/examples`` (``pyproject.toml``), but for the Node kit that the
Node example client runs on, which is the package's own ``raf/kit/node/raf-kit.mjs``, written
beside the client. In a checkout (or an editable install) the repository's own files are
used, and writing them into the checkout's ``examples/`` finds them there already (the kit
is written there, and git ignores it).

It never overwrites a file: a file that is already there with the same content is left as
it is, and one with another content (or a symbolic link, or a folder where a file should
be) stops the command before it writes anything (exit status 2, as the CLI's output errors).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = ["TOUR", "copy", "main", "path"]

TOUR = (
    "openai_chat_parallel_tools.sse",
    "anthropic_parallel_tools.sse",
    "my_parser.py",
    "clients/node/client.js",
    "clients/node/raf-kit.mjs",
    "drift/committed.yaml",
    "drift/fresh.yaml",
)
"""The files the tour uses, relative to ``examples/``."""

_KIT = "clients/node/raf-kit.mjs"
"""The Node example client's protocol loop: raf's Node kit (package data of :mod:`raf.kit`,
as ``raf kit node`` writes it), put beside the client, which finds it there."""

_PACKAGE = Path(__file__).resolve().parent


def path(name: str) -> Path:
    """The shipped file ``name`` (one of :data:`TOUR`): inside the installed package, else
    the repository's.

    Raises:
        KeyError: ``name`` is not one of the tour's files.
        FileNotFoundError: the file is missing (a broken installation).
    """
    if name not in TOUR:
        raise KeyError(f"{name!r} is not one of the tour's files: {', '.join(TOUR)}")
    if name == _KIT:
        kit = _PACKAGE / "kit" / "node" / "raf-kit.mjs"
        if kit.is_file():
            return kit
        raise FileNotFoundError(f"raf's Node kit is missing from {_PACKAGE} (reinstall raf)")
    for folder in (_PACKAGE / "_bundled" / "examples", _PACKAGE.parent / "examples"):
        if (folder / name).is_file():
            return folder / name
    raise FileNotFoundError(f"the tour's file {name} is missing from {_PACKAGE} (reinstall raf)")


class Refused(Exception):
    """A target that must not be written; ``str(exc)`` says why."""


def copy(folder: Path) -> tuple[list[Path], list[Path]]:
    """Write every file of :data:`TOUR` under ``folder``; ``(written, already there)``.

    Nothing is written unless every file can be: each target is checked first.

    Raises:
        Refused: a target exists with another content, or is a link or not a file.
        OSError: reading a shipped file or writing failed.
    """
    plan: list[tuple[Path, bytes]] = []
    present: list[Path] = []
    for name in TOUR:
        data = path(name).read_bytes()
        target = folder / name
        for parent in [target, *target.parents]:
            if parent == folder.parent:
                break
            if parent.is_symlink():
                raise Refused(f"{parent} is a symbolic link (links are not followed)")
        if target.exists():
            if not target.is_file():
                raise Refused(f"{target} exists and is not a file")
            if target.read_bytes() != data:
                raise Refused(f"{target} exists with other content (it is not overwritten)")
            present.append(target)
            continue
        if any(p.exists() and not p.is_dir() for p in target.parents if p != folder.parent):
            raise Refused(f"a parent of {target} exists and is not a folder")
        plan.append((target, data))
    written = []
    for target, data in plan:
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "xb") as handle:  # never over a file that appeared meanwhile
            handle.write(data)
        written.append(target)
    return written, present


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m raf.examples [FOLDER]``: 0 when the files are there, 2 when refused."""
    args = list(sys.argv[1:] if argv is None else argv)
    usage = "usage: python -m raf.examples [FOLDER]  (default: ./examples)"
    if args and args[0] in ("-h", "--help"):
        print(usage)
        return 0
    if len(args) > 1 or (args and args[0].startswith("-")):
        print(f"raf: {usage}", file=sys.stderr)
        return 2
    folder = Path(args[0] if args else "examples")
    try:
        written, present = copy(folder)
    except Refused as exc:
        print(f"raf: {exc}; nothing written", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"raf: cannot write the examples: {exc}", file=sys.stderr)
        return 2
    for target in written:
        print(f"wrote {target}")
    if present:
        print(f"{len(present)} file(s) already there, unchanged")
    return 0


if __name__ == "__main__":  # pragma: no cover - python -m raf.examples
    sys.exit(main())
