"""The measuring machinery every script in ``bench/`` shares (stdlib and msgspec only).

What is measured, and how:

* **Time** is the thread CPU time of one call (``time.thread_time``), with the wall time
  taken alongside. CPU time leaves out the moments the scheduler gives the core to another
  process, which on a shared 2-core machine is most of the noise in wall time. Before every
  timed call the collector runs (``gc.collect()``) and what survives is frozen
  (``gc.freeze()``), so the collections a contender's allocations trigger during the call
  are paid by that contender and never scan objects that existed before it (the workloads,
  the libraries imported for another contender). The collector stays enabled during the call
  (``Settings.gc`` turns it off), the same for every contender.
* **Paired rounds** (:func:`compare`): every round runs the baseline and each contender back
  to back, rotating who goes first, and takes the ratio within the round. The median of the
  per-round ratios, with their min-max, is far steadier than two best times taken seconds
  apart while the machine's speed drifts.
* **Correctness**: round 0 runs every contender once, untimed for the ratios, and passes its
  result to the contender's ``check``. A contender whose result is wrong is reported
  ``WRONG: why`` and never timed; one that raises is ``error: ...``.
* **Budget**: a run may take at most ``Settings.budget`` seconds of wall time. Chunks handed
  out through :func:`metered` stop a run past its budget (``timeout``); a run that does not
  read through :func:`metered` is reported ``timeout`` after it returns.
* **Peak heap** (:func:`peak_heap`): the ``tracemalloc`` peak of one call, above what was
  allocated before it, measured apart from the timing (tracing slows allocation several
  fold). :meth:`Heap.per` divides it by a size: MB of input, characters of argument text.
* :func:`environment` (the header every script prints), :func:`table` (plain text tables)
  and :class:`Targets` (PASS/FAIL lines and the exit status).
"""

from __future__ import annotations

import dataclasses
import gc
import importlib.metadata
import math
import os
import platform
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Generic, Literal, TypeVar

__all__ = [
    "BudgetExceeded",
    "Comparison",
    "Contender",
    "Heap",
    "Outcome",
    "Settings",
    "Spread",
    "Targets",
    "Timing",
    "compare",
    "environment",
    "metered",
    "peak_heap",
    "raf_compiled",
    "table",
    "time_call",
]

T = TypeVar("T")
R = TypeVar("R")

Status = Literal["ok", "WRONG", "error", "timeout", "skipped"]


# -- settings and one timed call ----------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Settings:
    """How every run of a script is timed.

    Attributes:
        clock: ``cpu`` (thread CPU time) or ``wall``: which of the two times the ratios use.
        budget: the most wall seconds one run may take.
        gc: whether the collector is enabled during a timed call.
    """

    clock: Literal["cpu", "wall"] = "cpu"
    budget: float = 300.0
    gc: bool = True

    def describe(self) -> str:
        """One line saying how the times were taken."""
        clock = "thread CPU time" if self.clock == "cpu" else "wall time"
        collector = "enabled" if self.gc else "disabled"
        return (
            f"timing: {clock}; gc.collect() and gc.freeze() before each run, collector "
            f"{collector} during it; budget {self.budget:g} s per run"
        )


class BudgetExceeded(Exception):
    """A run went past its budget (raised by the chunks :func:`metered` hands out)."""


_deadline = math.inf  # perf_counter() deadline of the run in progress
_tripped = False  # whether metered() stopped the run in progress


def metered(items: Iterable[T]) -> Iterator[T]:
    """``items`` one by one, each handed out only if the run in progress is within its budget.

    Feed a contender its chunks through this, so that a run which gets slower and slower
    (quadratic work on a growing buffer) is stopped instead of hanging the script. The check
    is one clock read per item, the same for every contender. The run is reported past its
    budget even when the contender wraps the exception in one of its own (raf's ``respond``
    raises ``AgentResponseError``, an HTTP client its transport error).
    """
    global _tripped  # noqa: PLW0603 - one run at a time
    for item in items:
        if time.perf_counter() > _deadline:
            _tripped = True
            raise BudgetExceeded
        yield item


@dataclasses.dataclass(frozen=True)
class Timing:
    """One run: thread CPU seconds and wall seconds."""

    cpu: float
    wall: float

    def on(self, clock: Literal["cpu", "wall"]) -> float:
        """The seconds on ``clock``."""
        return self.cpu if clock == "cpu" else self.wall


def time_call(fn: Callable[[], T], settings: Settings) -> tuple[Timing, T]:
    """Run ``fn`` once under ``settings`` and time it.

    Raises:
        BudgetExceeded: the run read past its budget through :func:`metered`, or returned
            after it.
    """
    global _deadline, _tripped  # noqa: PLW0603 - one run at a time, read by metered()
    gc.collect()
    gc.freeze()
    was_enabled = gc.isenabled()
    if not settings.gc:
        gc.disable()
    _deadline = time.perf_counter() + settings.budget
    _tripped = False
    try:
        wall = time.perf_counter()
        cpu = time.thread_time()
        result = fn()
        cpu = time.thread_time() - cpu
        wall = time.perf_counter() - wall
    except Exception as exc:
        if _tripped:
            raise BudgetExceeded from exc
        raise
    finally:
        _deadline = math.inf
        if was_enabled:
            gc.enable()
        gc.unfreeze()
    if wall > settings.budget or _tripped:  # past it, or stopped and the stop swallowed
        raise BudgetExceeded
    return Timing(cpu, wall), result


# -- contenders and paired rounds ---------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Contender(Generic[T]):
    """Something to time.

    Attributes:
        name: its label in tables and targets.
        run: the measured call, with no arguments (a closure over its workload).
        check: given the result of the first run, why it is wrong, or ``None`` when right.
            Leave it out only when the result has nothing to check.
    """

    name: str
    run: Callable[[], T]
    check: Callable[[T], str | None] | None = None


@dataclasses.dataclass
class Outcome:
    """What became of one contender in a :func:`compare`.

    Attributes:
        status: ``ok``; ``WRONG`` (its check failed); ``error`` (it raised); ``timeout`` (a
            run went past the budget); ``skipped`` (not run, see ``problem``).
        problem: why, when the status is not ``ok``.
        first: the time of round 0 (the checked run), if it completed.
        times: the time of each later round, ``None`` for a round it did not run in.
    """

    name: str
    status: Status = "ok"
    problem: str = ""
    first: Timing | None = None
    times: list[Timing | None] = dataclasses.field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def verdict(self) -> str:
        """``ok``, or the status and the problem (``WRONG: text differs at char 12``)."""
        return "ok" if self.ok else f"{self.status}: {self.problem}"

    def fail(self, status: Status, problem: str) -> None:
        self.status, self.problem = status, problem


def _attempt(contender: Contender[Any], settings: Settings, outcome: Outcome) -> Any:
    """One run of ``contender``; on a timeout or an exception, ``outcome`` says so."""
    try:
        timing, result = time_call(contender.run, settings)
    except BudgetExceeded:
        outcome.fail("timeout", f"a run took over the {settings.budget:g} s budget")
    except Exception as exc:
        outcome.fail("error", f"{type(exc).__name__}: {str(exc)[:200]}")
    else:
        return timing, result
    return None


@dataclasses.dataclass(frozen=True)
class Spread:
    """The median of per-round values and their range."""

    median: float
    lo: float
    hi: float
    rounds: int

    @classmethod
    def of(cls, values: Sequence[float]) -> Spread:
        return cls(statistics.median(values), min(values), max(values), len(values))

    def format(self, digits: int = 2, unit: str = "") -> str:
        """``0.52x (0.49-0.55)``; with one round, the value and ``(1 run)``."""
        value = f"{self.median:.{digits}f}{unit}"
        if self.rounds == 1:
            return f"{value} (1 run)"
        return f"{value} ({self.lo:.{digits}f}-{self.hi:.{digits}f})"


@dataclasses.dataclass
class Comparison:
    """The outcome of :func:`compare`: each contender's runs, and ratios within rounds."""

    settings: Settings
    outcomes: dict[str, Outcome]

    @property
    def baseline(self) -> str:
        return next(iter(self.outcomes))

    def _pairs(self, name: str, relative_to: str | None) -> list[tuple[float, float]]:
        """(reference seconds, ``name`` seconds) of every round both ran in; round 0 only
        when no later round has both (a contender too slow to be run twice)."""
        ref = self.outcomes[relative_to or self.baseline]
        mine = self.outcomes[name]
        if not (ref.ok and mine.ok):
            return []
        clock = self.settings.clock
        pairs = [
            (a.on(clock), b.on(clock))
            for a, b in zip(ref.times, mine.times, strict=False)
            if a is not None and b is not None
        ]
        if not pairs and ref.first is not None and mine.first is not None:
            pairs = [(ref.first.on(clock), mine.first.on(clock))]
        return pairs

    def speed(self, name: str, relative_to: str | None = None) -> Spread | None:
        """``name``'s throughput over the reference's (the baseline unless ``relative_to``),
        per round: reference time / ``name``'s time; 0.5 is half as fast. ``None`` when either
        is not ``ok``."""
        pairs = self._pairs(name, relative_to)
        return Spread.of([a / b for a, b in pairs]) if pairs else None

    def slowdown(self, name: str, relative_to: str | None = None) -> Spread | None:
        """``name``'s time over the reference's, per round (the inverse of :meth:`speed`)."""
        pairs = self._pairs(name, relative_to)
        return Spread.of([b / a for a, b in pairs]) if pairs else None

    def seconds(self, name: str) -> Spread | None:
        """``name``'s seconds on the chosen clock over the timed rounds (round 0 if none)."""
        outcome = self.outcomes[name]
        clock = self.settings.clock
        values = [t.on(clock) for t in outcome.times if t is not None]
        if not values and outcome.first is not None:
            values = [outcome.first.on(clock)]
        return Spread.of(values) if outcome.ok and values else None


def compare(
    contenders: Sequence[Contender[Any]],
    *,
    rounds: int,
    settings: Settings,
    slow: float = math.inf,
    skip: dict[str, str] | None = None,
) -> Comparison:
    """Time ``contenders`` in paired rounds; the first is the baseline of the ratios.

    Round 0 runs each contender once and checks its result; a contender that is wrong,
    raised or ran out of budget is not run again. Then ``rounds`` rounds run every remaining
    contender once each, back to back, the order rotating by one each round (so no contender
    always follows the same one). A contender whose run took over ``slow`` seconds is not run
    again (its ratios then come from the rounds it ran in); ``skip`` names contenders not to
    run at all, with the reason.
    """
    skip = skip or {}
    outcomes = {c.name: Outcome(c.name) for c in contenders}
    live: list[Contender[Any]] = []
    for contender in contenders:
        outcome = outcomes[contender.name]
        if contender.name in skip:
            outcome.fail("skipped", skip[contender.name])
            continue
        done = _attempt(contender, settings, outcome)
        if done is None:
            continue
        timing, result = done
        outcome.first = timing
        problem = contender.check(result) if contender.check is not None else None
        del result
        if problem:
            outcome.fail("WRONG", problem)
        elif timing.on(settings.clock) <= slow:
            live.append(contender)
    for n in range(rounds):
        start = n % len(live) if live else 0
        times: dict[str, Timing | None] = {}
        for contender in live[start:] + live[:start]:
            done = _attempt(contender, settings, outcomes[contender.name])
            times[contender.name] = None if done is None else done[0]
        for contender in list(live):
            timing = times[contender.name]
            outcomes[contender.name].times.append(timing)
            if timing is None or timing.on(settings.clock) > slow:
                live.remove(contender)
    return Comparison(settings, outcomes)


# -- heap -----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Heap:
    """The peak of the Python heap during one call, above what was allocated before it, and
    what the call left allocated (its result, mostly)."""

    peak: int
    kept: int = 0

    @property
    def megabytes(self) -> float:
        return self.peak / 1e6

    def per(self, size: float) -> float:
        """The peak divided by ``size`` (bytes of input, characters of argument text...)."""
        return self.peak / size if size else math.nan


def peak_heap(fn: Callable[[], R]) -> tuple[Heap, R]:
    """Run ``fn`` once with ``tracemalloc`` on; its peak heap (what ``fn`` allocated at
    most at any moment, its result included) and its result.

    Objects alive before the call are not counted, so a workload built beforehand is not
    part of the peak; feed a contender from a generator to leave the input out as well.
    """
    gc.collect()
    tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        result = fn()
        current, high = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return Heap(high - base, current - base), result


# -- header, tables, targets ----------------------------------------------------------------


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def raf_compiled() -> bool:
    """Whether the raf imported is a compiled build (``raf.COMPILED``; absent means no)."""
    import raf  # noqa: PLC0415 - the header must not fail where raf is not importable

    return bool(getattr(raf, "COMPILED", False))


def environment(distributions: Sequence[str] = ()) -> list[str]:
    """The header lines of a report: Python, the platform, and the versions of raf (and
    whether it is compiled), msgspec and ``distributions``."""
    build = "compiled" if raf_compiled() else "interpreted"
    versions = [f"raf {_version('raf')} ({build})", f"msgspec {_version('msgspec')}"]
    versions += [f"{name} {_version(name)}" for name in distributions]
    return [
        f"Python {platform.python_version()} ({platform.python_implementation()}, "
        f"{os.path.abspath(sys.executable)})",
        f"platform: {platform.platform()}, {platform.machine()}, {os.cpu_count()} CPUs",
        "versions: " + ", ".join(versions),
    ]


def print_environment(distributions: Sequence[str] = (), settings: Settings | None = None) -> None:
    """Print :func:`environment` and, given ``settings``, how the times are taken."""
    for line in environment(distributions):
        print(line)
    if settings is not None:
        print(settings.describe())


def table(
    headers: Sequence[str],
    rows: Iterable[Sequence[str]],
    *,
    align: str = "",
    indent: str = "  ",
) -> str:
    """A plain text table with a rule under the headers.

    ``align`` has one letter per column, ``l`` or ``r``; by default the first column is
    left-aligned and the others (numbers) right-aligned. A row shorter than the headers
    leaves its last cells empty.
    """
    align = align or "l" + "r" * (len(headers) - 1)
    body = [[*r, *[""] * (len(headers) - len(r))] for r in rows]
    widths = [max(map(len, column)) for column in zip(headers, *body, strict=True)]

    def line(cells: Sequence[str]) -> str:
        out = [
            f"{c:<{w}}" if a == "l" else f"{c:>{w}}"
            for c, w, a in zip(cells, widths, align, strict=True)
        ]
        return (indent + "  ".join(out)).rstrip()

    rule = indent + "  ".join("-" * w for w in widths)
    return "\n".join([line(list(headers)), rule, *(line(r) for r in body)])


class Targets:
    """Targets met or missed, printed as PASS/FAIL lines; the exit status of a script."""

    def __init__(self) -> None:
        self.results: list[tuple[bool, str]] = []

    def expect(
        self,
        name: str,
        value: Spread | float | None,
        *,
        at_least: float | None = None,
        at_most: float | None = None,
        problem: str = "",
        unit: str = "",
    ) -> bool:
        """Record whether ``value`` (a median, or one number) is within the bound. A missing
        value or a ``problem`` (a contender reported WRONG...) is a FAIL."""
        number = value.median if isinstance(value, Spread) else value
        if isinstance(value, Spread):
            shown = value.format(unit=unit)
        else:
            shown = "-" if number is None else f"{number:.2f}{unit}"
        if at_least is not None:
            bound = f">= {at_least:g}{unit}"
            passed = number is not None and number >= at_least
        elif at_most is not None:
            bound = f"<= {at_most:g}{unit}"
            passed = number is not None and number <= at_most
        else:
            raise ValueError("give at_least or at_most")
        passed = passed and not problem
        detail = f"{name}: {shown}, target {bound}" + (f" ({problem})" if problem else "")
        self.results.append((passed, detail))
        return passed

    @property
    def ok(self) -> bool:
        return all(passed for passed, _ in self.results)

    def report(self) -> str:
        """One PASS/FAIL line per target, then the tally."""
        lines = [f"  {'PASS' if passed else 'FAIL'}  {detail}" for passed, detail in self.results]
        met = sum(passed for passed, _ in self.results)
        verdict = "PASS" if self.ok else "FAIL"
        lines.append(f"overall {verdict}: {met} of {len(self.results)} targets met")
        return "\n".join(lines)

    def exit_status(self) -> int:
        return 0 if self.ok else 1
