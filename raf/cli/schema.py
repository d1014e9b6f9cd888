"""``raf schema``: the JSON Schemas of the canonical forms, printed, written or checked."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any, TextIO

from raf.cassettes.files import is_regular_file, read_limited
from raf.cli._shell import (
    _InputError,
    _reason,
    _warn,
)
from raf.errors import FileRefused
from raf.schema import json_schemas
from raf.shared.bundled import owned_by_raf

__all__ = ["add_parser", "run", "schema_files"]


def add_parser(sub: Any) -> None:
    """Add ``raf schema`` to the subcommands ``sub``."""
    schema = sub.add_parser(
        "schema",
        help="print or write the JSON Schemas of the canonical JSON forms",
        description="Without options, print every schema as one JSON object keyed by name. "
        "--write DIR writes DIR/<name>.schema.json; --check DIR exits 1 when those files "
        "are missing or differ from the code.",
    )
    mode = schema.add_mutually_exclusive_group()
    mode.add_argument("--write", metavar="DIR", help="write the schema files into DIR")
    mode.add_argument("--check", metavar="DIR", help="check that DIR holds current schema files")


def schema_files() -> dict[str, str]:
    """File name -> text of every published schema (as ``raf schema --write`` writes them)."""
    return {
        f"{name}.schema.json": json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
        for name, doc in json_schemas().items()
    }


def run(args: argparse.Namespace, out: TextIO) -> int:
    files = schema_files()
    if args.write:
        target = Path(args.write)
        owned = owned_by_raf(target)
        if owned is not None:
            raise _InputError(f"--write {owned}")
        try:
            target.mkdir(parents=True, exist_ok=True)
            for name, text in files.items():
                (target / name).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise _InputError(f"cannot write to {target}: {_reason(exc)}") from exc
        _warn(f"raf: wrote {len(files)} schemas to {target}")
        return 0
    if args.check:
        folder = Path(args.check)
        if not folder.is_dir():
            raise _InputError(f"no schema folder at {folder}")
        problems = {
            name: problem
            for name, text in files.items()
            if (problem := _schema_problem(folder / name, text)) is not None
        }
        for name, problem in problems.items():
            _warn(f"raf: {folder / name} {problem}")
        if problems:
            _warn(f"raf: run `raf schema --write {args.check}`")
        return 1 if problems else 0
    out.write(json.dumps(json_schemas(), indent=2, ensure_ascii=False) + "\n")
    return 0


def _schema_problem(path: Path, text: str) -> str | None:
    """What is wrong with the schema file ``path`` (``None``: it holds ``text``). Reads at
    most one byte more than ``text`` has; opens nothing that is not a regular file."""
    expected = text.encode("utf-8")
    if os.path.lexists(path) and not is_regular_file(path):
        return "is missing or out of date (not a regular file)"
    try:
        return None if read_limited(path, len(expected)) == expected else "is out of date"
    except FileNotFoundError:
        return "is missing or out of date"
    except FileRefused:
        return "is out of date"
