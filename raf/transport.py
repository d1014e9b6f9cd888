"""The httpx shell: an HTTP response in, results out. All the IO of a live or replayed stream.

:func:`iter_response` feeds ``response.iter_bytes()`` to a :class:`raf.pipeline.Pipeline` (or
an :class:`raf.pipeline.UpdateDecoder` with :func:`iter_response_updates`); a response with an
error status is not read as a stream: its body is quoted in one ``http_error``. The response's
content type is not checked (RAF does not either): a body that is not an event stream ends
as a truncated stream. Async twins take an ``httpx.AsyncClient`` response.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx

from raf.dialects.base import Dialect
from raf.model.response import AgentResponseResult
from raf.model.updates import AgentResponseUpdate
from raf.pipeline import Pipeline, UpdateDecoder, http_error

__all__ = [
    "aiter_response",
    "aiter_response_updates",
    "iter_response",
    "iter_response_updates",
]


def iter_response(
    response: httpx.Response, dialect: str | Dialect = "openai_chat", **options: Any
) -> Iterator[AgentResponseResult]:
    """The results of a streamed response (``options`` as for :class:`Pipeline`)."""
    pipeline = Pipeline(dialect, **options)
    if not response.is_success:
        yield from pipeline.fail(
            http_error(response.status_code, response.reason_phrase, response.read())
        )
        return
    for chunk in response.iter_bytes():
        yield from pipeline.feed(chunk)
        if pipeline.done:
            break
    yield from pipeline.close()


def iter_response_updates(
    response: httpx.Response, dialect: str | Dialect = "openai_chat", **options: Any
) -> Iterator[AgentResponseUpdate]:
    """The updates of a streamed response (``options`` as for :class:`UpdateDecoder`)."""
    decoder = UpdateDecoder(dialect, **options)
    if not response.is_success:
        yield from decoder.fail(
            http_error(response.status_code, response.reason_phrase, response.read())
        )
        return
    for chunk in response.iter_bytes():
        yield from decoder.feed(chunk)
        if decoder.done:
            break
    yield from decoder.close()


async def aiter_response(
    response: httpx.Response, dialect: str | Dialect = "openai_chat", **options: Any
) -> AsyncIterator[AgentResponseResult]:
    """Async twin of :func:`iter_response`."""
    pipeline = Pipeline(dialect, **options)
    if not response.is_success:
        body = await response.aread()
        for result in pipeline.fail(http_error(response.status_code, response.reason_phrase, body)):
            yield result
        return
    async for chunk in response.aiter_bytes():
        for result in pipeline.feed(chunk):
            yield result
        if pipeline.done:
            break
    for result in pipeline.close():
        yield result


async def aiter_response_updates(
    response: httpx.Response, dialect: str | Dialect = "openai_chat", **options: Any
) -> AsyncIterator[AgentResponseUpdate]:
    """Async twin of :func:`iter_response_updates`."""
    decoder = UpdateDecoder(dialect, **options)
    if not response.is_success:
        body = await response.aread()
        for update in decoder.fail(http_error(response.status_code, response.reason_phrase, body)):
            yield update
        return
    async for chunk in response.aiter_bytes():
        for update in decoder.feed(chunk):
            yield update
        if decoder.done:
            break
    for update in decoder.close():
        yield update
