"""Run a suite through an implementation and judge every case at one level. Prints nothing
(``raf.conformance.report`` and ``raf.conformance.reports`` render the outcome).

For each case the runner first checks what the implementation declared in its hello: a case
of a dialect it does not read, at a level it does not support, or needing a capability it
does not have is skipped, with the reason. Otherwise the implementation runs the case and the
runner judges its result at the level (docs/conformance.md): ``response`` compares the
aggregated response, ``lifecycle`` adds the rules of the streamed results, ``updates`` adds the
canonical updates and results. A case the implementation could not answer (a timeout, a crash,
a malformed line, a wrong id) fails with the reason and the tail of its stderr; a cassette
that gives no case (unreadable, no golden, a golden that contradicts its review) is an error.
Nothing here raises for what an implementation or a file does.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

import msgspec

from raf.conformance.cases import Case, Problem, Suite
from raf.conformance.implementation import Implementation, Outcome
from raf.conformance.levels import (
    Mismatch,
    check_lifecycle,
    compare_response,
    compare_updates,
    render,
)
from raf.conformance.protocol import LEVELS, PROTOCOL, ClientResponse, ImplementationHello

__all__ = ["CaseResult", "RunReport", "judge", "problem_result", "run_suite", "skip_reason"]

Status = Literal["pass", "fail", "skip", "error"]

_STDERR_IN_REPORT = 4000


@dataclass
class CaseResult:
    """The verdict on one case.

    Attributes:
        id: the case id (``openai_chat/plain_text#0@bytes``), or ``<dialect>/<scenario>`` for
            a cassette that gave no case.
        status: ``pass``, ``fail`` (the implementation's answer was wrong, or it gave none),
            ``skip`` (not declared: ``reason`` says what) or ``error`` (the case itself could
            not be run: an unusable cassette or golden, or an implementation that could not
            be started at all).
        reason: one line saying why it did not pass (the first mismatch, naming the field).
        diff: every mismatch, each with a diff where the values are long.
        stderr: what the implementation wrote to its stderr during the case (its tail).
    """

    id: str
    scenario: str
    dialect: str
    level: str
    status: Status
    interaction: int | None = None
    chunking: str | None = None
    reason: str = ""
    diff: str = ""
    stderr: str = ""
    seconds: float = 0.0
    cassette: str = ""

    @property
    def ok(self) -> bool:
        """Not a failure: passed, or skipped because it was not declared."""
        return self.status in ("pass", "skip")

    @classmethod
    def of(cls, case: Case, level: str, status: Status, reason: str = "") -> CaseResult:
        """The verdict ``status`` on ``case``, with its identity filled in."""
        return cls(
            id=case.id,
            scenario=case.scenario,
            dialect=case.dialect,
            level=level,
            status=status,
            interaction=case.interaction,
            chunking=case.chunking,
            reason=reason,
            cassette=str(case.cassette),
        )


@dataclass
class RunReport:
    """A whole run: who was tested, at which level, and every case's verdict."""

    implementation: str
    version: str
    level: str
    protocol: str = PROTOCOL
    started: str = ""
    seconds: float = 0.0
    results: list[CaseResult] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Every case passed or was skipped."""
        return all(r.ok for r in self.results)

    def counts(self) -> dict[str, int]:
        """How many cases of each status, every status present."""
        out = dict.fromkeys(("pass", "fail", "skip", "error"), 0)
        for result in self.results:
            out[result.status] += 1
        return out


def skip_reason(
    case: Case, level: str, hello: ImplementationHello, transport: str = "chunks"
) -> str | None:
    """Why ``case`` is skipped for an implementation that said ``hello``, or ``None``."""
    if case.dialect not in hello.dialects:
        return f"dialect {case.dialect} not declared"
    if level not in hello.levels:
        return f"level {level} not declared"
    needs = case.requires | {"http"} if transport == "http" else case.requires
    missing = sorted(needs - set(hello.capabilities))
    if missing:
        return f"needs capability {', '.join(missing)}"
    return None


def judge(case: Case, outcome: Outcome, level: str, capabilities: set[str]) -> CaseResult:
    """The verdict on ``outcome`` for ``case`` at ``level``."""
    verdict = CaseResult.of(case, level, "pass")
    verdict.stderr = outcome.stderr[-_STDERR_IN_REPORT:]
    if outcome.result is None:
        verdict.status = "fail"
        verdict.reason = outcome.failure or "no result"
        return verdict
    result = outcome.result
    expected = case.expected
    mismatches: list[Mismatch] = compare_response(
        expected.response, result.response, raised=result.raised, capabilities=capabilities
    )
    if level in ("lifecycle", "updates"):
        if result.results is None:
            mismatches.append(Mismatch("results", "the streamed results", "none sent"))
        else:
            response = msgspec.to_builtins(result.response or ClientResponse())
            mismatches += check_lifecycle(result.results, response)
    if level == "updates":
        mismatches += compare_updates(
            expected.updates, expected.results, result.updates, result.results
        )
    mismatches += [
        Mismatch("request", "a request like the recorded one", p) for p in outcome.request_problems
    ]
    if mismatches:
        verdict.status = "fail"
        more = f" (+{len(mismatches) - 1} more)" if len(mismatches) > 1 else ""
        verdict.reason = mismatches[0].summary() + more
        verdict.diff = render(mismatches)
    return verdict


def problem_result(problem: Problem, level: str) -> CaseResult:
    """The verdict on a cassette that gave no case: an error."""
    return CaseResult(
        id=problem.id,
        scenario=problem.scenario,
        dialect=problem.dialect,
        level=level,
        status="error",
        reason=problem.message,
        cassette=str(problem.cassette),
    )


def _shortened(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def run_suite(
    suite: Suite,
    implementation: Implementation,
    *,
    level: str = "response",
    on_result: Callable[[CaseResult], None] | None = None,
    transport: str = "chunks",
) -> RunReport:
    """Run every case of ``suite`` through ``implementation`` and judge it at ``level``.

    ``on_result`` is called with each verdict as soon as it is known (a progress bar).
    With ``transport="http"`` (an implementation given a server), a case needs the
    implementation's ``http`` capability.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; use one of {', '.join(LEVELS)}")
    started = time.perf_counter()
    stamp = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    report = RunReport(implementation="?", version="", level=level, started=stamp)
    for verdict in _verdicts(suite, implementation, level, report, transport):
        report.results.append(verdict)
        if on_result is not None:
            on_result(verdict)
    report.seconds = time.perf_counter() - started
    return report


def _verdicts(
    suite: Suite, implementation: Implementation, level: str, report: RunReport, transport: str
) -> Iterator[CaseResult]:
    for problem in suite.problems:
        yield problem_result(problem, level)
    try:
        hello = implementation.hello()
    except Exception as exc:  # cannot be started, or speaks another protocol
        for case in suite.cases:
            yield CaseResult.of(case, level, "error", str(exc))
        return
    # Names come from the implementation: shortened, so no report can be taken over.
    report.implementation, report.version = _shortened(hello.name), _shortened(hello.version)
    capabilities = set(hello.capabilities)
    try:
        for case in suite.cases:
            skip = skip_reason(case, level, hello, transport)
            if skip is not None:
                yield CaseResult.of(case, level, "skip", skip)
                continue
            began = time.perf_counter()
            outcome = implementation.run(case, level)
            verdict = judge(case, outcome, level, capabilities)
            verdict.seconds = time.perf_counter() - began
            yield verdict
    finally:
        implementation.close()
