"""``raf chat --cassette NAME``: the agent loop replayed end to end from the command line.

It starts ``raf serve`` in-process on 127.0.0.1 (a free port) over the scenario's recording,
runs the scenario's agent (raf's leaf chat client for the format, the tool loop, scripted
tools) against it and prints the run as it goes: the text as it streams, each call with its
arguments, each tool's result or error, each round's finish and usage, the approval requests,
the final response, and the request check's verdict on every request the agent sent
(docs/agent.md, "Recordings and replay"). ``--list`` lists the scenarios.

Exit status: 0 when every request matched the recorded one, 1 when one did not, 2 for an
unknown scenario or a request that failed.
"""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO

from rich.markup import escape

from raf.cli._shell import _at_least, _Console, _InputError, _reason
from raf.model import contents
from raf.model.response import AgentResponseResult
from raf.model.usage import Usage
from raf.testing.agent_replay import (
    RunReport,
    Scenario,
    ScenarioError,
    load_scenarios,
    replay,
)

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    """Add ``raf chat`` to the subcommands ``sub``."""
    chat = sub.add_parser(
        "chat",
        help="replay an agent scenario end to end through raf serve",
        description="Run raf's agent (leaf chat client, tool loop, scripted tools) against "
        "a recording served by raf serve on 127.0.0.1, print the run as it goes and check "
        "every request it sends against the recorded one. Exit 1 when a request differs.",
    )
    chat.add_argument("--cassette", metavar="NAME", help="the scenario to replay (--list)")
    chat.add_argument("--list", action="store_true", help="list the scenarios and exit")
    chat.add_argument(
        "--async", dest="asynchronous", action="store_true", help="use the async agent"
    )
    chat.add_argument(
        "--max-rounds",
        metavar="N",
        type=_at_least(1),
        help="model rounds per run, at most (default: the scenario's)",
    )
    chat.add_argument(
        "--approve",
        metavar="all|none|ID",
        nargs="+",
        help="answer approval requests: approve all, none, or the calls with these ids "
        "(default: the scenario's)",
    )
    chat.add_argument("--no-color", action="store_true", help="plain text output")


def _usage(usage: Usage | None) -> str:
    if usage is None:
        return "no usage"
    return (
        f"{usage.prompt_tokens} prompt + {usage.completion_tokens} completion = "
        f"{usage.total_tokens} tokens"
    )


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _list(out: TextIO, scenarios: dict[str, Scenario]) -> int:
    width = max(len(name) for name in scenarios)
    for name, scenario in scenarios.items():
        runs = f"{len(scenario.runs)} runs" if len(scenario.runs) > 1 else "1 run"
        out.write(f"{name.ljust(width)}  {scenario.kind} ({runs})\n")
    return 0


class _Printer:
    """Prints the results of a run as they stream."""

    def __init__(self, console: _Console) -> None:
        self.console = console
        self.run = -1
        self.inline: str | None = None  # "text" or "reasoning" while a line is open

    def _end_line(self) -> None:
        if self.inline is not None:
            self.console.print()
            self.inline = None

    def line(self, text: str) -> None:
        self._end_line()
        self.console.print(text)

    def result(self, run: int, result: AgentResponseResult) -> None:
        if run != self.run:
            self.run = run
            self.line(f"\n[bold]run {run + 1}[/bold]")
        for content in result.contents:
            self.content(content)
        if result.finish_reason is not None:
            self.line(f"[bold]finish[/bold]: {escape(result.finish_reason)}")

    def content(self, content: Any) -> None:
        if isinstance(content, contents.Text | contents.Reasoning):
            kind = "text" if isinstance(content, contents.Text) else "reasoning"
            if self.inline != kind:
                self._end_line()
                self.console.print("[dim]thinking:[/dim] " if kind == "reasoning" else "", end="")
                self.inline = kind
            style = "dim" if kind == "reasoning" else None
            self.console.print(content.delta, end="", markup=False, highlight=False, style=style)
        elif isinstance(content, contents.ToolCalling):
            self.line(
                f"[cyan]call[/cyan] {escape(content.call_id)} {escape(content.name)}"
                f"({escape(_json(content.arguments))})"
            )
        elif isinstance(content, contents.ToolCalled):
            # a multi-line text (the loop's error texts) indented under its call
            if content.error is not None:
                text = escape(content.error).replace("\n", "\n    ")
                self.line(f"[red]  error[/red] {escape(content.call_id)}: {text}")
            else:
                text = escape(content.result or "").replace("\n", "\n    ")
                self.line(f"[green]  result[/green] {escape(content.call_id)}: {text}")
        elif isinstance(content, contents.RoundFinished):
            self.line(
                f"[bold]round {content.round + 1} finished[/bold]: "
                f"{escape(content.finish_reason or 'no finish reason')}, {_usage(content.usage)}"
            )
        elif isinstance(content, contents.ToolApprovalRequest):
            self.line(
                f"[yellow]approval requested[/yellow] {escape(content.call_id)} "
                f"{escape(content.name)}({escape(_json(content.arguments))})"
            )
        elif isinstance(content, contents.Error):
            self.line(f"[red]error[/red] {escape(content.error_code)}: {escape(content.message)}")

    def report(self, run: int, report: RunReport) -> None:
        response = report.response
        if report.approvals:
            answers = ", ".join(
                f"{a.call_id} {'approved' if a.approved else 'rejected'}" for a in report.approvals
            )
            self.line(f"approvals given: {escape(answers)}")
        self.line(
            f"[bold]response[/bold]: {len(response.text)} characters of text, "
            f"{len(response.tool_calls)} call(s), {len(response.tool_messages)} tool "
            f"message(s), {len(response.rounds)} round(s), finish "
            f"{escape(response.finish_reason or 'none')}, usage {_usage(response.usage)}"
        )
        for request in report.requests:
            where = f"request {request.seq} (interaction {request.interaction})"
            if request.ok:
                self.line(f"[green]✓[/green] {where}: matches the recorded request")
            else:
                self.line(f"[red]✗[/red] {where}: differs from the recorded request")
                for mismatch in request.mismatches:
                    self.line(f"    {escape(mismatch)}")


def run(args: argparse.Namespace, out: TextIO) -> int:
    try:
        scenarios = load_scenarios()
    except ScenarioError as exc:
        raise _InputError(str(exc)) from exc
    if args.list:
        return _list(out, scenarios)
    if not args.cassette:
        raise _InputError("raf chat needs --cassette NAME (raf chat --list lists them)")
    scenario = scenarios.get(args.cassette)
    if scenario is None:
        import difflib  # noqa: PLC0415

        close = difflib.get_close_matches(args.cassette, list(scenarios), n=3, cutoff=0.5)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        raise _InputError(f"unknown scenario {args.cassette!r} (raf chat --list lists them){hint}")
    approve: str | list[str] | None = None
    if args.approve:
        approve = args.approve[0] if args.approve in (["all"], ["none"]) else list(args.approve)
    console = _Console(file=out, no_color=args.no_color, highlight=False, soft_wrap=True)
    printer = _Printer(console)
    console.print(f"[bold]raf chat[/bold]: {escape(scenario.name)} ({escape(scenario.kind)})")
    console.print(
        f"replaying {escape(scenario.case)} ({scenario.recording}) through raf serve on "
        f"127.0.0.1, {'async' if args.asynchronous else 'sync'} agent"
    )
    for message in scenario.agent.messages:
        console.print(f"[bold]{escape(str(message.get('role')))}[/bold]: ", end="")
        console.print(str(message.get("content", "")), markup=False, highlight=False)
    from raf.agent.errors import ChatClientError  # noqa: PLC0415

    try:
        reports = replay(
            scenario,
            asynchronous=args.asynchronous,
            max_rounds=args.max_rounds,
            approve=approve,
            on_result=printer.result,
            on_run=printer.report,
        )
    except ChatClientError as exc:
        printer.line("")
        raise _InputError(f"the agent's request failed: {exc}") from exc
    except OSError as exc:
        raise _InputError(f"cannot start raf serve: {_reason(exc)}") from exc
    checked = [r for report in reports for r in report.requests]
    differing = [r for r in checked if not r.ok]
    printer.line(
        f"\n{len(checked)} request(s) sent, "
        + (
            f"[red]{len(differing)} differ from the recording[/red]"
            if differing
            else "[green]every one the recorded request[/green]"
        )
    )
    return 1 if differing else 0
