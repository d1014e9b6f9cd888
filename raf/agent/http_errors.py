"""What an error response says, read from its status, headers and body: pure functions, no IO.
:mod:`raf.agent.http_client` reads the response and passes the values here.
"""

from __future__ import annotations

import email.utils
import math
from collections.abc import Mapping

import httpx
import msgspec

from raf.agent.errors import HttpStatusError
from raf.limits import MAX_ERROR_BODY_BYTES

__all__ = ["provider_error", "retry_after", "status_error"]


def retry_after(headers: Mapping[str, str], now: float) -> float | None:
    """The wait, in seconds, a response's headers ask for: ``retry-after-ms`` (milliseconds,
    OpenAI's), else ``Retry-After`` as seconds or as an HTTP date (less ``now``, a POSIX
    time; a date past is 0). ``None``: no such header, or one that is not a number or a date
    (a negative or non-finite number included). ``headers`` is looked up by lower-case name
    (an ``httpx.Headers`` is case-insensitive)."""
    milliseconds = _seconds(headers.get("retry-after-ms"))
    if milliseconds is not None:
        return milliseconds / 1000
    value = headers.get("retry-after")
    if value is None:
        return None
    seconds = _seconds(value)
    if seconds is not None:
        return seconds
    try:
        when = email.utils.parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # an HTTP date is GMT; a date without a zone is taken as such
        return None
    return max(when.timestamp() - now, 0.0)


def _seconds(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        seconds = float(value.strip())
    except ValueError:
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


def provider_error(
    body: bytes, headers: Mapping[str, str] | None = None
) -> tuple[str | None, str | None]:
    """The provider's message and error type in an error body, or ``None`` for each it does
    not hold. Reads every shape raf's formats answer with (their
    :attr:`raf.formats.Format.error_document`, checked by a test): ``{"error": {"message",
    "type"}}`` (OpenAI, Anthropic under ``"type": "error"``), ``{"error": {"message",
    "status", "code"}}`` (Google; ``status`` is the type), ``{"error": "<message>"}``
    (Ollama), ``{"message": "<message>"}`` (or ``"Message"``) with no ``error`` (Cohere,
    sometimes beside an ``id``, no type; Bedrock, which names the type in a header), and a
    JSON array of one such object (Gemini's streaming endpoint). A body without a type takes
    it from ``headers``' ``x-amzn-ErrorType`` (``ThrottlingException:http://...``: the part
    before the first ``:``), looked up by lower-case name as :func:`retry_after` does."""
    message, kind = _body_error(body)
    if kind is None and headers is not None:
        kind = _amzn_error_type(headers)
    return message, kind


def _amzn_error_type(headers: Mapping[str, str]) -> str | None:
    value = headers.get("x-amzn-errortype")
    if value is None:
        value = next((v for k, v in headers.items() if k.lower() == "x-amzn-errortype"), None)
    if not isinstance(value, str):
        return None
    kind = value.split(":", 1)[0].strip()
    return kind or None


def _body_error(body: bytes) -> tuple[str | None, str | None]:
    try:
        document = msgspec.json.decode(body)
    except msgspec.DecodeError:
        return None, None
    if isinstance(document, list) and document:
        document = document[0]
    if not isinstance(document, dict):
        return None, None
    error = document.get("error")
    if error is None:
        for key in ("message", "Message"):
            if isinstance(document.get(key), str):
                return document[key], None
    if isinstance(error, str):
        return error, None
    if not isinstance(error, dict):
        return None, None
    message = error.get("message")
    kind = next(
        (error[key] for key in ("type", "status", "code") if isinstance(error.get(key), str)),
        None,
    )
    return (message if isinstance(message, str) else None), kind


def status_error(
    status: int, reason: str, headers: Mapping[str, str], body: bytes, *, now: float, attempts: int
) -> HttpStatusError:
    """The :class:`HttpStatusError` of a response with a non-success ``status``: RAF's message
    ``Chat API returned 429 Too Many Requests: <body>``, the body (at most
    :data:`raf.limits.MAX_ERROR_BODY_BYTES`, decoded as UTF-8 with replacement), the wait it
    asks for and the provider's message and type (the type from the body, else from
    Bedrock's ``x-amzn-ErrorType`` header)."""
    reason = httpx.codes.get_reason_phrase(status) or reason
    text = body[:MAX_ERROR_BODY_BYTES].decode(errors="replace")
    message, kind = provider_error(body[:MAX_ERROR_BODY_BYTES], headers)
    shown = f"{status} {reason}".strip()
    return HttpStatusError(
        f"Chat API returned {shown}: {text}",
        status=status,
        reason=reason,
        retry_after=retry_after(headers, now),
        body=text,
        provider_message=message,
        error_type=kind,
        attempts=attempts,
    )
