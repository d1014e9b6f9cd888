"""The logging middleware (raf.agent.middleware) composed around the leaf client: it reports
each call once it ends, passes updates unchanged, and the leaf is found under it."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Generator

import httpx
import pytest
import respx

from raf.agent import (
    AsyncHttpChatClient,
    AsyncLoggingChatClient,
    CallReport,
    ChatOptions,
    HttpChatClient,
    HttpStatusError,
    LoggingChatClient,
    RetryPolicy,
    innermost,
)
from raf.model import updates
from raf.model.request import ToolSpec
from raf.model.updates import AgentResponseUpdate
from tests.agent.test_http_client import ANSWER, BASE, CHAT_URL, CHUNK, MESSAGES, CutStream

OPTIONS = ChatOptions(model="gpt-x", tools=(ToolSpec(name="lookup"),))


def leaf() -> HttpChatClient:
    return HttpChatClient("openai_chat", BASE, model="m", retry=RetryPolicy.none())


def test_innermost_finds_the_leaf_under_the_middleware() -> None:
    inner = leaf()
    assert innermost(LoggingChatClient(LoggingChatClient(inner))) is inner
    assert LoggingChatClient(inner).inner_client is inner


@respx.mock
def test_a_call_is_reported_once_with_what_it_did() -> None:
    respx.post(CHAT_URL).mock(return_value=httpx.Response(200, content=ANSWER))
    reports: list[CallReport] = []
    client = LoggingChatClient(leaf(), reports.append)
    got = list(client.stream(MESSAGES, OPTIONS))
    assert got == list(leaf().stream(MESSAGES, OPTIONS))  # updates pass unchanged
    assert reports == [
        CallReport(
            messages=2,
            model="gpt-x",
            tools=("lookup",),
            updates=len(got),
            finish_reason="stop",
            completed=True,
        )
    ]


@respx.mock
def test_a_failed_call_is_reported_and_raised_on() -> None:
    respx.post(CHAT_URL).mock(return_value=httpx.Response(401, text="no key"))
    reports: list[CallReport] = []
    with pytest.raises(HttpStatusError) as raised:
        list(LoggingChatClient(leaf(), reports.append).stream(MESSAGES))
    (report,) = reports
    assert (report.failure, report.updates, report.completed) == (raised.value, 0, False)


@respx.mock
def test_in_band_errors_and_an_early_stop_are_reported() -> None:
    respx.post(CHAT_URL).mock(return_value=httpx.Response(200, stream=CutStream(CHUNK)))
    reports: list[CallReport] = []
    client = LoggingChatClient(leaf(), reports.append)
    list(client.stream(MESSAGES))
    assert reports[-1].error_codes == ("transport_error",)
    assert reports[-1].completed
    respx.post(CHAT_URL).mock(return_value=httpx.Response(200, content=ANSWER))
    stream = client.stream(MESSAGES)
    assert isinstance(stream, Generator)
    next(stream)
    stream.close()  # the caller stops reading
    assert (reports[-1].updates, reports[-1].completed) == (1, False)


@respx.mock
def test_the_default_report_is_one_log_line(caplog: pytest.LogCaptureFixture) -> None:
    respx.post(CHAT_URL).mock(return_value=httpx.Response(200, content=ANSWER))
    with caplog.at_level(logging.INFO, logger="raf.agent"):
        list(LoggingChatClient(leaf()).stream(MESSAGES, OPTIONS))
    (record,) = caplog.records
    assert record.levelno == logging.INFO
    assert record.getMessage().startswith("chat call: 2 messages, model gpt-x, 1 tools, ")
    assert "finish stop, errors none" in record.getMessage()
    respx.post(CHAT_URL).mock(return_value=httpx.Response(503, text="busy"))
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="raf.agent"), pytest.raises(HttpStatusError):
        list(LoggingChatClient(leaf()).stream(MESSAGES))
    (record,) = caplog.records
    assert record.levelno == logging.WARNING
    assert "failed: Chat API returned 503 Service Unavailable: busy" in record.getMessage()


@respx.mock
def test_async_middleware_reports_around_the_async_leaf() -> None:
    respx.post(CHAT_URL).mock(return_value=httpx.Response(200, content=ANSWER))
    reports: list[CallReport] = []

    async def go() -> list[AgentResponseUpdate]:
        async with AsyncHttpChatClient("openai_chat", BASE, model="m") as inner:
            client = AsyncLoggingChatClient(inner, reports.append)
            assert innermost(client) is inner
            return [u async for u in client.stream(MESSAGES)]

    got = asyncio.run(go())
    assert any(type(u) is updates.Finish for u in got)
    assert [(r.updates, r.finish_reason, r.completed) for r in reports] == [
        (len(got), "stop", True)
    ]
