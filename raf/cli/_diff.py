"""``raf cassette diff OLD NEW``: the changes between two recordings, by severity
(:mod:`raf.cassettes.diff`), in rich text or JSON; the exit status says whether one is at
least as severe as ``--fail-on``."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import TextIO

from rich.markup import escape

from raf.cassettes.diff import SEVERITIES, Drift, diff
from raf.cassettes.format import Cassette
from raf.cassettes.persister import load as load_cassette
from raf.cli._shell import _Console, _InputError, _reason
from raf.errors import CassetteError
from raf.shared.bundled import owned_by_raf

__all__ = ["render_drift", "run_diff"]

_STYLE = {"error": "bold red", "warning": "yellow", "notice": "cyan"}
_TITLE = {"error": "errors", "warning": "warnings", "notice": "notices"}


def run_diff(args: argparse.Namespace, out: TextIO) -> int:
    target: Path | None = None
    if args.json is not None and args.json != "-":
        target = Path(args.json)
        _check_output(target, (args.old, args.new))
    old, new = _load(args.old, "OLD"), _load(args.new, "NEW")
    try:
        drift = diff(old, new, interaction=args.interaction)
    except ValueError as exc:
        raise _InputError(f"--interaction: {exc}") from exc
    document = {"old": args.old, "new": args.new, **drift.to_json()}
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    if args.json == "-":
        out.write(text)
    else:
        console = _Console(file=out, no_color=args.no_color, highlight=False)
        render_drift(console, drift, args.old, args.new)
        if target is not None:
            try:
                target.write_text(text, encoding="utf-8")
            except OSError as exc:
                raise _InputError(f"--json {target}: {_reason(exc)}") from exc
    return 1 if drift.at_least(args.fail_on) else 0


def render_drift(console: _Console, drift: Drift, old: str, new: str) -> None:
    """The changes grouped by severity, most severe first, then the summary line."""
    console.print(
        f"[bold]{escape(old)}[/bold] -> [bold]{escape(new)}[/bold]: "
        f"{len(drift.compared)} interaction pair(s) compared",
        soft_wrap=True,
    )
    for severity in reversed(SEVERITIES):
        changes = [c for c in drift.changes if c.severity == severity]
        if not changes:
            continue
        style = _STYLE[severity]
        console.print(f"[{style}]{_TITLE[severity]} ({len(changes)})[/{style}]")
        for change in changes:
            console.print(
                f"  [{style}]{severity}[/{style}] [dim]{escape(change.kind)}[/dim] "
                f"{escape(change.where.split(' ')[0])}: {escape(change.message)}",
                soft_wrap=True,
            )
    console.print(
        f"[bold]{drift.summary()}[/bold]" + ("" if drift.changes else " (no change)"),
        soft_wrap=True,
    )


def _load(path: str, which: str) -> Cassette:
    try:
        return load_cassette(path)
    except CassetteError as exc:
        raise _InputError(f"{which}: {exc}") from exc


def _check_output(path: Path, inputs: tuple[str, str]) -> None:
    """Refuse a ``--json`` file that cannot be written, or that is OLD or NEW."""
    for given in inputs:
        if _same(given, path):
            raise _InputError(f"--json {path}: is {given}, a cassette compared (name another file)")
    owned = owned_by_raf(path)
    if owned is not None:
        raise _InputError(f"--json {owned}")
    if path.is_dir():
        raise _InputError(f"--json {path}: is a folder (name a file)")
    if os.path.lexists(path) and not path.is_file():
        raise _InputError(f"--json {path}: exists and is not a regular file")
    parent = path.parent if str(path.parent) else Path()
    if not parent.is_dir():
        raise _InputError(f"--json {path}: no folder {parent} to write it in")
    if not os.access(parent, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise _InputError(f"--json {path}: not writable")


def _same(given: str, path: Path) -> bool:
    try:
        return os.path.samefile(given, path)
    except (OSError, ValueError):  # either missing, a link loop...: not the same file
        return False
