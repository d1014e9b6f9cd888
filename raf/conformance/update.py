"""``raf conform --update``: write the goldens of a cassette folder, under the review rule.

A golden is raf's reference output for a cassette; it is only trustworthy when a person has
said what the response must be. So a cassette is *blessed* (its golden written) only when it
has a reviewed ``expect`` block and the reference's output satisfies it at every level it can
be checked at (:func:`raf.conformance.cases.review`). A cassette without one, or whose output
contradicts it, is reported and its golden left as it is.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from raf.cassettes.coding import BodyNotDecoded
from raf.cassettes.lint import cassette_files
from raf.cassettes.persister import load as load_cassette
from raf.conformance import goldens
from raf.conformance.cases import blessing_problem, matches, review
from raf.conformance.reference import golden_of
from raf.errors import CassetteError, GoldenFormatError
from raf.shared.bundled import owned_by_raf

__all__ = ["GoldenUpdate", "update_goldens"]


@dataclass(frozen=True)
class GoldenUpdate:
    """What happened to one cassette's golden: ``verdict`` is ``new``, ``updated``,
    ``unchanged`` or ``not blessed`` (then ``reason`` says why)."""

    cassette: Path
    golden: Path | None
    verdict: str
    reason: str = ""

    @property
    def refused(self) -> bool:
        return self.verdict == "not blessed"

    @property
    def changed(self) -> bool:
        return self.verdict in ("new", "updated")


def update_goldens(
    cassettes_dir: Path,
    goldens_dir: Path,
    *,
    select: Sequence[str] = (),
    dialects: Sequence[str] = (),
) -> list[GoldenUpdate]:
    """Write the golden of every selected cassette under ``cassettes_dir`` that passes its
    review; report the others. ``select`` and ``dialects`` as for
    :func:`raf.conformance.cases.load_suite`.

    Raises:
        ValueError: ``goldens_dir`` is raf's own (:func:`raf.conformance.bundled.owned_by_raf`):
            no golden of the package is ever written.
    """
    owned = owned_by_raf(goldens_dir)
    if owned is not None:
        raise ValueError(owned)
    out = []
    for path in cassette_files([cassettes_dir]):
        try:
            cassette = load_cassette(path)
        except CassetteError as exc:
            if matches(select, path.stem):
                out.append(GoldenUpdate(path, None, "not blessed", str(exc)))
            continue
        info = cassette.info
        scenario = info.scenario if info else path.stem
        dialect = info.dialect if info else path.parent.name
        if (dialects and dialect not in dialects) or not matches(select, scenario):
            continue
        unblessed = blessing_problem(cassette)
        if unblessed is not None:
            out.append(GoldenUpdate(path, None, "not blessed", unblessed.split(": ", 1)[1]))
            continue
        try:
            target = goldens.golden_path(goldens_dir, dialect, scenario)
        except ValueError as exc:
            out.append(GoldenUpdate(path, None, "not blessed", str(exc)))
            continue
        try:
            golden = golden_of(cassette, scenario)
        except BodyNotDecoded as exc:  # nothing a client reads: no golden to write
            out.append(GoldenUpdate(path, target, "not blessed", str(exc)))
            continue
        problems = review(golden, cassette)
        if problems:
            out.append(GoldenUpdate(path, target, "not blessed", "; ".join(problems)))
            continue
        text = goldens.dumps(golden)
        try:
            old = goldens.load(target)
        except GoldenFormatError:
            old = None
        if old is not None and goldens.dumps(old) == text:
            out.append(GoldenUpdate(path, target, "unchanged"))
            continue
        _write(target, text)
        out.append(GoldenUpdate(path, target, "new" if old is None else "updated"))
    return out


def _write(target: Path, text: str) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
