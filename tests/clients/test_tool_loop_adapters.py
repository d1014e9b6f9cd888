"""Each library's own tool loop over the tool-loop recordings, on a real loopback server with
the request rules on: what each does, as traced in docs/clients.md ("Why each tool-loop cell
fails"). Run under the ``whole`` chunking (the matrix runs ``random`` too)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from raf.cassettes.tool_loops import tool_loop_specs
from raf.cli import MATRIX_BEGIN, MATRIX_END, main
from raf.cli.clients import LOOPS_BEGIN, LOOPS_END
from raf.client_matrix.tool_loops import LoopCell, run_tool_loops
from raf.clients import tool_loop_adapter
from raf.serve import ReplayServer
from raf.shared.bundled import bundled
from tests.clients.support import require

SPECS = list(tool_loop_specs(bundled().tool_loops))


@pytest.fixture(scope="module")
def loops() -> Iterator[ReplayServer]:
    with ReplayServer([bundled().tool_loops]) as running:
        yield running


def _cells(name: str, server: ReplayServer, *select: str) -> dict[str, LoopCell]:
    adapter = tool_loop_adapter(name)
    require(adapter.module)
    cells = run_tool_loops(adapter, server, SPECS, chunkings=("whole",), select=select)
    return {f"{c.dialect}/{c.scenario}": c for c in cells}


def test_the_openai_hand_loop_leaves_out_deepseeks_reasoning_content(loops: ReplayServer) -> None:
    cells = _cells("openai-loop", loops, "deepseek", "two_parallel_calls", "mistral")
    refused = cells["openai_chat/deepseek_three_rounds"]
    # The guide's assistant message has content and tool_calls only: DeepSeek's thinking mode
    # refuses the first follow-up, and the user gets the SDK's BadRequestError.
    assert refused.rules == ["chat.reasoning_content_sent_back"]
    assert refused.sent == 2
    assert refused.raised is not None
    assert refused.raised.startswith("BadRequestError")
    for case in ("openai_chat/two_parallel_calls", "openai_chat/mistral_call_ids"):
        assert cells[case].mark == "✓ / ✓", case


def test_the_openai_responses_hand_loop_passes_every_recording(loops: ReplayServer) -> None:
    cells = _cells("openai-responses-loop", loops, "openai_responses/")
    assert "openai_responses/reasoning_calls_store_false" in cells
    assert {c.mark for c in cells.values()} == {"✓ / ✓"}


def test_openai_agents_sends_reasoning_content_back_and_passes_both_formats(
    loops: ReplayServer,
) -> None:
    cells = _cells("openai-agents", loops, "deepseek", "openai_responses/")
    assert "openai_chat/deepseek_three_rounds" in cells
    assert "openai_responses/reasoning_calls_store_false" in cells
    assert {c.mark for c in cells.values()} == {"✓ / ✓"}
    assert cells["openai_chat/deepseek_three_rounds"].sent == 3


def test_the_anthropic_tool_runner_sends_thinking_back_and_words_unknown_tools_itself(
    loops: ReplayServer,
) -> None:
    cells = _cells("anthropic-tool-runner", loops, "anthropic_messages/")
    for case in (
        "anthropic_messages/thinking_parallel_tools",
        "anthropic_messages/redacted_thinking_tool_use",
        "anthropic_messages/omitted_thinking_tool_use",
    ):
        assert cells[case].mark == "✓ / ✓", case
    two_tools = cells["anthropic_messages/two_tools"]
    # No rule broken: only the runner's own text for the call of a tool it lacks differs
    # from the recorded result ("Error: Tool 'get_air_quality' not found").
    assert two_tools.rules == []
    assert two_tools.sent == 4
    assert two_tools.mark == "✓ / ✗ wrong: requests[].messages[].content[].content"


def test_google_genai_afc_sends_each_streamed_chunk_as_a_turn_of_its_own(
    loops: ReplayServer,
) -> None:
    cells = _cells("google-genai-afc", loops, "gemini/parallel_calls", "gemini/tool_error")
    parallel = cells["gemini/parallel_calls_one_signature"]
    assert parallel.response.status == "pass"
    assert parallel.sent == 2
    # The follow-up has the thought chunk and the calls chunk as two model contents
    # (google/genai/models.py: model_output.append(chunk.candidates[0].content) per chunk).
    details = " ".join(parallel.requests.details)
    assert "requests[1].contents: expected the recorded request, got 4 item(s)" in details
    assert parallel.rules == []


def test_raf_clients_writes_the_tool_loops_between_their_markers(tmp_path: Path) -> None:
    require("openai")
    doc = tmp_path / "clients.md"
    doc.write_text(f"intro\n{MATRIX_BEGIN}\nkept\n{MATRIX_END}\n{LOOPS_BEGIN}\nold\n{LOOPS_END}\n")
    report = tmp_path / "clients.json"
    argv = ["clients", "--tool-loops-only", "--client", "openai-loop", "-k", "two_parallel"]
    assert main([*argv, "--chunking", "whole", "--json", str(report), "--markdown", str(doc)]) == 0
    document = msgspec.json.decode(report.read_bytes())
    assert "cells" not in document  # the stream matrix was not run
    (cell,) = document["tool_loops"]["cells"]
    assert (cell["client"], cell["scenario"], cell["ok"]) == (
        "openai-loop",
        "two_parallel_calls",
        True,
    )
    assert cell["sent"] == 2
    assert cell["requests"]["status"] == "pass"
    text = doc.read_text()
    assert "\nkept\n" in text
    assert "\nold\n" not in text
    assert "| two_parallel_calls | ✓ / ✓ |" in text
