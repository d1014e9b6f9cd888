"""The leaf chat clients against a real ``raf serve`` on 127.0.0.1, for every bundled cassette
of every format: the client is given the conversation the cassette recorded (its first
request, read by the format's ``read_request``), and

* the request it sends passes the server's request check against the recorded one (the
  journal's ``check``), and
* the response collected from its updates equals the cassette's golden; a recorded error
  status is the typed error instead, quoting the body the golden quotes.

Then the server's faults: ``http-429x2`` (retried, with the format's error body read) and
``cut-N`` (a 200 body cut short: never retried, the cut in-band), sync and async.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from raf import formats
from raf.agent import (
    AsyncHttpChatClient,
    ChatOptions,
    HttpChatClient,
    HttpStatusError,
    RetryPolicy,
)
from raf.cassettes.persister import load
from raf.collect import ResponseCollector
from raf.conformance.goldens import Golden, golden_path
from raf.conformance.goldens import load as load_golden
from raf.conformance.reference import compared_response
from raf.converter import AgentResponseConverter
from raf.model import updates
from raf.model.codes import ErrorCode
from raf.model.messages import ChatMessage
from raf.model.response import AgentResponse
from raf.model.updates import AgentResponseUpdate
from raf.serve import ReplayServer
from raf.serve.request_check import requested_framing
from raf.shared.bundled import bundled

SUITE = bundled()
CASSETTES = [
    (name, path.stem)
    for name in formats.names()
    for path in sorted((SUITE.cassettes / name).glob("*.yaml"))
]

NOT_SENT: dict[tuple[str, str], str] = {
    ("openai_responses", "background_resume_mid_response"): (
        "its first request is GET .../responses/<id>?stream=true (resuming a background "
        "response), with no body to read: a chat client's call is a POST of a conversation"
    ),
}
"""Cassettes a chat client cannot send the first request of, and why."""

PATHS: dict[str, dict[str, str]] = {
    "gemini": {"json_array": "/models/{model}:streamGenerateContent"},
}
"""The client's ``path`` for a recording whose URL asked for another framing than the
format's default path does (``requested_framing``): a Gemini client that leaves out
``?alt=sse`` asks for a JSON array."""

INTERRUPTING = frozenset(
    {
        ErrorCode.STREAM_TRUNCATED,
        ErrorCode.SSE_LIMIT_EXCEEDED,
        ErrorCode.TRANSPORT_ERROR,
        ErrorCode.HTTP_ERROR,
        ErrorCode.CANCELLED,
        ErrorCode.INTERNAL_ERROR,
    }
)
"""The codes after which a stream ended abnormally (what ``UpdateDecoder.interrupted``
says): the converter then reports calls still streaming as incomplete."""


def response_of(items: Sequence[AgentResponseUpdate]) -> AgentResponse:
    """The response an agent makes of a turn's updates: each converted as it arrives, the
    turn finalised, the results collected."""
    converter = AgentResponseConverter()
    collector = ResponseCollector()
    for update in items:
        for result in converter.results((update,)):
            collector.add(result)
    interrupted = any(type(u) is updates.Error and u.error_code in INTERRUPTING for u in items)
    collector.add(converter.finalize(converter.finish_reason, interrupted=interrupted))
    return collector.response()


@dataclass(frozen=True)
class Recorded:
    """What a cassette's first request asked for, as a chat client's call."""

    messages: tuple[ChatMessage, ...]
    options: ChatOptions
    path: str | None
    status: int
    golden: Golden


def recorded(name: str, scenario: str) -> Recorded:
    found = formats.get(name)
    assert found.read_request is not None
    interaction = load(SUITE.cassettes / name / f"{scenario}.yaml").interactions[0]
    request = interaction.request
    assert request.method == "POST"
    assert request.body
    conversation = found.read_request(json.loads(request.body))
    model = conversation.options.model
    if model is None and found.request_url is not None:
        model = found.request_url.parts(request.uri).model
    framing = requested_framing(name, request.uri)
    golden = load_golden(golden_path(SUITE.goldens, name, scenario))
    assert golden is not None
    return Recorded(
        messages=conversation.messages,
        options=ChatOptions(
            model=model,
            max_tokens=conversation.options.max_tokens,
            tools=conversation.tools,
            extra_body=conversation.options.extra,
        ),
        path=PATHS.get(name, {}).get(framing or ""),
        status=interaction.response.status,
        golden=golden,
    )


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    with ReplayServer(speed=0) as running:
        yield running


def run(
    server: ReplayServer, name: str, scenario: str, mode: str, case: Recorded
) -> tuple[list[AgentResponseUpdate] | HttpStatusError, dict[str, Any]]:
    """The client's updates (or its typed error) and the journal's check of its request."""
    base = server.case_url(name, scenario, interaction=0) + "/v1"
    settings: dict[str, Any] = {"api_key": "k", "path": case.path, "retry": RetryPolicy.none()}
    mark = server.journal.count
    outcome: list[AgentResponseUpdate] | HttpStatusError
    try:
        if mode == "sync":
            with HttpChatClient(name, base, **settings) as leaf:
                outcome = list(leaf.stream(case.messages, case.options))
        else:

            async def go() -> list[AgentResponseUpdate]:
                async with AsyncHttpChatClient(name, base, **settings) as leaf:
                    return [u async for u in leaf.stream(case.messages, case.options)]

            outcome = asyncio.run(go())
    except HttpStatusError as error:
        outcome = error
    (entry,) = server.journal.since(mark)
    check: dict[str, Any] = entry["check"]
    return outcome, check


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize(("name", "scenario"), CASSETTES)
def test_every_cassette_through_the_leaf_client(
    server: ReplayServer, name: str, scenario: str, mode: str
) -> None:
    if (name, scenario) in NOT_SENT:
        interaction = load(SUITE.cassettes / name / f"{scenario}.yaml").interactions[0]
        assert not interaction.request.body  # still true, or the case belongs below
        return
    case = recorded(name, scenario)
    outcome, check = run(server, name, scenario, mode, case)
    assert check["ok"], check["mismatches"]
    assert check["compared"]
    expected = case.golden.interactions[0]
    if 200 <= case.status < 300:
        assert not isinstance(outcome, HttpStatusError)
        assert compared_response(response_of(outcome)) == expected.response
    else:
        assert isinstance(outcome, HttpStatusError)
        assert outcome.status == case.status
        (error,) = expected.response["errors"]
        assert error["error_code"] == "http_error"
        assert error["message"].startswith(f"HTTP {case.status} ")
        assert outcome.body.startswith(error["raw"])


@pytest.mark.parametrize("name", formats.names())
def test_rate_limits_are_retried_with_the_formats_error_read(
    server: ReplayServer, name: str
) -> None:
    scenario = next(s for n, s in CASSETTES if n == name and (n, s) not in NOT_SENT)
    case = recorded(name, scenario)
    waits: list[float] = []
    base = server.url + f"/s/{name}/{scenario}/f/http-429x2/i/0/v1"
    mark = server.journal.count
    retried: dict[str, Any] = {"path": case.path, "headers": {"x-raf-session": f"{name}-retried"}}
    with HttpChatClient(name, base, sleep=waits.append, **retried) as leaf:
        got = list(leaf.stream(case.messages, case.options))
    entries = server.journal.since(mark)
    assert [e["status"] for e in entries] == [429, 429, 200]
    assert all(e["check"]["ok"] for e in entries)
    assert waits == [1.0, 1.0]  # the server's Retry-After: 1, twice
    assert compared_response(response_of(got)) == case.golden.interactions[0].response
    once: dict[str, Any] = {
        "path": case.path,
        "headers": {"x-raf-session": f"{name}-once"},
    }  # a new count
    with (
        HttpChatClient(name, base, retry=RetryPolicy.none(), **once) as leaf,
        pytest.raises(HttpStatusError) as raised,
    ):
        list(leaf.stream(case.messages, case.options))
    assert (raised.value.status, raised.value.retry_after) == (429, 1.0)
    assert raised.value.provider_message  # the format's error document, read
    assert name in ("ollama_chat", "cohere_v2") or raised.value.error_type  # no type in theirs


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_200_body_cut_midway_is_not_retried_and_keeps_what_arrived(
    server: ReplayServer, mode: str
) -> None:
    name, scenario = "openai_chat", "plain_text"
    case = recorded(name, scenario)
    base = server.url + f"/s/{name}/{scenario}/f/cut-1000/i/0/v1"
    waits: list[float] = []
    mark = server.journal.count
    if mode == "sync":
        with HttpChatClient(name, base, sleep=waits.append) as leaf:
            got = list(leaf.stream(case.messages, case.options))
    else:

        async def sleep(seconds: float) -> None:
            waits.append(seconds)

        async def go() -> list[AgentResponseUpdate]:
            async with AsyncHttpChatClient(name, base, sleep=sleep) as leaf:
                return [u async for u in leaf.stream(case.messages, case.options)]

        got = asyncio.run(go())
    assert len(server.journal.since(mark)) == 1
    assert waits == []
    last = got[-1]
    assert type(last) is updates.Error
    assert last.error_code == ErrorCode.TRANSPORT_ERROR
    assert "incomplete" in last.message
    arrived = [u for u in got if type(u) is updates.TextDelta]
    assert arrived == [updates.TextDelta(delta="The")]  # what came before the cut is kept


def test_the_docs_give_the_counts_this_test_measures() -> None:
    """docs/agent.md says how many cassettes of each format pass both checks: every one but
    those of NOT_SENT (the test above fails for any other)."""
    docs = (Path(__file__).resolve().parents[2] / "docs" / "agent.md").read_text(encoding="utf-8")
    passing = len(CASSETTES) - len(NOT_SENT)
    stale = "stale counts: run python -m tests.readme_counts docs/agent.md"
    assert f"{passing} of the {len(CASSETTES)} cassettes pass both" in docs, stale
    for name in formats.names():
        total = sum(1 for n, _ in CASSETTES if n == name)
        left = sum(1 for n, _ in NOT_SENT if n == name)
        assert f"{name} {total - left}/{total}" in " ".join(docs.split()), stale
