"""The leaf chat clients (RAF's ``ChatClient``): one wire format over httpx, synchronous
(:class:`HttpChatClient`) and asynchronous (:class:`AsyncHttpChatClient`), for every
registered format.

A call builds the format's request from the messages and options
(:meth:`HttpChatClient.conversation`, then the format's ``build_request``), POSTs it to the
format's URL with its headers (:attr:`raf.formats.Format.http`: the path, where the API key
goes, the headers every request carries), and streams the response's body through raf's
pipeline (a :class:`raf.pipeline.UpdateDecoder` driven over its reads), yielding updates;
the caller (the tool loop, the agent) turns them into results.

The request is sent when the iteration starts. Until the first byte of a successful body the
client retries as its :class:`~raf.agent.retry.RetryPolicy` says, then raises
:class:`~raf.agent.errors.RequestFailedError` (no response) or
:class:`~raf.agent.errors.HttpStatusError` (an error status) instead of yielding anything.
After that nothing is retried: a connection lost mid-stream ends the stream with a
``transport_error`` update after everything that arrived.

``timeout`` bounds the connection and each read (the wait for the next bytes), not the whole
stream: a long answer that keeps streaming is never cut (RAF's total timeout does cut it,
docs/deviations.md).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from types import TracebackType
from typing import Any, Self
from urllib.parse import quote

import httpx
import msgspec

from raf import formats
from raf.agent.errors import ChatClientError, HttpStatusError, RequestFailedError
from raf.agent.http_errors import status_error
from raf.agent.options import ChatOptions
from raf.agent.retry import RetryPolicy
from raf.formats import Format, HttpApi
from raf.limits import MAX_ERROR_BODY_BYTES
from raf.model._base import JSONValue
from raf.model.messages import ChatMessage
from raf.model.request import Conversation, RequestOptions
from raf.model.updates import AgentResponseUpdate
from raf.pipeline import Driver, UpdateDecoder

__all__ = ["DEFAULT_TIMEOUT", "AsyncHttpChatClient", "HttpChatClient"]

DEFAULT_TIMEOUT = httpx.Timeout(connect=10.0, read=60.0, write=60.0, pool=10.0)
"""Seconds to connect (10), to wait for each read and write (60: a model may think a long
time before its first token), and for a connection from the pool (10). No total timeout."""

_OPTIONS = ("temperature", "top_p", "stop", "tool_choice", "parallel_tool_calls")
"""The options of :class:`ChatOptions` a format may place elsewhere (:attr:`HttpApi.options`)."""


class _Leaf:
    """What both leaves share: the configuration and the request, built without IO."""

    def __init__(
        self,
        format: str,
        base_url: str | None = None,
        *,
        path: str | None = None,
        api_key: str | None = None,
        model: str | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        top_p: float | None = None,
        stop: Sequence[str] | None = None,
        headers: Mapping[str, str] | None = None,
        retry: RetryPolicy | None = None,
        timeout: httpx.Timeout | float = DEFAULT_TIMEOUT,
        stream_usage: bool = True,
        clock: Callable[[], float] = time.time,
        **decoder_options: Any,
    ) -> None:
        found = formats.get(format)
        if found.http is None or found.build_request is None:
            raise ValueError(f"the {format} format says no HTTP API to call (Format.http)")
        self.format: Format = found
        self._api: HttpApi = found.http
        self.base_url = (base_url or self._api.base_url).rstrip("/")
        self.path = path if path is not None else self._api.path
        self.model = model
        self._api_key = api_key
        self._defaults = ChatOptions(
            max_tokens=max_tokens,
            temperature=temperature,
            top_p=top_p,
            stop=None if stop is None else tuple(stop),
        )
        self._headers = dict(headers or {})
        self.retry = retry if retry is not None else RetryPolicy()
        self._timeout = timeout
        self._stream_usage = stream_usage
        self._clock = clock
        self._decoder = {"framing": self._framing(), **decoder_options}

    @property
    def inner_client(self) -> None:
        """A leaf wraps no client."""
        return None

    def conversation(
        self, messages: Sequence[ChatMessage], options: ChatOptions | None = None
    ) -> Conversation:
        """The conversation a call sends: the messages, ``options.tools``, the model, the
        token limit and the sampling options (per call over the client's defaults), the
        format's usage request, then ``options.extra_body`` over all of them. Without a token
        limit from the call or the client, the format's ``default_max_tokens`` is sent (4,096
        for Anthropic, which requires one).

        Raises:
            ValueError: an option is set that the format has no place for
                (:attr:`raf.formats.HttpApi.options`).
        """
        options = options or ChatOptions()
        extra: dict[str, JSONValue] = {}
        if self._stream_usage:
            extra.update(msgspec.to_builtins(self._api.usage_request))
        for name in _OPTIONS:
            value = getattr(options, name)
            if value is None:
                value = getattr(self._defaults, name, None)
            if value is None:
                continue
            if isinstance(value, tuple):
                value = list(value)
            path = self._api.options.get(name, name)
            if path is None:
                raise ValueError(f"{self.format.name} has no place for {name}; use extra_body")
            _put(extra, path, value)
        extra.update(options.extra_body)
        return Conversation(
            messages=tuple(messages),
            tools=options.tools,
            options=RequestOptions(
                model=options.model or self.model,
                stream=True,
                max_tokens=_first(
                    options.max_tokens, self._defaults.max_tokens, self._api.default_max_tokens
                ),
                extra=extra,
            ),
        )

    def url(self, model: str | None) -> str:
        """The URL a call POSTs to."""
        path = self.path
        if "{model}" in path:
            if not model:
                raise ValueError(f"{self.format.name} needs a model: it is part of the URL")
            path = path.replace("{model}", quote(model, safe=""))
        return self.base_url + path

    def headers(self) -> dict[str, str]:
        """The headers of every call: JSON, the format's own, the API key where the format
        takes it (none without a key), then the caller's ``headers``."""
        out = {"content-type": "application/json", **self._api.headers}
        if self._api_key:
            out[self._api.auth_header] = self._api.auth_scheme + self._api_key
        out.update(self._headers)
        return out

    def _request(
        self,
        client: httpx.Client | httpx.AsyncClient,
        messages: Sequence[ChatMessage],
        options: ChatOptions | None,
    ) -> httpx.Request:
        conversation = self.conversation(messages, options)
        assert self.format.build_request is not None  # checked in __init__
        body = self.format.build_request(conversation)
        return client.build_request(
            "POST",
            self.url(conversation.options.model),
            content=msgspec.json.encode(body),
            headers=self.headers(),
            timeout=self._timeout,
        )

    def _framing(self) -> str | None:
        """The framing the URL asks for, where the format's URL chooses one (Gemini's
        ``alt=sse``); ``None``: the format's own."""
        shape = self.format.request_url
        if shape is None:
            return None
        parts = shape.parts(self.path)
        return shape.framing(parts.method, parts.parameter)

    def _failed(self, exc: httpx.TransportError, attempt: int) -> RequestFailedError:
        cause = str(exc) or type(exc).__name__
        return RequestFailedError(f"HTTP request failed: {cause}", attempts=attempt)

    def _status_failure(
        self, response: httpx.Response, body: bytes, attempt: int
    ) -> HttpStatusError:
        return status_error(
            response.status_code,
            response.reason_phrase,
            response.headers,
            body,
            now=self._clock(),
            attempts=attempt,
        )


def _put(target: dict[str, JSONValue], path: str, value: JSONValue) -> None:
    """Set ``value`` at the dotted ``path`` of ``target``, making the objects on the way."""
    *parents, last = path.split(".")
    for name in parents:
        child = target.get(name)
        if not isinstance(child, dict):
            child = target[name] = {}
        target = child
    target[last] = value


class HttpChatClient(_Leaf):
    """The synchronous leaf chat client of a wire format (module docstring).

    Args:
        format: the format's name (:func:`raf.formats.names`).
        base_url: the API's base URL, up to its version (default: the format's,
            :attr:`raf.formats.HttpApi.base_url`); the path is appended.
        path: the path (default: the format's, :attr:`raf.formats.HttpApi.path`, where
            ``{model}`` stands for the model); where the format's URL chooses the framing,
            the path's does (Gemini's ``:streamGenerateContent`` without ``?alt=sse`` streams
            a JSON array).
        api_key: sent where the format takes it; none is sent without one.
        model: the default model (``ChatOptions.model`` overrides it).
        max_tokens, temperature, top_p, stop: default options (each ``ChatOptions`` field
            overrides its own).
        headers: extra headers, sent last (they override the client's own).
        http_client: an ``httpx.Client`` the caller owns and closes; without one the client
            makes its own and :meth:`close` (or leaving a ``with`` block) closes it.
        retry: the retry policy (default :class:`RetryPolicy()`, 3 attempts;
            ``RetryPolicy.none()`` retries nothing, as RAF).
        timeout: connect, read, write and pool timeouts (:data:`DEFAULT_TIMEOUT`); never a
            total one.
        stream_usage: send the format's request for usage in the stream
            (:attr:`raf.formats.HttpApi.usage_request`; RAF's ``stream_include_usage``).
        sleep: waits between attempts (``time.sleep``).
        clock: the current POSIX time, for a ``Retry-After`` date (``time.time``).
        **decoder_options: passed to :class:`raf.pipeline.UpdateDecoder` (its limits).
    """

    def __init__(
        self,
        format: str,
        base_url: str | None = None,
        *,
        http_client: httpx.Client | None = None,
        sleep: Callable[[float], None] = time.sleep,
        **settings: Any,
    ) -> None:
        super().__init__(format, base_url, **settings)
        self._owned = http_client is None
        self._client = http_client if http_client is not None else httpx.Client()
        self._sleep = sleep

    def stream(
        self, messages: Sequence[ChatMessage], options: ChatOptions | None = None
    ) -> Iterator[AgentResponseUpdate]:
        """The updates of the model's turn. The request is built now (``ValueError`` for an
        option the format has no place for) and sent when the iteration starts."""
        return self._stream(self._request(self._client, messages, options))

    def _stream(self, request: httpx.Request) -> Iterator[AgentResponseUpdate]:
        response = self._send(request)
        driver = Driver(UpdateDecoder(self.format.name, **self._decoder), response.iter_bytes())
        try:
            yield from driver
        except Exception as exc:
            if exc is not driver.failure:
                raise  # not the read that failed: that one is the transport_error yielded
        finally:
            response.close()

    def _send(self, request: httpx.Request) -> httpx.Response:
        attempt = 0
        while True:
            attempt += 1
            try:
                response = self._client.send(request, stream=True)
            except httpx.TransportError as exc:
                failure: ChatClientError = self._failed(exc, attempt)
            else:
                if response.is_success:
                    return response
                try:
                    failure = self._status_failure(response, _head(response), attempt)
                finally:
                    response.close()
            delay = _delay(self.retry, attempt, failure)
            if delay is None:
                raise failure
            self._sleep(delay)

    def close(self) -> None:
        """Close the HTTP client if this client made it."""
        if self._owned:
            self._client.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class AsyncHttpChatClient(_Leaf):
    """The asynchronous leaf chat client (as :class:`HttpChatClient`, with an
    ``httpx.AsyncClient`` and an awaitable ``sleep``, ``asyncio.sleep`` by default)."""

    def __init__(
        self,
        format: str,
        base_url: str | None = None,
        *,
        http_client: httpx.AsyncClient | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        **settings: Any,
    ) -> None:
        super().__init__(format, base_url, **settings)
        self._owned = http_client is None
        self._client = http_client if http_client is not None else httpx.AsyncClient()
        self._sleep = sleep

    def stream(
        self, messages: Sequence[ChatMessage], options: ChatOptions | None = None
    ) -> AsyncIterator[AgentResponseUpdate]:
        """The updates of the model's turn (see :meth:`HttpChatClient.stream`)."""
        return self._stream(self._request(self._client, messages, options))

    async def _stream(self, request: httpx.Request) -> AsyncIterator[AgentResponseUpdate]:
        response = await self._send(request)
        driver = Driver(UpdateDecoder(self.format.name, **self._decoder), response.aiter_bytes())
        try:
            async for update in driver:
                yield update
        except Exception as exc:
            if exc is not driver.failure:
                raise  # not the read that failed: that one is the transport_error yielded
        finally:
            await response.aclose()

    async def _send(self, request: httpx.Request) -> httpx.Response:
        attempt = 0
        while True:
            attempt += 1
            try:
                response = await self._client.send(request, stream=True)
            except httpx.TransportError as exc:
                failure: ChatClientError = self._failed(exc, attempt)
            else:
                if response.is_success:
                    return response
                try:
                    failure = self._status_failure(response, await _ahead(response), attempt)
                finally:
                    await response.aclose()
            delay = _delay(self.retry, attempt, failure)
            if delay is None:
                raise failure
            await self._sleep(delay)

    async def aclose(self) -> None:
        """Close the HTTP client if this client made it."""
        if self._owned:
            await self._client.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


def _delay(policy: RetryPolicy, attempt: int, failure: ChatClientError) -> float | None:
    """The policy's wait after ``failure``, or ``None`` (give up)."""
    if isinstance(failure, HttpStatusError):
        return policy.decide(attempt, failure.status, failure.retry_after)
    return policy.decide(attempt, None, None)


def _head(response: httpx.Response) -> bytes:
    """At most MAX_ERROR_BODY_BYTES of an error body (a read that fails ends it early)."""
    body = bytearray()
    try:
        for chunk in response.iter_bytes():
            body += chunk
            if len(body) >= MAX_ERROR_BODY_BYTES:
                break
    except httpx.HTTPError:
        pass  # the status is the error; a body cut short is still worth quoting
    return bytes(body[:MAX_ERROR_BODY_BYTES])


async def _ahead(response: httpx.Response) -> bytes:
    """Async twin of :func:`_head`."""
    body = bytearray()
    try:
        async for chunk in response.aiter_bytes():
            body += chunk
            if len(body) >= MAX_ERROR_BODY_BYTES:
                break
    except httpx.HTTPError:
        pass  # the status is the error; a body cut short is still worth quoting
    return bytes(body[:MAX_ERROR_BODY_BYTES])


def _first(*values: int | None) -> int | None:
    """The first of ``values`` that is not ``None``."""
    return next((value for value in values if value is not None), None)
