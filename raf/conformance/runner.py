"""Run a suite through an implementation and judge every case at one level. Prints nothing
(``raf.conformance.report`` and ``raf.conformance.reports`` render the outcome).

For each case the runner first checks what the implementation declared in its hello: a case
of a dialect it does not read, at a level it does not support, or needing a capability it
does not have is skipped, with the reason. Otherwise the implementation runs the case and the
runner judges its result at the level (docs/conformance.md): ``response`` compares the
aggregated response (with the golden's, or another reading the cassette accepts),
``lifecycle`` adds the rules of the streamed results, ``updates`` adds the canonical updates
and results, ``requests`` adds to ``response`` every request of a ``tool_loop`` case's run
(:func:`raf.conformance.requests_level.judge_requests`). Every difference has a kind, and
its kind a severity under the run's :class:`~raf.conformance.severity.Policy`: a case fails
on a difference that fails and that the baseline (:mod:`raf.conformance.baseline`) does not
know; notices are kept and counted.

A case the implementation could not answer (a timeout, a crash, a malformed line) fails with
the reason and its stderr; a cassette that gives no case (unreadable, not blessed, no golden,
a golden that contradicts its review) is an error. An implementation that cannot be started,
or that gives up, is reported once and the cases it did not run are errors. ``KeyboardInterrupt``
(Ctrl-C) and :class:`Interrupted` (raised by a SIGTERM handler) stop the run: the
implementation is stopped at once and the report holds what was judged. Nothing here raises
for what an implementation or a file does.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

import msgspec

from raf.conformance.baseline import Baseline, Entry
from raf.conformance.cases import Case, Problem, Suite
from raf.conformance.implementation import Implementation, Outcome
from raf.conformance.levels import (
    Mismatch,
    check_lifecycle,
    compare_response,
    compare_updates,
    render,
)
from raf.conformance.protocol import (
    LEVELS,
    PROTOCOL,
    STREAM_LEVELS,
    TOOL_LOOP_LEVELS,
    ImplementationHello,
)
from raf.conformance.requests_level import judge_requests, request_line_mismatch
from raf.conformance.severity import Policy, Severity
from raf.shared.client_response import ClientResponse

__all__ = [
    "CaseResult",
    "Difference",
    "Interrupted",
    "RunReport",
    "Stale",
    "checked_levels",
    "judge",
    "problem_result",
    "run_suite",
    "skip_reason",
]

Status = Literal["pass", "fail", "known", "skip", "error"]

_STDERR_IN_REPORT = 4000


class Interrupted(BaseException):
    """Raised (by a SIGTERM handler) to stop a run the way Ctrl-C does; ``signal`` is the
    signal's number. A ``BaseException``, so that no ``except Exception`` on the way (an
    implementation that catches what its client raises) swallows it."""

    def __init__(self, signal: int) -> None:
        super().__init__(signal)
        self.signal = signal


@dataclass(frozen=True)
class Difference:
    """One mismatch as the run judged it: its severity under the run's policy, whether it
    fails the case, and whether the baseline knows it."""

    mismatch: Mismatch
    severity: Severity
    fails: bool
    known: bool = False

    @property
    def failing(self) -> bool:
        """It fails the case: a failing difference the baseline does not know."""
        return self.fails and not self.known


@dataclass
class CaseResult:
    """The verdict on one case.

    Attributes:
        id: the case id (``openai_chat/plain_text#0@bytes``), or ``<dialect>/<scenario>`` for
            a cassette that gave no case.
        status: ``pass`` (notices allowed), ``fail`` (a difference that fails and that the
            baseline does not know, or no answer at all), ``known`` (every failing difference
            is in the baseline), ``skip`` (not declared: ``reason`` says what) or ``error``
            (the case itself could not be run: an unusable cassette or golden, or an
            implementation that could not be started or gave up: ``not_run``).
        reason: one line saying why it did not pass (the first failing difference).
        diff: every difference, each with a diff where the values are long.
        stderr: what the implementation wrote to its stderr during the case (its tail).
        differences: every difference, judged.
        reading: when the response matched another correct reading of the stream than the
            golden's (the cassette's ``expect.also``), why that reading is correct.
        stale: the baseline entries about this case whose difference did not occur.
        not_run: the implementation never ran it (it could not be started, or gave up).
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
    differences: list[Difference] = field(default_factory=list)
    reading: str = ""
    stale: list[Entry] = field(default_factory=list)
    not_run: bool = False

    @property
    def ok(self) -> bool:
        """Not a failure: passed, known, or skipped because it was not declared; and no
        baseline entry about it is stale."""
        return self.status in ("pass", "known", "skip") and not self.stale

    @property
    def notices(self) -> list[Difference]:
        """The differences that do not fail the case (notices under the run's policy)."""
        return [d for d in self.differences if not d.fails]

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


@dataclass(frozen=True)
class Stale:
    """A baseline entry that no longer fails under the chunkings named."""

    entry: Entry
    chunkings: tuple[str, ...]


@dataclass
class RunReport:
    """A whole run: who was tested, at which level, how, and every case's verdict.

    Attributes:
        planned: how many cases (and cassettes without a case) the run was to judge.
        stopped: why the run ended before judging them all (``interrupted``, ``terminated``,
            ``gave up``, ``first failure``), or ``""``.
        fatal: what kept the implementation from running cases (its start-up failure with its
            stderr, or why it gave up), said once.
        policy: which differences fail.
        baseline: the baseline the run was judged with, if any.
    """

    implementation: str
    version: str
    level: str
    protocol: str = PROTOCOL
    started: str = ""
    seconds: float = 0.0
    results: list[CaseResult] = field(default_factory=list)
    transport: str = "chunks"
    planned: int = 0
    stopped: str = ""
    fatal: str = ""
    policy: Policy = field(default_factory=Policy)
    baseline: Baseline | None = None

    @property
    def ok(self) -> bool:
        """Every case passed, was known or was skipped; no baseline entry is stale; and the
        run was not stopped before its end."""
        return all(r.ok for r in self.results) and self.stopped in ("", "first failure")

    def counts(self) -> dict[str, int]:
        """How many cases of each status, every status present."""
        out = dict.fromkeys(("pass", "fail", "known", "skip", "error"), 0)
        for result in self.results:
            out[result.status] += 1
        return out

    def notices(self) -> int:
        """How many cases passed with notices."""
        return sum(1 for r in self.results if r.status == "pass" and r.notices)

    def stale(self) -> list[Stale]:
        """Every stale baseline entry, with the chunkings under which it no longer fails."""
        found: dict[Entry, list[str]] = {}
        for result in self.results:
            for entry in result.stale:
                found.setdefault(entry, []).append(result.chunking or "-")
        return [Stale(e, tuple(dict.fromkeys(c))) for e, c in found.items()]


def skip_reason(
    case: Case, level: str, hello: ImplementationHello, transport: str = "chunks"
) -> str | None:
    """Why ``case`` is skipped for an implementation that said ``hello``, or ``None``."""
    if case.dialect not in hello.dialects:
        return f"dialect {case.dialect} not declared"
    if level not in hello.levels:
        return f"level {level} not declared"
    if case.loop is not None:
        if transport != "http":
            return "a tool_loop case needs --transport http"
        if level not in TOOL_LOOP_LEVELS:
            return (
                f"a tool_loop case is judged at levels {' and '.join(TOOL_LOOP_LEVELS)}, "
                f"not {level}"
            )
    needs = case.requires | {"http"} if transport == "http" else case.requires
    missing = sorted(needs - set(hello.capabilities))
    if missing:
        return f"needs capability {', '.join(missing)}"
    return None


def checked_levels(level: str, transport: str = "chunks") -> tuple[str, ...]:
    """The checks a run at ``level`` makes: the levels up to it (``requests``: ``response``
    and itself), and the request check when the implementation makes the request itself
    (``http``)."""
    if level in STREAM_LEVELS:
        upto: tuple[str, ...] = STREAM_LEVELS[: STREAM_LEVELS.index(level) + 1]
    else:
        upto = ("response", level)
    return ("request", *upto) if transport == "http" else upto


def _fewest_failures(
    candidates: Sequence[tuple[str, list[Mismatch]]], policy: Policy
) -> tuple[str, list[Mismatch]]:
    return min(
        candidates,
        key=lambda c: (sum(policy.fails(m.kind) for m in c[1]), len(c[1])),
    )


def judge(
    case: Case,
    outcome: Outcome,
    level: str,
    capabilities: set[str],
    *,
    policy: Policy | None = None,
    baseline: Baseline | None = None,
    transport: str = "chunks",
) -> CaseResult:
    """The verdict on ``outcome`` for ``case`` at ``level``, under ``policy`` (the default
    severities when ``None``) and ``baseline``."""
    policy = policy or Policy()
    verdict = CaseResult.of(case, level, "pass")
    verdict.stderr = outcome.stderr[-_STDERR_IN_REPORT:]
    mismatches: list[Mismatch]
    if outcome.result is None:
        mismatches = [Mismatch("result", "a result", outcome.failure or "none", kind="lost")]
    else:
        result = outcome.result
        carried = case.carried_ids()
        readings = [("", case.expected.response)] + [(r.why, r.response) for r in case.readings]
        verdict.reading, mismatches = _fewest_failures(
            [
                (
                    why,
                    compare_response(
                        response,
                        result.response,
                        raised=result.raised,
                        capabilities=capabilities,
                        provider_ids=carried,
                    ),
                )
                for why, response in readings
            ],
            policy,
        )
        if level in ("lifecycle", "updates") and case.loop is None:
            if result.results is None:
                mismatches.append(
                    Mismatch(
                        "results",
                        "the streamed results",
                        "none sent",
                        kind="lost",
                        level="lifecycle",
                    )
                )
            else:
                response = msgspec.to_builtins(result.response or ClientResponse())
                mismatches += check_lifecycle(result.results, response)
        if level == "updates" and case.loop is None:
            mismatches += compare_updates(
                case.expected.updates, case.expected.results, result.updates, result.results
            )
    if case.loop is not None:  # first: a request that broke a rule is why the answer differs
        mismatches[:0] = _run_mismatches(case, outcome, level)
    mismatches += [request_line_mismatch(p, "request", "request") for p in outcome.request_problems]
    known: list[Entry] = []
    covering = (
        baseline.covering(
            case.dialect,
            case.scenario,
            case.interaction,
            case.chunking,
            checked_levels(level, transport),
        )
        if baseline is not None
        else []
    )
    for m in mismatches:
        fails = policy.fails(m.kind)
        entry = (
            next((e for e in covering if e.key[2:] == (m.level, m.key, m.kind)), None)
            if fails
            else None
        )
        if entry is not None:
            known.append(entry)
        verdict.differences.append(
            Difference(m, policy.severity(m.kind), fails, known=entry is not None)
        )
    verdict.stale = [e for e in covering if e not in known]
    failing = [d for d in verdict.differences if d.failing]
    if failing:
        verdict.status = "fail"
    elif any(d.fails for d in verdict.differences):
        verdict.status = "known"
    if verdict.status != "pass" or verdict.notices:
        shown = failing or [d for d in verdict.differences if d.fails] or verdict.notices
        more = f" (+{len(shown) - 1} more)" if len(shown) > 1 else ""
        verdict.reason = shown[0].mismatch.summary() + more
        verdict.diff = render([d.mismatch for d in verdict.differences])
    if outcome.result is None and verdict.status == "fail":  # no answer: say why, plainly
        verdict.reason = outcome.failure or "no result"
        if outcome.give_up and outcome.give_up not in verdict.reason:
            verdict.reason += f" ({outcome.give_up})"
    if verdict.status == "pass" and verdict.stale:
        verdict.reason = "baseline entry no longer fails: " + verdict.stale[0].label()
    return verdict


def _run_mismatches(case: Case, outcome: Outcome, level: str) -> list[Mismatch]:
    """What is wrong with the requests of a ``tool_loop`` case's run: at level ``requests``
    every request (:func:`judge_requests`); at ``response`` only that none arrived."""
    assert case.loop is not None
    if level == "requests":
        return judge_requests(case.loop, outcome.requests)
    if outcome.requests:
        return []
    return [
        Mismatch(
            "requests",
            "the requests of the run",
            "none reached raf serve",
            kind="lost",
            field="requests.count",
            level="request",
        )
    ]


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
    policy: Policy | None = None,
    baseline: Baseline | None = None,
    exitfirst: bool = False,
) -> RunReport:
    """Run every case of ``suite`` through ``implementation`` and judge it at ``level``.

    ``on_result`` is called with each verdict as soon as it is known (a progress bar).
    With ``transport="http"`` (an implementation given a server), a case needs the
    implementation's ``http`` capability. ``policy`` says which differences fail (the
    default severities when ``None``), ``baseline`` which failures are known. With
    ``exitfirst``, the run stops after the first case that fails (``-x``).

    Ctrl-C (``KeyboardInterrupt``) and :class:`Interrupted` stop the run: the implementation
    is stopped at once (``close(abort=True)``) and the report, marked ``stopped``, holds the
    verdicts given so far; nothing is raised.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; use one of {', '.join(LEVELS)}")
    started = time.perf_counter()
    stamp = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    report = RunReport(
        implementation="?",
        version="",
        level=level,
        started=stamp,
        transport=transport,
        planned=len(suite.cases) + len(suite.problems),
        policy=policy or Policy(),
        baseline=baseline,
    )
    verdicts = _verdicts(suite, implementation, report, exitfirst)
    try:
        for verdict in verdicts:
            report.results.append(verdict)
            if on_result is not None:
                on_result(verdict)
    except KeyboardInterrupt:
        report.stopped = "interrupted"
    except Interrupted:
        report.stopped = "terminated"
    finally:
        verdicts.close()
        if report.stopped in ("interrupted", "terminated"):
            implementation.close(abort=True)
        else:
            implementation.close()
        report.seconds = time.perf_counter() - started
    return report


def _not_run(cases: Sequence[Case], level: str, why: str) -> Iterator[CaseResult]:
    for case in cases:
        verdict = CaseResult.of(case, level, "error", f"not run: {why}")
        verdict.not_run = True
        yield verdict


def _verdicts(
    suite: Suite, implementation: Implementation, report: RunReport, exitfirst: bool
) -> Generator[CaseResult, None, None]:
    level = report.level
    for problem in suite.problems:
        yield problem_result(problem, level)
        if exitfirst:
            report.stopped = "first failure"
            return
    try:
        hello = implementation.hello()
    except Exception as exc:  # cannot be started, or speaks another protocol
        report.fatal = str(exc)
        report.stopped = "could not start"
        yield from _not_run(suite.cases, level, "the implementation could not be started")
        return
    # Names come from the implementation: shortened, so no report can be taken over.
    report.implementation, report.version = _shortened(hello.name), _shortened(hello.version)
    capabilities = set(hello.capabilities)
    for n, case in enumerate(suite.cases):
        skip = skip_reason(case, level, hello, report.transport)
        if skip is not None:
            yield CaseResult.of(case, level, "skip", skip)
            continue
        began = time.perf_counter()
        outcome = implementation.run(case, level)
        verdict = judge(
            case,
            outcome,
            level,
            capabilities,
            policy=report.policy,
            baseline=report.baseline,
            transport=report.transport,
        )
        verdict.seconds = time.perf_counter() - began
        yield verdict
        if outcome.give_up:
            report.fatal = outcome.give_up
            report.stopped = "gave up"
            yield from _not_run(suite.cases[n + 1 :], level, "the implementation gave up")
            return
        if exitfirst and not verdict.ok:
            report.stopped = "first failure"
            return
