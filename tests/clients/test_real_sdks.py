"""The two most used SDKs, driven as their users drive them, against raf serve over a real
socket: what they return for recorded scenarios, and the errors they raise for faults.

They are libraries of the clients extra: without them this module skips, and with
``RAF_REQUIRE_CLIENTS=1`` (``tox -e clients``, in CI) a missing one fails it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from raf.cassettes.persister import load
from raf.conformance.bundled import bundled
from raf.conformance.goldens import load as load_golden
from raf.serve.server import ReplayServer
from tests.clients.support import library

openai = library("openai", module_level=True)
anthropic = library("anthropic", module_level=True)

SUITE = bundled()
KEY = "sk-raf-test-not-a-secret"


def _recorded(dialect: str, scenario: str) -> dict[str, Any]:
    body = load(SUITE.cassettes / dialect / f"{scenario}.yaml").interactions[0].request.body
    assert isinstance(body, str)
    request: dict[str, Any] = json.loads(body)
    return request


def _expected(dialect: str, scenario: str) -> dict[str, Any]:
    golden = load_golden(SUITE.goldens / dialect / f"{scenario}.json")
    assert golden is not None
    response: dict[str, Any] = golden.interactions[0].response
    return response


def _openai(base_url: str, **options: Any) -> Any:
    return openai.OpenAI(base_url=base_url + "/v1", api_key=KEY, **{"max_retries": 0, **options})


def test_openai_streams_a_recorded_answer_cut_into_single_bytes(server: ReplayServer) -> None:
    request = _recorded("openai_chat", "plain_text")
    client = _openai(server.case_url("openai_chat", "plain_text", chunking="bytes"))
    text, usage = "", None
    for chunk in client.chat.completions.create(**request):
        if chunk.choices and chunk.choices[0].delta.content:
            text += chunk.choices[0].delta.content
        usage = chunk.usage or usage
    expected = _expected("openai_chat", "plain_text")
    assert text == expected["text"]
    assert usage is not None
    assert usage.total_tokens == expected["usage"]["total_tokens"]
    check = server.journal.entries()[-1]["check"]
    assert check == {
        "ok": True,
        "compared": ["model", "messages", "stream", "stream_options"],
        "mismatches": [],
    }


def test_openai_tool_calls_through_the_server_are_the_reviewed_ones(server: ReplayServer) -> None:
    request = _recorded("openai_chat", "parallel_tool_calls")
    client = _openai(server.case_url("openai_chat", "parallel_tool_calls", chunking="random"))
    calls: dict[int, dict[str, str]] = {}
    for chunk in client.chat.completions.create(**request):
        for delta in (chunk.choices[0].delta.tool_calls or []) if chunk.choices else []:
            call = calls.setdefault(delta.index, {"id": "", "name": "", "arguments": ""})
            call["id"] = delta.id or call["id"]
            if delta.function is not None:
                call["name"] += delta.function.name or ""
                call["arguments"] += delta.function.arguments or ""
    got = [(c["id"], c["name"], json.loads(c["arguments"])) for _, c in sorted(calls.items())]
    want = [
        (c["id"], c["name"], c["arguments"])
        for c in _expected("openai_chat", "parallel_tool_calls")["tool_calls"]
    ]
    assert got == want


def test_openai_sees_a_dropped_connection_as_its_connection_error(server: ReplayServer) -> None:
    request = _recorded("openai_chat", "plain_text")
    client = _openai(server.case_url("openai_chat", "plain_text", faults=["cut-2000"]))
    pieces: list[str] = []

    def read() -> None:
        pieces.extend(
            chunk.choices[0].delta.content
            for chunk in client.chat.completions.create(**request)
            if chunk.choices and chunk.choices[0].delta.content
        )

    with pytest.raises(openai.APIConnectionError):
        read()
    text = "".join(pieces)
    assert text  # what arrived before the cut was handed out
    assert _expected("openai_chat", "plain_text")["text"].startswith(text)


def test_openai_sees_a_stall_as_its_timeout(server: ReplayServer) -> None:
    request = _recorded("openai_chat", "plain_text")
    # A stall 120 times the timeout: however slow the machine, the timeout fires first.
    url = server.case_url("openai_chat", "plain_text", chunking="fixed-64", faults=["stall-60000"])
    client = _openai(url, timeout=0.5)
    with pytest.raises(openai.APITimeoutError):
        for _ in client.chat.completions.create(**request):
            pass


def test_openai_429_is_its_rate_limit_error_and_it_retries_after_retry_after(
    server: ReplayServer,
) -> None:
    request = _recorded("openai_chat", "plain_text")
    url = server.case_url("openai_chat", "plain_text", faults=["http-429"])
    with pytest.raises(openai.RateLimitError) as raised:
        _openai(url).chat.completions.create(**request)
    assert raised.value.response.headers["retry-after"] == "1"
    assert raised.value.code == "rate_limit_exceeded"
    mark = server.journal.count
    with pytest.raises(openai.RateLimitError):
        _openai(url, max_retries=1).chat.completions.create(**request)
    assert [e["status"] for e in server.journal.since(mark)] == [429, 429]


def test_openai_retries_a_429_that_heals_and_gets_the_stream(server: ReplayServer) -> None:
    request = _recorded("openai_chat", "plain_text")
    url = server.case_url("openai_chat", "plain_text", faults=["http-429x1"])
    client = _openai(url, max_retries=2, default_headers={"x-raf-session": "openai-retry"})
    text = "".join(
        chunk.choices[0].delta.content or ""
        for chunk in client.chat.completions.create(**request)
        if chunk.choices
    )
    assert text == _expected("openai_chat", "plain_text")["text"]
    statuses = [
        e["status"] for e in server.journal.entries() if "openai-retry" in str(e["headers"])
    ]
    assert statuses == [429, 200]  # it waited Retry-After, asked again, and got the answer


def _anthropic(base_url: str, **options: Any) -> Any:
    return anthropic.Anthropic(base_url=base_url, api_key=KEY, **{"max_retries": 0, **options})


def test_anthropic_message_stream_gives_the_reviewed_text_thinking_and_usage(
    server: ReplayServer,
) -> None:
    request = _recorded("anthropic_messages", "thinking_with_signature")
    request.pop("stream", None)
    client = _anthropic(
        server.case_url("anthropic_messages", "thinking_with_signature", chunking="utf8")
    )
    with client.messages.stream(**request) as stream:
        text = "".join(stream.text_stream)
        message = stream.get_final_message()
    expected = _expected("anthropic_messages", "thinking_with_signature")
    assert text == expected["text"]
    thinking = "".join(b.thinking for b in message.content if b.type == "thinking")
    assert thinking == expected["reasoning_text"]
    assert message.usage.output_tokens == expected["usage"]["completion_tokens"]
    assert server.journal.entries()[-1]["check"]["ok"] is True


def test_anthropic_sees_a_dropped_connection_as_an_error_after_the_text_so_far(
    server: ReplayServer,
) -> None:
    request = _recorded("anthropic_messages", "plain_text")
    request.pop("stream", None)
    client = _anthropic(server.case_url("anthropic_messages", "plain_text", faults=["cut-900"]))
    pieces: list[str] = []
    # anthropic 2.x does not wrap a connection lost mid-stream in its own APIConnectionError:
    # its HTTP library's RemoteProtocolError reaches the caller (docs/clients.md).
    with (
        pytest.raises(Exception, match="incomplete chunked read"),
        client.messages.stream(**request) as stream,
    ):
        pieces.extend(stream.text_stream)
    assert pieces
    assert _expected("anthropic_messages", "plain_text")["text"].startswith("".join(pieces))


def test_anthropic_429_is_its_rate_limit_error_with_retry_after(server: ReplayServer) -> None:
    request = _recorded("anthropic_messages", "plain_text")
    request.pop("stream", None)
    client = _anthropic(server.case_url("anthropic_messages", "plain_text", faults=["http-429"]))
    with (
        pytest.raises(anthropic.RateLimitError) as raised,
        client.messages.stream(**request) as stream,
    ):
        stream.get_final_message()
    assert raised.value.response.headers["retry-after"] == "1"
    assert raised.value.body["error"]["type"] == "rate_limit_error"


def test_anthropic_overloaded_529_is_its_overloaded_error(server: ReplayServer) -> None:
    request = _recorded("anthropic_messages", "plain_text")
    request.pop("stream", None)
    client = _anthropic(server.case_url("anthropic_messages", "plain_text", faults=["http-529"]))
    with (
        pytest.raises(anthropic.APIStatusError) as raised,
        client.messages.stream(**request) as stream,
    ):
        stream.get_final_message()
    assert raised.value.status_code == 529
    assert type(raised.value).__name__ == "OverloadedError"
