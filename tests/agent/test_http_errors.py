"""What an error response says (raf.agent.http_errors): Retry-After in its three forms, and
the provider's message and type in the error body of every format."""

from __future__ import annotations

import email.utils

import httpx
import msgspec
import pytest

from raf import formats
from raf.agent.http_errors import provider_error, retry_after, status_error
from raf.limits import MAX_ERROR_BODY_BYTES

NOW = 1_700_000_000.0


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after": "7"}, 7.0),
        ({"retry-after": " 1.5 "}, 1.5),
        ({"retry-after": "0"}, 0.0),
        ({"retry-after-ms": "250"}, 0.25),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),  # the finer one wins
        ({"retry-after-ms": "soon", "retry-after": "9"}, 9.0),  # an unreadable one is ignored
        ({"retry-after": email.utils.formatdate(NOW + 30, usegmt=True)}, 30.0),
        ({"retry-after": email.utils.formatdate(NOW - 30, usegmt=True)}, 0.0),  # past: now
        ({"retry-after": "-3"}, None),
        ({"retry-after": "nan"}, None),
        ({"retry-after": "inf"}, None),
        ({"retry-after": "tomorrow"}, None),
        ({"retry-after": ""}, None),
        ({}, None),
    ],
)
def test_retry_after(headers: dict[str, str], expected: float | None) -> None:
    assert retry_after(headers, NOW) == expected


@pytest.mark.parametrize("name", formats.names())
@pytest.mark.parametrize("status", [400, 401, 429, 500, 503])
def test_every_formats_error_document_is_read(name: str, status: int) -> None:
    format = formats.get(name)
    document = format.error_document(status, "slow down")
    headers = dict(format.error_headers(status)) if format.error_headers else {}
    message, kind = provider_error(msgspec.json.encode(document), headers)
    assert message == "slow down"
    assert isinstance(document, dict)
    error = document.get("error")
    expected = None if not isinstance(error, dict) else error.get("type") or error.get("status")
    if "x-amzn-ErrorType" in headers:  # Bedrock's: the name before ":<namespace URL>"
        expected = headers["x-amzn-ErrorType"].split(":", 1)[0]
    assert kind == expected
    # every format but Ollama's and Cohere's names a type
    assert name in ("ollama_chat", "cohere_v2") or kind


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            b'[{"error": {"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED"}}]',
            ("quota", "RESOURCE_EXHAUSTED"),
        ),
        (
            b'{"error": {"message": "m", "code": "rate_limit_exceeded"}}',
            ("m", "rate_limit_exceeded"),
        ),
        (b'{"error": {"code": 500}}', (None, None)),
        # Cohere's: the message at the top level, sometimes beside an id, no type
        (
            b'{"id": "8f2c", "message": "invalid request: model not found"}',
            ("invalid request: model not found", None),
        ),
        (b'{"message": 429}', (None, None)),
        # Bedrock's Smithy services sometimes capitalise it
        (
            b'{"Message": "Too many requests, please wait."}',
            ("Too many requests, please wait.", None),
        ),
        (b'{"error": {"code": 500}, "message": "not the provider\'s"}', (None, None)),
        (b'{"detail": "nope"}', (None, None)),
        (b"<html>Bad Gateway</html>", (None, None)),
        (b"", (None, None)),
        (b"[]", (None, None)),
        (b'"error"', (None, None)),
    ],
)
def test_provider_error_shapes(body: bytes, expected: tuple[str | None, str | None]) -> None:
    assert provider_error(body) == expected


def test_status_error_says_what_raf_says_and_keeps_the_details() -> None:
    body = msgspec.json.encode(formats.get("anthropic_messages").error_document(529, "Overloaded"))
    error = status_error(529, "", {"retry-after": "3"}, body, now=NOW, attempts=2)
    assert error.message == f"Chat API returned 529: {body.decode()}"  # no reason phrase known
    assert (error.status, error.retry_after, error.attempts) == (529, 3.0, 2)
    assert (error.provider_message, error.error_type) == ("Overloaded", "overloaded_error")
    error = status_error(429, "whatever", {}, b"slow", now=NOW, attempts=1)
    assert str(error) == "Chat API returned 429 Too Many Requests: slow"  # the canonical reason
    assert error.reason == "Too Many Requests"


def test_status_error_keeps_at_most_the_limit_of_the_body() -> None:
    error = status_error(500, "", {}, b"x" * (MAX_ERROR_BODY_BYTES + 10), now=NOW, attempts=1)
    assert len(error.body) == MAX_ERROR_BODY_BYTES
    broken = status_error(500, "", {}, b"\xff\xfe ok", now=NOW, attempts=1)
    assert broken.body == "\ufffd\ufffd ok"  # not UTF-8: replaced, never raised


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        (
            {
                "x-amzn-ErrorType": "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/"
            },
            "ThrottlingException",
        ),
        ({"X-Amzn-Errortype": "ValidationException"}, "ValidationException"),
        ({"x-amzn-errortype": ":http://x/"}, None),
        ({"content-type": "application/json"}, None),
    ],
)
def test_bedrock_s_error_type_is_read_from_its_header(
    headers: dict[str, str], expected: str | None
) -> None:
    body = b'{"message": "Too many tokens, please wait before trying again."}'
    message = "Too many tokens, please wait before trying again."
    assert provider_error(body, headers) == (message, expected)
    error = status_error(429, "", httpx.Headers(headers), body, now=NOW, attempts=1)
    assert (error.provider_message, error.error_type) == (message, expected)


def test_a_type_in_the_body_wins_over_the_header() -> None:
    body = b'{"error": {"message": "m", "type": "rate_limit_error"}}'
    headers = {"x-amzn-ErrorType": "ThrottlingException:http://x/"}
    assert provider_error(body, headers) == ("m", "rate_limit_error")
