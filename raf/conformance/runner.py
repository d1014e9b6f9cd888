"""Run cassettes through an implementation and compare with the goldens. Reads the cassette
and golden files; prints nothing (``raf.conformance.report`` renders the outcome).

For each cassette the implementation is run once per chunking; every run must give exactly
the golden's updates, results and response. The golden itself must satisfy the cassette's
``expect`` block (a golden that contradicts the reviewed expectation fails too).

Whatever the files hold, a run reports and goes on: a cassette that cannot be read, a
scenario that cannot name a golden file and a golden that is not valid are problems of their
case (status ``error``), never an exception.
"""

from __future__ import annotations

import difflib
import fnmatch
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from raf.cassettes.format import Cassette
from raf.cassettes.lint import cassette_files
from raf.cassettes.persister import load as load_cassette
from raf.chunking import STANDARD_CHUNKINGS
from raf.conformance import goldens
from raf.conformance.goldens import InteractionOutput
from raf.conformance.reference import Implementation, run_cassette, run_interaction
from raf.conformance.review import expectation_problems
from raf.errors import CassetteError, GoldenFormatError

__all__ = ["CaseReport", "Difference", "run_case", "run_suite"]

PARTS = ("updates", "results", "response")


@dataclass(frozen=True)
class Difference:
    """Where an implementation's output differs from the golden."""

    chunking: str
    interaction: int
    part: str
    diff: str


@dataclass
class CaseReport:
    """The outcome of one cassette."""

    cassette: Path
    scenario: str
    dialect: str = "?"
    chunkings: list[str] = field(default_factory=list)
    passed: list[str] = field(default_factory=list)
    differences: list[Difference] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    missing_golden: bool = False

    @property
    def ok(self) -> bool:
        return not (self.differences or self.problems or self.missing_golden)

    @property
    def status(self) -> str:
        if self.problems and not self.chunkings:
            return "error"
        if self.missing_golden:
            return "no golden"
        return "pass" if self.ok else "FAIL"


def _lines(part: str, value: Any) -> list[str]:
    if part == "response":
        return json.dumps(value, indent=2, ensure_ascii=False).splitlines()
    return [json.dumps(item, ensure_ascii=False, separators=(",", ":")) for item in value]


def _diff(part: str, want: Any, got: Any, label: str) -> str:
    lines = difflib.unified_diff(
        _lines(part, want),
        _lines(part, got),
        fromfile=f"golden {label}",
        tofile=f"actual {label}",
        lineterm="",
        n=2,
    )
    return "\n".join(lines)


def _compare(
    want: list[InteractionOutput], got: list[InteractionOutput], chunking: str
) -> list[Difference]:
    out = []
    if len(want) != len(got):
        return [
            Difference(
                chunking,
                0,
                "interactions",
                f"{len(want)} interactions in the golden, {len(got)} produced",
            )
        ]
    for n, (expected, actual) in enumerate(zip(want, got, strict=True)):
        for part in PARTS:
            a, b = getattr(expected, part), getattr(actual, part)
            if a != b:
                out.append(
                    Difference(
                        chunking,
                        n,
                        part,
                        _diff(part, a, b, f"{part} (interaction {n})"),
                    )
                )
    return out


def run_case(
    path: Path,
    goldens_dir: Path,
    *,
    chunkings: Sequence[str] = STANDARD_CHUNKINGS,
    implementation: Implementation = run_interaction,
    on_run: Callable[[str], None] | None = None,
) -> CaseReport:
    """Run one cassette under every chunking and compare with its golden."""
    report = CaseReport(cassette=path, scenario=path.stem)
    try:
        cassette: Cassette = load_cassette(path)
    except CassetteError as exc:
        report.problems.append(str(exc))
        return report
    info = cassette.info
    report.scenario = info.scenario if info else path.stem
    report.dialect = dialect = info.dialect if info else "openai_chat"
    try:
        golden_file = goldens.golden_path(goldens_dir, dialect, report.scenario)
    except ValueError as exc:  # a cassette without a raf block, named after its file
        report.problems.append(f"no golden can be named: {exc}")
        return report
    try:
        golden = goldens.load(golden_file)
    except GoldenFormatError as exc:
        report.problems.append(f"golden is not valid: {exc}")
        return report
    if golden is None:
        report.missing_golden = True
    elif info is not None and info.expect is not None:
        last = golden.interactions[-1].response if golden.interactions else {}
        report.problems += [
            f"golden contradicts expect: {p}" for p in expectation_problems(info.expect, last)
        ]
    for chunking in chunkings:
        report.chunkings.append(chunking)
        try:
            outputs = run_cassette(cassette, chunking, implementation)
        except Exception as exc:  # an implementation under test may fail in any way
            report.problems.append(f"{chunking}: the implementation raised {exc!r}")
            continue
        finally:
            if on_run is not None:
                on_run(chunking)
        if golden is None:
            continue
        differences = _compare(golden.interactions, outputs, chunking)
        report.differences += differences
        if not differences:
            report.passed.append(chunking)
    return report


def run_suite(
    cassettes_dir: Path,
    goldens_dir: Path,
    *,
    chunkings: Sequence[str] = STANDARD_CHUNKINGS,
    implementation: Implementation = run_interaction,
    select: str | None = None,
    on_case: Callable[[Path], None] | None = None,
    on_run: Callable[[str], None] | None = None,
) -> list[CaseReport]:
    """Run every cassette under ``cassettes_dir`` (``select``: a shell pattern on the scenario
    file name) and compare with the goldens under ``goldens_dir``."""
    reports = []
    for path in cassette_files([cassettes_dir]):
        if select and not fnmatch.fnmatch(path.stem, select):
            continue
        if on_case is not None:
            on_case(path)
        reports.append(
            run_case(
                path, goldens_dir, chunkings=chunkings, implementation=implementation, on_run=on_run
            )
        )
    return reports
