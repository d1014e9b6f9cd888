"""Terminal output of ``raf conform``: a progress bar while it runs, then a table with one row
per format and scenario, every failing difference once (with the chunkings it occurs under, its
diff, the case's stderr and a command that runs the scenario again), the notices, the known
failures, stale baseline entries and unblessed cassettes, and one summary line. Rich turns
colour off when the output is not a terminal; the caller gives a console wide enough that no
name is cut (``raf conform`` does when its output is piped).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from raf.conformance.baseline import Baseline
from raf.conformance.cases import Suite
from raf.conformance.implementation import Implementation
from raf.conformance.reports.unread import noteworthy, unread_by_cassette
from raf.conformance.runner import CaseResult, Difference, RunReport, run_suite
from raf.conformance.severity import MARKS, Policy

__all__ = ["Group", "conform", "groups", "print_summary", "scenario_mark"]

_MAX_DIFF_LINES = 60
_MAX_STDERR_LINES = 15
_MAX_LINE = 400  # characters of one diff line shown (the JSON report has them all)


Rerun = Callable[[str], str]
"""Given a ``-k`` pattern, the command that runs those cases again."""


def conform(
    console: Console,
    suite: Suite,
    implementation: Implementation,
    *,
    level: str,
    transport: str = "chunks",
    policy: Policy | None = None,
    baseline: Baseline | None = None,
    exitfirst: bool = False,
    rerun: Rerun | None = None,
) -> RunReport:
    """Run the suite with a progress bar and print the summary; returns the report."""
    progress = Progress(
        TextColumn("[bold]conform[/bold]"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.description}"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )
    with progress:
        task = progress.add_task("", total=len(suite.cases) + len(suite.problems))

        def advance(result: CaseResult) -> None:
            progress.update(task, advance=1, description=escape(result.scenario))

        report = run_suite(
            suite,
            implementation,
            level=level,
            on_result=advance,
            transport=transport,
            policy=policy,
            baseline=baseline,
            exitfirst=exitfirst,
        )
    print_summary(console, report, rerun=rerun, unblessed=_unblessed(suite))
    return report


def _unblessed(suite: Suite) -> list[str]:
    return [p.id for p in suite.problems if p.unblessed]


def scenario_mark(results: Sequence[CaseResult]) -> tuple[str, str]:
    """The mark and the label of a scenario's row, and its style: ``✗`` with the kinds of its
    failing differences, ``known``, ``error``, ``skipped``, ``◐`` with the kinds of its
    notices, or ``✓``."""
    statuses = {r.status for r in results}
    if "error" in statuses:
        return "error", "bold red"
    if "fail" in statuses:
        kinds = _kinds(d for r in results for d in r.differences if d.failing)
        return f"{MARKS['fail']} {kinds}".strip(), "bold red"
    if any(r.stale for r in results):
        return "stale", "bold red"
    if "known" in statuses:
        return "known", "yellow"
    if statuses == {"skip"}:
        return "skipped", "dim"
    notices = [d for r in results for d in r.notices]
    if notices:
        return f"{MARKS['notice']} {_kinds(notices)}", "cyan"
    return MARKS["pass"], "green"


def _rank(results: Sequence[CaseResult]) -> int:
    if any(not r.ok for r in results):
        return 0
    if any(r.status == "known" for r in results):
        return 1
    if any(r.notices for r in results):
        return 2
    return 4 if all(r.status == "skip" for r in results) else 3


def _kinds(differences: object) -> str:
    return ", ".join(dict.fromkeys(d.mismatch.kind for d in differences))  # type: ignore[attr-defined]


@dataclass
class Group:
    """One distinct difference of a scenario: where it occurs and its first diff."""

    difference: Difference
    chunkings: list[str] = field(default_factory=list)
    interactions: set[int] = field(default_factory=set)


def groups(results: Sequence[CaseResult], keep: Callable[[Difference], bool]) -> list[Group]:
    """The distinct differences (by their summary line) that ``keep`` selects among
    ``results``, each once, in the order first met, with the chunkings it occurs under."""
    found: dict[tuple[str, str, str], Group] = {}
    for result in results:
        for difference in result.differences:
            if not keep(difference):
                continue
            m = difference.mismatch
            group = found.setdefault((m.kind, m.summary(), m.level), Group(difference))
            chunking = result.chunking or "-"
            if chunking not in group.chunkings:
                group.chunkings.append(chunking)
            if result.interaction is not None:
                group.interactions.add(result.interaction)
    return list(found.values())


def _under(group: Group, every: list[str], several_interactions: bool) -> str:
    under = (
        "every chunking"
        if len(every) > 1 and set(group.chunkings) >= set(every)
        else ", ".join(group.chunkings)
    )
    if several_interactions:
        under = f"interaction {', '.join(map(str, sorted(group.interactions)))}; {under}"
    return under


def _print_diff(console: Console, diff: str) -> None:
    lines = diff.splitlines()
    for full in lines[:_MAX_DIFF_LINES]:
        line = full[:_MAX_LINE]
        if len(full) > _MAX_LINE:
            line += f"... ({len(full) - _MAX_LINE:,} more characters)"
        style = "red" if line.startswith("-") else "green" if line.startswith("+") else ""
        shown = escape(line)
        console.print(f"      [{style}]{shown}[/{style}]" if style else f"      {shown}")
    if len(lines) > _MAX_DIFF_LINES:
        console.print(f"      [dim]... {len(lines) - _MAX_DIFF_LINES} more lines[/dim]")


def _print_groups(console: Console, results: list[CaseResult], found: list[Group]) -> None:
    every = list(dict.fromkeys(r.chunking or "-" for r in results if r.status != "skip"))
    several = len({r.interaction for r in results}) > 1
    for group in found:
        d = group.difference
        m = d.mismatch
        mark = MARKS["notice"] if not d.fails else ("known" if d.known else MARKS["fail"])
        style = "cyan" if not d.fails else "yellow" if d.known else "red"
        console.print(
            f"  [{style}]{escape(mark)} {m.kind}[/{style}] {escape(m.summary())} "
            f"[dim](under {escape(_under(group, every, several))})[/dim]",
            soft_wrap=True,
        )
        if m.diff and d.fails:
            _print_diff(console, m.diff)


def _print_stderr(console: Console, results: list[CaseResult]) -> None:
    bad = next((r for r in results if r.stderr.strip() and r.status == "fail"), None)
    if bad is None:
        return
    console.print(f"  [dim]stderr of {escape(bad.id)}:[/dim]", soft_wrap=True)
    for line in bad.stderr.strip().splitlines()[-_MAX_STDERR_LINES:]:
        console.print(f"    [dim]{escape(line)}[/dim]", soft_wrap=True)


def _by_scenario(report: RunReport) -> dict[tuple[str, str], list[CaseResult]]:
    out: dict[tuple[str, str], list[CaseResult]] = {}
    for result in report.results:
        out.setdefault((result.dialect, result.scenario), []).append(result)
    return out


def _rerun_pattern(dialect: str, scenario: str, results: list[CaseResult]) -> str:
    bad = [r for r in results if r.status in ("fail", "error") or r.stale]
    if len(bad) == 1 and bad[0].chunking is not None:
        return bad[0].id
    if "#" in scenario:  # a tool_loop case's: <scenario>#loop
        return f"{dialect}/{scenario}@*"
    return f"{dialect}/{scenario}#*"


def print_summary(
    console: Console,
    report: RunReport,
    *,
    rerun: Rerun | None = None,
    unblessed: Sequence[str] = (),
) -> None:
    """The table (one row per format and scenario), then every failure, the notices, the
    known failures and stale entries, and the summary line."""
    scenarios = _by_scenario(report)
    title = f"raf conform: {report.implementation} {report.version} at level {report.level}"
    if report.transport != "chunks":
        title += f" over {report.transport}"
    table = Table(title=escape(" ".join(title.split())), title_justify="left")
    for name, justify in (
        ("format", "left"),
        ("scenario", "left"),
        ("passed", "right"),
        ("notices", "right"),
        ("skipped", "right"),
        ("status", "left"),
    ):
        table.add_column(name, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    # What needs a person first, as the HTML report orders them: failures, known
    # failures, notices, passes, skips.
    order = sorted(scenarios, key=lambda k: _rank(scenarios[k]))
    for key in order:
        results = scenarios[key]
        status, style = scenario_mark(results)
        run = [r for r in results if r.status != "skip" and not r.not_run]
        notices = sum(bool(r.notices) for r in run)
        table.add_row(
            key[0],
            escape(key[1]),
            f"{sum(r.status == 'pass' for r in run)}/{len(run)}",
            str(notices) if notices else "",
            str(sum(r.status == "skip" for r in results)),
            f"[{style}]{escape(status)}[/{style}]",
        )
    if not report.fatal or any(not r.not_run for r in report.results):
        console.print(table)
    if report.fatal:
        what = "could not be started" if report.stopped == "could not start" else "gave up"
        console.print(f"[bold red]The implementation {what}:[/bold red]")
        for line in report.fatal.strip().splitlines()[-_MAX_STDERR_LINES * 2 :]:
            console.print(f"  {escape(line)}", soft_wrap=True)
    _print_failures(console, report, scenarios, rerun)
    _print_notices(console, scenarios, report.policy)
    _print_not_read(console, report)
    _print_baseline(console, report, scenarios)
    if unblessed:
        console.print(
            f"[bold red]{len(unblessed)} cassette(s) not blessed[/bold red] (no reviewed "
            f"expect block, so no trusted golden): {escape(', '.join(unblessed))}. "
            "`raf cassette expect FILE` drafts one for a person to review.",
            soft_wrap=True,
        )
    _print_total(console, report)


def _print_failures(
    console: Console,
    report: RunReport,
    scenarios: dict[tuple[str, str], list[CaseResult]],
    rerun: Rerun | None,
) -> None:
    first = True
    for (dialect, scenario), results in scenarios.items():
        bad = [r for r in results if r.status in ("fail", "error") and not r.not_run]
        if not bad:
            continue
        if first:
            console.print("\n[bold red]Failures[/bold red]")
            first = False
        console.print(
            f"[bold]{escape(dialect)}/{escape(scenario)}[/bold] [dim]{escape(bad[0].cassette)}"
            "[/dim]",
            soft_wrap=True,
        )
        errors = list(dict.fromkeys(r.reason for r in bad if r.status == "error"))
        for reason in errors:
            console.print(f"  [red]{MARKS['fail']} error[/red] {escape(reason)}", soft_wrap=True)
        _print_groups(console, results, groups(results, lambda d: d.failing))
        _print_stderr(console, results)
        if rerun is not None and not all(r.status == "error" for r in bad):
            pattern = _rerun_pattern(dialect, scenario, results)
            console.print(f"  [dim]rerun:[/dim] {escape(rerun(pattern))}", soft_wrap=True)


def _print_notices(
    console: Console, scenarios: dict[tuple[str, str], list[CaseResult]], policy: Policy
) -> None:
    first = True
    for (dialect, scenario), results in scenarios.items():
        found = groups(results, lambda d: not d.fails)
        if not found:
            continue
        if first:
            stricter = (
                " (they do not fail the run: --fail-on notice makes them)"
                if policy.fail_on == "error"
                else ""
            )
            console.print(f"\n[bold cyan]Notices[/bold cyan]{stricter}")
            first = False
        console.print(f"[bold]{escape(dialect)}/{escape(scenario)}[/bold]", soft_wrap=True)
        _print_groups(console, results, found)


_NOT_READ_SHOWN = 5
"""Event types and fields named per cassette in the terminal (the JSON report has all)."""


def _print_not_read(console: Console, report: RunReport) -> None:
    """The cassettes holding an event type raf does not recognise or a field it does not
    know, one line each (what raf leaves aside on purpose is in the JSON report and in
    ``raf cassette show``)."""
    found = noteworthy(unread_by_cassette(report.results))
    if not found:
        return
    console.print(
        "\n[bold yellow]Not read by raf[/bold yellow] (event types and fields of the "
        "recordings that raf does not know: raf cassette show FILE lists them)"
    )
    for entry in found:
        names = [f"event type {e.type} ({e.count})" for e in entry.unread.unrecognised_events] + [
            f"field {f.path} ({f.count})" for f in entry.unread.unknown_fields
        ]
        more = len(names) - _NOT_READ_SHOWN
        shown = ", ".join(names[:_NOT_READ_SHOWN]) + (f", and {more} more" if more > 0 else "")
        console.print(f"  {escape(entry.name)}: {escape(shown)}", soft_wrap=True)


def _print_baseline(
    console: Console, report: RunReport, scenarios: dict[tuple[str, str], list[CaseResult]]
) -> None:
    baseline = report.baseline
    if baseline is None:
        return
    known = [
        (key, results)
        for key, results in scenarios.items()
        if any(r.status == "known" for r in results)
    ]
    if known:
        console.print(f"\n[bold yellow]Known failures[/bold yellow] ({escape(baseline.source)})")
        for (dialect, scenario), results in known:
            which = ", ".join(
                dict.fromkeys(
                    f"{d.mismatch.kind} {d.mismatch.key}"
                    for r in results
                    for d in r.differences
                    if d.known
                )
            )
            cases = sum(r.status == "known" for r in results)
            console.print(
                f"  {escape(dialect)}/{escape(scenario)}: {escape(which)} ({cases} case(s))",
                soft_wrap=True,
            )
    stale = report.stale()
    if stale:
        console.print(
            f"\n[bold red]Stale baseline entries[/bold red]: they no longer fail; remove them "
            f"from {escape(baseline.source)} (or write it again with --write-baseline)"
        )
        for item in stale:
            ran = {
                r.chunking
                for r in report.results
                if r.dialect == item.entry.format
                and r.scenario == item.entry.scenario
                and r.status != "skip"
            }
            under = (
                "every chunking run"
                if len(ran) > 1 and set(item.chunkings) >= ran
                else ", ".join(item.chunkings)
            )
            console.print(
                f"  {escape(item.entry.label())} [dim](passes under {escape(under)})[/dim]",
                soft_wrap=True,
            )


def _print_total(console: Console, report: RunReport) -> None:
    counts = report.counts()
    total = len(report.results)
    parts = [f"{counts['pass']} passed"]
    notices = report.notices()
    if notices:
        parts[0] += f" ({notices} with notices)"
    parts.append(f"{counts['fail']} failed")
    if report.baseline is not None:
        parts.append(f"{counts['known']} known")
    parts.append(f"{counts['skip']} skipped")
    not_run = sum(r.not_run for r in report.results)
    parts.append(f"{counts['error'] - not_run} errors")
    if not_run:
        parts.append(f"{not_run} not run")
    stale = len(report.stale())
    if stale:
        parts.append(f"{stale} stale")
    bad = counts["fail"] + counts["error"] + stale
    if report.ok:
        verdict = "[bold green]all conform[/bold green]"
    elif bad:
        verdict = f"[bold red]{bad} not conforming[/bold red]"
    else:
        verdict = "[bold red]not conforming[/bold red]"
    stopped = {
        "interrupted": "interrupted",
        "terminated": "terminated",
        "first failure": "stopped at the first failure (-x)",
    }.get(report.stopped)
    where = f" ({stopped}: {total} of {report.planned} judged)" if stopped else ""
    console.print(
        f"{total} cases: {', '.join(parts)} in {report.seconds:.1f} s{where}: {verdict}",
        soft_wrap=True,
    )
