"""The matrix machinery, with raf's own control column (httpx + raf's pipeline, always
installed) and with adapters that get things wrong on purpose: cells, reasons, merging,
the JSON and Markdown files and the `raf clients` command."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from raf import formats
from raf.cli import MATRIX_BEGIN, MATRIX_END, main
from raf.client_matrix.run import Cell, merge, run_client
from raf.clients import adapter, names
from raf.clients.base import Adapter, ClientCase, ClientRaised
from raf.conformance.bundled import bundled
from raf.serve import ReplayServer
from raf.shared.client_response import ClientResponse

SUITE = bundled()


PLAIN = sorted(
    path.parent.name
    for path in (Path(__file__).resolve().parents[2] / "cassettes").glob("*/plain_text.yaml")
)
"""The formats with a bundled ``plain_text`` scenario: the cells of ``-k plain_text``."""


def _run(server: ReplayServer, chosen: Adapter, *select: str) -> list[Cell]:
    return run_client(
        chosen,
        server,
        cassettes=SUITE.cassettes,
        goldens=SUITE.goldens,
        chunkings=("whole", "bytes"),
        select=select,
    )


def test_the_control_column_passes_every_dialect_and_sends_the_recorded_request(
    server: ReplayServer,
) -> None:
    cells = _run(
        server,
        adapter("raf"),
        "parallel_tool_calls_interleaved",
        "thinking_with_signature",
        "background_resume_mid_response",
        "json_array_cut_mid_element",
        "http_429_json_error",
    )
    assert len(cells) == 10
    assert [c for c in cells if c.status != "pass"] == []
    assert all(c.request == [] for c in cells)


def _dropping_later_calls(case: ClientCase) -> ClientResponse:
    answer = adapter("raf").run(case)
    return ClientResponse(
        text=answer.text,
        tool_calls=answer.tool_calls[:1],
        finish_reason=answer.finish_reason,
        usage=None,
        errors=answer.errors,
    )


def _raising(case: ClientCase) -> ClientResponse:
    partial = ClientResponse(text="The sky")
    raise ClientRaised(KeyError("choices"), partial)


def test_cells_name_what_a_library_got_wrong_in_a_few_words(server: ReplayServer) -> None:
    merging = Adapter(
        name="merging",
        distribution="raf",
        dialects=("openai_chat",),
        capabilities=("tool_calls", "usage"),
        how="",
        run=_dropping_later_calls,
        module="raf",
    )
    (cell, _) = _run(server, merging, "parallel_tool_calls_interleaved")
    assert cell.status == "fail"
    assert cell.reason == "lost: 1 of 3 calls, usage"
    assert cell.kinds == ["lost"]
    assert cell.mark == "✗ lost: 1 of 3 calls, usage"
    raising = dataclasses.replace(merging, name="raising", run=_raising)
    (cell, _) = _run(server, raising, "plain_text")
    assert cell.reason == "raised KeyError; lost: text, finish reason, usage"
    assert cell.raised == "KeyError: 'choices'"


def _asking_another_question(case: ClientCase) -> ClientResponse:
    messages = [dict(m) for m in case.request["messages"]]
    messages[-1]["tool_call_id"] = "call_other"
    return adapter("raf").run(
        dataclasses.replace(case, request={**case.request, "messages": messages})
    )


def test_a_library_that_sends_another_request_fails_whatever_it_answers(
    server: ReplayServer,
) -> None:
    wrong = dataclasses.replace(adapter("raf"), name="wrong", run=_asking_another_question)
    cells = _run(server, wrong, "tool_loop_follow_up_request")
    second = [c for c in cells if c.chunkings == ["whole"]][1]
    assert second.status == "fail"
    assert second.reason == (
        'sent another request (messages[2].tool_call_id: expected "call_ZR5UUuTt3pf61kjwAJIYdVMj",'
        ' got "call_other")'
    )


def test_a_case_the_library_cannot_report_is_skipped_with_the_reason(server: ReplayServer) -> None:
    no_reasoning = dataclasses.replace(adapter("raf"), name="plain", capabilities=("tool_calls",))
    (cell, _) = _run(server, no_reasoning, "deepseek_reasoning_then_content")
    assert (cell.status, cell.reason) == ("skip", "does not report reasoning")


def test_a_response_the_library_never_asks_for_is_skipped_not_tested(
    server: ReplayServer,
) -> None:
    sse_only = dataclasses.replace(adapter("raf"), name="sse-only", framings=("sse",))
    mark = server.journal.count
    cells = _run(server, sse_only, "json_array_body_without_alt_sse", "json_array_cut_mid_element")
    assert {(c.status, c.reason) for c in cells} == {
        ("skip", "sse-only always asks for ?alt=sse: it never receives a JSON-array body")
    }
    assert len(cells) == 4
    assert server.journal.count == mark  # not even asked
    # A case recorded with alt=sse is one it receives; the control column asks for either.
    (sse, _) = _run(server, sse_only, "sse_usage_repeated_every_chunk")
    assert (sse.status, sse.request) == ("pass", [])
    assert adapter("raf").framings == ()


def test_merge_fails_a_scenario_when_any_chunking_fails_and_says_which() -> None:
    cells = [
        Cell("c", "1", "s", "openai_chat", "pass", chunkings=["whole"]),
        Cell("c", "1", "s", "openai_chat", "fail", reason="text differs", chunkings=["bytes"]),
        Cell("c", "1", "t", "openai_chat", "pass", chunkings=["whole"]),
    ]
    merged = merge(cells)
    assert [(m.scenario, m.status, m.reason) for m in merged] == [
        ("s", "fail", "text differs (under bytes)"),
        ("t", "pass", ""),
    ]
    noticed = [
        Cell("c", "1", "u", "openai_chat", "pass", chunkings=["whole"]),
        Cell("c", "1", "u", "openai_chat", "notice", reason="detail: call id", kinds=["detail"],
             chunkings=["bytes"]),
    ]  # fmt: skip
    (cell,) = merge(noticed)
    assert (cell.status, cell.mark, cell.kinds) == (
        "notice",
        "◐ detail: call id (under bytes)",
        ["detail"],
    )


def test_merge_names_no_chunking_when_one_interaction_fails_under_every_chunking() -> None:
    # A scenario of two interactions (a first turn and its follow-up) is four cases under two
    # chunkings: the follow-up failing under both is a failure under every chunking.
    cells = [
        Cell("c", "1", "s", "gemini", status, reason=reason, chunkings=[chunking])
        for chunking in ("whole", "random")
        for status, reason in (("pass", ""), ("fail", "lost: call id"))
    ]
    (cell,) = merge(cells)
    assert (cell.status, cell.reason) == ("fail", "lost: call id")


def test_raf_clients_writes_the_matrix_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = tmp_path / "clients.md"
    doc.write_text(f"# Matrix\n\nintro\n\n{MATRIX_BEGIN}\nold\n{MATRIX_END}\n\nafter\n")
    report = tmp_path / "matrix.json"
    status = main(
        [
            "clients",
            "--client",
            "raf",
            "-k",
            "plain_text",
            "--json",
            str(report),
            "--markdown",
            str(doc),
        ]
    )
    assert status == 0
    document = json.loads(report.read_text())
    assert document["clients"] == [
        {
            "name": "raf",
            "version": "0.1.0",
            "dialects": formats.names(),
            "language": "Python",
            "library": "raf",
        }
    ]
    assert {(c["dialect"], c["scenario"], c["ok"]) for c in document["cells"]} == {
        (dialect, "plain_text", True) for dialect in PLAIN
    }
    assert set(document["cells"][0]) >= {"client", "scenario", "dialect", "ok", "reason"}
    text = doc.read_text()
    assert text.startswith("# Matrix\n\nintro\n\n")
    assert text.endswith(f"{MATRIX_END}\n\nafter\n")
    assert "old" not in text
    assert "| scenario | raf 0.1.0 |" in text
    assert "| plain_text | ✓ |" in text
    assert f"raf 0.1.0: {len(PLAIN)}/{len(PLAIN)} pass" in capsys.readouterr().out


def test_a_client_whose_library_is_missing_is_named_not_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    absent = dataclasses.replace(adapter("raf"), name="absent", module="no_such_library_here")
    monkeypatch.setattr("raf.clients.adapter", lambda name: absent)
    doc = tmp_path / "m.md"
    assert main(["clients", "--client", "raf", "--markdown", str(doc)]) == 2
    assert "none of the clients asked for is installed" in capsys.readouterr().err


def test_every_adapter_says_how_its_user_reads_the_result() -> None:
    for name in names():
        chosen = adapter(name)
        assert chosen.name == name
        assert len(chosen.how) > 40, name
        assert set(chosen.capabilities) <= {"tool_calls", "reasoning", "usage", "http_errors"}
