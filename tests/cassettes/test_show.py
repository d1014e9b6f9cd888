"""``raf cassette show``'s aggregated table lists the tools the provider ran and the calls
waiting for approval apart from the text and the tool calls."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from raf.cassettes import load
from raf.cassettes.show import render

CASSETTES = Path(__file__).resolve().parents[2] / "cassettes" / "openai_responses"


def shown(scenario: str) -> str:
    console = Console(record=True, width=400, color_system=None)
    render(console, load(CASSETTES / f"{scenario}.yaml"))
    return console.export_text()


def test_item_11_show_lists_a_hosted_call_with_its_output_not_a_tool_call() -> None:
    table = shown("hosted_shell_call_with_output").split("aggregated response", 1)[1]
    assert "hosted call" in table
    assert "call_Q7vXk2LmN9pRs4TuW1yZa8Bc shell(" in table
    assert "'stdout': '4\\nx86_64\\n'" in table
    assert "tool call " not in table


def test_item_12_show_lists_an_approval_request_and_no_text() -> None:
    table = shown("mcp_approval_request").split("aggregated response", 1)[1]
    assert "approval request" in table
    assert "create_short_link(" in table
    assert "Approval required" not in table
