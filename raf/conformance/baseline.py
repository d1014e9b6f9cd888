"""An expected-failures baseline: the failures a team knows of and tracks, so that a suite
that is red on day one can go into CI and only get greener. The format, matching, and the
file's text; no IO but reading and writing the file itself.

``raf conform --write-baseline FILE`` records a run's failing differences, one entry each::

    # raf conform: known failures of example-node 1.0 (docs/conformance.md, "Baseline").
    raf-baseline: 1
    failures:
    - {format: openai_chat, scenario: leading_bom, level: response, field: text, kind: lost,
       reason: 'our SSE reader keeps the BOM, issue #12'}
    - {format: openai_chat, scenario: missing_id, level: response, field: tool_calls[0].id,
       kind: lost, chunkings: [bytes], reason: ''}

``raf conform --baseline FILE`` then passes when the failures are exactly those. A difference
is *known* when an entry has its format (dialect), scenario, level (the check that found it),
field (:attr:`raf.conformance.levels.Mismatch.key`) and kind, and the case's interaction and
chunking are among the entry's (an entry without ``interaction`` or ``chunkings`` covers every
one). A case whose failing differences are all known is ``known``, not failed; a new one fails
the run; and an entry that covers a case where its difference did not occur is *stale*: the
bug is fixed there, so the entry must go (the run fails until it does, as pytest's strict
xfail does), and the file only shrinks.

The file is read like any untrusted input (raf's safe YAML reader: no tags, no aliases,
bounded size and depth); any problem is a :class:`BaselineError` naming the file and the
entry.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

import yaml

from raf.cassettes.files import read_limited
from raf.cassettes.serializer import loads as yaml_loads
from raf.conformance.protocol import LEVELS
from raf.conformance.severity import KINDS
from raf.errors import CassetteFormatError, FileRefused, RafError

__all__ = [
    "BASELINE_VERSION",
    "MAX_BASELINE_BYTES",
    "Baseline",
    "BaselineError",
    "Entry",
    "Written",
    "dumps",
    "load",
    "loads",
    "write",
]

BASELINE_VERSION: Final = 1
"""The version of the baseline format (the ``raf-baseline`` key)."""

MAX_BASELINE_BYTES: Final = 16 * 1024 * 1024
"""The largest baseline file read (16 MiB: a hundred thousand entries)."""

CHECK_LEVELS: Final = ("request", *LEVELS)
"""The levels a difference can come from: the request check and the three levels."""

_KEYS = ("format", "scenario", "level", "field", "kind")
_OPTIONAL = ("interaction", "chunkings", "reason")


class BaselineError(RafError, ValueError):
    """A baseline file cannot be used: ``str(exc)`` names the file, the place and why."""


@dataclass(frozen=True)
class Entry:
    """One known failure.

    Attributes:
        format: the dialect (wire format) of the cassette.
        scenario: the cassette's scenario.
        level: the check that found the difference (``request``, ``response``,
            ``lifecycle`` or ``updates``).
        field: where (:attr:`raf.conformance.levels.Mismatch.key`: ``text``,
            ``tool_calls[0].id``, ``lifecycle.call``...).
        kind: what it is (:data:`raf.conformance.severity.KINDS`).
        interaction: the interaction it occurs in, or ``None`` for any.
        chunkings: the chunkings it occurs under, or ``()`` for every one.
        reason: why it is known: a person's words, kept when the baseline is written again.
    """

    format: str
    scenario: str
    level: str
    field: str
    kind: str
    interaction: int | None = None
    chunkings: tuple[str, ...] = ()
    reason: str = ""

    @property
    def key(self) -> tuple[str, str, str, str, str]:
        """What the entry is about, without where it occurs or why."""
        return (self.format, self.scenario, self.level, self.field, self.kind)

    def covers(self, dialect: str, scenario: str, interaction: int | None, chunking: str) -> bool:
        """Whether the entry is about the case of these coordinates."""
        return (
            self.format == dialect
            and self.scenario == scenario
            and (self.interaction is None or self.interaction == interaction)
            and (not self.chunkings or chunking in self.chunkings)
        )

    def label(self) -> str:
        """One line naming the entry: ``openai_chat/leading_bom response text lost``."""
        where = f" (interaction {self.interaction})" if self.interaction is not None else ""
        under = f" under {', '.join(self.chunkings)}" if self.chunkings else ""
        return f"{self.format}/{self.scenario} {self.level} {self.field} {self.kind}{where}{under}"


@dataclass(frozen=True)
class Baseline:
    """The entries of a baseline file (``source`` names it in messages)."""

    entries: tuple[Entry, ...] = ()
    source: str = ""
    implementation: str = ""

    def covering(
        self,
        dialect: str,
        scenario: str,
        interaction: int | None,
        chunking: str,
        levels: Iterable[str],
    ) -> list[Entry]:
        """The entries about a case, among those of the checks that ran (``levels``)."""
        ran = set(levels)
        return [
            e
            for e in self.entries
            if e.level in ran and e.covers(dialect, scenario, interaction, chunking)
        ]


def _problem(source: str, where: str, message: str) -> BaselineError:
    return BaselineError(f"{source}: {where}: {message}" if where else f"{source}: {message}")


def _entry(item: Any, n: int, source: str) -> Entry:
    where = f"failures[{n}]"
    if not isinstance(item, dict):
        raise _problem(source, where, "not a mapping")
    unknown = sorted(set(map(str, item)) - set(_KEYS) - set(_OPTIONAL))
    if unknown:
        raise _problem(source, where, f"unknown key(s) {', '.join(unknown)}")
    values: dict[str, Any] = {}
    for key in _KEYS:
        value = item.get(key)
        if not isinstance(value, str) or not value:
            raise _problem(source, f"{where}.{key}", "missing or not text")
        values[key] = value
    if values["kind"] not in KINDS:
        raise _problem(
            source, f"{where}.kind", f"{values['kind']!r} is not one of {', '.join(KINDS)}"
        )
    if values["level"] not in CHECK_LEVELS:
        raise _problem(
            source,
            f"{where}.level",
            f"{values['level']!r} is not one of {', '.join(CHECK_LEVELS)}",
        )
    interaction = item.get("interaction")
    if interaction is not None and (type(interaction) is not int or interaction < 0):
        raise _problem(source, f"{where}.interaction", "not a whole number from 0")
    chunkings = item.get("chunkings") or []
    if not isinstance(chunkings, list) or not all(isinstance(c, str) and c for c in chunkings):
        raise _problem(source, f"{where}.chunkings", "not a list of chunking names")
    reason = item.get("reason")
    if reason is None:
        reason = ""
    if not isinstance(reason, str):
        raise _problem(source, f"{where}.reason", "not text")
    return Entry(
        **values, interaction=interaction, chunkings=tuple(chunkings), reason=reason.strip()
    )


def loads(text: str | bytes, *, source: str = "<baseline>") -> Baseline:
    """The baseline of a file's text.

    Raises:
        BaselineError: not YAML raf reads safely, not a baseline of this version, or an entry
            that is not one (the message names it).
    """
    try:
        document = yaml_loads(text, source=source)
    except CassetteFormatError as exc:  # the safe reader's refusals, with the line
        raise BaselineError(str(exc)) from None
    if not isinstance(document, dict):
        raise _problem(source, "", "not a baseline (a mapping with raf-baseline and failures)")
    version = document.get("raf-baseline")
    if version != BASELINE_VERSION or type(version) is not int:
        raise _problem(
            source, "raf-baseline", f"{version!r} is not a baseline version raf reads (1)"
        )
    failures = document.get("failures")
    if failures is None:
        failures = []
    if not isinstance(failures, list):
        raise _problem(source, "failures", "not a list")
    implementation = document.get("implementation")
    return Baseline(
        entries=tuple(_entry(item, n, source) for n, item in enumerate(failures)),
        source=source,
        implementation=implementation if isinstance(implementation, str) else "",
    )


def load(path: str | os.PathLike[str]) -> Baseline:
    """The baseline in the file ``path``.

    Raises:
        BaselineError: the file is missing, not a regular file, too large, unreadable, or
            not a baseline (:func:`loads`).
    """
    source = str(path)
    try:
        data = read_limited(path, MAX_BASELINE_BYTES)
    except FileNotFoundError:
        raise BaselineError(f"{source}: no such file (write one with --write-baseline)") from None
    except FileRefused as exc:
        raise BaselineError(str(exc)) from None
    except OSError as exc:
        raise BaselineError(f"{source}: {exc.strerror or exc}") from None
    return loads(data, source=source)


def _flow(entry: Entry) -> str:
    data: dict[str, Any] = {key: getattr(entry, key) for key in _KEYS}
    if entry.interaction is not None:
        data["interaction"] = entry.interaction
    if entry.chunkings:
        data["chunkings"] = list(entry.chunkings)
    data["reason"] = entry.reason
    text = yaml.safe_dump(
        data, default_flow_style=True, sort_keys=False, width=1 << 30, allow_unicode=True
    )
    return text.strip()


@dataclass
class Written:
    """What :func:`dumps` made of the entries: how many were new, kept (with the reason of
    the previous file) and dropped (in the previous file, no longer failing)."""

    text: str
    new: int = 0
    kept: int = 0
    dropped: list[Entry] = field(default_factory=list)


def dumps(
    entries: Sequence[Entry], *, implementation: str = "", previous: Baseline | None = None
) -> Written:
    """The text of a baseline file holding ``entries`` (sorted; each entry once), with the
    reasons of ``previous`` carried over to the entries it already had."""
    reasons: dict[tuple[Any, ...], str] = {}
    if previous is not None:
        for old in previous.entries:
            if old.reason:
                reasons.setdefault((old.key, old.interaction, old.chunkings), old.reason)
                reasons.setdefault((old.key, None, ()), old.reason)
    unique: dict[tuple[Any, ...], Entry] = {}
    for entry in entries:
        unique.setdefault((entry.key, entry.interaction, entry.chunkings), entry)
    written = Written(text="")
    lines = []
    kept_keys = set()
    for key in sorted(unique, key=lambda k: (k[0], -1 if k[1] is None else k[1], k[2])):
        entry = unique[key]
        reason = entry.reason or reasons.get(key) or reasons.get((entry.key, None, ()), "")
        if reason:
            written.kept += 1
        else:
            written.new += 1
        kept_keys.add(entry.key)
        lines.append("- " + _flow(replace(entry, reason=reason)))
    if previous is not None:
        written.dropped = [e for e in previous.entries if e.key not in kept_keys]
    who = f" of {implementation}" if implementation else ""
    header = [
        f'# raf conform: known failures{who} (docs/conformance.md, "Baseline").',
        "# `raf conform --baseline FILE` passes when the failures are exactly these: a new one",
        "# fails the run, and so does an entry that no longer fails (remove it). Fill in each",
        "# reason: why the failure is known and where it is tracked.",
        f"raf-baseline: {BASELINE_VERSION}",
    ]
    if implementation:
        header.append(
            "implementation: " + yaml.safe_dump(implementation, width=1 << 30).split("\n", 1)[0]
        )
    body = ["failures:", *lines] if lines else ["failures: []"]
    written.text = "\n".join([*header, *body]) + "\n"
    return written


def write(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` atomically (a temporary file beside it, then a rename)."""
    target = Path(path)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)
