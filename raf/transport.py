"""The httpx shell: an HTTP response in, results out. All the IO of a live or replayed stream.

:func:`iter_response` feeds ``response.iter_bytes()`` to a :class:`raf.pipeline.Pipeline` (or
an :class:`raf.pipeline.UpdateDecoder` with :func:`iter_response_updates`); a response with an
error status is not read as a stream: at most :data:`raf.limits.MAX_ERROR_BODY_BYTES` of its
body are read and quoted in one ``http_error``. The response's content type is not checked
(RAF does not either): a body that is not an event stream ends as a truncated stream. Async
twins take an ``httpx.AsyncClient`` response.

A read that fails mid-stream (``httpx.ReadError``, ``httpx.ReadTimeout``, a reset connection)
ends the turn with a ``transport_error``: the results yielded before the exception is
re-raised include it and the final result, so nothing that arrived is lost
(:func:`raf.pipeline.drive`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any, TypeVar

import httpx

from raf.dialects.base import Dialect
from raf.limits import MAX_ERROR_BODY_BYTES
from raf.model import updates
from raf.model.response import AgentResponseResult
from raf.model.updates import AgentResponseUpdate
from raf.pipeline import Machine, Pipeline, UpdateDecoder, adrive, drive, http_error

T = TypeVar("T")

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
    return _read(Pipeline(dialect, **options), response)


def iter_response_updates(
    response: httpx.Response, dialect: str | Dialect = "openai_chat", **options: Any
) -> Iterator[AgentResponseUpdate]:
    """The updates of a streamed response (``options`` as for :class:`UpdateDecoder`)."""
    return _read(UpdateDecoder(dialect, **options), response)


def aiter_response(
    response: httpx.Response, dialect: str | Dialect = "openai_chat", **options: Any
) -> AsyncIterator[AgentResponseResult]:
    """Async twin of :func:`iter_response`."""
    return _aread(Pipeline(dialect, **options), response)


def aiter_response_updates(
    response: httpx.Response, dialect: str | Dialect = "openai_chat", **options: Any
) -> AsyncIterator[AgentResponseUpdate]:
    """Async twin of :func:`iter_response_updates`."""
    return _aread(UpdateDecoder(dialect, **options), response)


def _read(machine: Machine[T], response: httpx.Response) -> Iterator[T]:
    if not response.is_success:
        return iter(machine.fail(_http_error(response, _head(response))))
    return drive(machine, response.iter_bytes())


async def _aread(machine: Machine[T], response: httpx.Response) -> AsyncIterator[T]:
    if not response.is_success:
        for item in machine.fail(_http_error(response, await _ahead(response))):
            yield item
        return
    async for item in adrive(machine, response.aiter_bytes()):
        yield item


def _http_error(response: httpx.Response, body: bytes) -> updates.Error:
    return http_error(response.status_code, response.reason_phrase, body)


def _head(response: httpx.Response) -> bytes:
    """At most MAX_ERROR_BODY_BYTES of the body (a read error ends it early)."""
    try:
        return response.content[:MAX_ERROR_BODY_BYTES]  # already read (not streamed)
    except httpx.ResponseNotRead:
        pass
    body = bytearray()
    try:
        for chunk in response.iter_bytes():
            body += chunk
            if len(body) >= MAX_ERROR_BODY_BYTES:
                break
    except (httpx.HTTPError, httpx.StreamError):
        pass  # the status is the error; a body cut short is still worth quoting
    return bytes(body[:MAX_ERROR_BODY_BYTES])


async def _ahead(response: httpx.Response) -> bytes:
    """Async twin of :func:`_head`."""
    try:
        return response.content[:MAX_ERROR_BODY_BYTES]  # already read (not streamed)
    except httpx.ResponseNotRead:
        pass
    body = bytearray()
    try:
        async for chunk in response.aiter_bytes():
            body += chunk
            if len(body) >= MAX_ERROR_BODY_BYTES:
                break
    except (httpx.HTTPError, httpx.StreamError):
        pass  # the status is the error; a body cut short is still worth quoting
    return bytes(body[:MAX_ERROR_BODY_BYTES])
