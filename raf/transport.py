"""The httpx shell: an HTTP response in, results out. All the IO of a live or replayed stream.

:func:`iter_response` feeds ``response.iter_bytes()`` to a :class:`raf.pipeline.Pipeline` (or
an :class:`raf.pipeline.UpdateDecoder` with :func:`iter_response_updates`); a response with an
error status is not read as a stream: its body is quoted in one ``http_error``. The response's
content type is not checked (RAF does not either): a body that is not an event stream ends
as a truncated stream. Async twins take an ``httpx.AsyncClient`` response.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any, Protocol, TypeVar

import httpx

from raf.dialects.base import Dialect
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


class _Failing(Machine[T], Protocol[T]):
    def fail(self, error: updates.Error) -> list[T]: ...


def _read(machine: _Failing[T], response: httpx.Response) -> Iterator[T]:
    if not response.is_success:
        error = http_error(response.status_code, response.reason_phrase, response.read())
        return iter(machine.fail(error))
    return drive(machine, response.iter_bytes())


async def _aread(machine: _Failing[T], response: httpx.Response) -> AsyncIterator[T]:
    if not response.is_success:
        error = http_error(response.status_code, response.reason_phrase, await response.aread())
        for item in machine.fail(error):
            yield item
        return
    async for item in adrive(machine, response.aiter_bytes()):
        yield item
