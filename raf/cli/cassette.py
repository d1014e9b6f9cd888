"""``raf cassette import|lint|show|expect|diff``."""

from __future__ import annotations

import argparse
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

import msgspec
import yaml

from raf import dialects
from raf.cassettes.coding import BodyNotDecoded
from raf.cassettes.diff import SEVERITIES
from raf.cassettes.expiry import parse_date
from raf.cassettes.files import find_files
from raf.cassettes.format import Cassette, ScenarioInfo
from raf.cassettes.importers import (
    SUFFIXES,
    dialect_choices,
    guess_dialect,
    import_file,
    scenario_name,
)
from raf.cassettes.lint import cassette_files, lint_file
from raf.cassettes.persister import load as load_cassette
from raf.cassettes.persister import save as save_cassette
from raf.cassettes.show import render
from raf.cli._diff import run_diff
from raf.cli._shell import (
    _at_least,
    _Console,
    _InputError,
    _reason,
    _warn,
)
from raf.conformance.draft import draft_expectation
from raf.errors import CassetteError
from raf.shared.bundled import owned_by_raf

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    """Add ``raf cassette`` to the subcommands ``sub``."""
    cassette = sub.add_parser(
        "cassette",
        help="import, check and inspect recorded cassettes",
        description="Work with cassettes (vcrpy YAML files with a raf block; docs/cassettes.md).",
    )
    cassette_sub = cassette.add_subparsers(dest="cassette_command", metavar="ACTION")
    cassette_sub.required = True
    importer = cassette_sub.add_parser(
        "import",
        help="turn recordings made elsewhere into raf cassettes",
        description="Import VCR YAML cassettes (vcrpy, pydantic-ai's parsed_body variant...), "
        "raw .sse/.txt bodies and .jsonl/.ndjson files with one JSON payload per line. Writes "
        "OUT/<dialect>/<scenario>.yaml, secrets scrubbed.",
    )
    importer.add_argument("sources", nargs="+", metavar="SRC", help="files or folders to import")
    importer.add_argument(
        "-o", "--output", type=Path, required=True, metavar="DIR", help="where to write"
    )
    importer.add_argument(
        "--dialect",
        choices=dialect_choices(),
        help="wire format of raw bodies (default: from the request URI, else openai_chat)",
    )
    importer.add_argument("--force", action="store_true", help="overwrite existing cassettes")
    linter = cassette_sub.add_parser(
        "lint",
        help="check cassettes' structure and scan them for secrets",
        description="Check each cassette's structure (every quirk it names must be in the "
        "quirk catalogue, docs/fuzzing.md) and scan it for unscrubbed credentials "
        "(Authorization / api-key / cookie headers, key= query parameters, key-shaped strings "
        "in bodies and URIs). Prints file:line: findings; exits 1 on any error.",
    )
    linter.add_argument("paths", nargs="+", metavar="PATH", help="cassette files or folders")
    linter.add_argument(
        "--now",
        metavar="DATE",
        help="judge the expiry of recorded cassettes (their max_age) as of DATE, ISO 8601 in "
        "UTC (2027-01-15T00:00:00Z), instead of the current time: what will have expired by "
        "then, or a reproducible lint in CI",
    )
    shower = cassette_sub.add_parser(
        "show",
        help="print a cassette's timeline: events, updates, contents, response",
        description="Print the quirks the cassette shows (what the provider does), then for "
        "each SSE event of each interaction the updates and contents it produced, then the "
        "aggregated response. Colour in a terminal, plain when piped.",
    )
    shower.add_argument("file", metavar="FILE", help="a cassette file")
    shower.add_argument("--no-color", action="store_true", help="never use colour")
    expecter = cassette_sub.add_parser(
        "expect",
        help="draft a cassette's expect block from raf's reading, for a person to review",
        description="Print the expect block raf's reference pipeline would write for FILE "
        "(its last interaction's text, reasoning, tool calls, finish reason, token counts and "
        "error codes), marked `reviewed: false`; with --write, put it into FILE. A cassette "
        "whose expect block is a draft is not blessed: `raf conform --update` writes no "
        "golden for it and `raf conform` names it, until a person has checked every field "
        "against the recording (raf cassette show FILE) and deleted `reviewed: false`. A "
        "reviewed expect block is never replaced.",
    )
    expecter.add_argument("file", metavar="FILE", help="a cassette file")
    expecter.add_argument(
        "--write", action="store_true", help="write the draft into FILE (else print it)"
    )
    expecter.add_argument(
        "--dialect",
        choices=dialect_choices(),
        help="the wire format to read it as (default: the cassette's raf.dialect, else its "
        "folder's name or its request URI)",
    )
    differ = cassette_sub.add_parser(
        "diff",
        help="what changed between two recordings of one scenario, by severity",
        description="Compare two recordings of one scenario (OLD, then NEW) interaction by "
        "interaction: the request, status and headers, framing (line endings, comments, event "
        "names, BOM, [DONE], content-type), event types and their fields, raf's reading of "
        "each (text, tool calls, finish reason, usage, errors), what raf does not read in NEW, "
        "chunking and timing. Each change is a notice, a warning or an error (docs/recording.md). "
        "Exits 1 when a change is at least as severe as --fail-on, else 0.",
    )
    differ.add_argument("old", metavar="OLD", help="the cassette recorded before")
    differ.add_argument("new", metavar="NEW", help="the cassette recorded since")
    differ.add_argument(
        "--interaction",
        type=_at_least(0),
        metavar="N",
        help="compare only the interactions at index N (from 0)",
    )
    differ.add_argument(
        "--json", metavar="FILE", help="write the changes as JSON to FILE (- for standard output)"
    )
    differ.add_argument(
        "--fail-on",
        choices=SEVERITIES,
        default="error",
        help="the least severe change that makes the exit status 1 (default: error)",
    )
    differ.add_argument("--no-color", action="store_true", help="never use colour")


def run(args: argparse.Namespace, out: TextIO) -> int:
    if args.cassette_command == "lint":
        now = _now(args)
        try:
            files = cassette_files(args.paths)
        except CassetteError as exc:
            raise _InputError(str(exc)) from exc
        findings = [finding for file in files for finding in lint_file(file, now=now)]
        errors = [f for f in findings if f.severity == "error"]
        for finding in findings:
            out.write(f"{finding}\n")
        _warn(
            f"raf: {len(files)} cassette(s), {len(errors)} error(s), "
            f"{len(findings) - len(errors)} warning(s)"
        )
        return 1 if errors or not files else 0
    if args.cassette_command == "show":
        try:
            cassette = load_cassette(args.file)
        except CassetteError as exc:
            raise _InputError(str(exc)) from exc
        unread = render(_Console(file=out, no_color=args.no_color, highlight=False), cassette)
        if unread:
            raise _InputError(
                f"{args.file}: {unread} interaction(s) not shown: the body does not decode "
                "from its content-encoding"
            )
        return 0
    if args.cassette_command == "expect":
        return _run_expect(args, out)
    if args.cassette_command == "diff":
        return run_diff(args, out)
    return _run_import(args, out)


def _now(args: argparse.Namespace) -> datetime | None:
    """The instant ``--now`` names (``None`` without it: the current time)."""
    if args.now is None:
        return None
    try:
        return parse_date(args.now)
    except ValueError as exc:
        raise _InputError(f"--now: {exc}") from None


_DRAFT_NOTE = """\
# A draft of raf's own reading (raf cassette expect): not a review. Check every field
# against the recording (raf cassette show FILE), fix what raf got wrong, then delete the
# line `reviewed: false`; only then is the cassette blessed (raf conform --update).
"""


def _dialect_of(path: Path, cassette: Cassette, chosen: str | None) -> str:
    if chosen is not None:
        return chosen
    if cassette.info is not None:
        return cassette.info.dialect
    if path.parent.name in dialects.names():
        return path.parent.name
    uri = cassette.interactions[-1].request.uri if cassette.interactions else ""
    guessed = guess_dialect(uri)
    return guessed if guessed in dialects.names() else "openai_chat"


def _run_expect(args: argparse.Namespace, out: TextIO) -> int:
    path = Path(args.file)
    if args.write:
        owned = owned_by_raf(path)
        if owned is not None:
            raise _InputError(owned)
    try:
        cassette = load_cassette(path)
    except CassetteError as exc:
        raise _InputError(str(exc)) from exc
    if not cassette.interactions:
        raise _InputError(f"{path}: the cassette has no interaction to read")
    dialect = _dialect_of(path, cassette, args.dialect)
    try:
        draft = draft_expectation(cassette, dialect)
    except BodyNotDecoded as exc:
        raise _InputError(f"{path}: nothing to draft from: {exc}") from exc
    existing = cassette.info.expect if cassette.info is not None else None
    if not args.write:
        document = msgspec.to_builtins(draft)
        document.pop("also", None)
        for name in ("hosted_tool_calls", "approval_requests"):
            if not document.get(name):
                document.pop(name, None)
        document = {"reviewed": document.pop("reviewed"), **document}
        out.write(
            _DRAFT_NOTE
            + yaml.safe_dump({"expect": document}, sort_keys=False, allow_unicode=True, width=100)
        )
        if existing is not None and existing.reviewed:
            _warn(f"raf: {path} already has a reviewed expect block (printed a draft only)")
        return 0
    if existing is not None and existing.reviewed:
        raise _InputError(
            f"{path} already has a reviewed expect block: raf never replaces one (delete it "
            "to draft anew)"
        )
    scenario = cassette.info.scenario if cassette.info is not None else scenario_name(path)
    info = cassette.info or ScenarioInfo(scenario=scenario)
    cassette.info = msgspec.structs.replace(info, dialect=dialect, expect=draft)
    try:
        save_cassette(cassette, path)
    except CassetteError as exc:
        raise _InputError(f"{path}: not written: {exc}") from exc
    except (OSError, ValueError) as exc:
        raise _InputError(f"cannot write {path}: {_reason(exc)}") from exc
    _warn(
        f"raf: wrote a draft expect block into {path} (reviewed: false): check every field "
        f"against `raf cassette show {path}`, then delete `reviewed: false`"
    )
    return 0


def _run_import(args: argparse.Namespace, out: TextIO) -> int:
    root: Path = args.output
    owned = owned_by_raf(root)
    if owned is not None:
        raise _InputError(f"-o {owned}")
    if root.is_symlink():
        raise _InputError(f"-o {root} is a symbolic link (links are not followed)")
    if root.exists() and not root.is_dir():
        raise _InputError(f"-o {root} exists and is not a folder")
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _InputError(f"cannot create {root}: {_reason(exc)}") from exc
    resolved_root = root.resolve()
    written: set[Path] = set()
    for source in find_files(args.sources, SUFFIXES):
        try:
            imported = import_file(source, dialect=args.dialect)
        except CassetteError as exc:
            _warn(f"raf: skipped {exc}")
            continue
        assert imported.info is not None
        target = root / imported.info.dialect / f"{imported.info.scenario}.yaml"
        if target in written:  # two sources with one name: qualify by the source's folder
            scenario = f"{scenario_name(source.parent)}__{imported.info.scenario}"
            imported.info = msgspec.structs.replace(imported.info, scenario=scenario)
            target = target.with_name(f"{scenario}.yaml")
        problem = _target_problem(target, resolved_root)
        if problem is not None:
            _warn(f"raf: skipped {source}: {problem}")
            continue
        if target.exists() and not args.force:
            _warn(f"raf: skipped {source}: {target} exists (use --force)")
            continue
        try:
            save_cassette(imported, target)
        except CassetteError as exc:  # e.g. a streamed secret that cannot be scrubbed
            _warn(f"raf: skipped {source}: not written: {exc}")
            continue
        except (OSError, ValueError) as exc:
            _warn(f"raf: skipped {source}: cannot write {target}: {_reason(exc)}")
            continue
        out.write(f"{source} -> {target}\n")
        written.add(target)
    _warn(f"raf: imported {len(written)} cassette(s)")
    return 0 if written else 1


def _target_problem(target: Path, resolved_root: Path) -> str | None:
    """Why ``target`` (``OUT/<dialect>/<scenario>.yaml``) must not be written, if it must not:
    a link (the dialect folder or the file; never followed), something that is not a folder
    or a file, or a place outside the output folder."""
    for path in (target.parent, target):
        if path.is_symlink():
            return f"{path} is a symbolic link (links are not followed)"
    if target.parent.exists() and not target.parent.is_dir():
        return f"{target.parent} is not a folder"
    if target.exists() and not target.is_file():
        return f"{target} is not a regular file"
    if target.resolve().parent.parent != resolved_root:
        return f"{target} is not inside the output folder {resolved_root}"
    return None
