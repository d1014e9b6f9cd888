"""The leaf chat clients (raf.agent.http_client) against respx: the request each format's
client sends, the typed errors, the retry policy (only before the first byte of a successful
body, Retry-After honoured, attempts bounded), sync and async. tests/agent/test_http_replay.py
runs them against a real ``raf serve``."""

from __future__ import annotations

import asyncio
import email.utils
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
import respx

from raf import formats
from raf.agent import (
    AsyncHttpChatClient,
    ChatOptions,
    HttpChatClient,
    HttpStatusError,
    RequestFailedError,
    RetryPolicy,
)
from raf.model import updates
from raf.model.codes import ErrorCode
from raf.model.messages import ChatMessage
from raf.model.request import ToolSpec
from raf.model.updates import AgentResponseUpdate

BASE = "https://api.test/v1"
MESSAGES = (ChatMessage.system("Be brief."), ChatMessage.user("Hello?"))
CHUNK = (
    b'data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":'
    b'[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":null}]}\n\n'
)
ANSWER = (
    CHUNK + b'data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":'
    b'[{"index":0,"delta":{"content":" there."},"finish_reason":"stop"}]}\n\n'
    b"data: [DONE]\n\n"
)
CHAT_URL = BASE + "/chat/completions"
RATE_LIMITED = {
    "error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}
}

# What each format's client sends, as data: the URL for model "m" (Gemini's has it in the
# path) and the header that carries the key "k".
WIRE: dict[str, tuple[str, str, str]] = {
    "anthropic_messages": (BASE + "/messages", "x-api-key", "k"),
    "bedrock_converse": (BASE + "/model/m/converse-stream", "authorization", "Bearer k"),
    "cohere_v2": (BASE + "/v2/chat", "authorization", "Bearer k"),
    "gemini": (BASE + "/models/m:streamGenerateContent?alt=sse", "x-goog-api-key", "k"),
    "gemini_interactions": (BASE + "/interactions", "x-goog-api-key", "k"),
    "ollama_chat": (BASE + "/api/chat", "authorization", "Bearer k"),
    "openai_chat": (BASE + "/chat/completions", "authorization", "Bearer k"),
    "openai_completions": (BASE + "/completions", "authorization", "Bearer k"),
    "openai_responses": (BASE + "/responses", "authorization", "Bearer k"),
}
AUTH_HEADERS = {"authorization", "x-api-key", "x-goog-api-key"}


class Sleeps:
    """The waits a client asked for (sync and async), returning at once."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)

    async def asleep(self, seconds: float) -> None:
        self.waits.append(seconds)


def client(sleeps: Sleeps | None = None, **settings: Any) -> HttpChatClient:
    settings.setdefault("api_key", "k")
    settings.setdefault("model", "m")
    return HttpChatClient(
        settings.pop("format", "openai_chat"), BASE, sleep=sleeps or Sleeps(), **settings
    )


def aclient(sleeps: Sleeps, **settings: Any) -> AsyncHttpChatClient:
    settings.setdefault("api_key", "k")
    settings.setdefault("model", "m")
    return AsyncHttpChatClient("openai_chat", BASE, sleep=sleeps.asleep, **settings)


def sent(route: respx.Route, index: int = -1) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(route.calls[index].request.content)
    return body


def text(items: list[AgentResponseUpdate]) -> str:
    return "".join(u.delta for u in items if type(u) is updates.TextDelta)


async def collected(stream: AsyncIterator[AgentResponseUpdate]) -> list[AgentResponseUpdate]:
    return [update async for update in stream]


def test_every_registered_format_has_an_http_api_at_one_of_its_endpoints() -> None:
    assert set(WIRE) == set(formats.names())  # a new format adds its row here
    for name in formats.names():
        found = formats.get(name)
        assert found.http is not None, name
        path = found.http.path.replace("{model}", "m").split("?")[0]
        assert any(e.matches("POST", "/v1" + path) for e in found.endpoints), name


@pytest.mark.parametrize("name", sorted(WIRE))
@respx.mock
def test_each_format_posts_its_request_to_its_url_with_its_key(name: str) -> None:
    url, header, value = WIRE[name]
    route = respx.post(url).mock(return_value=httpx.Response(200, content=b""))
    tool = ToolSpec(name="get_weather", parameters={"type": "object", "properties": {}})
    with client(format=name) as leaf:
        list(leaf.stream(MESSAGES, ChatOptions(tools=(tool,), max_tokens=64)))
        conversation = leaf.conversation(MESSAGES, ChatOptions(tools=(tool,), max_tokens=64))
    request = route.calls.last.request
    assert str(request.url) == url
    assert request.headers[header] == value
    assert AUTH_HEADERS & set(request.headers) == {header}
    assert request.headers["content-type"] == "application/json"
    found = formats.get(name)
    assert found.build_request is not None
    assert sent(route) == found.build_request(conversation)
    assert found.read_request is not None
    read = found.read_request(sent(route))
    assert read.options.max_tokens == 64
    if name not in {"gemini", "bedrock_converse"}:  # their model is in the URL
        assert read.options.model == "m"


@respx.mock
def test_anthropic_carries_its_version_header() -> None:
    route = respx.post(BASE + "/messages").mock(return_value=httpx.Response(200))
    list(client(format="anthropic_messages").stream(MESSAGES))
    assert route.calls.last.request.headers["anthropic-version"] == "2023-06-01"


@pytest.mark.parametrize("name", sorted(WIRE))
@respx.mock
def test_no_key_sends_no_auth_header(name: str) -> None:
    route = respx.post(WIRE[name][0]).mock(return_value=httpx.Response(200))
    list(client(format=name, api_key=None).stream(MESSAGES))
    list(client(format=name, api_key="").stream(MESSAGES))
    for call in route.calls:
        assert not AUTH_HEADERS & set(call.request.headers)


@respx.mock
def test_extra_headers_are_sent_last() -> None:
    route = respx.post(CHAT_URL).mock(return_value=httpx.Response(200))
    leaf = client(headers={"authorization": "Token other", "x-trace": "1"})
    list(leaf.stream(MESSAGES))
    headers = route.calls.last.request.headers
    assert (headers["authorization"], headers["x-trace"]) == ("Token other", "1")


@respx.mock
def test_options_override_defaults_and_extra_body_comes_last() -> None:
    route = respx.post(CHAT_URL).mock(return_value=httpx.Response(200))
    leaf = client(temperature=0.1, top_p=0.5, stop=["END"], max_tokens=10)
    list(leaf.stream(MESSAGES))
    body = sent(route)
    assert body["model"] == "m"
    assert (body["temperature"], body["top_p"], body["stop"]) == (0.1, 0.5, ["END"])
    assert body["max_completion_tokens"] == 10
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    options = ChatOptions(
        model="other",
        temperature=0.7,
        max_tokens=20,
        tool_choice="required",
        parallel_tool_calls=False,
        extra_body={"temperature": 0.9, "seed": 3, "stream_options": {"include_usage": False}},
    )
    list(leaf.stream(MESSAGES, options))
    body = sent(route)
    assert body["model"] == "other"
    assert body["max_completion_tokens"] == 20
    assert (body["temperature"], body["top_p"], body["seed"]) == (0.9, 0.5, 3)
    assert (body["tool_choice"], body["parallel_tool_calls"]) == ("required", False)
    assert body["stream_options"] == {"include_usage": False}
    list(client(stream_usage=False).stream(MESSAGES))
    assert "stream_options" not in sent(route)


@respx.mock
def test_options_go_where_each_format_takes_them() -> None:
    options = ChatOptions(temperature=0.2, top_p=0.9, stop=("X",), max_tokens=5)
    gemini = respx.post(WIRE["gemini"][0]).mock(return_value=httpx.Response(200))
    list(client(format="gemini").stream(MESSAGES, options))
    assert sent(gemini)["generationConfig"] == {
        "temperature": 0.2,
        "topP": 0.9,
        "stopSequences": ["X"],
        "maxOutputTokens": 5,
    }
    ollama = respx.post(WIRE["ollama_chat"][0]).mock(return_value=httpx.Response(200))
    list(client(format="ollama_chat").stream(MESSAGES, options))
    assert sent(ollama)["options"] == {
        "temperature": 0.2,
        "top_p": 0.9,
        "stop": ["X"],
        "num_predict": 5,
    }
    anthropic = respx.post(WIRE["anthropic_messages"][0]).mock(return_value=httpx.Response(200))
    list(client(format="anthropic_messages").stream(MESSAGES, options))
    assert sent(anthropic)["stop_sequences"] == ["X"]
    assert "stop" not in sent(anthropic)


@pytest.mark.parametrize(
    ("name", "option"),
    [
        ("anthropic_messages", {"parallel_tool_calls": True}),
        ("gemini", {"parallel_tool_calls": True}),
        ("ollama_chat", {"tool_choice": "auto"}),
        ("openai_completions", {"tool_choice": "auto"}),
        ("openai_responses", {"stop": ("X",)}),
    ],
)
def test_an_option_a_format_has_no_place_for_is_refused_when_the_call_is_made(
    name: str, option: dict[str, Any]
) -> None:
    with pytest.raises(ValueError, match="has no place for"):
        client(format=name).stream(MESSAGES, ChatOptions(**option))


def test_gemini_needs_a_model_for_its_url() -> None:
    with pytest.raises(ValueError, match="needs a model"):
        client(format="gemini", model=None).stream(MESSAGES)


@respx.mock
def test_the_stream_goes_through_the_pipeline_as_updates() -> None:
    respx.post(CHAT_URL).mock(return_value=httpx.Response(200, content=ANSWER))
    got = list(client().stream(MESSAGES))
    assert text(got) == "Hi there."
    assert [u for u in got if type(u) is updates.Finish] == [updates.Finish(finish_reason="stop")]


@respx.mock
def test_the_request_is_sent_when_iteration_starts() -> None:
    route = respx.post(CHAT_URL).mock(return_value=httpx.Response(200, content=ANSWER))
    stream = client().stream(MESSAGES)
    assert route.call_count == 0
    next(iter(stream))
    assert route.call_count == 1


# -- errors and retries ------------------------------------------------------------------------


@respx.mock
def test_a_status_is_a_typed_error_with_the_providers_message() -> None:
    route = respx.post(CHAT_URL).mock(return_value=httpx.Response(400, json=RATE_LIMITED))
    sleeps = Sleeps()
    with pytest.raises(HttpStatusError) as raised:
        list(client(sleeps).stream(MESSAGES))
    error = raised.value
    assert str(error).startswith("Chat API returned 400 Bad Request: {")
    assert (error.status, error.reason, error.attempts) == (400, "Bad Request", 1)
    assert (error.provider_message, error.error_type) == ("Rate limit reached", "requests")
    assert json.loads(error.body) == RATE_LIMITED
    assert route.call_count == 1  # 400 is not retried
    assert sleeps.waits == []


@respx.mock
def test_retries_are_bounded_and_the_last_error_is_raised() -> None:
    route = respx.post(CHAT_URL).mock(return_value=httpx.Response(503, text="busy"))
    sleeps = Sleeps()
    with pytest.raises(HttpStatusError) as raised:
        list(client(sleeps).stream(MESSAGES))
    assert route.call_count == 3
    assert raised.value.attempts == 3
    assert sleeps.waits == [0.5, 1.0]
    assert [c.request.content for c in route.calls] == [route.calls[0].request.content] * 3


@respx.mock
def test_a_retry_that_succeeds_streams_normally() -> None:
    route = respx.post(CHAT_URL).mock(
        side_effect=[
            httpx.Response(429, json=RATE_LIMITED, headers={"retry-after": "2"}),
            httpx.Response(502, text="bad gateway"),
            httpx.Response(200, content=ANSWER),
        ]
    )
    sleeps = Sleeps()
    assert text(list(client(sleeps).stream(MESSAGES))) == "Hi there."
    assert route.call_count == 3
    assert sleeps.waits == [2.0, 1.0]  # Retry-After, then the backoff of the second attempt


@pytest.mark.parametrize(
    ("headers", "wait"),
    [
        ({"retry-after": "3"}, 3.0),
        ({"retry-after-ms": "1500"}, 1.5),
        ({"retry-after": email.utils.formatdate(1_000_040, usegmt=True)}, 40.0),
    ],
)
@respx.mock
def test_retry_after_in_each_form_is_honoured(headers: dict[str, str], wait: float) -> None:
    respx.post(CHAT_URL).mock(
        side_effect=[httpx.Response(429, headers=headers), httpx.Response(200, content=ANSWER)]
    )
    sleeps = Sleeps()
    list(client(sleeps, clock=lambda: 1_000_000.0).stream(MESSAGES))
    assert sleeps.waits == [wait]


@respx.mock
def test_a_retry_after_beyond_max_delay_gives_up_at_once() -> None:
    route = respx.post(CHAT_URL).mock(
        return_value=httpx.Response(429, json=RATE_LIMITED, headers={"retry-after": "3600"})
    )
    sleeps = Sleeps()
    with pytest.raises(HttpStatusError) as raised:
        list(client(sleeps).stream(MESSAGES))
    assert (route.call_count, sleeps.waits) == (1, [])
    assert raised.value.retry_after == 3600.0  # the caller can see how long it asked for


@respx.mock
def test_a_connection_failure_is_retried_then_raised() -> None:
    route = respx.post(CHAT_URL).mock(side_effect=httpx.ConnectError("connection refused"))
    sleeps = Sleeps()
    with pytest.raises(RequestFailedError) as raised:
        list(client(sleeps).stream(MESSAGES))
    assert str(raised.value) == "HTTP request failed: connection refused"
    assert (raised.value.attempts, route.call_count, sleeps.waits) == (3, 3, [0.5, 1.0])


@respx.mock
def test_a_timeout_before_the_response_is_retried_then_succeeds() -> None:
    route = respx.post(CHAT_URL).mock(
        side_effect=[httpx.ReadTimeout(""), httpx.Response(200, content=ANSWER)]
    )
    assert text(list(client().stream(MESSAGES))) == "Hi there."
    assert route.call_count == 2


@respx.mock
def test_no_retry_policy_sends_once() -> None:
    route = respx.post(CHAT_URL).mock(side_effect=httpx.ConnectError("refused"))
    with pytest.raises(RequestFailedError) as raised:
        list(client(retry=RetryPolicy.none()).stream(MESSAGES))
    assert (route.call_count, raised.value.attempts) == (1, 1)


class CutStream(httpx.SyncByteStream, httpx.AsyncByteStream):
    """A 200 body that sends ``head`` then loses its connection."""

    def __init__(self, head: bytes) -> None:
        self.head = head

    def __iter__(self) -> Iterator[bytes]:
        yield self.head
        raise httpx.ReadError("connection reset by peer")

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield self.head
        raise httpx.ReadError("connection reset by peer")


def assert_cut_after_first_chunk(got: list[AgentResponseUpdate]) -> None:
    assert text(got) == "Hi"  # what arrived is kept
    last = got[-1]
    assert type(last) is updates.Error
    assert last.error_code == ErrorCode.TRANSPORT_ERROR
    assert "connection reset by peer" in last.message


@respx.mock
def test_a_body_that_fails_after_200_is_not_retried_and_ends_in_band() -> None:
    route = respx.post(CHAT_URL).mock(
        side_effect=[
            httpx.Response(200, stream=CutStream(CHUNK)),
            httpx.Response(200, content=ANSWER),
        ]
    )
    sleeps = Sleeps()
    got = list(client(sleeps).stream(MESSAGES))  # no exception: the failure is an update
    assert_cut_after_first_chunk(got)
    assert (route.call_count, sleeps.waits) == (1, [])


@respx.mock
def test_a_caller_owned_http_client_is_used_and_not_closed() -> None:
    respx.post(CHAT_URL).mock(return_value=httpx.Response(200, content=ANSWER))
    with httpx.Client() as own:
        with HttpChatClient("openai_chat", BASE, model="m", http_client=own) as leaf:
            assert text(list(leaf.stream(MESSAGES))) == "Hi there."
        assert not own.is_closed
    with HttpChatClient("openai_chat", BASE, model="m") as leaf:
        pass
    with pytest.raises(RuntimeError, match="closed"):  # its own client was closed
        list(leaf.stream(MESSAGES))


@respx.mock
def test_decoder_options_reach_the_pipeline() -> None:
    respx.post(CHAT_URL).mock(return_value=httpx.Response(200, content=ANSWER))
    got = list(client(max_line_bytes=64).stream(MESSAGES))
    assert [u.error_code for u in got if type(u) is updates.Error] == [ErrorCode.SSE_LIMIT_EXCEEDED]


# -- async -------------------------------------------------------------------------------------


@respx.mock
def test_async_streams_retries_and_honours_retry_after() -> None:
    route = respx.post(CHAT_URL).mock(
        side_effect=[
            httpx.Response(429, headers={"retry-after-ms": "20"}),
            httpx.ConnectError("refused"),
            httpx.Response(200, content=ANSWER),
        ]
    )
    sleeps = Sleeps()

    async def go() -> list[AgentResponseUpdate]:
        async with aclient(sleeps) as leaf:
            return await collected(leaf.stream(MESSAGES))

    assert text(asyncio.run(go())) == "Hi there."
    assert (route.call_count, sleeps.waits) == (3, [0.02, 1.0])


@respx.mock
def test_async_errors_are_typed_and_bounded() -> None:
    respx.post(CHAT_URL).mock(return_value=httpx.Response(500, json=RATE_LIMITED))
    sleeps = Sleeps()

    async def go() -> None:
        async with aclient(sleeps) as leaf:
            await collected(leaf.stream(MESSAGES))

    with pytest.raises(HttpStatusError) as raised:
        asyncio.run(go())
    assert (raised.value.status, raised.value.attempts, sleeps.waits) == (500, 3, [0.5, 1.0])
    assert raised.value.provider_message == "Rate limit reached"

    respx.post(CHAT_URL).mock(side_effect=httpx.ConnectError("refused"))
    with pytest.raises(RequestFailedError):
        asyncio.run(go())


@respx.mock
def test_async_body_that_fails_after_200_is_not_retried_and_ends_in_band() -> None:
    route = respx.post(CHAT_URL).mock(return_value=httpx.Response(200, stream=CutStream(CHUNK)))
    sleeps = Sleeps()

    async def go() -> list[AgentResponseUpdate]:
        async with aclient(sleeps) as leaf:
            return await collected(leaf.stream(MESSAGES))

    assert_cut_after_first_chunk(asyncio.run(go()))
    assert (route.call_count, sleeps.waits) == (1, [])


@respx.mock
def test_anthropic_gets_its_required_token_limit_when_none_is_set() -> None:
    """The Messages API rejects a request without ``max_tokens``: the leaf sends the format's
    default (4,096) unless the call or the client sets one."""
    route = respx.post(WIRE["anthropic_messages"][0]).mock(return_value=httpx.Response(200))
    list(client(format="anthropic_messages").stream(MESSAGES))
    assert sent(route)["max_tokens"] == 4096
    list(client(format="anthropic_messages", max_tokens=100).stream(MESSAGES))
    assert sent(route)["max_tokens"] == 100
    list(client(format="anthropic_messages").stream(MESSAGES, ChatOptions(max_tokens=7)))
    assert sent(route)["max_tokens"] == 7
    chat = respx.post(CHAT_URL).mock(return_value=httpx.Response(200))
    list(client().stream(MESSAGES))
    assert "max_completion_tokens" not in sent(chat)
    assert "max_tokens" not in sent(chat)
