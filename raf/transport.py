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
(:class:`raf.pipeline.Driver`). With a ``collector``, every result is added to it as it is
produced, and a cancellation (``task.cancel()``, ``asyncio.timeout``) or ``KeyboardInterrupt``
closes the turn into it (``cancelled``) before it propagates.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any, TypeVar

import httpx

from raf.collect import ResponseCollector
from raf.dialects.base import Dialect
from raf.limits import MAX_ERROR_BODY_BYTES
from raf.model import updates
from raf.model.response import AgentResponseResult
from raf.model.updates import AgentResponseUpdate
from raf.pipeline import Driver, Machine, Pipeline, UpdateDecoder, http_error

T = TypeVar("T")

__all__ = [
    "aiter_response",
    "aiter_response_updates",
    "iter_response",
    "iter_response_updates",
]


def iter_response(
    response: httpx.Response,
    dialect: str | Dialect = "openai_chat",
    *,
    collector: ResponseCollector | None = None,
    **options: Any,
) -> Iterator[AgentResponseResult]:
    """The results of a streamed response (``options`` as for :class:`Pipeline`); with
    ``collector``, each is also added to it as it is produced (do not add them again), and
    ``KeyboardInterrupt`` closes the turn into it."""
    return _read(Pipeline(dialect, **options), response, collector)


def iter_response_updates(
    response: httpx.Response, dialect: str | Dialect = "openai_chat", **options: Any
) -> Iterator[AgentResponseUpdate]:
    """The updates of a streamed response (``options`` as for :class:`UpdateDecoder`)."""
    return _read(UpdateDecoder(dialect, **options), response)


def aiter_response(
    response: httpx.Response,
    dialect: str | Dialect = "openai_chat",
    *,
    collector: ResponseCollector | None = None,
    **options: Any,
) -> AsyncIterator[AgentResponseResult]:
    """Async twin of :func:`iter_response`: with ``collector``, a cancellation
    (``task.cancel()``, ``asyncio.timeout``) closes the turn into it before the
    ``CancelledError`` propagates, so ``collector.response()`` is the partial response."""
    return _aread(Pipeline(dialect, **options), response, collector)


def aiter_response_updates(
    response: httpx.Response, dialect: str | Dialect = "openai_chat", **options: Any
) -> AsyncIterator[AgentResponseUpdate]:
    """Async twin of :func:`iter_response_updates`."""
    return _aread(UpdateDecoder(dialect, **options), response)


def _read(
    machine: Machine[T], response: httpx.Response, collector: ResponseCollector | None = None
) -> Iterator[T]:
    if not response.is_success:
        return iter(_kept(machine.fail(_http_error(response, _head(response))), collector))
    driver = Driver(machine, response.iter_bytes())
    if collector is not None:
        driver.collect_into(collector)
    return driver


def _aread(
    machine: Machine[T], response: httpx.Response, collector: ResponseCollector | None = None
) -> AsyncIterator[T]:
    if not response.is_success:
        return _afailed(machine, response, collector)
    driver = Driver(machine, response.aiter_bytes())
    if collector is not None:
        driver.collect_into(collector)
    return driver


async def _afailed(
    machine: Machine[T], response: httpx.Response, collector: ResponseCollector | None
) -> AsyncIterator[T]:
    """An error status: the ``http_error`` quoting the start of the body, and the end."""
    for item in _kept(machine.fail(_http_error(response, await _ahead(response))), collector):
        yield item


def _kept(items: list[T], collector: ResponseCollector | None) -> list[T]:
    if collector is not None:
        for item in items:
            collector.add(item)  # type: ignore[arg-type]  # results: only iter_response passes one
    return items


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
