"""raf's pytest plugin, used the way a user's test suite would use it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from raf.model import AgentResponse

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "openai_chat_parallel_tools.sse"
CASSETTE = Path(__file__).resolve().parents[1] / "cassettes" / "openai_chat" / "plain_text.yaml"


def test_reference_fixture(raf_reference: Callable[..., AgentResponse]) -> None:
    body = EXAMPLE.read_bytes()
    response = raf_reference(body)
    assert [call.name for call in response.tool_calls] == ["get_weather", "get_weather"]
    # fed as chunks of any size, the same response
    assert raf_reference([body[i : i + 5] for i in range(0, len(body), 5)]) == response


def test_replay_fixture(raf_replay: Callable[..., Any]) -> None:
    (whole,) = raf_replay(CASSETTE)
    (split,) = raf_replay(CASSETTE, chunking="bytes", via="respx")
    assert whole == split
    assert whole.response["finish_reason"] == "stop"


def test_plugin_is_registered_through_its_entry_point(pytestconfig: Any) -> None:
    assert pytestconfig.pluginmanager.has_plugin("raf")
