"""Write a finding's cassette and its golden, so that ``raf conform --impl CMD --cassettes
DIR`` runs it. Never overwrites a file.

The cassette goes to ``DIR/<format>/fuzz_<format>_<digest>.yaml``
(:func:`raf.fuzz.cassette.finding_cassette`), its golden beside the folder, in
``DIR_goldens`` (:func:`raf.conformance.update.update_goldens`: written only when raf's
reference satisfies the ground truth, as for any cassette of one's own). A cassette already
there with the same content is *already saved*; one with other content is left as it is.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from raf.cassettes.format import Cassette
from raf.cassettes.persister import save
from raf.cassettes.scrub import scrub_cassette
from raf.cassettes.serializer import dumps
from raf.conformance.goldens import beside, golden_path
from raf.conformance.update import update_goldens

__all__ = ["Saved", "save_cassette"]


@dataclass(frozen=True)
class Saved:
    """What became of one cassette: ``verdict`` is ``written``, ``already saved`` or
    ``not written`` (``reason`` says why); ``golden`` is its golden's path once written."""

    path: Path
    verdict: str
    reason: str = ""
    golden: Path | None = None

    @property
    def written(self) -> bool:
        return self.verdict == "written"


def save_cassette(cassette: Cassette, folder: Path) -> Saved:
    """Write ``cassette`` under ``folder`` (``<dialect>/<scenario>.yaml``) unless a file is
    there, then its golden into ``folder``'s ``_goldens`` twin."""
    assert cassette.info is not None
    path = folder / cassette.info.dialect / f"{cassette.info.scenario}.yaml"
    try:
        text = dumps(cassette.to_dict())
    except ValueError as exc:  # the YAML writer cannot write it exactly: say so, go on
        return Saved(path, "not written", f"cannot be written as YAML ({exc})")
    if scrub_cassette(cassette) != cassette:
        return Saved(path, "not written", "the stream holds text that looks like a secret")
    if os.path.lexists(path):
        try:
            same = path.is_file() and path.read_text(encoding="utf-8") == text
        except (OSError, UnicodeDecodeError):
            same = False
        if not same:
            return Saved(path, "not written", "another file is there (not overwritten)")
        verdict = "already saved"
    else:
        save(cassette, path)
        verdict = "written"
    goldens = beside(folder)
    existing = golden_path(goldens, cassette.info.dialect, cassette.info.scenario)
    if os.path.lexists(existing):  # never overwritten: `raf conform --update` does that
        return Saved(path, verdict, golden=existing)
    outcomes = update_goldens(
        folder,
        goldens,
        select=[cassette.info.scenario],
        dialects=[cassette.info.dialect],
    )
    golden = next(
        (o for o in outcomes if o.cassette.resolve() == path.resolve()),
        None,
    )
    if golden is None or golden.refused:
        why = golden.reason if golden is not None else "no golden written"
        return Saved(path, verdict, f"golden not written: {why}")
    return Saved(path, verdict, golden=golden.golden)
