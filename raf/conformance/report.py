"""Terminal output of ``raf conform``: a progress bar while it runs, then a summary table and
the diff of every failure. Rich turns colour off when the output is not a terminal."""

from __future__ import annotations

from collections import defaultdict

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from raf.conformance.cases import Suite
from raf.conformance.implementation import Implementation
from raf.conformance.runner import CaseResult, RunReport, run_suite

__all__ = ["conform", "print_summary"]

_MAX_DIFF_LINES = 60
_MAX_STDERR_LINES = 15


def conform(
    console: Console,
    suite: Suite,
    implementation: Implementation,
    *,
    level: str,
    transport: str = "chunks",
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
            suite, implementation, level=level, on_result=advance, transport=transport
        )
    print_summary(console, report)
    return report


def _status(results: list[CaseResult]) -> tuple[str, str]:
    statuses = {r.status for r in results}
    if "error" in statuses:
        return "error", "bold red"
    if "fail" in statuses:
        return "FAIL", "bold red"
    if statuses == {"skip"}:
        return "skipped", "yellow"
    return "pass", "green"


def print_summary(console: Console, report: RunReport) -> None:
    """One row per scenario, then every failure's reason and diff (each distinct diff once,
    with the chunkings it occurred under) and the implementation's stderr."""
    by_scenario: dict[str, list[CaseResult]] = defaultdict(list)
    for result in report.results:
        by_scenario[result.scenario].append(result)
    title = f"raf conform: {report.implementation} {report.version} at level {report.level}"
    table = Table(title=escape(title.strip()), title_justify="left")
    table.add_column("scenario")
    table.add_column("dialect")
    table.add_column("passed", justify="right")
    table.add_column("skipped", justify="right")
    table.add_column("status")
    for scenario, results in by_scenario.items():
        status, style = _status(results)
        run = [r for r in results if r.status != "skip"]
        table.add_row(
            escape(scenario),
            results[0].dialect,
            f"{sum(r.status == 'pass' for r in run)}/{len(run)}",
            str(sum(r.status == "skip" for r in results)) or "",
            f"[{style}]{status}[/{style}]",
        )
    console.print(table)
    for scenario, results in by_scenario.items():
        bad = [r for r in results if r.status in ("fail", "error")]
        if not bad:
            continue
        console.rule(f"[bold red]{escape(scenario)}[/bold red] {escape(bad[0].cassette)}")
        seen: dict[tuple[str, str], list[str]] = {}
        for result in bad:
            seen.setdefault((result.reason, result.diff), []).append(result.chunking or "-")
        for (reason, diff), chunkings in seen.items():
            where = ", ".join(chunkings)
            console.print(f"[red]•[/red] {escape(reason)} [dim](under {escape(where)})[/dim]")
            lines = diff.splitlines()
            for line in lines[:_MAX_DIFF_LINES]:
                style = "red" if line.startswith("-") else "green" if line.startswith("+") else ""
                shown = escape(line)
                console.print(f"  [{style}]{shown}[/{style}]" if style else f"  {shown}")
            if len(lines) > _MAX_DIFF_LINES:
                console.print(f"  [dim]... {len(lines) - _MAX_DIFF_LINES} more lines[/dim]")
        stderr = next((r.stderr for r in bad if r.stderr.strip()), "")
        if stderr:
            console.print("[dim]its stderr ended with:[/dim]")
            for line in stderr.strip().splitlines()[-_MAX_STDERR_LINES:]:
                console.print(f"  [dim]{escape(line)}[/dim]")
    counts = report.counts()
    total = len(report.results)
    verdict = (
        "[bold green]all conform[/bold green]"
        if report.ok
        else f"[bold red]{counts['fail'] + counts['error']} not conforming[/bold red]"
    )
    console.print(
        f"{total} cases: {counts['pass']} passed, {counts['fail']} failed, "
        f"{counts['skip']} skipped, {counts['error']} errors in {report.seconds:.1f} s: {verdict}"
    )
