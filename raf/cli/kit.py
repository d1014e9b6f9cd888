"""``raf kit``: write raf's kit for an adapter in another language (``raf kit node``)."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from raf import kit

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    """Add ``raf kit`` to the subcommands ``sub``."""
    parser = sub.add_parser(
        "kit",
        help="write the Node.js kit (raf-kit.mjs) for an adapter of your own",
        description=kit.DESCRIPTION,
    )
    kit.add_arguments(parser)


def run(args: argparse.Namespace, out: TextIO) -> int:
    return kit.run(args.kit, args.output, args.force, out)
