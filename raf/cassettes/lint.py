"""``raf cassette lint``: structure checks and a secret scan. Reads the file it checks.

Each problem is a :class:`Finding` with the file, the line, the place in the document and a
message. Errors (a malformed cassette, a credential) make the lint fail; warnings (a missing
``expect`` block, a stream without ``text/event-stream``) are reported but do not.

Files are read as :func:`raf.cassettes.persister.load` reads them: bounded (regular files of
at most ``MAX_CASSETTE_BYTES``) and through the YAML safety scan, which also gives the line of
every value; nothing here recurses once per level of nesting. Lint reads more than the
document every other reader gets (:func:`raf.cassettes.serializer.read_for_lint`): a key that
appears twice in one mapping is an error (YAML keeps the later value and drops the first
without a word), and the text outside the values (comments, keys, dropped values) is scanned
for secrets as well.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

from raf import dialects
from raf.cassettes.coding import BodyNotDecoded
from raf.cassettes.expiry import problems as recorded_problems
from raf.cassettes.files import find_files, read_limited
from raf.cassettes.format import Cassette, Recorded
from raf.cassettes.inventory import unread
from raf.cassettes.secrets import document_findings, shorten, text_hits
from raf.cassettes.serializer import LintView, read_for_lint
from raf.errors import CassetteFormatError, CassetteNotFound, FileRefused
from raf.limits import MAX_CASSETTE_BYTES
from raf.quirks import QuirkCatalogueError, catalogue

__all__ = ["Finding", "cassette_files", "lint_file", "lint_paths"]


@dataclass(frozen=True)
class Finding:
    """One problem in one file."""

    path: str
    line: int
    where: str
    severity: str  # "error" or "warning"
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.severity}: {self.where}: {self.message}"


CASSETTE_SUFFIXES = (".yaml", ".yml")
"""The suffixes of cassette files (case-insensitive)."""


def cassette_files(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """The cassette files ``paths`` name: each folder is searched recursively for regular
    ``.yaml``/``.yml`` files; any other path is returned as it is.

    Inside a folder, only regular files (or links to them) count: a folder named ``x.yaml``
    is searched like any folder, and FIFOs, devices, sockets and broken or looping links are
    skipped without being opened (see :func:`raf.cassettes.files.find_files`). A path given
    by name is returned whatever it is, so that its reader reports what is wrong with it.

    Raises:
        CassetteNotFound: a path does not exist (or is a link to nothing).
    """
    paths = list(paths)
    for path in paths:
        try:
            os.stat(path)
        except FileNotFoundError:
            raise CassetteNotFound(str(path)) from None
        except (OSError, ValueError):  # a link loop, no permission...: the reader reports it
            pass
    return find_files(paths, CASSETTE_SUFFIXES)


def lint_paths(
    paths: Iterable[str | os.PathLike[str]], *, now: datetime | None = None
) -> list[Finding]:
    """Lint every cassette file found under ``paths`` (see :func:`cassette_files`), judging
    expiry at ``now`` (see :func:`lint_file`).

    Raises:
        CassetteNotFound: a path does not exist.
    """
    return [finding for file in cassette_files(paths) for finding in lint_file(file, now=now)]


def lint_file(path: str | os.PathLike[str], *, now: datetime | None = None) -> list[Finding]:
    """Every problem of one cassette file. Never raises for what the file holds: a file that
    cannot be read, or is refused (not a regular file, too large, anchors, aliases, tags,
    nesting, node count), is one error finding.

    The ``recorded`` header is judged at ``now`` (an aware datetime; default: the current
    UTC time): a recording older than its ``max_age`` is a warning, or an error with
    ``on_expiry: fail`` (:mod:`raf.cassettes.expiry`)."""
    source = str(path)
    try:
        text = read_limited(path, MAX_CASSETTE_BYTES)
    except FileNotFoundError:
        return [Finding(source, 0, "file", "error", "cannot read: no such file")]
    except FileRefused as exc:
        return [Finding(source, 0, "file", "error", exc.reason)]
    try:
        view = read_for_lint(text, source=source)
    except CassetteFormatError as exc:
        return [Finding(source, exc.line or 0, "file", "error", exc.problem)]
    lines = view.lines
    findings = [
        Finding(source, _line_of(lines, where), where or "document", severity, message)
        for where, severity, message in _check(view.document, source)
    ]
    findings += _outside_values(view, source)
    findings += _recorded(view, source, now)
    return sorted(findings, key=lambda f: (f.line, f.where))


def _outside_values(view: LintView, source: str) -> Iterator[Finding]:
    """Errors for what no reader of the document sees: each duplicate key, and each secret
    in the text outside the values (a comment, a key, the value of a duplicate key)."""
    for duplicate in view.duplicates:
        yield Finding(
            source,
            duplicate.line,
            duplicate.where,
            "error",
            (
                f"duplicate key {duplicate.key!r} (first at line {duplicate.first_line}): "
                "YAML keeps only this later value and drops the first without a word"
            ),
        )
    for line, piece, dropped in view.outside:
        for hit in text_hits(piece):
            where = "the value of a duplicate key" if dropped else "a comment or a key"
            yield Finding(
                source,
                line + piece.count("\n", 0, hit.start),
                "file text",
                "error",
                f"{hit.kind} in {where}, which no reader of the cassette sees "
                f"({shorten(hit.secret)})",
            )


def _recorded(view: LintView, source: str, now: datetime | None) -> list[Finding]:
    """The expiry of a ``raf.recorded`` header and what is wrong with its ``date`` and
    ``max_age`` (:func:`raf.cassettes.expiry.problems`); nothing when there is no such header
    or it is malformed (the structure check reports that)."""
    block = view.document.get("raf") if isinstance(view.document, dict) else None
    header = block.get("recorded") if isinstance(block, dict) else None
    if header is None:
        return []
    try:
        recorded = msgspec.convert(header, Recorded)
    except msgspec.ValidationError:
        return []
    at = now if now is not None else datetime.now(UTC)
    return [
        Finding(source, _line_of(view.lines, where), where, severity, message)
        for where, severity, message in recorded_problems(recorded, at)
    ]


def _line_of(lines: dict[str, int], where: str) -> int:
    """The line of a place; a place in a decoded view of a value ("...body (streamed text)")
    is at the line of the value."""
    if where in lines:
        return lines[where]
    return lines.get(where.split(" (", 1)[0], lines.get("", 1))


_PLACE = re.compile(r"((?:raf|interactions|version)[\w.\[\]\-]*?):? ")
"""The place a :meth:`Cassette.from_dict` problem starts with (``raf.scenario: ...``)."""


def _check(document: Any, source: str) -> Iterator[tuple[str, str, str]]:
    try:
        cassette = Cassette.from_dict(document, source=source)
    except CassetteFormatError as exc:
        place = _PLACE.match(exc.problem)
        if place is None:
            yield "", "error", exc.problem
        elif place.group(0).endswith(": "):  # "raf.scenario: '../x' cannot name a file"
            yield place.group(1), "error", exc.problem[place.end() :]
        else:  # "interactions[0].request.uri is missing"
            yield place.group(1), "error", exc.problem
        return
    if cassette.info is None:
        yield (
            "",
            "warning",
            "no 'raf' block: the scenario, its dialect and its expected response are unknown",
        )
    else:
        if cassette.info.dialect not in dialects.names():
            yield (
                "raf.dialect",
                "error",
                (
                    f"unknown dialect {cassette.info.dialect!r} "
                    f"(known: {', '.join(dialects.names())})"
                ),
            )
        if cassette.info.expect is None:
            yield "raf", "warning", "no 'expect' block: the golden of this cassette is not reviewed"
        yield from _quirks(cassette.info.quirks, cassette.info.dialect)
    if not cassette.interactions:
        yield "interactions", "error", "no interactions"
    yield from _secrets(document)
    for n, interaction in enumerate(cassette.interactions):
        response = interaction.response
        content_type = response.header("content-type") or ""
        try:
            body = response.content()
        except BodyNotDecoded:  # an error of the secret scan already
            continue
        if response.status == 200 and b"data:" in body and "event-stream" not in content_type:
            yield (
                f"interactions[{n}].response.headers",
                "warning",
                (f"the body looks like an event stream but content-type is {content_type!r}"),
            )
    yield from _unrecognised_events(cassette)


UNRECOGNISED_EXPECTED = frozenset({"unrecognised_chunks", "unrecognised_format"})
"""The error and notice codes of an expectation that say the recording is about chunks raf
does not recognise: its unrecognised event types are then no warning."""


def _unrecognised_events(cassette: Cassette) -> Iterator[tuple[str, str, str]]:
    """A warning for each event type raf does not read in a response (a new event type of
    the provider: :func:`raf.cassettes.inventory.unread`), unless the cassette's expectation
    lists ``unrecognised_chunks`` or ``unrecognised_format``. Skipped event types and unknown
    fields are not warned about (``raf cassette show`` lists them)."""
    info = cassette.info
    if info is None or info.dialect not in dialects.names():
        return
    expect = info.expect
    if expect is not None and not UNRECOGNISED_EXPECTED.isdisjoint(
        (*expect.errors, *expect.notices)
    ):
        return
    for n, interaction in enumerate(cassette.interactions):
        response = interaction.response
        if not 200 <= response.status < 300:
            continue
        try:
            body = response.content()
        except BodyNotDecoded:
            continue
        for event in unread(info.dialect, body).unrecognised_events:
            events = f"{event.count} event" + ("" if event.count == 1 else "s")
            yield (
                f"interactions[{n}].response.body",
                "warning",
                f"event type {event.type}: raf does not read it ({events}, the first is "
                f"#{event.first})",
            )


def _quirks(quirks: tuple[str, ...], dialect: str) -> Iterator[tuple[str, str, str]]:
    """An error for each quirk id the catalogue does not have (:mod:`raf.quirks`), a warning
    for one the catalogue does not list for the cassette's format."""
    if not quirks:
        return
    try:
        known = catalogue()
    except QuirkCatalogueError as exc:  # a broken installation: said, not raised
        yield "raf.quirks", "error", f"the quirk catalogue cannot be read: {exc}"
        return
    for n, name in enumerate(quirks):
        quirk = known.get(name)
        if quirk is None:
            yield (
                f"raf.quirks[{n}]",
                "error",
                f"unknown quirk {name!r}: not in the quirk catalogue (raf.quirks; "
                "docs/fuzzing.md lists them)",
            )
        elif dialect not in quirk.formats:
            yield (
                f"raf.quirks[{n}]",
                "warning",
                f"the catalogue has quirk {name!r} for {', '.join(quirk.formats)}, "
                f"not for {dialect}",
            )
        if name in quirks[:n]:
            yield f"raf.quirks[{n}]", "warning", f"quirk {name!r} is named twice"


def _secrets(document: Any) -> Iterator[tuple[str, str, str]]:
    """The secret scan: every finding of :func:`raf.cassettes.secrets.document_findings`
    (the rules scrubbing applies) is an error."""
    for finding in document_findings(document):
        yield finding.where, "error", finding.message
