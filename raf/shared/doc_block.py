"""Generated blocks of the documentation: a table rendered from data, between two marker
lines, and the command that rewrites (or checks) it in named files. No IO but the command's.

    <!-- quirks: table -->
    | id | title | ... |          <- rewritten from the data, never by hand
    <!-- /quirks -->

Each table kept as data has one :class:`DocBlock` beside it (:mod:`raf.quirks`,
:mod:`raf.cassettes.diff`, :mod:`raf.cassettes.unread_doc`), its ``python -m`` command built
on :func:`rewrite_files`, and a test that the documented block is current.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["DocBlock", "rewrite_files"]


@dataclass(frozen=True)
class DocBlock:
    """The block named ``name`` (``quirks: table``) between ``<!-- quirks: table -->`` and
    ``<!-- /quirks -->``, each marker on a line of its own; ``what`` says what it holds (``the
    quirk table``) in messages."""

    name: str
    what: str

    @property
    def begin(self) -> str:
        return f"<!-- {self.name} -->"

    @property
    def end(self) -> str:
        return f"<!-- /{self.name.split(':', 1)[0]} -->"

    def fill(self, text: str, body: str) -> str:
        """``text`` with the block's lines replaced by ``body``.

        Raises:
            ValueError: ``text`` has no such block, or more than one.
        """
        pattern = re.escape(self.begin) + r"\n(?P<body>.*?)" + re.escape(self.end)
        found = list(re.finditer(pattern, text, re.S))
        if len(found) != 1:
            problem = "no" if not found else f"{len(found)}"
            raise ValueError(
                f"{problem} block {self.begin} ... {self.end} ({self.what} goes between the two "
                "markers, each on a line of its own; exactly one block)"
            )
        match = found[0]
        return f"{text[: match.start('body')]}{body}{text[match.end('body') :]}"


def rewrite_files(
    argv: Sequence[str] | None, *, module: str, what: str, render: Callable[[str], str]
) -> int:
    """``python -m MODULE [--check] FILE...``: each file's text through ``render`` (which
    raises ``ValueError`` for a file without its block), written back when it changed;
    ``--check`` only says which are stale. Exit 0 when done (or current), 1 when ``--check``
    found a stale file, 2 for a usage error or a file that cannot be read or has no block
    (left as it was, and nothing after it is written)."""
    args = list(sys.argv[1:] if argv is None else argv)
    check = "--check" in args
    files = [arg for arg in args if arg != "--check"]
    if not files or any(arg.startswith("-") for arg in files):
        print(f"usage: python -m {module} [--check] FILE...", file=sys.stderr)
        return 2
    stale = 0
    for arg in files:
        path = Path(arg)
        try:
            text = path.read_text(encoding="utf-8")
            new = render(text)
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            print(f"error: {path}: {exc}", file=sys.stderr)
            return 2
        if new == text:
            continue
        if check:
            print(f"{path}: {what} is not current (run: python -m {module} {path})")
            stale += 1
            continue
        path.write_text(new, encoding="utf-8")
        print(f"{path}: rewritten")
    return 1 if stale else 0
