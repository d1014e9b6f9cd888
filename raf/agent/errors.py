"""The errors a chat client raises before its stream starts (RAF's "stream-level" errors,
raf-spec 2.1): the request could not be made, or the provider answered with an error status.
Everything after the first byte is in-band (``Error`` updates), so nothing that arrived is lost.
"""

from __future__ import annotations

__all__ = ["ChatClientError", "HttpStatusError", "RequestFailedError"]


class ChatClientError(Exception):
    """Base of the errors a chat client raises instead of returning a stream.

    Attributes:
        attempts: how many requests were made (retries included).
    """

    def __init__(self, message: str, *, attempts: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.attempts = attempts


class RequestFailedError(ChatClientError):
    """No response arrived: the connection failed or timed out before the status line
    (RAF's ``HTTP request failed: <cause>``)."""


class HttpStatusError(ChatClientError):
    """The provider answered with a non-success status (RAF's ``Chat API returned <status>:
    <body>``).

    Attributes:
        status: the HTTP status code.
        reason: its canonical reason phrase (``Too Many Requests``).
        retry_after: the delay the provider asked for, in seconds (``Retry-After`` as seconds
            or an HTTP date, or ``retry-after-ms``), ``None`` when it gave none.
        body: the response body as text (at most :data:`raf.limits.MAX_ERROR_BODY_BYTES`).
        provider_message: the error message of the provider's error body, when it has one
            of a shape the format knows (``{"error": {"message": ...}}`` and the like).
        error_type: the provider's error type or code, when the body names one.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int,
        reason: str = "",
        retry_after: float | None = None,
        body: str = "",
        provider_message: str | None = None,
        error_type: str | None = None,
        attempts: int = 1,
    ) -> None:
        super().__init__(message, attempts=attempts)
        self.status = status
        self.reason = reason
        self.retry_after = retry_after
        self.body = body
        self.provider_message = provider_message
        self.error_type = error_type
