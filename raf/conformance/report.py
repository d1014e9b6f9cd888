"""Terminal output of ``raf conform``: a progress bar while it runs, then a summary table and
the diff of every difference. Rich turns colour off when the output is not a terminal."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from raf.cassettes.lint import cassette_files
from raf.conformance.reference import Implementation, run_interaction
from raf.conformance.runner import CaseReport, run_suite

__all__ = ["conform"]

_MAX_DIFF_LINES = 60


def conform(
    console: Console,
    cassettes_dir: Path,
    goldens_dir: Path,
    *,
    chunkings: Sequence[str],
    implementation: Implementation = run_interaction,
    select: str | None = None,
) -> list[CaseReport]:
    """Run the suite with a progress bar and print the summary; returns the reports."""
    total = len(cassette_files([cassettes_dir])) * len(chunkings)
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
        task = progress.add_task("", total=total)
        reports = run_suite(
            cassettes_dir,
            goldens_dir,
            chunkings=chunkings,
            implementation=implementation,
            select=select,
            on_case=lambda path: progress.update(task, description=path.stem),
            on_run=lambda _: progress.advance(task),
        )
    print_summary(console, reports, chunkings)
    return reports


def print_summary(console: Console, reports: list[CaseReport], chunkings: Sequence[str]) -> None:
    """The table of cassettes, then the differences and problems of the failing ones."""
    table = Table(title="raf conform", title_justify="left")
    table.add_column("scenario")
    table.add_column("dialect")
    table.add_column("chunkings", justify="right")
    table.add_column("status")
    for report in reports:
        style = "green" if report.ok else "bold red"
        table.add_row(
            escape(report.scenario),
            report.dialect,
            f"{len(report.passed)}/{len(report.chunkings)}",
            f"[{style}]{report.status}[/{style}]",
        )
    console.print(table)
    for report in reports:
        if report.ok:
            continue
        console.rule(
            f"[bold red]{escape(report.scenario)}[/bold red] {escape(str(report.cassette))}"
        )
        if report.missing_golden:
            console.print(
                "no golden file: run `pytest tests/test_goldens.py --snapshot-update` and review it"
            )
        for problem in report.problems:
            console.print(f"[red]•[/red] {escape(problem)}")
        shown = set()
        for difference in report.differences:
            key = (difference.interaction, difference.part, difference.diff)
            if key in shown:  # the same difference under another chunking
                continue
            shown.add(key)
            same = [
                d.chunking for d in report.differences if (d.interaction, d.part, d.diff) == key
            ]
            console.print(f"[bold]{difference.part}[/bold] differ under {', '.join(same)}:")
            lines = difference.diff.splitlines()
            for line in lines[:_MAX_DIFF_LINES]:
                style = (
                    "red" if line.startswith("-") else "green" if line.startswith("+") else "dim"
                )
                console.print(f"[{style}]{escape(line)}[/{style}]", soft_wrap=True)
            if len(lines) > _MAX_DIFF_LINES:
                console.print(f"[dim]... {len(lines) - _MAX_DIFF_LINES} more lines[/dim]")
    failed = sum(not r.ok for r in reports)
    runs = sum(len(r.chunkings) for r in reports)
    verdict = (
        "[bold green]all conform[/bold green]"
        if not failed
        else f"[bold red]{failed} failing[/bold red]"
    )
    console.print(f"{len(reports)} cassettes x {len(chunkings)} chunkings = {runs} runs: {verdict}")
