"""raf.transport: reading a real httpx response stream, sync and async, and error statuses."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import httpx

from raf.collect import acollect_agent_response, collect_agent_response
from raf.model import updates
from raf.transport import (
    aiter_response,
    aiter_response_updates,
    iter_response,
    iter_response_updates,
)

BODY = (
    b'data: {"id":"r1","model":"m","choices":[{"index":0,"delta":{"content":"h\xc3'
    b'\xa9"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
)


class Chunks(httpx.SyncByteStream, httpx.AsyncByteStream):
    def __init__(self, body: bytes, size: int = 3) -> None:
        self.pieces = [body[i : i + size] for i in range(0, len(body), size)]

    def __iter__(self) -> Iterator[bytes]:
        yield from self.pieces

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for piece in self.pieces:
            yield piece


def transport(status: int, body: bytes) -> httpx.MockTransport:
    return httpx.MockTransport(
        lambda request: httpx.Response(
            status, stream=Chunks(body), headers={"content-type": "text/event-stream"}
        )
    )


def test_streamed_response_to_results_and_updates() -> None:
    with httpx.Client(transport=transport(200, BODY)) as client:
        with client.stream("POST", "https://x/v1/chat/completions") as response:
            assert collect_agent_response(iter_response(response)).text == "hé"
        with client.stream("POST", "https://x/v1/chat/completions") as response:
            assert [type(u) for u in iter_response_updates(response)] == [
                updates.ResponseMetadata,
                updates.TextDelta,
                updates.Finish,
            ]


def test_error_status_is_one_http_error_quoting_the_body() -> None:
    body = (
        b'{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}'
    )
    with (
        httpx.Client(transport=transport(429, body)) as client,
        client.stream("POST", "https://x/v1/chat/completions") as response,
    ):
        result = collect_agent_response(iter_response(response))
    (error,) = result.errors
    assert error.error_code == "http_error"
    assert error.message.startswith("HTTP 429 Too Many Requests: ")
    assert "Rate limit reached" in error.message
    assert error.raw == body.decode()


def test_async_twins() -> None:
    async def go() -> tuple[str, list[str]]:
        async with httpx.AsyncClient(transport=transport(200, BODY)) as client:
            async with client.stream("POST", "https://x/v1/chat/completions") as response:
                text = (await acollect_agent_response(aiter_response(response))).text
            async with client.stream("POST", "https://x/v1/chat/completions") as response:
                kinds = [type(u).__name__ async for u in aiter_response_updates(response)]
            async with (
                httpx.AsyncClient(transport=transport(500, b"oops")) as failing,
                failing.stream("GET", "https://x") as bad,
            ):
                errors = (await acollect_agent_response(aiter_response(bad))).errors
        return text, kinds + [e.error_code for e in errors]

    text, kinds = asyncio.run(go())
    assert text == "hé"
    assert kinds == ["ResponseMetadata", "TextDelta", "Finish", "http_error"]
