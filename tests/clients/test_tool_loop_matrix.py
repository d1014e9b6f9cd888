"""The tool-loop section's machinery, with clients of the tests' own (no client library): a
client that sends the recorded requests passes both levels; one that drops DeepSeek's
reasoning_content is refused at its first follow-up and its cell names the rule; one that
sends nothing loses every request; cells merge over chunkings."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from raf.cassettes.persister import load
from raf.cassettes.tool_loops import ToolLoopSpec, load_tool_loop
from raf.client_matrix.report import Column
from raf.client_matrix.tool_loop_report import tool_loops_json, tool_loops_markdown
from raf.client_matrix.tool_loops import LoopCell, Verdict, merge_loops, run_tool_loops
from raf.clients.base import ClientRaised, ToolLoopAdapter, ToolLoopCase
from raf.serve import ReplayServer
from raf.shared.bundled import bundled
from raf.shared.client_response import ClientResponse, ClientUsage

FOLDER = bundled().tool_loops
DEEPSEEK = FOLDER / "openai_chat" / "deepseek_three_rounds.yaml"


@pytest.fixture(scope="module")
def loops() -> Iterator[ReplayServer]:
    with ReplayServer([FOLDER]) as running:
        yield running


def _expected(spec: ToolLoopSpec) -> ClientResponse:
    expect = dict(spec.expect or {})
    counts = expect.get("usage") or {}
    return ClientResponse(
        text=expect.get("text") or "",
        reasoning_text=expect.get("reasoning"),
        finish_reason=expect.get("finish_reason"),
        usage=ClientUsage(**counts) if counts else None,
    )


def _replaying(edit: Callable[[int, dict[str, object]], None]) -> ToolLoopAdapter:
    """A client that sends the recording's own requests (each changed by ``edit``), stops at
    an error status as a loop would, and hands over the reviewed final answer."""

    def run(case: ToolLoopCase) -> ClientResponse:
        cassette = load(case.spec.path)
        with httpx.Client(timeout=case.timeout) as client:
            for n, interaction in enumerate(cassette.interactions):
                body = json.loads(interaction.request.body or "{}")
                edit(n, body)
                parts = urlsplit(interaction.request.uri)
                url = case.base_url + parts.path + (f"?{parts.query}" if parts.query else "")
                answer = client.post(url, json=body)
                if answer.status_code >= 400:
                    raise ClientRaised(RuntimeError(answer.text[:200]), ClientResponse())
                answer.read()
        return _expected(case.spec)

    return ToolLoopAdapter(
        name="replay",
        distribution="msgspec",
        dialects=("openai_chat",),
        capabilities=("tool_calls", "reasoning", "usage"),
        how="sends the recorded requests",
        run=run,
        module="msgspec",
    )


def _drop_reasoning(n: int, body: dict[str, object]) -> None:
    for message in body.get("messages") or []:  # type: ignore[attr-defined]
        message.pop("reasoning_content", None)


def test_a_client_that_sends_the_recorded_requests_passes_both_levels(
    loops: ReplayServer,
) -> None:
    spec = load_tool_loop(DEEPSEEK)
    cells = run_tool_loops(_replaying(lambda n, b: None), loops, [spec], chunkings=("whole",))
    assert [c.mark for c in cells] == ["✓ / ✓"]
    assert cells[0].sent == spec.requests == 3
    assert cells[0].rules == []


def test_a_client_that_drops_reasoning_content_is_refused_and_the_cell_names_the_rule(
    loops: ReplayServer,
) -> None:
    spec = load_tool_loop(DEEPSEEK)
    (cell,) = run_tool_loops(_replaying(_drop_reasoning), loops, [spec], chunkings=("whole",))
    assert cell.rules == ["chat.reasoning_content_sent_back"]
    assert cell.sent == 2  # the server answered the first follow-up with DeepSeek's 400
    assert cell.requests.status == "fail"
    assert "rule chat.reasoning_content_sent_back" in cell.requests.reason
    assert "lost: 2 of 3 requests" in cell.requests.reason
    assert cell.response.status == "fail"
    assert cell.raised is not None
    assert cell.mark.startswith("✗ raised RuntimeError")


def test_a_client_that_sends_nothing_loses_every_request(loops: ReplayServer) -> None:
    spec = load_tool_loop(DEEPSEEK)
    silent = ToolLoopAdapter(
        "silent", "msgspec", ("openai_chat",), (), "", lambda case: _expected(case.spec), "msgspec"
    )
    (cell,) = run_tool_loops(silent, loops, [spec], chunkings=("whole",))
    assert cell.mark == "✓ / ✗ lost: 0 of 3 requests"


def test_only_the_adapters_dialects_and_the_selected_recordings_are_run(
    loops: ReplayServer,
) -> None:
    specs = [load_tool_loop(p) for p in sorted((FOLDER / "openai_chat").glob("*.yaml"))]
    specs.append(load_tool_loop(FOLDER / "gemini" / "tool_error.yaml"))
    silent = ToolLoopAdapter(
        "silent", "msgspec", ("openai_chat",), (), "", lambda case: ClientResponse(), "msgspec"
    )
    cells = run_tool_loops(
        silent, loops, specs, chunkings=("whole", "random"), select=["tool_error", "parallel"]
    )
    assert {(c.dialect, c.scenario) for c in cells} == {
        ("openai_chat", "two_parallel_calls"),
        ("openai_chat", "tool_error"),
    }
    assert len(cells) == 4
    merged = merge_loops(cells)
    assert len(merged) == 2
    assert all(c.chunkings == ["whole", "random"] for c in merged)


def test_a_level_that_fails_under_one_chunking_fails_the_merged_cell_and_says_where() -> None:
    ok = LoopCell("x", "1", "s", "openai_chat", chunkings=["whole"])
    bad = LoopCell(
        "x",
        "1",
        "s",
        "openai_chat",
        requests=Verdict("fail", "wrong: rule chat.x", ["wrong"]),
        rules=["chat.x"],
        chunkings=["random"],
    )
    (merged,) = merge_loops([ok, bad])
    assert merged.mark == "✓ / ✗ wrong: rule chat.x (under random)"
    assert merged.rules == ["chat.x"]
    assert merged.status == "fail"


def test_the_report_has_a_table_per_format_and_the_json_every_verdict(tmp_path: Path) -> None:
    cell = LoopCell(
        "x", "1.0", "two_tools", "openai_chat", requests=Verdict("fail", "wrong: rule chat.y")
    )
    columns = [Column("x", "1.0", ("openai_chat",), how="its loop")]
    text = tool_loops_markdown(columns, [cell], ["whole"])
    assert "### openai_chat tool loops" in text
    assert "| two_tools | **✓ / ✗ wrong: rule chat.y** |" in text
    assert "Passed (both levels): x: 0/1." in text
    document = tool_loops_json(columns, [cell], ["whole"])
    assert document["cells"][0]["requests"]["reason"] == "wrong: rule chat.y"
    assert document["cells"][0]["ok"] is False
