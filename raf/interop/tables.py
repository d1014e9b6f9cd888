"""The generated parts of docs/interop.md: each model's table (from its rows) and the AG-UI
verifier's rules (from their data file), between marker comments. No IO but in ``main``.

    python -m raf.interop.tables docs/interop.md     # rewrites the generated parts in place

``tests/interop/test_docs.py`` checks that the committed document is what this renders.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from raf.interop import get
from raf.interop.base import rows_markdown

__all__ = ["main", "render"]

_BLOCK = re.compile(
    r"(<!-- (?P<what>[a-z-]+): (?P<arg>[a-z-]+) -->\n)(?P<body>.*?)(<!-- /(?P=what) -->)", re.S
)


def _agui_rules(_: str) -> str:
    from raf.interop.agui_verify import rules_markdown  # noqa: PLC0415 (docs only)

    text: str = rules_markdown()
    return text


_RENDERERS: dict[str, Callable[[str], str]] = {
    "rows": lambda name: rows_markdown(get(name)),
    "agui": _agui_rules,
}


def render(text: str) -> str:
    """``text`` with every generated block (``<!-- rows: NAME -->`` ... ``<!-- /rows -->``,
    ``<!-- agui: rules -->`` ... ``<!-- /agui -->``) rendered afresh."""

    def block(match: re.Match[str]) -> str:
        body = _RENDERERS[match["what"]](match["arg"])
        return f"{match[1]}{body}{match[5]}"

    return _BLOCK.sub(block, text)


def main(argv: Sequence[str] | None = None) -> int:
    """Rewrite the generated blocks of the documents named in ``argv``."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print("usage: python -m raf.interop.tables FILE...", file=sys.stderr)
        return 2
    for arg in args:
        path = Path(arg)
        text = path.read_text(encoding="utf-8")
        new = render(text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            print(f"{path}: rewritten")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
